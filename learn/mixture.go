package learn

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"
)

// This file learns a Gaussian mixture declared in a model (`mixture C of
// x, y`), whose component C has no column in the data: EM on the real
// columns, by package mixture (k-means initialisation, restarts, the
// covariance forms), or, for a known shared variance, the soft k-means of
// UML §24.4.2 and Mitchell §6.12.1, which learns the means alone. The
// learned model has P(C) (the weights; left as it is for a known
// variance) and the components' densities.
//
// Only a model that is the mixture alone is learned so: its variables are
// the component and the mixture's real variables. A mixture within a
// larger network, or an observed component, is not yet.

// DefaultRegCovar is added to the diagonal of every learned covariance
// (scikit-learn's reg_covar), so that a component on few or identical
// points keeps a proper density.
const DefaultRegCovar = 1e-6

// mixtureModel returns m's mixture if m is one that learnMixture learns,
// or an error saying why not; nil, nil if m declares none.
func mixtureModel(m *ir.Model) (*ir.Mixture, error) {
	switch len(m.Mixtures) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, modelErrorf("the model declares %d mixtures; pbl learns one mixture alone (for now)", len(m.Mixtures))
	}
	mx := m.Mixtures[0]
	in := map[ir.VarID]bool{mx.Component: true}
	for _, v := range mx.Vars {
		in[v] = true
	}
	for v, x := range m.Vars {
		if !in[ir.VarID(v)] {
			return nil, modelErrorf("%s is not part of the mixture: pbl learns a mixture alone, whose variables are its component and its real variables (for now)", ir.Quote(x.Name))
		}
	}
	if len(m.Parents[mx.Component]) > 0 {
		return nil, modelErrorf("the mixture's component %s has parents: pbl learns a mixture whose component is a root (for now)", ir.Quote(m.Vars[mx.Component].Name))
	}
	return mx, nil
}

// readReals reads every row of r into an n×d matrix of the variables vars,
// and reports whether the data observes the component c in some row.
func readReals(r *data.Reader, vars []ir.VarID, c ir.VarID) (*mixture.Matrix, bool, error) {
	col := map[ir.VarID]int{}
	for j, v := range r.Vars {
		col[v] = j
	}
	for _, v := range vars {
		if _, ok := col[v]; !ok {
			return nil, false, fmt.Errorf("the data has no column for %s, a variable of the mixture", ir.Quote(r.Model().Vars[v].Name))
		}
	}
	b := r.NewBatch(batchRows)
	var vals []float64
	n, observed := 0, false
	for {
		err := r.Read(b)
		for i := range b.N {
			for _, v := range vars {
				x := b.Reals[col[v]][i]
				if math.IsNaN(x) {
					return nil, false, &ir.Error{Pos: ir.Pos{File: r.File(), Line: b.Lines[i]}, Msg: fmt.Sprintf("%s is missing: a mixture is learned from rows that give every one of its variables", ir.Quote(r.Model().Vars[v].Name))}
				}
				vals = append(vals, x)
			}
			if j, ok := col[c]; ok && b.Cols[j] != nil && b.Cols[j][i] >= 0 {
				observed = true
			}
		}
		n += b.N
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	if n == 0 {
		return nil, false, ErrNoRows
	}
	return mixture.NewMatrix(n, len(vars), vals), observed, nil
}

// learnMixture learns the mixture mx of m from the rows of r.
func learnMixture(m *ir.Model, mx *ir.Mixture, r *data.Reader, opt Options) (*ir.Model, *Report, error) {
	x, observed, err := readReals(r, mx.Vars, mx.Component)
	if err != nil {
		return nil, nil, err
	}
	if observed {
		return nil, nil, modelErrorf("the data observes the mixture's component %s: pbl learns a mixture whose component is hidden (for now); drop the column", ir.Quote(m.Vars[mx.Component].Name))
	}
	k := len(m.Vars[mx.Component].States)
	if x.Rows < k {
		return nil, nil, fmt.Errorf("%s rows for %d components: a mixture needs at least one row per component", ir.Plural(x.Rows, "data row"), k)
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
			return nil, nil, &ir.Error{Pos: ir.Pos{File: r.File()}, Msg: fmt.Sprintf("data row %d: %s", me.Row, me.Msg), Err: err}
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
			done := opt.Tol > 0 && math.Abs(nll-ll) <= opt.Tol*math.Abs(ll)
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
