package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
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
	if got := err.Error(); got != "read "+path+": the input is 2000 B, more than the limit of 1999 B" {
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
	if _, err := Gunzip(z.Bytes()); !errors.As(err, &tl) || tl.What != "decompressed input" || tl.Size != 3<<20 {
		t.Errorf("gzip bomb: %v", err)
	} else if got, want := err.Error(), "the decompressed input is 3 MiB, more than the limit of 1 MiB"; got != want {
		t.Errorf("gzip bomb: got %q, want %q", got, want)
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

// TestGunzipErrors: gzip data that is cut short or corrupt is a
// *GzipError that says which, wrapping the decompressor's error.
func TestGunzipErrors(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("network n {}\n"))
	zw.Close()
	good := z.Bytes()
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)-5] ^= 0xff // the checksum in the trailer
	for _, tc := range []struct {
		name string
		src  []byte
		want string
		is   error
	}{
		{"magic only", []byte{0x1f, 0x8b}, "the file starts as gzip data but is not valid gzip (unexpected EOF): is it truncated?", io.ErrUnexpectedEOF},
		{"truncated", good[:len(good)-10], "the file starts as gzip data but is not valid gzip (unexpected EOF): is it truncated?", io.ErrUnexpectedEOF},
		{"corrupt", corrupt, "invalid gzip data: gzip: invalid checksum", gzip.ErrChecksum},
	} {
		_, err := Gunzip(tc.src)
		var ge *GzipError
		if !errors.As(err, &ge) || !errors.Is(err, tc.is) || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if out, err := Gunzip(good); err != nil || string(out) != "network n {}\n" {
		t.Errorf("valid gzip: %q, %v", out, err)
	}
}

// TestTooLargeMessage: a size only known to exceed the limit is not said
// twice.
func TestTooLargeMessage(t *testing.T) {
	for _, tc := range []struct {
		e    *TooLargeError
		want string
	}{
		{&TooLargeError{What: "input", Size: -1, Limit: 1 << 10}, "the input is more than the limit of 1 KiB"},
		{&TooLargeError{What: "decompressed input", Size: -1, Over: 257 << 20, Limit: 1 << 20}, "the decompressed input is over 257 MiB, more than the limit of 1 MiB"},
		{&TooLargeError{What: "input", Size: 1536, Limit: 1 << 10}, "the input is 1.5 KiB, more than the limit of 1 KiB"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// MaxSize is the default until set, the limit set, and the default again
// after a limit ≤ 0.
func TestMaxSize(t *testing.T) {
	defer SetMaxSize(0)
	if got := MaxSize(); got != DefaultMaxSize {
		t.Errorf("MaxSize() at start = %d, want %d", got, DefaultMaxSize)
	}
	for _, c := range []struct{ set, want int64 }{
		{1999, 1999}, {0, DefaultMaxSize}, {1 << 40, 1 << 40}, {-5, DefaultMaxSize}, {1, 1},
	} {
		SetMaxSize(c.set)
		if got := MaxSize(); got != c.want {
			t.Errorf("after SetMaxSize(%d): MaxSize() = %d, want %d", c.set, got, c.want)
		}
	}
}

// TestRequireRegular: a regular file and a missing path pass (the open
// reports the latter); a directory does not, with ErrNotRegular.
func TestRequireRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.csv")
	if err := os.WriteFile(file, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RequireRegular(file); err != nil {
		t.Errorf("regular file: %v", err)
	}
	if err := RequireRegular(filepath.Join(dir, "missing.csv")); err != nil {
		t.Errorf("missing file: %v", err)
	}
	err := RequireRegular(dir)
	var pe *os.PathError
	if !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != dir {
		t.Errorf("directory: %v, want a *os.PathError for it matching ErrNotRegular", err)
	}
}

// TestReadDataRegular: a regular file is read afresh each time (not kept),
// and a missing one is the same error as ReadFile's.
func TestReadDataRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	for _, content := range []string{"a\n1\n", "a\n2\n"} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := ReadData(path); err != nil || string(b) != content {
			t.Errorf("ReadData = %q, %v; want %q", b, err, content)
		}
	}
	if _, err := ReadData(path + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestWhich: a path names one of the files whatever the link it goes by;
// a new path, or one naming none of them, gives "".
func TestWhich(t *testing.T) {
	dir := t.TempDir()
	a, b, link := filepath.Join(dir, "a.pbl"), filepath.Join(dir, "b.pbl"), filepath.Join(dir, "l.pbl")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{a, a}, {link, b}, {filepath.Join(dir, ".", "b.pbl"), b}, {filepath.Join(dir, "new.pbl"), ""},
	} {
		if got := Which(tc.path, "", a, b); got != tc.want {
			t.Errorf("Which(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if got := Which(a, b); got != "" {
		t.Errorf("Which(a, b) = %q, want none", got)
	}
}
