package learn

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
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
// first row: computed by blocks of rows (two passes over each block, its
// scatter one BLAS syrk) and merged by Chan, Golub and LeVeque's formula,
// as the moments of a density given discrete parents (moments), so that
// neither loses digits to large means (see addLinear). Then
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

// linBlock is the most rows of one configuration whose statistics
// addLinear computes at once, before merging them into the family's: d
// columns of them stay in the cache.
const linBlock = 512

// addLinear adds the rows of a linear family: ys the child's values, xs
// its real parents' columns, idx[i] row i's configuration of the discrete
// parents (or -1 if one is missing).
//
// The complete rows are grouped by configuration and taken linBlock at a
// time: each block's columns, less the configuration's shift, are
// centred on the block's mean (two passes), their scatter is one rank-k
// update (BLAS syrk, dot products of the columns), and the block's count,
// mean and scatter are merged into the configuration's by Chan's formula
// (mergeLin). Per row this is d subtractions and d(d+1)/2 multiply-adds
// with no division, where Welford's update per row costs d divisions and
// a dependent chain through the running mean.
func (c *Counts) addLinear(f *family, ys []float64, xs [][]float64, idx []int32, bad []bool) {
	d := len(xs) + 1
	if need := 2*d + d*d + d*linBlock; len(c.linBuf) < need {
		c.linBuf = make([]float64, need)
	}
	if f.ndisc == 0 && complete(ys, xs) {
		// One configuration and no missing cell: blocks of consecutive
		// rows, whose child values are also all the child's values.
		for s := 0; s < len(ys); s += linBlock {
			f.all.merge(c.linearBlock(f, 0, nil, s, min(s+linBlock, len(ys)), ys, xs))
		}
		return
	}
	acc := c.linRows[:0]
	all := c.linAll[:0]
	sorted := true
rows:
	for i, y := range ys {
		if math.IsNaN(y) {
			bad[i] = true
			c.missing++
			continue
		}
		if all = append(all, y); len(all) == linBlock {
			f.all.addAll(all)
			all = all[:0]
		}
		u := idx[i]
		if u < 0 {
			bad[i] = true
			c.missing++
			continue
		}
		for _, col := range xs {
			if math.IsNaN(col[i]) {
				bad[i] = true
				c.missing++
				continue rows
			}
		}
		if len(acc) > 0 && idx[acc[len(acc)-1]] > u {
			sorted = false
		}
		acc = append(acc, int32(i))
	}
	f.all.addAll(all)
	if !sorted {
		slices.SortStableFunc(acc, func(a, b int32) int { return cmp.Compare(idx[a], idx[b]) })
	}
	for s := 0; s < len(acc); {
		u := idx[acc[s]]
		e := s + 1
		for e < len(acc) && e-s < linBlock && idx[acc[e]] == u {
			e++
		}
		c.linearBlock(f, int(u), acc[s:e], 0, 0, ys, xs)
		s = e
	}
	c.linRows, c.linAll = acc, all
}

// complete reports whether no value of ys and xs is NaN (missing): their
// sums are not NaN (an infinite value may make a sum NaN, and the caller
// then looks row by row).
func complete(ys []float64, xs [][]float64) bool {
	if math.IsNaN(floats.Sum(ys)) {
		return false
	}
	for _, col := range xs {
		if math.IsNaN(floats.Sum(col)) {
			return false
		}
	}
	return true
}

// linearBlock adds rows of configuration u of the linear family f, at
// most linBlock of them, as one block: those rows lists (indices into ys
// and xs), or with rows nil rows lo to hi. It returns the moments of the
// block's child values.
func (c *Counts) linearBlock(f *family, u int, rows []int32, lo, hi int, ys []float64, xs [][]float64) moments {
	d := len(xs) + 1
	L := linLen(d)
	m := hi - lo
	first := lo
	if rows != nil {
		m, first = len(rows), int(rows[0])
	}
	blk := f.lin[u*L : (u+1)*L]
	shift := blk[:d]
	na := f.n[u]
	if na == 0 {
		for j, col := range xs {
			shift[j] = col[first]
		}
		shift[d-1] = ys[first]
	}
	b := c.linBuf[:L] // the block's statistics: shift, mean, scatter
	z := c.linBuf[L : L+d*m]
	copy(b, shift)
	for j := range d {
		col := ys
		if j < d-1 {
			col = xs[j]
		}
		zj := z[j*m : (j+1)*m]
		if rows == nil {
			copy(zj, col[lo:hi])
		} else {
			for r, i := range rows {
				zj[r] = col[i]
			}
		}
		floats.AddConst(-shift[j], zj)
		mu := floats.Sum(zj) / float64(m)
		floats.AddConst(-mu, zj)
		b[d+j] = mu
	}
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: d, Cols: m, Stride: m, Data: z},
		0, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: b[2*d:]})
	nb := float64(m)
	mergeLin(blk, na, b, nb, d)
	y := moments{n: nb, shift: shift[d-1], mean: b[2*d-1], m2: b[2*d+(d-1)*d+d-1]}
	a := f.at(u)
	a.merge(y)
	f.set(u, a)
	return y
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
	delta := func(j int) float64 { return (bm[j] + (bs[j] - as[j])) - am[j] }
	w := na * nb / n
	for j := range d {
		dj := delta(j) * w
		for k := j; k < d; k++ {
			ac[j*d+k] += bc[j*d+k] + dj*delta(k)
		}
	}
	for j := range d {
		am[j] += delta(j) * (nb / n)
	}
}

// linearFit returns the least-squares intercept, coefficients and
// residual sum of squares of configuration u of the linear family f, or
// ok false when its real parents are collinear in its rows.
func (f *family) linearFit(u int) (intercept float64, coef []float64, rss float64, ok bool) {
	d := f.linDim()
	return fitBlock(f.lin[u*linLen(d):(u+1)*linLen(d)], d)
}

// fitBlock is linearFit for the statistics blk of dimension d (one
// configuration's, or several merged by mergeLin).
func fitBlock(blk []float64, d int) (intercept float64, coef []float64, rss float64, ok bool) {
	k := d - 1
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
