package importer

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/pbl-lang/pbl/ir"
)

// MaxDecompressed bounds the size of decompressed gzip input (256 MiB).
const MaxDecompressed = 256 << 20

// ReadFile reads the file at path and parses it with read. An error
// reading the file is returned as is (errors.Is(err, fs.ErrNotExist)
// works); errors in its contents are read's.
func ReadFile(path string, read func(filename string, src []byte) (*ir.Model, error)) (*ir.Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return read(path, src)
}

// Recover turns a panic in a reader into an error at the start of
// filename. Readers are meant never to panic; defer it at their entry
// point:
//
//	defer importer.Recover(filename, "BIF", &m, &err)
func Recover(filename, format string, m **ir.Model, err *error) {
	if r := recover(); r != nil {
		*m = nil
		*err = ir.ErrorList{ir.Errorf(ir.Pos{File: filename, Line: 1, Col: 1}, "internal error reading %s: %v", format, r)}
	}
}

// IsGzip reports whether src starts with gzip's magic bytes.
func IsGzip(src []byte) bool { return len(src) >= 2 && src[0] == 0x1f && src[1] == 0x8b }

// Gunzip decompresses src, refusing output larger than MaxDecompressed.
func Gunzip(src []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("invalid gzip data: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxDecompressed+1))
	if err != nil {
		return nil, fmt.Errorf("invalid gzip data: %v", err)
	}
	if len(out) > MaxDecompressed {
		return nil, fmt.Errorf("decompressed input is larger than %d bytes", MaxDecompressed)
	}
	return out, nil
}
