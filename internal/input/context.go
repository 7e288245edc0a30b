package input

import (
	"context"
	"io"
	"os"
)

// ReadDataContext is ReadData, stopped when ctx is done (returning
// ctx.Err()): a regular file within the limit is read into a buffer of
// its size a megabyte at a time, ctx checked between; anything else (a
// pipe, a file over the limit or that grows as it is read, an error) is
// ReadData's, with its errors. The language server reads data files
// this way, within its time limits.
func ReadDataContext(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return ReadData(path)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSize() {
		return ReadData(path)
	}
	b := make([]byte, fi.Size()+1)
	n := 0
	for n < len(b) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, err := f.Read(b[n:min(len(b), n+1<<20)])
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
	}
	if n == len(b) { // the file grew
		return ReadData(path)
	}
	return b[:n], nil
}
