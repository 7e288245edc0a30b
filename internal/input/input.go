package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultMaxSize is the default limit on the size of one input, after
// decompression (256 MiB).
const DefaultMaxSize = 256 << 20

// maxSize is the limit set by SetMaxSize, or 0 for DefaultMaxSize (so
// that start-up need not set it).
var maxSize atomic.Int64

// MaxSize returns the limit on the size of one input, in bytes.
func MaxSize() int64 {
	if n := maxSize.Load(); n > 0 {
		return n
	}
	return DefaultMaxSize
}

// SetMaxSize sets the limit on the size of one input, in bytes; n ≤ 0
// restores the default.
func SetMaxSize(n int64) { maxSize.Store(max(n, 0)) }

// TooLargeError is the error of an input larger than the limit.
type TooLargeError struct {
	What  string // "input", or "decompressed input"
	Size  int64  // the size, or -1 if it is only known to exceed Limit
	Over  int64  // when Size is -1: a size the input is known to exceed (> Limit), or 0
	Limit int64
}

func (e *TooLargeError) Error() string {
	limit := Bytes(e.Limit)
	if e.Size < 0 && e.Over > e.Limit {
		return fmt.Sprintf("the %s is over %s, more than the limit of %s", e.What, Bytes(e.Over), limit)
	}
	if e.Size < 0 { // only known to exceed the limit
		return fmt.Sprintf("the %s is more than the limit of %s", e.What, limit)
	}
	size := Bytes(e.Size)
	if size == limit { // rounded alike: give the bytes
		size, limit = strconv.FormatInt(e.Size, 10)+" B", strconv.FormatInt(e.Limit, 10)+" B"
	}
	return fmt.Sprintf("the %s is %s, more than the limit of %s", e.What, size, limit)
}

// ErrNotRegular is the error of a path that is not a regular file (a
// named pipe, a device, a socket) where only regular files are read.
var ErrNotRegular = errors.New("not a regular file")

// RequireRegular returns an *os.PathError wrapping ErrNotRegular if path
// exists and is not a regular file, and nil otherwise: a path that cannot
// be opened is left for the open to report. Opening a named pipe for
// reading waits for a writer, which may never come.
func RequireRegular(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return &os.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return nil
}

// Which returns the file of files that path names, whatever the path or
// symbolic link each is named by, or "" if there is none (or path does not
// exist): a command checks with it that it does not write over one of its
// inputs.
func Which(path string, files ...string) string {
	fo, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, f := range files {
		if fi, err := os.Stat(f); f != "" && err == nil && os.SameFile(fo, fi) {
			return f
		}
	}
	return ""
}

// GzipError is the error of input that starts with gzip's magic bytes but
// does not decompress: a truncated or corrupt file. Err is the
// decompressor's error: io.ErrUnexpectedEOF for a truncated file,
// gzip.ErrChecksum, gzip.ErrHeader or a flate.CorruptInputError for a
// corrupt one.
type GzipError struct {
	Err error
}

func (e *GzipError) Error() string {
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		// As package data says of CSV input.
		return fmt.Sprintf("the file starts as gzip data but is not valid gzip (%v): is it truncated?", e.Err)
	}
	return fmt.Sprintf("invalid gzip data: %v", e.Err)
}

func (e *GzipError) Unwrap() error { return e.Err }

// ReadFile reads the file at path, refusing one larger than MaxSize. Its
// errors are *os.PathError values naming path (errors.Is(err,
// fs.ErrNotExist) works); a file too large holds a *TooLargeError
// (errors.As finds it).
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpen(f)
}

// ReadOpen reads the open file f to its end as ReadFile does, with its
// limit and errors, naming f.Name(). It does not close f.
func ReadOpen(f *os.File) ([]byte, error) {
	path := f.Name()
	limit := MaxSize()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: &TooLargeError{What: "input", Size: fi.Size(), Limit: limit}}
	}
	b, err := readAll(f, "input", limit)
	var pe *os.PathError
	if err != nil && !errors.As(err, &pe) {
		err = &os.PathError{Op: "read", Path: path, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// ReadData reads a data file as ReadFile does. A path that is not a
// regular file (a pipe such as the shell's <(...), or /dev/stdin) can be
// read only once, but a command may read its data more than once (each
// query of `pbl run m.pbl --data D=<(...)`, each pass of a learner): so
// what was read from it, or the error, is kept for the rest of the
// process, by the file's identity (device and inode, so that another pipe
// at the same /dev/fd path is read afresh), and later calls return a copy.
func ReadData(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return ReadFile(path)
	}
	v, _ := readOnce.LoadOrStore(fileKey(path, fi), &onceRead{})
	r := v.(*onceRead)
	r.once.Do(func() { r.b, r.err = ReadFile(path) })
	if r.err != nil {
		return nil, r.err
	}
	return bytes.Clone(r.b), nil
}

// readOnce holds, by fileKey, the *onceRead of each file that is not a
// regular file that ReadData has read.
var readOnce sync.Map

// An onceRead is what reading a file once gave.
type onceRead struct {
	once sync.Once
	b    []byte
	err  error
}

// readAll reads r to its end, refusing more than limit bytes.
func readAll(r io.Reader, what string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{What: what, Size: -1, Limit: limit}
	}
	return b, nil
}

// Gunzip decompresses src, refusing output larger than MaxSize (a
// *TooLargeError). Data that does not decompress, truncated or corrupt,
// gives a *GzipError; the caller names the file.
func Gunzip(src []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		if errors.Is(err, io.EOF) { // the header itself is cut short
			err = io.ErrUnexpectedEOF
		}
		return nil, &GzipError{Err: err}
	}
	limit := MaxSize()
	out, err := readAll(zr, "decompressed input", limit)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		// Measure how much more there is, within a bound (decompressing
		// a bomb to its end could take long), so that the message says
		// how far to raise the limit.
		const measure = 256 << 20
		n, err := io.Copy(io.Discard, io.LimitReader(zr, measure))
		switch total := limit + 1 + n; {
		case err != nil:
		case n < measure:
			tl.Size = total
		default:
			tl.Over = total
		}
		return nil, tl
	}
	if err != nil {
		return nil, &GzipError{Err: err}
	}
	return out, nil
}

// Bytes renders a size for people: 256 MiB, 1.5 GiB, 900 B.
func Bytes(n int64) string {
	x := float64(n)
	for _, u := range []struct {
		unit string
		size float64
	}{{"EiB", 1 << 60}, {"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if x >= u.size {
			s := strconv.FormatFloat(x/u.size, 'f', 1, 64)
			return strings.TrimSuffix(s, ".0") + " " + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}
