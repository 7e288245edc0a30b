package factor

import "math"

// Scaled is a non-negative number M·2^E with a float64 mantissa and an int
// exponent: a float64 with an unbounded exponent, for products of
// thousands of probabilities, and the scale an engine returns beside a
// table whose largest entry has been brought near 1. The zero value is 0.
// Every operation takes constant time.
type Scaled struct {
	M float64 // the mantissa, in [0.5, 1) or 0 once normalised
	E int     // the exponent
}

// Norm brings M into [0.5, 1) (or 0).
func (x Scaled) Norm() Scaled {
	if x.M == 0 {
		return Scaled{}
	}
	f, e := math.Frexp(x.M)
	return Scaled{f, x.E + e}
}

// Mul returns x·y.
func (x Scaled) Mul(y Scaled) Scaled { return Scaled{x.M * y.M, x.E + y.E}.Norm() }

// MulFloat returns x·y for a plain float64 y.
func (x Scaled) MulFloat(y float64) Scaled { return Scaled{x.M * y, x.E}.Norm() }

// Add returns x+y.
func (x Scaled) Add(y Scaled) Scaled {
	switch {
	case y.M == 0:
		return x
	case x.M == 0:
		return y
	case x.E >= y.E:
		return Scaled{x.M + math.Ldexp(y.M, y.E-x.E), x.E}.Norm()
	}
	return Scaled{math.Ldexp(x.M, x.E-y.E) + y.M, y.E}.Norm()
}

// Less reports whether x < y.
func (x Scaled) Less(y Scaled) bool {
	x, y = x.Norm(), y.Norm()
	switch {
	case y.M == 0:
		return false
	case x.M == 0:
		return true
	case x.E != y.E:
		return x.E < y.E
	}
	return x.M < y.M
}

// Div returns x/y as a float64 (which may underflow or overflow).
func (x Scaled) Div(y Scaled) float64 { return math.Ldexp(x.M/y.M, x.E-y.E) }

// Float returns x as a float64 (0 if it underflows).
func (x Scaled) Float() float64 { return math.Ldexp(x.M, x.E) }

// Log returns ln x (-Inf for 0): the logarithm of the float64 x itself
// where it is a normal float64, so that it is as exact as math.Log.
func (x Scaled) Log() float64 {
	if x.M == 0 {
		return math.Inf(-1)
	}
	if x.E > -1020 && x.E < 1020 {
		return math.Log(math.Ldexp(x.M, x.E))
	}
	return math.Log(x.M) + float64(x.E)*math.Ln2
}
