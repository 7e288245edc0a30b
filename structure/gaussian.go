package structure

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// The scores of a family with a real-valued variable in it.
//
// A real-valued child with discrete parents D and real-valued parents R
// is a linear regression on R (with an intercept) for each configuration
// j of D, with normal noise of its own variance: a conditional linear
// Gaussian (CLG) family, a linear Gaussian one when D is empty. Its
// maximum log-likelihood, given the residual sum of squares RSS_j of the
// least-squares fit to the n_j rows of configuration j, is
//
//	Σ_j −n_j/2 · (ln(2π RSS_j/n_j) + 1)
//
// and it has k = q·(|R| + 2) free parameters (q configurations of D, each
// with an intercept, |R| coefficients and a variance). BIC is the
// log-likelihood − k/2 · ln n, AIC the log-likelihood − k, both on the
// log-likelihood scale, as bnlearn's "bic-g", "aic-g", "bic-cg" and
// "aic-cg". A configuration seen in no row adds nothing to the
// log-likelihood (its parameters still count in k); a configuration
// seen in rows too few to leave a residual (n_j ≤ |R| + 1), or fitted
// exactly, makes the family's score −Inf, so no search picks it.
//
// A discrete child may have discrete parents only (its family is then
// scored from counts as any discrete family): a family with a discrete
// child and a real-valued parent scores −Inf, and the searches forbid
// such edges outright (see [HillClimb]).
//
// Without discrete parents the fit is read from the sufficient
// statistics of the real-valued columns — their means and centred
// scatter matrix S, computed once — as RSS = S_yy − S_yR S_RR⁻¹ S_Ry;
// with discrete parents the scatter of each configuration's rows is
// accumulated first.
//
// BGe, for data whose every variable is real-valued, is the log marginal
// likelihood of the family under the normal-Wishart prior of Geiger and
// Heckerman (1994, 2002) in the form of Kuipers, Moffa and Heckerman
// (2014, "Addendum on the scoring of Gaussian directed acyclic graphical
// models", Annals of Statistics 42(4), eqs. 2–4), with bnlearn's default
// hyper-parameters: the prior mean ν the sample means, α_μ = 1 (iss.mu),
// α_w = p + 2 for p variables (iss.w) and T = t·I with
// t = α_μ(α_w − p − 1)/(α_μ + 1). For a set Y of l variables, with
// R = T + S (the term in ν − x̄ vanishes as ν = x̄),
//
//	ln p(d_Y) = −(l·n/2) ln π + (l/2) ln(α_μ/(n + α_μ))
//	          + ln Γ_l((n + α_w − p + l)/2) − ln Γ_l((α_w − p + l)/2)
//	          + l·(α_w − p + l)/2 · ln t − (n + α_w − p + l)/2 · ln det R_YY
//
// and the family's score is ln p(d_{Pa ∪ {v}}) − ln p(d_Pa).

// gaussStats are the means and centred scatter matrix of the data's
// real-valued columns, computed once.
type gaussStats struct {
	once sync.Once
	mean []float64     // by variable; 0 for a discrete one
	s    *mat.SymDense // by variable; zero rows for discrete ones
}

func (s *Scorer) stats() *gaussStats {
	g := &s.gauss
	g.once.Do(func() { g.mean, g.s = scatter(s.D) })
	return g
}

// scatterBlock is the number of rows whose centred values are held at
// once while the scatter matrix is accumulated.
const scatterBlock = 4096

// scatter returns the means and centred scatter matrix of d's real
// columns over all rows, indexed by variable (zero for discrete ones).
// The rows are taken a block at a time, each block's x·xᵀ added by BLAS,
// so memory does not grow with the rows.
func scatter(d *Data) ([]float64, *mat.SymDense) {
	p := len(d.Names)
	var real []int
	for v := range d.Names {
		if d.IsReal(v) {
			real = append(real, v)
		}
	}
	n := d.N
	mean := make([]float64, p)
	for _, v := range real {
		sum := 0.0
		for _, y := range d.Real[v][:n] {
			sum += y
		}
		mean[v] = sum / float64(n)
	}
	s := mat.NewSymDense(p, nil)
	if len(real) == 0 || n == 0 {
		return mean, s
	}
	k := len(real)
	sr := mat.NewSymDense(k, nil)
	buf := make([]float64, k*min(n, scatterBlock))
	for lo := 0; lo < n; lo += scatterBlock {
		hi := min(n, lo+scatterBlock)
		b := hi - lo
		x := mat.NewDense(k, b, buf[:k*b]) // a variable a row: S += x·xᵀ
		for a, v := range real {
			m := mean[v]
			row := buf[a*b : (a+1)*b]
			for i, y := range d.Real[v][lo:hi] {
				row[i] = y - m
			}
		}
		sr.SymRankK(sr, 1, x)
	}
	for a, u := range real {
		for b, w := range real[a:] {
			s.SetSym(u, w, sr.At(a, a+b))
		}
	}
	return mean, s
}

// familyScatter returns the centred scatter matrix of the real columns
// vars over rows, indexed as vars.
func familyScatter(d *Data, vars []int, rows []int) *mat.SymDense {
	k := len(vars)
	mean := make([]float64, k)
	for a, v := range vars {
		sum := 0.0
		for _, i := range rows {
			sum += d.Real[v][i]
		}
		mean[a] = sum / float64(len(rows))
	}
	acc := make([]float64, k*k)
	z := make([]float64, k)
	for _, i := range rows {
		for a, v := range vars {
			z[a] = d.Real[v][i] - mean[a]
		}
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				acc[a*k+b] += z[a] * z[b]
			}
		}
	}
	s := mat.NewSymDense(k, nil)
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			s.SetSym(a, b, acc[a*k+b])
		}
	}
	return s
}

// realFamily reports whether the family of child and parents has a
// real-valued variable.
func (s *Scorer) realFamily(child int, parents []int) bool {
	d := s.D
	if d.IsReal(child) {
		return true
	}
	for _, p := range parents {
		if d.IsReal(p) {
			return true
		}
	}
	return false
}

// gaussFamily scores a family with a real-valued variable in it.
func (s *Scorer) gaussFamily(child int, parents []int) float64 {
	d := s.D
	if !d.IsReal(child) {
		return math.Inf(-1)
	}
	if s.Kind == BGe {
		return s.bgeFamily(child, parents)
	}
	var disc, real []int
	for _, p := range parents {
		if d.IsReal(p) {
			real = append(real, p)
		} else {
			disc = append(disc, p)
		}
	}
	if len(disc) == 0 {
		st := s.stats()
		ll, ok := gaussLogLik(st.s, child, real, d.N)
		if !ok {
			return math.Inf(-1)
		}
		return s.penalise(ll, 1, len(real), d.N)
	}
	// Group the rows by the configuration of the discrete parents.
	groups := map[int64][]int{}
	q := 1.0
	for _, p := range disc {
		q *= float64(d.Card[p])
	}
	n := 0
rows:
	for i := 0; i < d.N; i++ {
		j := int64(0)
		for _, p := range disc {
			x := d.Cols[p][i]
			if x < 0 {
				continue rows
			}
			j = j*int64(d.Card[p]) + int64(x)
		}
		groups[j] = append(groups[j], i)
		n++
	}
	keys := make([]int64, 0, len(groups))
	for j := range groups {
		keys = append(keys, j)
	}
	slices.Sort(keys)
	ll := 0.0
	fam := append(slices.Clone(real), child)
	loc := make([]int, len(real)) // the real parents' indices in fam
	for k := range loc {
		loc[k] = k
	}
	for _, j := range keys {
		sc := familyScatter(d, fam, groups[j])
		l, ok := gaussLogLik(sc, len(real), loc, len(groups[j]))
		if !ok {
			return math.Inf(-1)
		}
		ll += l
	}
	return s.penalise(ll, q, len(real), n)
}

// penalise applies the score's penalty to a CLG family's log-likelihood:
// q configurations of r real parents, n rows.
func (s *Scorer) penalise(ll, q float64, r, n int) float64 {
	k := q * float64(r+2)
	switch s.Kind {
	case AIC:
		return ll - k
	case BIC:
		return ll - 0.5*math.Log(float64(n))*k
	}
	return ll
}

// gaussLogLik returns the maximum log-likelihood of the regression of y
// on xs (with an intercept) from the centred scatter matrix s of n rows,
// and false if the rows leave no residual.
func gaussLogLik(s *mat.SymDense, y int, xs []int, n int) (float64, bool) {
	if n <= len(xs)+1 {
		return 0, false
	}
	rss := s.At(y, y)
	if len(xs) > 0 {
		k := len(xs)
		sxx := mat.NewSymDense(k, nil)
		sxy := mat.NewVecDense(k, nil)
		for a, u := range xs {
			sxy.SetVec(a, s.At(u, y))
			for b := a; b < k; b++ {
				sxx.SetSym(a, b, s.At(u, xs[b]))
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sxx) {
			return 0, false
		}
		var beta mat.VecDense
		if err := ch.SolveVecTo(&beta, sxy); err != nil {
			return 0, false
		}
		rss -= mat.Dot(sxy, &beta)
	}
	if !(rss > 0) {
		return 0, false
	}
	nf := float64(n)
	return -nf / 2 * (math.Log(2*math.Pi*rss/nf) + 1), true
}

// BGe's hyper-parameters: bnlearn's defaults.
const bgeAlphaMu = 1.0

// bgeFamily is BGe's family score (see above).
func (s *Scorer) bgeFamily(child int, parents []int) float64 {
	st := s.stats()
	all := append(slices.Clone(parents), child)
	return bgeLogP(st.s, all, s.D.N, len(s.D.Names)) - bgeLogP(st.s, parents, s.D.N, len(s.D.Names))
}

// bgeLogP is ln p(d_Y) for the set ys of variables (see above).
func bgeLogP(sc *mat.SymDense, ys []int, n, p int) float64 {
	l := len(ys)
	if l == 0 {
		return 0
	}
	am := bgeAlphaMu
	aw := float64(p + 2)
	t := am * (aw - float64(p) - 1) / (am + 1)
	r := mat.NewSymDense(l, nil)
	for a, u := range ys {
		for b := a; b < l; b++ {
			x := sc.At(u, ys[b])
			if a == b {
				x += t
			}
			r.SetSym(a, b, x)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(r) {
		return math.Inf(-1)
	}
	lf, nf := float64(l), float64(n)
	a0 := (aw - float64(p) + lf) / 2
	a1 := (nf + aw - float64(p) + lf) / 2
	return -lf*nf/2*math.Log(math.Pi) + lf/2*math.Log(am/(nf+am)) +
		lmvgamma(l, a1) - lmvgamma(l, a0) + lf*a0*math.Log(t) - a1*ch.LogDet()
}

// lmvgamma is the log of the multivariate gamma function Γ_l(a).
func lmvgamma(l int, a float64) float64 {
	v := float64(l*(l-1)) / 4 * math.Log(math.Pi)
	for j := 1; j <= l; j++ {
		g, _ := math.Lgamma(a + float64(1-j)/2)
		v += g
	}
	return v
}
