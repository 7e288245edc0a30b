package mixture

import (
	"fmt"
	"math"
)

// This file holds the change of scale that lets k-means work on data
// whose squared distances would overflow or underflow float64.

// scaleLimit is the exponent beyond which k-means changes the data's
// scale: values above 2^scaleLimit (about 2.6e120), or a spread below
// 2^-scaleLimit, have squared distances near the ends of float64's
// range, where they overflow or lose digits (below 2^-1022, about
// 2.2e-308) or vanish.
const scaleLimit = 400

// scaling is the affine map y = (x·2^a − m)·2^b of each column that
// k-means applies to data at the ends of float64's range (see
// scaleData); k-means is equivariant under it, so the clusters are the
// same and the centres and the inertia map back exactly, up to
// rounding.
type scaling struct {
	a, b int       // the powers of two
	m    []float64 // the column means of x·2^a
}

// scaleData returns x, and a nil scaling, when every value is at most
// 2^scaleLimit in magnitude and the spread of the data (the largest
// distance of a value from its column's mean) is 0 or at least
// 2^-scaleLimit: then squared distances are far from float64's limits
// and the data is used as it is, bit for bit. Otherwise it returns the
// data centred and scaled by powers of two, so that the largest value is
// about 1 in magnitude: squared distances then neither overflow nor
// underflow, whatever the data's scale, from the smallest subnormal to
// the largest float64.
func scaleData(x *Matrix) (*Matrix, *scaling) {
	mx := 0.0
	for _, v := range x.Data {
		mx = max(mx, math.Abs(v))
	}
	if mx == 0 {
		return x, nil
	}
	// First the values, to about 1 (exact but where a value far below
	// the largest becomes subnormal or 0: it is then negligible beside
	// it); then the centred values, to about 1.
	a := -math.Ilogb(mx)
	d := x.Cols
	m := make([]float64, d)
	for i := range x.Rows {
		for l, v := range x.Row(i) {
			m[l] += math.Ldexp(v, a)
		}
	}
	for l := range m {
		m[l] /= float64(x.Rows)
	}
	spread := 0.0
	for i := range x.Rows {
		for l, v := range x.Row(i) {
			spread = max(spread, math.Abs(math.Ldexp(v, a)-m[l]))
		}
	}
	if -a <= scaleLimit && (spread == 0 || math.Ilogb(spread)-a >= -scaleLimit) {
		return x, nil
	}
	b := 0
	if spread > 0 {
		b = -math.Ilogb(spread)
	}
	y := make([]float64, len(x.Data))
	for i, v := range x.Data {
		y[i] = math.Ldexp(math.Ldexp(v, a)-m[i%d], b)
	}
	return NewMatrix(x.Rows, d, y), &scaling{a: a, b: b, m: m}
}

// centers maps the centres c (k×d) of the scaled data back to the
// data's scale, in place.
func (s *scaling) centers(c []float64) {
	d := len(s.m)
	for t, v := range c {
		c[t] = math.Ldexp(math.Ldexp(v, -s.b)+s.m[t%d], -s.a)
	}
}

// sqExp returns the power of two by which squared distances of the
// scaled data are multiplied to be those of the data.
func (s *scaling) sqExp() int { return -2 * (s.a + s.b) }

// checkSpread returns ErrUnderflow if reg, a covariance floor, is below
// float64's normal range (about 2.2e-308) and a column's values differ
// from their mean by less than 2^-511 (about 1.5e-154) but not all by 0:
// the column's variances would be below that range too, where they have
// lost digits or become 0. A Gaussian mixture is not scale-equivariant
// (reg is absolute), so such data is not rescaled but refused.
func (m *Matrix) checkSpread(reg float64) error {
	if reg >= 0x1p-1022 {
		return nil
	}
	d := m.Cols
	mean := make([]float64, d)
	for i := range m.Rows {
		for l, v := range m.Row(i) {
			mean[l] += v / float64(m.Rows)
		}
	}
	spread := make([]float64, d)
	for i := range m.Rows {
		for l, v := range m.Row(i) {
			spread[l] = max(spread[l], math.Abs(v-mean[l]))
		}
	}
	for l, s := range spread {
		if s > 0 && s < 0x1p-511 {
			return &Error{Err: ErrUnderflow, Msg: fmt.Sprintf("the values of column %d differ by less than 1.5e-154: their variance is below float64's normal range (2.2e-308), where it has lost digits: rescale the data or raise reg-covar", l+1)}
		}
	}
	return nil
}
