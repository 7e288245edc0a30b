package infer

import (
	"math"

	"github.com/pbl-lang/pbl/ir"
)

// This file answers queries with real-valued evidence (P(Sex | Height=170))
// and density queries (density(Height=170 | Sex=f)). A real variable has
// a normal density per configuration of its discrete parents (ir.Gaussian);
// observing it at x multiplies the joint distribution by the likelihood
// N(x; mean_u, sd_u), a factor over its parents. The engines answer the
// model with those factors as potentials (exact: the discrete variables
// are summed out; the likelihoods are computed in log space and rescaled,
// the scale kept apart), and an unobserved real variable, whose density
// integrates to 1, drops out.

// withLikelihoods returns m with the likelihoods of the real observations
// obs as potentials over their densities' parents, and ln of the factor
// they were divided by: the joint density of the observations given the
// parents is the product of the potentials times e^scale.
func withLikelihoods(m *ir.Model, pos ir.Pos, obs []ir.RealObs) (*ir.Model, float64, error) {
	if u := m.Unlearned(); len(u) > 0 {
		return nil, 0, &ir.Error{Pos: pos, Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
	}
	scale := 0.0
	var pots []*ir.Factor
	// add turns the log likelihoods l over the configurations of parents
	// (less shift) into a potential and the scale.
	add := func(parents []ir.VarID, l []float64, shift float64) {
		top := math.Inf(-1)
		for _, x := range l {
			top = max(top, x)
		}
		scale += shift + top
		if len(parents) == 0 {
			return
		}
		card := make([]int, len(parents))
		for k, p := range parents {
			card[k] = len(m.Vars[p].States)
		}
		f := ir.NewFactor(parents, card)
		for u, x := range l {
			f.Vals[u] = math.Exp(x - top)
		}
		pots = append(pots, f)
	}
	done := map[ir.Dist]bool{}
	for _, o := range obs {
		d := m.Dist(o.Var)
		if d == nil {
			return nil, 0, ir.Errorf(pos, "%s is real-valued and has no density: only a variable with a normal density given discrete parents (P(X | C) = { c: normal(MEAN, SD) ... }, or a joint one) can be observed", ir.Quote(m.Vars[o.Var].Name))
		}
		if done[d] {
			continue // a joint density: every observed child of it at once
		}
		done[d] = true
		parents, l, shift, err := ir.LogDensities(d, obs)
		if err != nil {
			return nil, 0, ir.Errorf(pos, "the density of %s: %v", ir.Quote(m.Vars[o.Var].Name), err)
		}
		add(parents, l, shift)
	}
	return m.WithPotentials(pots...), scale, nil
}

// withReal answers q, which has real-valued evidence, on m.
func withReal(m *ir.Model, q *ir.Query, opt Options) (*Result, error) {
	m2, _, err := withLikelihoods(m, q.Pos, q.Real)
	if err != nil {
		return nil, err
	}
	q2 := *q
	q2.Real = nil
	r, err := Answer(m2, &q2, opt)
	if err != nil {
		return nil, err
	}
	r.Query = q
	return r, nil
}

// density answers density(values | reals, e): ln p(values, reals, e) −
// ln p(reals, e).
func density(m *ir.Model, q *ir.Query, opt Options) (*Result, error) {
	num, err := logJoint(m, q.Pos, append(append([]ir.RealObs(nil), q.Real...), q.Values...), q.Evidence, opt)
	if err != nil {
		return nil, err
	}
	den := 0.0
	if len(q.Real) > 0 || len(q.Evidence) > 0 {
		if den, err = logJoint(m, q.Pos, q.Real, q.Evidence, opt); err != nil {
			return nil, err
		}
		if math.IsInf(den, -1) {
			return nil, impossible(q.Pos, m, q.Evidence)
		}
	}
	ld := num - den
	return &Result{Query: q, Density: math.Exp(ld), LogDensity: ld}, nil
}

// logJoint returns ln of the joint density of the real observations obs
// and the discrete evidence ev (−Inf when it is 0).
func logJoint(m *ir.Model, pos ir.Pos, obs []ir.RealObs, ev []ir.Obs, opt Options) (float64, error) {
	m2, scale, err := withLikelihoods(m, pos, obs)
	if err != nil {
		return 0, err
	}
	r, err := Answer(m2, &ir.Query{Pos: pos, Kind: ir.Prob, Evidence: ev, Text: evidenceText(m, ev)}, opt)
	if err != nil {
		return 0, err
	}
	return r.LogZ + scale, nil
}
