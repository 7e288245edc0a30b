//go:build unix

package input

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadDataNamedPipeOnce: a named pipe can be read only once, so
// ReadData keeps what it read and returns it again (a copy) for the same
// file, as `pbl run m.pbl --data D=<(...)` needs for its second query.
func TestReadDataNamedPipeOnce(t *testing.T) {
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
	type read struct {
		b   []byte
		err error
	}
	reads := make(chan read)
	go func() {
		for range 2 {
			b, err := ReadData(path)
			reads <- read{bytes.Clone(b), err}
			if b != nil {
				b[0] = 'y' // the caller's copy: the kept one must not change
			}
		}
	}()
	for i := range 2 {
		select {
		case r := <-reads:
			if r.err != nil || !bytes.Equal(r.b, want) {
				t.Fatalf("read %d: %q, %v; want %q", i+1, r.b, r.err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("read %d did not return within 10s: the pipe was opened again", i+1)
		}
	}
}
