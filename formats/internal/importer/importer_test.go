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
