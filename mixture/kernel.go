package mixture

import "math"

// This file holds the inner loops of k-means: squared distances from rows
// to centres, register-blocked (two rows by four centres) so that the eight
// dot products of a step share their loads; where the processor has
// AVX-512, the panel kernels of kernel_amd64.s (four rows by 16 centres)
// compute the same values bit for bit.

// portableOnly makes useAVX512 false: tests set it to check the portable
// kernels.
var portableOnly bool

// useAVX512 reports whether the AVX-512 kernels run.
func useAVX512() bool { return !portableOnly && cpuHasAVX512() }

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

// panel holds an iteration's centres for the AVX-512 kernel: transposed
// (d rows of kp values, the centre index running fastest) and their
// squared norms, with the centres from k up to kp, a multiple of 16,
// zero and their norms +Inf, so that they are never the nearest.
type panel struct {
	k, kp, d int
	ct, cn   []float64
}

func newPanel(k, d int) *panel {
	kp := (k + 15) / 16 * 16
	p := &panel{k: k, kp: kp, d: d, ct: make([]float64, d*kp), cn: make([]float64, kp)}
	for j := k; j < kp; j++ {
		p.cn[j] = math.Inf(1)
	}
	return p
}

// set loads the k×d centres c and their squared norms.
func (p *panel) set(c, cnorm []float64) {
	k, kp, d := p.k, p.kp, p.d
	for j := range k {
		for l, v := range c[j*d : (j+1)*d] {
			p.ct[l*kp+j] = v
		}
	}
	copy(p.cn, cnorm[:k])
}

// dots sets out[r*kp+j] to |c_j|² - 2 x·c_j for the rows of x listed in
// rows (one to four), j < kp, computing x·c_j as the scalar kernels do
// (column by column from 0, each product rounded, then added), so that the
// values are the same bit for bit. out holds at least 4kp values.
func (p *panel) dots(out, x []float64, rows []int) {
	d := p.d
	_ = rows[0]
	_ = out[4*p.kp-1]
	var ptr [4]*float64
	for r := range ptr {
		i := rows[min(r, len(rows)-1)]
		ptr[r] = &x[i*d : (i+1)*d][0]
	}
	dots4AVX512(&out[0], ptr[0], ptr[1], ptr[2], ptr[3], &p.ct[0], &p.cn[0], p.kp, d)
}

// argmin2 returns the index of the least of v (the first of equal ones),
// the least value and the second least (+Inf if v has one value), by the
// comparisons of nearest2; NaNs are passed over.
func argmin2(v []float64) (a int32, b0, b1 float64) {
	b0, b1 = math.Inf(1), math.Inf(1)
	for j, s := range v {
		if s < b0 {
			b0, b1, a = s, b0, int32(j)
		} else if s < b1 {
			b1 = s
		}
	}
	return a, b0, b1
}

// argmin2 is argmin2 of the first k values of v (kp values from dots),
// vectorised.
func (p *panel) argmin2(v []float64) (int32, float64, float64) {
	v = v[:p.kp]
	a, b1, ok := argmin2AVX512(&v[0], p.kp)
	if !ok {
		return argmin2(v[:p.k])
	}
	return int32(a), v[a], b1
}

// nearestPanel is nearest with the AVX-512 kernel; out is scratch space
// of 4kp values.
func nearestPanel(labels []int32, dist []float64, x []float64, lo, hi int, p *panel, out, xnorm []float64) {
	var rows [4]int
	for i := lo; i < hi; i += 4 {
		m := min(4, hi-i)
		for r := range m {
			rows[r] = i + r
		}
		p.dots(out, x, rows[:m])
		for r := range m {
			a, b0, _ := p.argmin2(out[r*p.kp:])
			labels[i+r], dist[i+r] = a, max(0, xnorm[i+r]+b0)
		}
	}
}

// sqDist4 sets dst[i] to the squared distance from row i of x to centre
// labels[i] of c, for the rows i listed, as sqDist computes it; four rows
// at a time, so that their sums proceed side by side.
func sqDist4(dst, x []float64, d int, rows []int, c []float64, labels []int32) {
	t := 0
	for ; t+3 < len(rows); t += 4 {
		i0, i1, i2, i3 := rows[t], rows[t+1], rows[t+2], rows[t+3]
		x0 := x[i0*d : (i0+1)*d : (i0+1)*d]
		x1 := x[i1*d : (i1+1)*d : (i1+1)*d]
		x2 := x[i2*d : (i2+1)*d : (i2+1)*d]
		x3 := x[i3*d : (i3+1)*d : (i3+1)*d]
		j0, j1, j2, j3 := int(labels[i0]), int(labels[i1]), int(labels[i2]), int(labels[i3])
		c0 := c[j0*d : (j0+1)*d : (j0+1)*d]
		c1 := c[j1*d : (j1+1)*d : (j1+1)*d]
		c2 := c[j2*d : (j2+1)*d : (j2+1)*d]
		c3 := c[j3*d : (j3+1)*d : (j3+1)*d]
		var s0, s1, s2, s3 float64
		for l := range x0 {
			e0, e1, e2, e3 := x0[l]-c0[l], x1[l]-c1[l], x2[l]-c2[l], x3[l]-c3[l]
			s0 += e0 * e0
			s1 += e1 * e1
			s2 += e2 * e2
			s3 += e3 * e3
		}
		dst[i0], dst[i1], dst[i2], dst[i3] = s0, s1, s2, s3
	}
	for ; t < len(rows); t++ {
		i := rows[t]
		j := int(labels[i])
		dst[i] = sqDist(x[i*d:(i+1)*d], c[j*d:(j+1)*d])
	}
}

// addRows adds row i of x to the sums of cluster labels[i] (k×d), for
// rows lo to hi in order.
func addRows(sums, x []float64, d int, labels []int32, lo, hi int) {
	if hi > lo && useAVX512() {
		_ = x[hi*d-1]
		_ = labels[hi-1]
		addRowsAVX512(&sums[0], &x[lo*d], d, &labels[lo], hi-lo, len(sums)/d)
		return
	}
	for i := lo; i < hi; i++ {
		j := int(labels[i])
		sj := sums[j*d : (j+1)*d : (j+1)*d]
		for l, v := range x[i*d : (i+1)*d] {
			sj[l] += v
		}
	}
}

// sqDistTo4 sets dst[i] to the squared distance from row i of x to c, for
// the rows i listed, as sqDist computes it, four rows at a time.
func sqDistTo4(dst, x []float64, d int, rows []int, c []float64) {
	c = c[:d:d]
	t := 0
	for ; t+3 < len(rows); t += 4 {
		i0, i1, i2, i3 := rows[t], rows[t+1], rows[t+2], rows[t+3]
		x0 := x[i0*d : (i0+1)*d : (i0+1)*d]
		x1 := x[i1*d : (i1+1)*d : (i1+1)*d]
		x2 := x[i2*d : (i2+1)*d : (i2+1)*d]
		x3 := x[i3*d : (i3+1)*d : (i3+1)*d]
		var s0, s1, s2, s3 float64
		for l, e := range c {
			e0, e1, e2, e3 := x0[l]-e, x1[l]-e, x2[l]-e, x3[l]-e
			s0 += e0 * e0
			s1 += e1 * e1
			s2 += e2 * e2
			s3 += e3 * e3
		}
		dst[i0], dst[i1], dst[i2], dst[i3] = s0, s1, s2, s3
	}
	for ; t < len(rows); t++ {
		i := rows[t]
		dst[i] = sqDist(x[i*d:(i+1)*d], c)
	}
}
