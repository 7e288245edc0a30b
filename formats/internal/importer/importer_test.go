package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func TestRecover(t *testing.T) {
	read := func() (m *ir.Model, err error) {
		defer Recover("x.bif", "BIF", &m, &err)
		panic("boom")
	}
	m, err := read()
	if m != nil || err == nil || err.Error() != "x.bif:1:1: internal error reading BIF: boom" {
		t.Errorf("got %v, %v", m, err)
	}
}

func TestGunzip(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("network x {\n}\n"))
	w.Close()
	if !IsGzip(b.Bytes()) || IsGzip([]byte("network")) || IsGzip(nil) {
		t.Error("IsGzip is wrong")
	}
	out, err := Gunzip(b.Bytes())
	if err != nil || string(out) != "network x {\n}\n" {
		t.Errorf("Gunzip = %q, %v", out, err)
	}
	if _, err := Gunzip(b.Bytes()[:b.Len()-3]); err == nil || !strings.Contains(err.Error(), "invalid gzip data") {
		t.Errorf("truncated input: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	called := false
	_, err := ReadFile("/nonexistent/x.bif", func(string, []byte) (*ir.Model, error) { called = true; return nil, nil })
	if called || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("called %v, err %v", called, err)
	}
}
