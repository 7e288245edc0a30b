package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFileLimit(t *testing.T) {
	defer SetMaxSize(0)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.pbl")
	os.WriteFile(path, bytes.Repeat([]byte("x"), 2000), 0o644)
	SetMaxSize(1999)
	_, err := ReadFile(path)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 2000 || tl.Limit != 1999 {
		t.Fatalf("a file over the limit: %v", err)
	}
	if got := err.Error(); got != "read "+path+": the input is 2000 B, more than the limit of 1999 B (raise it with --max-input)" {
		t.Errorf("message %q", got)
	}
	SetMaxSize(2000)
	if b, err := ReadFile(path); err != nil || len(b) != 2000 {
		t.Fatalf("a file at the limit: %d bytes, %v", len(b), err)
	}
	// A device is read up to the limit and no further.
	SetMaxSize(1 << 20)
	if _, err := ReadFile("/dev/zero"); !errors.As(err, &tl) || tl.Size != -1 {
		t.Errorf("/dev/zero: %v", err)
	}
	// gzip: the decompressed size is what counts.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(make([]byte, 3<<20))
	zw.Close()
	if _, err := Gunzip(z.Bytes()); !errors.As(err, &tl) || tl.What != "decompressed input" {
		t.Errorf("gzip bomb: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {900, "900 B"}, {1024, "1 KiB"}, {256 << 20, "256 MiB"}, {3 << 29, "1.5 GiB"}, {1<<63 - 1, "8 EiB"}} {
		if got := Bytes(tc.n); got != tc.want {
			t.Errorf("Bytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
