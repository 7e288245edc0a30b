package data

import "math"

// This file parses the common decimal numbers of a real-valued column
// without strconv's generality: an optional sign, at most 19 digits with
// an optional point, an optional exponent, and a value that
// Clinger's fast path gives correctly rounded (the digits as an integer
// of at most 2^53, times or divided by a power of ten of at most 10^22,
// both exact in binary, so the one rounding of the product or quotient is
// the correct one). Anything else (more digits, a larger exponent, inf,
// nan, hexadecimal, a syntax error) goes to strconv.ParseFloat, which
// gives the same bits on the common numbers (TestParseFloat) and the
// errors on the rest.

// pow10 are the powers of ten exact in binary.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat returns the number s writes and true, or false when s is not
// of the simple form above (then strconv.ParseFloat decides). The sign is
// taken without a branch: random signs would mispredict half the time.
func parseFloat(s []byte) (float64, bool) {
	x, n, ok := parseFloatPrefix(s)
	return x, ok && n == len(s)
}

// parseFloatPrefix is parseFloat of the longest prefix of s that can be a
// number of the simple form: it returns that number and the prefix's
// length, or false when that prefix is not one (the caller then looks at
// the whole field).
func parseFloatPrefix(s []byte) (float64, int, bool) {
	if len(s) == 0 {
		return 0, 0, false
	}
	neg := b2i(s[0] == '-')
	i := neg | b2i(s[0] == '+')
	var mant uint64
	p := i
	for ; i < len(s) && s[i]-'0' <= 9; i++ {
		mant = mant*10 + uint64(s[i]-'0')
	}
	nd, exp := i-p, 0
	if i < len(s) && s[i] == '.' {
		i++
		p = i
		for ; i < len(s) && s[i]-'0' <= 9; i++ {
			mant = mant*10 + uint64(s[i]-'0')
		}
		exp = p - i
		nd += i - p
	}
	if nd == 0 || nd > 19 { // no digit, or mant may have wrapped
		return 0, 0, false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		p = i
		e := 0
		for ; i < len(s) && s[i]-'0' <= 9 && i-p < 4; i++ {
			e = e*10 + int(s[i]-'0')
		}
		if i == p {
			return 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if mant > 1<<53 {
		return 0, 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp >= 0 && exp < len(pow10):
		f *= pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f /= pow10[-exp]
	default:
		return 0, 0, false
	}
	return math.Float64frombits(math.Float64bits(f) | uint64(neg)<<63), i, true
}

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
