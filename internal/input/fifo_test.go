//go:build unix

package input

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFileNamedPipeOnce: a named pipe can be read only once, so
// ReadFile keeps what it read and returns it again (a copy) for the same
// path, as `pbl run m.pbl --data D=<(...)` needs for its second query.
func TestReadFileNamedPipeOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	want := []byte("x,d\n1,2\n")
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(want)
		f.Close()
	}()
	first, err := ReadFile(path)
	if err != nil || !bytes.Equal(first, want) {
		t.Fatalf("first read: %q, %v; want %q", first, err, want)
	}
	first[0] = 'y' // the caller's copy: the kept one is not changed
	second, err := ReadFile(path)
	if err != nil || !bytes.Equal(second, want) {
		t.Fatalf("second read: %q, %v; want %q again", second, err, want)
	}
}
