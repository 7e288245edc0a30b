package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestDecompress: plain text is returned as it is, gzip data
// decompressed, and a truncated gzip file is an error at line 1.
func TestDecompress(t *testing.T) {
	plain := []byte("network x {\n}\n")
	if got, err := Decompress("f", plain); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("plain: %q, %v", got, err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	if got, err := Decompress("f", gz.Bytes()); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("gzip: %q, %v", got, err)
	}
	_, err := Decompress("f", gz.Bytes()[:gz.Len()/2])
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos != (ir.Pos{File: "f", Line: 1}) {
		t.Errorf("truncated gzip: %v, want one error at f:1", err)
	}
}

// TestRead: a format's parse is given the text decompressed and the file's
// name, its model and errors are returned as they are, a truncated gzip
// file is not parsed, and a panic in parse is an error at the start of the
// file that names the format.
func TestRead(t *testing.T) {
	plain := []byte("network x {\n}\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	want := &ir.Model{}
	parsed := 0
	parse := func(filename string, src []byte) (*ir.Model, error) {
		parsed++
		if filename != "f" || !bytes.Equal(src, plain) {
			t.Errorf("parse(%q, %q)", filename, src)
		}
		return want, nil
	}
	for _, src := range [][]byte{plain, gz.Bytes()} {
		if m, err := Read("f", "BIF", src, parse); m != want || err != nil {
			t.Errorf("Read: %v, %v", m, err)
		}
	}
	if m, err := Read("f", "BIF", gz.Bytes()[:gz.Len()/2], parse); m != nil || err == nil || parsed != 2 {
		t.Errorf("truncated gzip: %v, %v, parsed %d times", m, err, parsed)
	}
	m, err := Read("f", "NET", plain, func(string, []byte) (*ir.Model, error) { panic("boom") })
	var list ir.ErrorList
	if m != nil || !errors.As(err, &list) || len(list) != 1 || list[0].Pos != (ir.Pos{File: "f", Line: 1, Col: 1}) ||
		list[0].Msg != "internal error reading NET: boom" {
		t.Errorf("panic: %v, %v; want one error at f:1:1", m, err)
	}
}
