package structure

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Correlation returns the correlation matrix of d's variables, every one
// of which must be real-valued, the input of PC with Fisher's z test.
func Correlation(d *Data) (*mat.SymDense, error) {
	if !d.AllReal() {
		for v := range d.Names {
			if !d.IsReal(v) {
				return nil, errorf(ErrNotDiscrete, "Fisher's z test is for real-valued variables, and %q is discrete", d.Names[v])
			}
		}
	}
	_, s := scatter(d)
	return covToCorr(s), nil
}

// covToCorr scales a scatter (or covariance) matrix to correlations; a
// constant variable is uncorrelated with every other.
func covToCorr(s *mat.SymDense) *mat.SymDense {
	p := s.SymmetricDim()
	c := mat.NewSymDense(p, nil)
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			den := math.Sqrt(s.At(a, a) * s.At(b, b))
			switch {
			case a == b:
				c.SetSym(a, b, 1)
			case den > 0:
				c.SetSym(a, b, s.At(a, b)/den)
			}
		}
	}
	return c
}

// fisherZ tests a zero partial correlation of x and y given z (Fisher
// 1924; bnlearn's "zf"): r is the partial correlation, from the inverse
// P of the correlation matrix of {x, y} ∪ z as −P_xy/√(P_xx P_yy), and
//
//	Stat = √(n − |z| − 3) · atanh(r),  P = 2·(1 − Φ(|Stat|)),
//
// DF = n − |z| − 3 (a p-value of 1 when it is not positive: too few rows
// to test). A singular correlation matrix (a variable a linear function
// of others) gives r = 0 for want of a better answer: the pair is found
// independent.
func (t *Tester) fisherZ(x, y int, z []int) (CIResult, error) {
	res := CIResult{N: t.Rows, DF: t.Rows - len(z) - 3, P: 1}
	if res.DF <= 0 {
		return res, nil
	}
	vars := append([]int{x, y}, z...)
	k := len(vars)
	c := mat.NewSymDense(k, nil)
	for a, u := range vars {
		for b := a; b < k; b++ {
			c.SetSym(a, b, t.Corr.At(u, vars[b]))
		}
	}
	var r float64
	if k == 2 {
		r = c.At(0, 1)
	} else {
		var ch mat.Cholesky
		if !ch.Factorize(c) {
			return res, nil
		}
		var inv mat.SymDense
		if err := ch.InverseTo(&inv); err != nil {
			return res, nil
		}
		r = -inv.At(0, 1) / math.Sqrt(inv.At(0, 0)*inv.At(1, 1))
	}
	if math.IsNaN(r) {
		return res, nil
	}
	r = math.Max(-1, math.Min(1, r))
	res.Stat = math.Sqrt(float64(res.DF)) * math.Atanh(r)
	res.P = math.Erfc(math.Abs(res.Stat) / math.Sqrt2)
	return res, nil
}
