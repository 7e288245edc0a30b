package importer

import (
	"strconv"

	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
)

// ReadFile reads the file at path, within pbl's input limit (see
// internal/input), and parses it with read. An error reading the file is
// returned as is (errors.Is(err, fs.ErrNotExist) works); errors in its
// contents are read's.
func ReadFile(path string, read func(filename string, src []byte) (*ir.Model, error)) (*ir.Model, error) {
	src, err := input.ReadFile(path)
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

// Gunzip decompresses src, within pbl's input limit (see internal/input):
// a gzip bomb is refused, with an error of type *input.TooLargeError.
func Gunzip(src []byte) ([]byte, error) { return input.Gunzip(src) }

// ParseNumber parses a number written in decimal, with an optional sign,
// fraction and exponent: 1, 0.25, .5, 1e-05, 0.000000e+00. Forms that
// strconv.ParseFloat also accepts (inf, nan, hexadecimal, underscores) are
// malformed here, as are numbers out of the range of float64.
func ParseNumber(b []byte) (float64, bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	return x, true
}
