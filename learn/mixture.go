package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"
)

// This file learns a Gaussian mixture declared in a model (`mixture C of
// x, y`) that is the model alone — its variables are the component, a
// root, and the mixture's real variables — from data in which the
// component has no column (or an empty one) and every row gives every real
// variable: EM on the real columns by package mixture's FitGMM (k-means
// initialisation, restarts, the covariance forms), or, for a known shared
// variance, the soft k-means of UML §24.4.2 and Mitchell §6.12.1, which
// learns the means alone. The learned model has P(C) (the weights; left as
// it is for a known variance) and the components' densities.
//
// Every other model with a mixture — a component with parents or other
// children, several mixtures, a mixture inside a larger network, an
// observed component, missing cells, MAP (alpha, ess), init model or
// uniform, some variables only — is learned by network EM (em.go,
// density.go), which from the same start reaches the same fit.

// DefaultRegCovar is added to the diagonal of every learned covariance
// (scikit-learn's reg_covar), so that a component on few or identical
// points keeps a proper density.
const DefaultRegCovar = 1e-6

// mixtureModel returns m's mixture if m is the mixture alone (its
// variables are the component, a root, and the mixture's real
// variables), which learnMixture learns; nil otherwise, for network EM.
func mixtureModel(m *ir.Model) (*ir.Mixture, error) {
	if len(m.Mixtures) != 1 {
		return nil, nil
	}
	mx := m.Mixtures[0]
	in := map[ir.VarID]bool{mx.Component: true}
	for _, v := range mx.Vars {
		in[v] = true
	}
	for v := range m.Vars {
		if !in[ir.VarID(v)] {
			return nil, nil
		}
	}
	if len(m.Parents[mx.Component]) > 0 {
		return nil, nil
	}
	return mx, nil
}

// pureMixture reports whether package mixture learns mx, the mixture
// alone of m, by opt from the rows p: the whole model, maximum
// likelihood, a k-means or random start, the component never observed
// and every row giving every real variable.
func pureMixture(m *ir.Model, mx *ir.Mixture, p *patterns, opt Options) bool {
	if forceNetworkEM || opt.Method != EM || opt.Vars != nil || opt.Alpha > 0 || opt.ESS > 0 || opt.Init == InitModel || opt.Init == InitUniform {
		return false
	}
	if len(p.rows) > 0 {
		return false // rows without a real value
	}
	for i := range p.real.n() {
		if p.real.obs[i][mx.Component] >= 0 {
			return false
		}
	}
	for _, v := range mx.Vars {
		k := slices.Index(p.reals, v)
		if k < 0 {
			return false
		}
		for i := range p.real.n() {
			if math.IsNaN(p.real.vals[i*len(p.reals)+k]) {
				return false
			}
		}
	}
	return true
}

// forceNetworkEM routes every mixture through network EM (tests compare
// the two paths).
var forceNetworkEM = false

// mixtureRows returns the rows of p (see pureMixture) as an n×d matrix of
// the variables vars.
func mixtureRows(p *patterns, vars []ir.VarID) *mixture.Matrix {
	n, nr := p.real.n(), len(p.reals)
	vals := make([]float64, 0, n*len(vars))
	idx := make([]int, len(vars))
	for a, v := range vars {
		idx[a] = slices.Index(p.reals, v)
	}
	for i := range n {
		for _, k := range idx {
			vals = append(vals, p.real.vals[i*nr+k])
		}
	}
	return mixture.NewMatrix(n, len(vars), vals)
}

// learnMixture learns the mixture mx of m from the rows p (states: the
// open variables' states they were read with): by package mixture if it
// is a pure mixture (pureMixture), else by network EM.
func learnMixture(m *ir.Model, mx *ir.Mixture, p *patterns, states map[ir.VarID][]string, opt Options) (*ir.Model, *Report, error) {
	if p.n == 0 {
		return nil, nil, ErrNoRows
	}
	if !pureMixture(m, mx, p, opt) {
		return learnIterative(m.WithStates(states), p, opt)
	}
	var err error
	x := mixtureRows(p, mx.Vars)
	k := len(m.Vars[mx.Component].States)
	if x.Rows < k {
		return nil, nil, fmt.Errorf("%s for %s: a mixture needs at least one row per component", ir.Plural(x.Rows, "data row"), ir.Plural(k, "component"))
	}
	var fit *mixture.GMM
	if mx.Variance > 0 {
		fit, err = softKMeans(m, mx, x, opt)
	} else {
		fit, err = fitGMM(m, mx, x, opt)
	}
	if err != nil {
		var me *mixture.Error
		if errors.As(err, &me) && me.Row > 0 {
			return nil, nil, &ir.Error{Pos: ir.Pos{File: p.file}, Msg: fmt.Sprintf("data row %d: %s", me.Row, me.Msg), Err: err}
		}
		return nil, nil, err
	}
	out, err := mixtureDists(m, mx, fit)
	if err != nil {
		return nil, nil, err
	}
	n := float64(x.Rows)
	trace := make([]float64, len(fit.Trace))
	for i, t := range fit.Trace {
		trace[i] = t * n
	}
	rep := &Report{Rows: x.Rows, LogLik: fit.LogLikelihood * n, Trace: trace, Iterations: fit.Iterations,
		Converged: fit.Converged, Restarts: fit.NInit, Patterns: x.Rows, Hidden: []ir.VarID{mx.Component}, Init: opt.Init}
	return out, rep, nil
}

// fitGMM fits mx by EM (package mixture).
func fitGMM(m *ir.Model, mx *ir.Mixture, x *mixture.Matrix, opt Options) (*mixture.GMM, error) {
	k := len(m.Vars[mx.Component].States)
	o := mixture.DefaultGMMOptions(k)
	o.Covariance = []mixture.CovarianceType{mixture.Full, mixture.Diag, mixture.Spherical, mixture.Tied}[mx.Form]
	if len(mx.Vars) == 1 {
		o.Covariance = mixture.Full // one variable: its own variance per component
	}
	o.NInit = max(1, opt.Restarts)
	if opt.MaxIter > 0 {
		o.MaxIter = opt.MaxIter
	}
	o.Tol = opt.Tol
	o.Seed = opt.Seed
	o.Workers = opt.Workers
	o.RegCovar = DefaultRegCovar
	if opt.Init == InitRandom {
		o.Init = mixture.InitRandom
	}
	return mixture.FitGMM(x, o)
}

// softKMeans learns the means of mx, whose variance is known and shared,
// by EM: E-step, the responsibilities P(C = j | x) ∝ w_j exp(−‖x − μ_j‖² /
// 2σ²); M-step, each mean the responsibility-weighted mean of the rows.
// The weights are P(C) of the model if it has one, else uniform. The
// start is k rows drawn without replacement from seed (Mitchell's random
// initial hypothesis); restarts keep the best log-likelihood.
func softKMeans(m *ir.Model, mx *ir.Mixture, x *mixture.Matrix, opt Options) (*mixture.GMM, error) {
	k, d, n := len(m.Vars[mx.Component].States), x.Cols, x.Rows
	w := make([]float64, k)
	if f := m.Factor(mx.Component); f != nil {
		copy(w, f.Vals)
	} else {
		for j := range w {
			w[j] = 1 / float64(k)
		}
	}
	v := mx.Variance
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = DefaultEMIter
	}
	logNorm := -0.5 * float64(d) * math.Log(2*math.Pi*v)
	resp := make([]float64, k)
	// estep returns the log-likelihood of means and, if next is not nil,
	// the M-step's new means in it.
	estep := func(means, next []float64) float64 {
		ll := 0.0
		var sum []float64
		var tot []float64
		if next != nil {
			sum, tot = make([]float64, k*d), make([]float64, k)
		}
		for i := range n {
			row := x.Row(i)
			top := math.Inf(-1)
			for j := range k {
				q := 0.0
				for a, xa := range row {
					t := xa - means[j*d+a]
					q += t * t
				}
				resp[j] = math.Log(w[j]) + logNorm - q/(2*v)
				top = max(top, resp[j])
			}
			s := 0.0
			for j := range resp {
				resp[j] = math.Exp(resp[j] - top)
				s += resp[j]
			}
			ll += top + math.Log(s)
			if next == nil {
				continue
			}
			for j := range resp {
				r := resp[j] / s
				tot[j] += r
				for a, xa := range row {
					sum[j*d+a] += r * xa
				}
			}
		}
		for j := range tot {
			for a := range d {
				if tot[j] > 0 {
					next[j*d+a] = sum[j*d+a] / tot[j]
				} else {
					next[j*d+a] = means[j*d+a] // a component no row belongs to keeps its mean
				}
			}
		}
		return ll
	}
	var best *mixture.GMM
	for r := range max(1, opt.Restarts) {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(r)))
		means := make([]float64, k*d)
		for j, i := range rng.Perm(n)[:k] {
			copy(means[j*d:], x.Row(i))
		}
		next := make([]float64, k*d)
		ll := estep(means, next)
		g := &mixture.GMM{K: k, D: d, Trace: []float64{ll / float64(n)}}
		for it := 1; it <= maxIter; it++ {
			means, next = next, means
			nll := estep(means, next)
			if nll < ll-1e-9*max(1, math.Abs(ll)) {
				return nil, fmt.Errorf("%w from %s to %s at iteration %d: this is a bug in pbl, please report it", ErrDecrease, ir.FormatFloat(ll), ir.FormatFloat(nll), it)
			}
			g.Trace = append(g.Trace, nll/float64(n))
			g.Iterations = it
			// As Converged: the objective and the means settled.
			done := objectiveSettled(opt.Tol, ll, nll)
			for i := 0; done && i < len(means); i++ {
				done = math.Abs(next[i]-means[i]) <= opt.Tol*max(1, math.Abs(means[i]))
			}
			ll = nll
			if done {
				g.Converged = true
				break
			}
		}
		g.Means = append([]float64(nil), means...)
		g.LogLikelihood, g.LowerBound = ll/float64(n), ll/float64(n)
		if best == nil || g.LowerBound > best.LowerBound {
			best = g
		}
	}
	best.Weights = w
	best.Covariance = mixture.Spherical
	best.Covariances = make([]float64, k)
	for j := range best.Covariances {
		best.Covariances[j] = v
	}
	best.N, best.NInit = n, max(1, opt.Restarts)
	return best, nil
}

// FromGMM returns m, whose only mixture declaration is for a fit g (its
// component with g.K states, its variables g.D columns, in order), with
// the fitted distributions: P(C) the weights, and the components' joint
// normal density (a normal one for one variable) in the declared form.
func FromGMM(m *ir.Model, g *mixture.GMM) (*ir.Model, error) {
	if len(m.Mixtures) != 1 || len(m.Mixtures[0].Vars) != g.D || len(m.Vars[m.Mixtures[0].Component].States) != g.K {
		panic("learn: FromGMM: the model's mixture does not fit the mixture fitted")
	}
	return mixtureDists(m, m.Mixtures[0], g)
}

// mixtureDists returns m with the fitted mixture's distributions: P(C)
// and the components' densities.
func mixtureDists(m *ir.Model, mx *ir.Mixture, g *mixture.GMM) (*ir.Model, error) {
	c := mx.Component
	k, d := g.K, g.D
	pos := func(v ir.VarID) ir.Pos {
		if old := m.Dist(v); old != nil {
			return old.Position()
		}
		return mx.Pos
	}
	prior := ir.NewFactor([]ir.VarID{c}, []int{k})
	copy(prior.Vals, g.Weights)
	dists := []ir.Dist{&ir.CPT{Pos: pos(c), Child: c, Factor: prior}}
	if d == 1 {
		gd := &ir.Gaussian{Pos: pos(mx.Vars[0]), Child: mx.Vars[0], Parents: []ir.VarID{c}, Mean: make([]float64, k), SD: make([]float64, k)}
		for j := range k {
			gd.Mean[j], gd.SD[j] = g.Means[j], math.Sqrt(g.CovarianceMatrix(j)[0])
		}
		dists = append(dists, gd)
	} else {
		mn := &ir.MultiNormal{Pos: pos(mx.Vars[0]), Children: append([]ir.VarID(nil), mx.Vars...), Parents: []ir.VarID{c},
			Mean: make([][]float64, k), Cov: make([][]float64, k), Form: mx.Form}
		for j := range k {
			mn.Mean[j] = append([]float64(nil), g.Means[j*d:(j+1)*d]...)
			mn.Cov[j] = g.CovarianceMatrix(j)
		}
		dists = append(dists, mn)
	}
	return m.WithDists(dists...)
}
