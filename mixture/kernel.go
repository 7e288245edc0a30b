package mixture

import "math"

// This file holds the inner loops of k-means: squared distances from rows
// to centres, register-blocked (two rows by four centres) so that the eight
// dot products of a step share their loads.

// rowNorms sets dst[i] to the squared Euclidean norm of row i of x, for
// rows lo to hi.
func rowNorms(dst []float64, x []float64, d, lo, hi int) {
	for i := lo; i < hi; i++ {
		r := x[i*d : (i+1)*d]
		s := 0.0
		for _, v := range r {
			s += v * v
		}
		dst[i] = s
	}
}

// nearest sets labels[i] to the index of the centre nearest to row i of x
// (the first of equally near ones), and dist[i] to the squared distance,
// for rows lo to hi. c holds k centres of d values, cnorm their squared
// norms, xnorm the rows' squared norms. It compares |c|² - 2x·c, as
// scikit-learn does, and clamps the distance at 0.
func nearest(labels []int32, dist []float64, x []float64, d, lo, hi int, c, cnorm []float64, k int, xnorm []float64) {
	i := lo
	for ; i+1 < hi; i += 2 {
		x0 := x[i*d : (i+1)*d : (i+1)*d]
		x1 := x[(i+1)*d : (i+2)*d : (i+2)*d]
		b0, b1 := math.Inf(1), math.Inf(1)
		a0, a1 := int32(0), int32(0)
		j := 0
		for ; j+3 < k; j += 4 {
			c0 := c[j*d : (j+1)*d : (j+1)*d]
			c1 := c[(j+1)*d : (j+2)*d : (j+2)*d]
			c2 := c[(j+2)*d : (j+3)*d : (j+3)*d]
			c3 := c[(j+3)*d : (j+4)*d : (j+4)*d]
			var s00, s01, s02, s03, s10, s11, s12, s13 float64
			for l := range x0 {
				p, q := x0[l], x1[l]
				e0, e1, e2, e3 := c0[l], c1[l], c2[l], c3[l]
				s00 += p * e0
				s01 += p * e1
				s02 += p * e2
				s03 += p * e3
				s10 += q * e0
				s11 += q * e1
				s12 += q * e2
				s13 += q * e3
			}
			n := cnorm[j : j+4 : j+4]
			if v := n[0] - 2*s00; v < b0 {
				b0, a0 = v, int32(j)
			}
			if v := n[1] - 2*s01; v < b0 {
				b0, a0 = v, int32(j+1)
			}
			if v := n[2] - 2*s02; v < b0 {
				b0, a0 = v, int32(j+2)
			}
			if v := n[3] - 2*s03; v < b0 {
				b0, a0 = v, int32(j+3)
			}
			if v := n[0] - 2*s10; v < b1 {
				b1, a1 = v, int32(j)
			}
			if v := n[1] - 2*s11; v < b1 {
				b1, a1 = v, int32(j+1)
			}
			if v := n[2] - 2*s12; v < b1 {
				b1, a1 = v, int32(j+2)
			}
			if v := n[3] - 2*s13; v < b1 {
				b1, a1 = v, int32(j+3)
			}
		}
		for ; j < k; j++ {
			cj := c[j*d : (j+1)*d : (j+1)*d]
			var s0, s1 float64
			for l := range x0 {
				s0 += x0[l] * cj[l]
				s1 += x1[l] * cj[l]
			}
			if v := cnorm[j] - 2*s0; v < b0 {
				b0, a0 = v, int32(j)
			}
			if v := cnorm[j] - 2*s1; v < b1 {
				b1, a1 = v, int32(j)
			}
		}
		labels[i], labels[i+1] = a0, a1
		dist[i], dist[i+1] = max(0, xnorm[i]+b0), max(0, xnorm[i+1]+b1)
	}
	for ; i < hi; i++ {
		x0 := x[i*d : (i+1)*d : (i+1)*d]
		b0, a0 := math.Inf(1), int32(0)
		for j := range k {
			cj := c[j*d : (j+1)*d : (j+1)*d]
			s := 0.0
			for l := range x0 {
				s += x0[l] * cj[l]
			}
			if v := cnorm[j] - 2*s; v < b0 {
				b0, a0 = v, int32(j)
			}
		}
		labels[i], dist[i] = a0, max(0, xnorm[i]+b0)
	}
}

// sqDist returns the squared Euclidean distance between a and b.
func sqDist(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for l, v := range a {
		e := v - b[l]
		s += e * e
	}
	return s
}

// nearest2 returns the index of the centre nearest to x (the first of
// equally near ones) and the Euclidean distances to it and to the second
// nearest (+Inf if k is 1), comparing |c|² - 2x·c as nearest does; xn is
// |x|².
func nearest2(x, c, cnorm []float64, k int, xn float64) (int32, float64, float64) {
	d := len(x)
	b0, b1 := math.Inf(1), math.Inf(1)
	a0 := int32(0)
	j := 0
	for ; j+3 < k; j += 4 {
		c0 := c[j*d : (j+1)*d : (j+1)*d]
		c1 := c[(j+1)*d : (j+2)*d : (j+2)*d]
		c2 := c[(j+2)*d : (j+3)*d : (j+3)*d]
		c3 := c[(j+3)*d : (j+4)*d : (j+4)*d]
		var s0, s1, s2, s3 float64
		for l, p := range x {
			s0 += p * c0[l]
			s1 += p * c1[l]
			s2 += p * c2[l]
			s3 += p * c3[l]
		}
		n := cnorm[j : j+4 : j+4]
		for t, s := range [4]float64{s0, s1, s2, s3} {
			v := n[t] - 2*s
			if v < b0 {
				b0, b1, a0 = v, b0, int32(j+t)
			} else if v < b1 {
				b1 = v
			}
		}
	}
	for ; j < k; j++ {
		cj := c[j*d : (j+1)*d : (j+1)*d]
		s := 0.0
		for l, p := range x {
			s += p * cj[l]
		}
		v := cnorm[j] - 2*s
		if v < b0 {
			b0, b1, a0 = v, b0, int32(j)
		} else if v < b1 {
			b1 = v
		}
	}
	return a0, math.Sqrt(max(0, xn+b0)), math.Sqrt(max(0, xn+b1))
}

// nearest2x2 is nearest2 for two rows at once, sharing the centres' loads.
func nearest2x2(x0, x1, c, cnorm []float64, k int, xn0, xn1 float64) (a0, a1 int32, u0, l0, u1, l1 float64) {
	d := len(x0)
	x1 = x1[:d]
	b0, s0b, b1, s1b := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	j := 0
	for ; j+3 < k; j += 4 {
		c0 := c[j*d : (j+1)*d : (j+1)*d]
		c1 := c[(j+1)*d : (j+2)*d : (j+2)*d]
		c2 := c[(j+2)*d : (j+3)*d : (j+3)*d]
		c3 := c[(j+3)*d : (j+4)*d : (j+4)*d]
		var s00, s01, s02, s03, s10, s11, s12, s13 float64
		for l := range x0 {
			p, q := x0[l], x1[l]
			e0, e1, e2, e3 := c0[l], c1[l], c2[l], c3[l]
			s00 += p * e0
			s01 += p * e1
			s02 += p * e2
			s03 += p * e3
			s10 += q * e0
			s11 += q * e1
			s12 += q * e2
			s13 += q * e3
		}
		n := cnorm[j : j+4 : j+4]
		for t, s := range [4]float64{s00, s01, s02, s03} {
			if v := n[t] - 2*s; v < b0 {
				b0, s0b, a0 = v, b0, int32(j+t)
			} else if v < s0b {
				s0b = v
			}
		}
		for t, s := range [4]float64{s10, s11, s12, s13} {
			if v := n[t] - 2*s; v < b1 {
				b1, s1b, a1 = v, b1, int32(j+t)
			} else if v < s1b {
				s1b = v
			}
		}
	}
	for ; j < k; j++ {
		cj := c[j*d : (j+1)*d : (j+1)*d]
		var s0, s1 float64
		for l := range x0 {
			s0 += x0[l] * cj[l]
			s1 += x1[l] * cj[l]
		}
		if v := cnorm[j] - 2*s0; v < b0 {
			b0, s0b, a0 = v, b0, int32(j)
		} else if v < s0b {
			s0b = v
		}
		if v := cnorm[j] - 2*s1; v < b1 {
			b1, s1b, a1 = v, b1, int32(j)
		} else if v < s1b {
			s1b = v
		}
	}
	return a0, a1, math.Sqrt(max(0, xn0+b0)), math.Sqrt(max(0, xn0+s0b)), math.Sqrt(max(0, xn1+b1)), math.Sqrt(max(0, xn1+s1b))
}
