package input

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadDataContext: ReadDataContext reads what ReadData reads, with
// its errors, and stops with ctx's error when ctx is done — at once, or
// between the megabytes of a larger file.
func TestReadDataContext(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 200_000) // 3.4 MB
	files := map[string][]byte{"empty.csv": {}, "small.csv": []byte("a,b\n1,2\n"), "big.csv": big}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"empty.csv", "small.csv", "big.csv", "missing.csv", "."} {
		path := filepath.Join(dir, name)
		want, werr := ReadData(path)
		got, err := ReadDataContext(context.Background(), path)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%s: %d bytes, %v; ReadData: %d bytes, %v", name, len(got), err, len(want), werr)
		}
	}
	defer SetMaxSize(0)
	SetMaxSize(1 << 20)
	path := filepath.Join(dir, "big.csv")
	_, werr := ReadData(path)
	if _, err := ReadDataContext(context.Background(), path); err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("over the limit: %v; ReadData: %v", err, werr)
	}
	SetMaxSize(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b, err := ReadDataContext(ctx, path); !errors.Is(err, context.Canceled) || b != nil {
		t.Errorf("ctx done: %d bytes, %v, want context.Canceled", len(b), err)
	}
	// Done after the first megabyte: the read stops there.
	ctx, cancel = context.WithCancel(context.Background())
	r := &cancelAfter{ctx: ctx, cancel: cancel, after: 1}
	if b, err := ReadDataContext(r, path); !errors.Is(err, context.Canceled) || b != nil || r.calls > 3 {
		t.Errorf("ctx done after a megabyte: %d bytes, %v, after %d checks", len(b), err, r.calls)
	}
}

// cancelAfter is a context cancelled after its Err has been asked for
// after+1 times.
type cancelAfter struct {
	ctx    context.Context
	cancel func()
	after  int
	calls  int
}

func (c *cancelAfter) Deadline() (time.Time, bool) { return c.ctx.Deadline() }
func (c *cancelAfter) Done() <-chan struct{}       { return c.ctx.Done() }
func (c *cancelAfter) Value(key any) any           { return c.ctx.Value(key) }

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls > c.after+1 {
		c.cancel()
	}
	return c.ctx.Err()
}
