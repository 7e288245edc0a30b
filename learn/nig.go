package learn

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// This file gives method bayes its prior on linear Gaussian densities (a
// real child with real parents, linear.go): a normal-inverse-gamma prior
// per configuration of the discrete parents, centred on the family's
// pooled fit and worth κ rows of it.
//
// With a = (1, x_1, ..., x_k) the regressors (an intercept and the real
// parents) and y the child, the model of configuration u is
// y = βᵀa + ε, ε ~ N(0, σ²), and the prior
//
//	β | σ² ~ N(m0, σ² Λ0⁻¹),   σ² ~ InvGamma(a0, b0)
//
// is the one κ rows "like the data pooled over every configuration" would
// give: m0 the least-squares fit of all the family's rows (its
// configurations merged, mergeLin), Λ0 = (κ/N)·Σ_rows a aᵀ (N the rows
// pooled), a0 = κ/2 and b0 = κ·s²/2 with s² = RSS_pool/N. The posterior
// of configuration u, with M_u = Σ a aᵀ, M_uy = Σ a y, M_yy = Σ y² over its
// n_u rows, is the textbook conjugate update
//
//	Λn = M_u + Λ0
//	mn = Λn⁻¹ (M_uy + Λ0 m0)
//	an = a0 + n_u/2
//	bn = b0 + ½ (M_yy − 2 mnᵀM_uy + mnᵀM_u mn) + ½ (mn − m0)ᵀΛ0(mn − m0)
//
// and the density learned is its point estimate: the coefficients mn
// (the posterior mean of β) and the variance bn/an (the reciprocal of the
// posterior mean of the precision 1/σ²). So a configuration with few rows
// is drawn towards the pooled fit, one with many keeps its own; a
// configuration without rows gets the pooled fit and s²; a family without
// discrete parents (one configuration, m0 its own fit) gets exactly the
// maximum likelihood fit, whatever κ; and κ = 0 is maximum likelihood.
//
// κ is the method's prior weight per configuration: bayes(alpha = A)
// gives κ = A, bayes(ess = N) gives κ = N/q over the q configurations,
// as the Dirichlet prior of a table spreads them (Options.nigKappa).
//
// Every moment is taken about the pooled mean c of (x, y), from the
// per-configuration means and scatter matrices the statistics keep
// (Σ (z−c)(z−c)ᵀ = C_u + n_u (z̄_u − c)(z̄_u − c)ᵀ), so that large means do
// not cost digits; the solves are gonum's Cholesky.

// nigPrior is the prior of a linear family, in the coordinates centred
// on the pooled mean c: regressors a = (1, x − c_x), child y − c_y.
type nigPrior struct {
	kappa float64
	n     float64       // N, the rows pooled
	c     []float64     // the pooled mean of (x_1, ..., x_k, y)
	m0    *mat.VecDense // the pooled fit (its intercept is 0 in centred coordinates)
	lam0  *mat.SymDense // Λ0 = (κ/N)·Σ a aᵀ over every row
	s2    float64       // RSS_pool / N
	lamM0 *mat.VecDense // Λ0 m0
}

// nigKappa returns the normal-inverse-gamma prior's weight κ per
// configuration of a linear family with q configurations: 0 (maximum
// likelihood) unless the method is bayes.
func (opt Options) nigKappa(q int) float64 {
	if opt.Method != Bayes {
		return 0
	}
	if opt.ESS > 0 {
		return opt.ESS / float64(q)
	}
	return opt.Alpha
}

// centred returns configuration u's moments about c: M (the (k+1)×(k+1)
// Σ a aᵀ), My (Σ a (y − c_y)), Myy (Σ (y − c_y)²) and its count.
func (f *family) centred(u int, c []float64) (M *mat.SymDense, My *mat.VecDense, Myy, n float64) {
	d := f.linDim()
	n = f.n[u]
	M, My, Myy = centredMoments(f.lin[u*linLen(d):(u+1)*linLen(d)], n, c, d)
	return M, My, Myy, n
}

// centredMoments returns the moments about c of the n rows whose
// statistics (shift, mean, scatter; dimension d) blk holds, as centred
// does; c nil is their own mean (M = [[n, 0], [0, C_xx]], My = (0, C_xy),
// Myy = C_yy, exactly).
func centredMoments(blk []float64, n float64, c []float64, d int) (M *mat.SymDense, My *mat.VecDense, Myy float64) {
	k := d - 1
	M = mat.NewSymDense(d, nil)
	My = mat.NewVecDense(d, nil)
	if n == 0 {
		return M, My, 0
	}
	shift, mean, scat := blk[:d], blk[d:2*d], blk[2*d:]
	delta := make([]float64, d) // z̄ − c
	for j := range c {
		delta[j] = (shift[j] - c[j]) + mean[j]
	}
	// second moment of z − c: C + n δδᵀ (scat holds the upper triangle).
	s := func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		return scat[i*d+j] + n*delta[i]*delta[j]
	}
	M.SetSym(0, 0, n)
	for i := range k {
		M.SetSym(0, i+1, n*delta[i])
		for j := i; j < k; j++ {
			M.SetSym(i+1, j+1, s(i, j))
		}
		My.SetVec(i+1, s(i, k))
	}
	My.SetVec(0, n*delta[k])
	return M, My, s(k, k)
}

// pooledPrior returns the normal-inverse-gamma prior of weight kappa of
// the linear family f, made from all its rows, or nil when its real
// parents are collinear in them (or it has no rows); n is the number of
// rows pooled.
func (f *family) pooledPrior(kappa float64) (p *nigPrior, n float64) {
	d := f.linDim()
	L := linLen(d)
	pool := make([]float64, L)
	for u, nu := range f.n {
		mergeLin(pool, n, f.lin[u*L:(u+1)*L], nu, d)
		n += nu
	}
	if n == 0 {
		return nil, 0
	}
	c := make([]float64, d)
	for j := range d {
		c[j] = pool[j] + pool[d+j]
	}
	// The pooled least squares, in coordinates centred on c: intercept 0.
	_, coef, rss, ok := fitBlock(pool, d)
	if !ok {
		return nil, n
	}
	m0 := mat.NewVecDense(d, append([]float64{0}, coef...))
	M, _, _ := centredMoments(pool, n, nil, d)
	p = &nigPrior{kappa: kappa, n: n, c: c, m0: m0, s2: rss / n}
	p.lam0 = mat.NewSymDense(d, nil)
	p.lam0.ScaleSym(kappa/n, M)
	p.lamM0 = mat.NewVecDense(d, nil)
	p.lamM0.MulVec(p.lam0, m0)
	return p, n
}

// nigFit returns the intercept, coefficients and variance of
// configuration u of the linear family f under the prior p: the
// posterior mean of the coefficients and bn/an.
func (f *family) nigFit(u int, p *nigPrior) (intercept float64, coef []float64, variance float64) {
	d := f.linDim()
	k := d - 1
	M, My, Myy, n := f.centred(u, p.c)
	var post mat.SymDense
	post.AddSym(M, p.lam0) // Λn, positive definite since Λ0 is
	rhs := mat.NewVecDense(d, nil)
	rhs.AddVec(My, p.lamM0)
	var ch mat.Cholesky
	mn := mat.NewVecDense(d, nil)
	if !ch.Factorize(&post) || ch.SolveVecTo(mn, rhs) != nil {
		return math.NaN(), nil, math.NaN() // the caller refuses a non-finite fit
	}
	var Mmn mat.VecDense
	Mmn.MulVec(M, mn)
	rss := Myy - 2*mat.Dot(mn, My) + mat.Dot(mn, &Mmn)
	var dm mat.VecDense
	dm.SubVec(mn, p.m0)
	var Ldm mat.VecDense
	Ldm.MulVec(p.lam0, &dm)
	bn := p.kappa*p.s2/2 + max(rss, 0)/2 + mat.Dot(&dm, &Ldm)/2
	an := (p.kappa + n) / 2
	coef = make([]float64, k)
	intercept = p.c[k] + mn.AtVec(0)
	for i := range k {
		coef[i] = mn.AtVec(i + 1)
		intercept -= coef[i] * p.c[i]
	}
	return intercept, coef, bn / an
}
