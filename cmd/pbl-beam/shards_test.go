package main

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// countingFS is a Beam filesystem of one file, "countfs://f.csv", that
// counts how many times it has been opened and closed.
type countingFS struct{}

var countfsOpen, countfsClosed atomic.Int64

func (countingFS) Close() error { countfsClosed.Add(1); return nil }
func (countingFS) List(context.Context, string) ([]string, error) {
	return []string{"countfs://f.csv"}, nil
}
func (countingFS) OpenRead(_ context.Context, name string) (io.ReadCloser, error) {
	if name != "countfs://f.csv" {
		return nil, io.ErrUnexpectedEOF
	}
	return io.NopCloser(strings.NewReader("A\na1\n")), nil
}
func (countingFS) OpenWrite(context.Context, string) (io.WriteCloser, error) {
	return nil, io.ErrShortWrite
}
func (countingFS) Size(context.Context, string) (int64, error) { return 5, nil }

func init() {
	filesystem.Register("countfs", func(context.Context) filesystem.Interface {
		countfsOpen.Add(1)
		return countingFS{}
	})
}

// TestOpenShardClosesFilesystem checks that every Beam filesystem
// openShard makes is closed, when the shard opens (by closing the shard)
// and when it does not.
func TestOpenShardClosesFilesystem(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{"countfs://f.csv", "countfs://missing.csv"} {
		open0, closed0 := countfsOpen.Load(), countfsClosed.Load()
		r, err := openShard(ctx, path)
		if err == nil {
			if b, err := io.ReadAll(r); err != nil || string(b) != "A\na1\n" {
				t.Errorf("%s: read %q, %v", path, b, err)
			}
			if err := r.Close(); err != nil {
				t.Errorf("%s: close: %v", path, err)
			}
		}
		if opened, closed := countfsOpen.Load()-open0, countfsClosed.Load()-closed0; opened != 1 || closed != 1 {
			t.Errorf("%s: %d filesystems made, %d closed; want 1 and 1", path, opened, closed)
		}
	}
}
