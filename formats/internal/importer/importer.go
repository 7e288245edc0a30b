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

// Read is the entry point of a format's reader: src, decompressed if it is
// gzip-compressed (see Decompress), parsed by parse as the file filename
// in the format named format. A panic in parse, which is meant never to
// panic, is returned as an error at the start of filename (see Recover).
func Read(filename, format string, src []byte, parse func(filename string, src []byte) (*ir.Model, error)) (m *ir.Model, err error) {
	defer Recover(filename, format, &m, &err)
	if src, err = Decompress(filename, src); err != nil {
		return nil, err
	}
	return parse(filename, src)
}

// Recover turns a panic in a reader into an error at the start of
// filename. Readers are meant never to panic; Read defers it:
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
//
// The result is strconv.ParseFloat's, the nearest float64. Tables are mostly
// short decimals, which are read here without strconv and without
// allocating: a number with at most 19 significant digits is an integer
// m times 10^e, and when m < 2^53 and |e| <= 22 both are exact float64s, so
// one multiplication or division rounds correctly (Clinger's fast path,
// also strconv's first). Any other number goes to strconv.
func ParseNumber(b []byte) (float64, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, sig, exp := 0, 0, 0 // sig: digits in mant, leading zeros not counted
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		digits++
		if sig > 0 || b[i] != '0' {
			sig++
			mant = mant*10 + uint64(b[i]-'0') // may wrap once sig > 19: not used then
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			digits++
			exp--
			if sig > 0 || b[i] != '0' {
				sig++
				mant = mant*10 + uint64(b[i]-'0')
			}
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		e, edigits := 0, 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			edigits++
			if e < 100000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if edigits == 0 {
			return 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) {
		return 0, false
	}
	if sig <= 19 && mant <= 1<<53 && -22 <= exp && exp <= 22 {
		x := float64(mant)
		if exp < 0 {
			x /= pow10[-exp]
		} else {
			x *= pow10[exp]
		}
		if neg {
			x = -x
		}
		return x, true
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	return x, true
}

// pow10 holds the powers of ten that are exact float64s.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Decompress returns src decompressed if it starts with gzip's magic
// bytes, else src: every format pbl reads may come gzip-compressed,
// whatever the file's name. An error is positioned at the start of
// filename.
func Decompress(filename string, src []byte) ([]byte, error) {
	if !IsGzip(src) {
		return src, nil
	}
	out, err := Gunzip(src)
	if err != nil {
		return nil, ir.ErrorList{{Pos: ir.Pos{File: filename, Line: 1}, Msg: err.Error(), Err: err}}
	}
	return out, nil
}
