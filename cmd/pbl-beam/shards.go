package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// remote reports whether path names a file of a Beam filesystem with a
// scheme (gs://, s3://, memfs://) rather than a local file.
func remote(path string) bool { return strings.Contains(path, "://") }

// expand returns the shards a --data pattern names, sorted: a local glob
// (or file) expanded here, or the pattern of a Beam filesystem listed by
// it. No file is an error.
func expand(ctx context.Context, pattern string) ([]string, error) {
	var names []string
	if remote(pattern) {
		fs, err := filesystem.New(ctx, pattern)
		if err != nil {
			return nil, err
		}
		defer fs.Close()
		if names, err = fs.List(ctx, pattern); err != nil {
			return nil, fmt.Errorf("%s: %v", pattern, err)
		}
	} else {
		var err error
		if names, err = filepath.Glob(pattern); err != nil {
			return nil, fmt.Errorf("%s: bad pattern: %v", pattern, err)
		}
		if names == nil {
			if _, err := os.Stat(pattern); err != nil {
				return nil, fmt.Errorf("%s: no such file, and no file matches it as a pattern", pattern)
			}
			names = []string{pattern}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no file matches", pattern)
	}
	slices.Sort(names)
	return names, nil
}

// openShard opens a shard for reading.
func openShard(ctx context.Context, path string) (io.ReadCloser, error) {
	if !remote(path) {
		return os.Open(path)
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &shardFile{r, fs}, nil
}

// shardFile is a shard of a Beam filesystem open for reading: closing it
// closes the filesystem too.
type shardFile struct {
	io.ReadCloser
	fs filesystem.Interface
}

func (f *shardFile) Close() error {
	return errors.Join(f.ReadCloser.Close(), f.fs.Close())
}

// openData opens the shard path and binds its columns to m's variables;
// ignore passes over columns m does not name. The reader closes the shard.
func openData(ctx context.Context, path string, m *ir.Model, ignore bool) (*data.Reader, error) {
	src, err := openShard(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := data.NewReader(path, src, m, data.Options{IgnoreUnknownColumns: ignore})
	if err != nil {
		src.Close()
		return nil, err
	}
	return r, nil
}

// eachBatch reads the rows of r into b until the end of the data, calling
// f with every batch read; it returns the first error of either.
func eachBatch(r *data.Reader, b *data.Batch, f func(*data.Batch) error) error {
	for {
		err := r.Read(b)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			err = f(b)
		}
		if err != nil {
			return err
		}
	}
}

// writeFile writes data to path (local or of a Beam filesystem): a local
// file through a temporary file renamed over it, so that it is never left
// half-written.
func writeFile(ctx context.Context, path string, data []byte) error {
	if !remote(path) {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	return filesystem.Write(ctx, fs, path, data)
}

// output is a file being written: a local file is written to a temporary
// file renamed over the name by commit (so that it is never left
// half-written), a file of a Beam filesystem to the filesystem's writer,
// which commits it when closed.
type output struct {
	io.Writer
	w         io.WriteCloser
	fs        filesystem.Interface
	tmp, path string
}

// create starts writing path.
func create(ctx context.Context, path string) (*output, error) {
	if !remote(path) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
		if err != nil {
			return nil, err
		}
		return &output{Writer: f, w: f, tmp: f.Name(), path: path}, nil
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		fs.Close()
		return nil, err
	}
	return &output{Writer: w, w: w, fs: fs, path: path}, nil
}

// commit finishes the file.
func (o *output) commit() error {
	err := o.w.Close()
	if o.fs != nil {
		o.fs.Close()
		return err
	}
	if err != nil {
		os.Remove(o.tmp)
		return err
	}
	return os.Rename(o.tmp, o.path)
}

// abort gives the file up: a local one is removed.
func (o *output) abort() {
	o.w.Close()
	if o.fs != nil {
		o.fs.Close()
		return
	}
	os.Remove(o.tmp)
}

// readFile reads path (local or of a Beam filesystem).
func readFile(ctx context.Context, path string) ([]byte, error) {
	if !remote(path) {
		return os.ReadFile(path)
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return filesystem.Read(ctx, fs, path)
}

// shardName is the name of output shard i of n with the given prefix and
// extension: PREFIX-00001-of-00004.csv.
func shardName(prefix string, i, n int, ext string) string {
	return fmt.Sprintf("%s-%05d-of-%05d%s", prefix, i, n, ext)
}

// outputPrefix splits an output name into the prefix of its shards and
// their extension: preds.csv gives preds and .csv; a name without one of
// the extensions gets def.
func outputPrefix(name, def string) (string, string) {
	ext := filepath.Ext(name)
	if ext == def {
		return strings.TrimSuffix(name, ext), ext
	}
	return name, def
}
