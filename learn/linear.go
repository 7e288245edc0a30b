package learn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// This file learns linear Gaussian densities (a real child with real
// parents, ir.Gaussian with Real) from complete rows, by least squares
// per configuration of the discrete parents: the maximum likelihood
// intercept and coefficients, and the maximum likelihood variance RSS/n
// (plus the variance smoothing every learned density gets, see
// Options.VarSmoothing).
//
// The statistics of configuration u, over its rows z = (x_1, ..., x_k, y)
// (the real parents, then the child), are the count n_u (the family's n)
// and, with d = k + 1, the mean of z − s and the scatter matrix C =
// Σ (z − z̄)(z − z̄)ᵀ (its upper triangle), s being the configuration's
// first row: Welford's update per row and Chan, Golub and LeVeque's
// formula to merge, as the moments of a density given discrete parents
// (moments), so that neither loses digits to large means. Then
//
//	β = C_xx⁻¹ C_xy      (by Cholesky: gonum's mat)
//	intercept = ȳ − βᵀ x̄
//	RSS = C_yy − βᵀ C_xy
//
// A row with a missing cell in the family (the child, a discrete or a real
// parent) is skipped here; EM learns these densities from such rows when
// the real parents are given (emlinear.go). A configuration without rows gets
// intercept 0, coefficients 0 and standard deviation 1, as a density
// given discrete parents does; one whose real parents are collinear in
// its rows (fewer rows than coefficients among them) is an error.

// linLen returns the length of a linear family's statistics per
// configuration: the shift and the mean (d each) and the scatter (d×d).
func linLen(d int) int { return 2*d + d*d }

// linDim returns d, the number of real parents plus one, of a linear
// family (0 for another family).
func (f *family) linDim() int {
	if f.lin == nil {
		return 0
	}
	return len(f.vars) - f.ndisc
}

// addLinear adds the rows of a linear family: ys the child's values, xs
// its real parents' columns, idx[i] row i's configuration of the discrete
// parents (or -1 if one is missing).
func (c *Counts) addLinear(f *family, ys []float64, xs [][]float64, idx []int32, bad []bool) {
	d := len(xs) + 1
	L := linLen(d)
	z := make([]float64, 2*d)
	x, dl := z[:d], z[d:]
rows:
	for i, y := range ys {
		if math.IsNaN(y) {
			bad[i] = true
			c.missing++
			continue
		}
		f.all.add(y)
		u := idx[i]
		if u < 0 {
			bad[i] = true
			c.missing++
			continue
		}
		for j, col := range xs {
			if math.IsNaN(col[i]) {
				bad[i] = true
				c.missing++
				continue rows
			}
			x[j] = col[i]
		}
		x[d-1] = y
		a := f.at(int(u))
		a.add(y)
		f.set(int(u), a)
		n := f.n[u]
		blk := f.lin[int(u)*L : int(u+1)*L]
		shift, mean, scat := blk[:d], blk[d:2*d], blk[2*d:]
		if n == 1 {
			copy(shift, x)
		}
		for j := range d {
			x[j] -= shift[j]
			dl[j] = x[j] - mean[j]
			mean[j] += dl[j] / n
		}
		for j := range d {
			for k := j; k < d; k++ {
				scat[j*d+k] += dl[j] * (x[k] - mean[k])
			}
		}
	}
}

// mergeLin merges b (over nb rows) into a (over na rows), the statistics
// of one configuration of a linear family of dimension d.
func mergeLin(a []float64, na float64, b []float64, nb float64, d int) {
	if nb == 0 {
		return
	}
	if na == 0 {
		copy(a, b)
		return
	}
	n := na + nb
	as, am, ac := a[:d], a[d:2*d], a[2*d:]
	bs, bm, bc := b[:d], b[d:2*d], b[2*d:]
	delta := make([]float64, d)
	for j := range d {
		delta[j] = (bm[j] + (bs[j] - as[j])) - am[j]
	}
	w := na * nb / n
	for j := range d {
		for k := j; k < d; k++ {
			ac[j*d+k] += bc[j*d+k] + delta[j]*delta[k]*w
		}
	}
	for j := range d {
		am[j] += delta[j] * (nb / n)
	}
}

// linearFit returns the least-squares intercept, coefficients and
// residual sum of squares of configuration u of the linear family f, or
// ok false when its real parents are collinear in its rows.
func (f *family) linearFit(u int) (intercept float64, coef []float64, rss float64, ok bool) {
	d := f.linDim()
	k := d - 1
	blk := f.lin[u*linLen(d) : (u+1)*linLen(d)]
	shift, mean, scat := blk[:d], blk[d:2*d], blk[2*d:]
	cxx := mat.NewSymDense(k, nil)
	cxy := mat.NewVecDense(k, nil)
	for i := range k {
		for j := i; j < k; j++ {
			cxx.SetSym(i, j, scat[i*d+j])
		}
		cxy.SetVec(i, scat[i*d+k])
	}
	var ch mat.Cholesky
	if !ch.Factorize(cxx) {
		return 0, nil, 0, false
	}
	var beta mat.VecDense
	if err := ch.SolveVecTo(&beta, cxy); err != nil {
		return 0, nil, 0, false
	}
	coef = make([]float64, k)
	intercept = shift[k] + mean[k]
	rss = scat[k*d+k]
	for i := range k {
		coef[i] = beta.AtVec(i)
		intercept -= coef[i] * (shift[i] + mean[i])
		rss -= coef[i] * scat[i*d+k]
	}
	return intercept, coef, max(rss, 0), true
}

// linearGaussian returns the linear Gaussian density the statistics of the
// linear family f give, each variance plus eps: the maximum likelihood
// fit, or with kappa > 0 the normal-inverse-gamma posterior's (nig.go).
func (c *Counts) linearGaussian(m *ir.Model, f *family, eps, kappa float64) (*ir.Gaussian, error) {
	d := f.linDim()
	k := d - 1
	parents := append([]ir.VarID(nil), f.vars[:f.ndisc]...)
	real := append([]ir.VarID(nil), f.vars[f.ndisc:len(f.vars)-1]...)
	g := &ir.Gaussian{Pos: m.Vars[f.child].Pos, Child: f.child, Parents: parents, Real: real,
		Mean: make([]float64, len(f.n)), SD: make([]float64, len(f.n)), Coef: make([]float64, len(f.n)*k)}
	var prior *nigPrior
	if kappa > 0 {
		var pooled float64
		if prior, pooled = f.pooledPrior(kappa); prior == nil {
			return nil, fmt.Errorf("cannot learn the density of %s with method bayes: its real parents %s are collinear in all the %s that give them, from which its normal-inverse-gamma prior is made (a linear Gaussian density needs more rows than real parents, and rows that span them)",
				ir.Quote(m.Vars[f.child].Name), m.NameList(real, 5), plural(int(pooled), "row"))
		}
	}
	for u, n := range f.n {
		if n == 0 && prior == nil {
			g.Mean[u], g.SD[u] = 0, 1
			continue
		}
		var b, v float64
		var coef []float64
		ok := true
		if prior != nil {
			b, coef, v = f.nigFit(u, prior)
		} else {
			var rss float64
			b, coef, rss, ok = f.linearFit(u)
			v = rss / n
		}
		if !ok {
			return nil, fmt.Errorf("cannot learn the density of %s%s: its real parents %s are collinear in the %s that give them all (a linear Gaussian density needs more rows than real parents, and rows that span them)",
				ir.Quote(m.Vars[f.child].Name), configName(m, parents, u), m.NameList(real, 5), plural(int(n), "row"))
		}
		v += eps
		bad := math.IsInf(v, 0) || math.IsNaN(v) || math.IsInf(b, 0) || math.IsNaN(b)
		for _, x := range coef {
			bad = bad || math.IsInf(x, 0) || math.IsNaN(x)
		}
		if bad {
			return nil, fmt.Errorf("cannot learn the density of %s: its values%s are too large for the least squares to be computed (beyond about 1e154); rescale the columns",
				ir.Quote(m.Vars[f.child].Name), configName(m, parents, u))
		}
		if !(v > 0) {
			return nil, fmt.Errorf("cannot learn the density of %s: its values%s lie exactly on a line of its real parents, and every learned real variable is constant, so smoothing adds nothing",
				ir.Quote(m.Vars[f.child].Name), configName(m, parents, u))
		}
		g.Mean[u], g.SD[u] = b, math.Sqrt(v)
		copy(g.Coef[u*k:], coef)
	}
	return g, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprint(n) + " " + what + "s"
}

// realFamily orders a real child's parents for counting: the discrete
// ones, then the real ones (each in the order given), then the child.
func realFamily(m *ir.Model, parents []ir.VarID, child ir.VarID) []ir.VarID {
	var disc, real []ir.VarID
	for _, p := range parents {
		if m.Vars[p].Discrete() {
			disc = append(disc, p)
		} else {
			real = append(real, p)
		}
	}
	return append(append(disc, real...), child)
}
