package data

// This file parses the common decimal numbers of a real-valued column
// without strconv's generality: an optional sign, at most 19 significant
// digits with an optional point, an optional exponent, and a value that
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
// of the simple form above (then strconv.ParseFloat decides).
func parseFloat(s []byte) (float64, bool) {
	i := 0
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i++
	}
	var mant uint64
	nd, exp := 0, 0 // significant digits, and the power of ten of the last
	digits, point := false, false
	for ; i < len(s); i++ {
		c := s[i]
		if c-'0' <= 9 {
			digits = true
			if point {
				exp--
			}
			if mant == 0 && c == '0' {
				continue // a leading zero
			}
			if nd == 19 {
				return 0, false
			}
			mant = mant*10 + uint64(c-'0')
			nd++
			continue
		}
		if c == '.' && !point {
			point = true
			continue
		}
		break
	}
	if !digits {
		return 0, false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return 0, false
		}
		e := 0
		for ; i < len(s) && s[i]-'0' <= 9; i++ {
			if e > 1000 {
				return 0, false
			}
			e = e*10 + int(s[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) || mant > 1<<53 {
		return 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp >= 0 && exp < len(pow10):
		f *= pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f /= pow10[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}
