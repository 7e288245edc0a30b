package infer

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file answers queries with interventions, do(X=x), and likelihood
// (virtual) evidence, X~[l1, l2, ...], by answering the query without them
// on a derived model with the ordinary engines:
//
//   - do(X=x) is Pearl's graph surgery: X's table is replaced by a point
//     mass on x, the edges from its parents cut, the rest kept
//     (ir.Model.WithDo); X=x is then evidence of probability 1, so that
//     MPE and MAP fix X rather than maximise over it.
//   - X~λ multiplies the joint distribution by the factor λ(X), a
//     potential (ir.Model.WithLikelihoods), so that every engine sums it
//     out with the rest:
//
//     P(Y | e, X~λ) = Σ_x P(Y, x, e) λ(x) / Σ_x P(x, e) λ(x)
//
//     P(e) with likelihood evidence is Σ_x P(x, e) λ(x) (divided by the
//     model's own partition function Z for a Markov network), the
//     probability of e and of the findings when λ(x) is the probability
//     of the finding given X=x (the IR then requires every λ(x) ≤ 1).
//
// The derived model is built once per query; its junction tree, if the
// engine compiles one, is cached as any model's is.

// intervened answers q, which has interventions or likelihood evidence,
// on m.
func intervened(m *ir.Model, q *query, opt Options) (Result, error) {
	m2, q2 := m, *q
	q2.Do, q2.Soft = nil, nil
	if len(q.Do) > 0 {
		if !m.IsBayesNet() {
			return nil, ir.Errorf(q.Pos, "do(...) cuts a variable from its parents in a Bayesian network; this model is a Markov network, whose factors have no direction")
		}
		var err error
		if m2, err = m.WithDo(q.Do); err != nil {
			return nil, at(q.Pos, err)
		}
		ev := slices.Clip(q.Evidence)
		for _, d := range q.Do {
			if !slices.ContainsFunc(q.Evidence, func(o ir.Obs) bool { return o.Var == d.Var }) {
				ev = append(ev, d)
			}
		}
		q2.Evidence = ev
	}
	if len(q.Soft) > 0 {
		if u := unlearned(m2); len(u) > 0 {
			// A product with potentials needs every factor.
			return nil, &ir.Error{Pos: q.Pos, Msg: noNumbers(m2, u), Err: ir.ErrNoDistribution}
		}
		m2 = m2.WithLikelihoods(q.Soft)
	}
	r, err := answer(m2, &q2, opt, nil)
	if err != nil {
		return nil, err
	}
	r.Head().Query = q.orig
	if len(q.Soft) == 0 {
		return r, nil
	}
	switch r := r.(type) {
	case *Evidence:
		// Σ_{x ⊨ e} P(x) λ(x): the partition function of m2 with the
		// evidence, over m's own (1 for a Bayesian network).
		logZ := 0.0
		if !m.IsBayesNet() {
			z, err := partitionOf(m, q.Pos, opt)
			if err != nil {
				return nil, err
			}
			logZ = z
		}
		lp := min(0, r.LogZ-logZ)
		r.LogP, r.P = lp, prob(math.Exp(lp))
		if !r.Exact && len(r.ErrorEstimate) == 1 {
			r.ErrorEstimate[0] = probErr(r.P, r.LogPErr)
		}
		if !math.IsInf(lp, -1) && !(r.P >= factor.MinNormal) {
			return nil, &ir.Error{Pos: q.Pos, Err: &UnderflowError{LogP: r.LogP, LogZ: r.LogZ},
				Msg: fmt.Sprintf("%s = exp(%s) underflows float64 (the evidence is possible, but less likely than 2.2e-308)", q.Text, ir.FormatFloat(r.LogP))}
		}
	case *Density:
		if len(q2.Real) > 0 || len(q2.Evidence) > 0 {
			break
		}
		// density(values | X~λ): the density answered is of the values
		// and the findings; divide by Σ_x P(x) λ(x).
		z, err := partitionOf(m2, q.Pos, opt)
		if err != nil {
			return nil, err
		}
		r.LogDensity -= z
		r.Density = math.Exp(r.LogDensity)
	}
	return r, nil
}

// partitionOf returns ln Z of m, the answer to P() (ln Σ_x Π φ(x)).
func partitionOf(m *ir.Model, at ir.Pos, opt Options) (float64, error) {
	opt.LogZOnly = true // P() of a Markov network would compute Z twice
	r, err := answer(m, &query{Pos: at, Kind: kindProb, Text: "P()"}, opt, nil)
	if err != nil {
		return 0, err
	}
	return r.(*Evidence).LogZ, nil
}
