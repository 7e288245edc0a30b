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
			for i := lo; i < hi; i++ {
				row := x[i*d : (i+1)*d : (i+1)*d]
				m := 0.0
				for a := range wmu {
					wa := w[a*d : a*d+a+1]
					s := -wmu[a]
					for b, v := range wa {
						s += v * row[b]
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
