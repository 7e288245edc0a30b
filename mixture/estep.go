package mixture

import "math"

// This file holds the inner loops of EM: the log densities of a block of
// rows under every component, and their normalisation to responsibilities.

// logProb sets lp[(i-lo)*k+j] to log p(x_i, j) = logc_j - |W_j x_i -
// W_j μ_j|²/2 for rows lo to hi of x.
func (g *gauss) logProb(lp, x []float64, lo, hi int) {
	k, d := g.k, g.d
	if g.tri {
		for j := range k {
			w := g.w[j*d*d : (j+1)*d*d : (j+1)*d*d]
			wmu := g.wmu[j*d : (j+1)*d : (j+1)*d]
			c := g.logc[j]
			i := lo
			// Four rows at a time share the loads of W.
			for ; i+3 < hi; i += 4 {
				x0 := x[i*d : (i+1)*d : (i+1)*d]
				x1 := x[(i+1)*d : (i+2)*d : (i+2)*d]
				x2 := x[(i+2)*d : (i+3)*d : (i+3)*d]
				x3 := x[(i+3)*d : (i+4)*d : (i+4)*d]
				var m0, m1, m2, m3 float64
				for a, u := range wmu {
					wa := w[a*d : a*d+a+1]
					y0, y1, y2, y3 := x0[:len(wa)], x1[:len(wa)], x2[:len(wa)], x3[:len(wa)]
					s0, s1, s2, s3 := -u, -u, -u, -u
					for b, v := range wa {
						s0 += v * y0[b]
						s1 += v * y1[b]
						s2 += v * y2[b]
						s3 += v * y3[b]
					}
					m0 += s0 * s0
					m1 += s1 * s1
					m2 += s2 * s2
					m3 += s3 * s3
				}
				o := (i - lo) * k
				lp[o+j] = c - 0.5*m0
				lp[o+k+j] = c - 0.5*m1
				lp[o+2*k+j] = c - 0.5*m2
				lp[o+3*k+j] = c - 0.5*m3
			}
			for ; i < hi; i++ {
				row := x[i*d : (i+1)*d : (i+1)*d]
				m := 0.0
				for a := range wmu {
					wa := w[a*d : a*d+a+1]
					y := row[:len(wa)]
					s := -wmu[a]
					for b, v := range wa {
						s += v * y[b]
					}
					m += s * s
				}
				lp[(i-lo)*k+j] = c - 0.5*m
			}
		}
		return
	}
	for j := range k {
		w := g.w[j*d : (j+1)*d : (j+1)*d]
		wmu := g.wmu[j*d : (j+1)*d : (j+1)*d]
		c := g.logc[j]
		for i := lo; i < hi; i++ {
			row := x[i*d : (i+1)*d : (i+1)*d]
			m := 0.0
			for a, v := range w {
				s := v*row[a] - wmu[a]
				m += s * s
			}
			lp[(i-lo)*k+j] = c - 0.5*m
		}
	}
}

// normalize turns each row of lp (rows of k log densities) into
// responsibilities, written to resp, and returns the sum over the rows of
// the log-likelihood log Σ_j p(x, j). A row whose densities are all zero
// (or not finite) makes the sum -Inf or NaN, which the caller reports.
func normalize(resp, lp []float64, k int) float64 {
	ll := 0.0
	for r := 0; r+k <= len(lp); r += k {
		row := lp[r : r+k : r+k]
		out := resp[r : r+k : r+k]
		m := math.Inf(-1)
		for _, v := range row {
			if v > m {
				m = v
			}
		}
		s := 0.0
		for j, v := range row {
			e := math.Exp(v - m)
			out[j] = e
			s += e
		}
		inv := 1 / s
		for j := range out {
			out[j] *= inv
		}
		ll += m + math.Log(s)
	}
	return ll
}

// logSumExp returns log Σ exp(v).
func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}
