package ir

import (
	"math"
	"strconv"

	"github.com/pbl-lang/pbl/grammar"
)

// This file holds what interventions, do(X=x), and likelihood (virtual)
// evidence, X~[l1, l2, ...], add to a query, and the models the engines
// answer them on: a surgically modified network for do(...), the network
// times a factor λ(X) for likelihood evidence. Both are new models; the
// model asked about is not changed.

// SoftObs is likelihood (virtual) evidence on a discrete variable: the
// joint distribution is multiplied by Lambda[s] wherever Var is in state s.
// Lambda has one entry per state, each finite and at least 0, not all 0;
// they need not sum to 1.
type SoftObs struct {
	Var    VarID
	Lambda []float64
}

// WithDo returns the network m after the interventions do: for each
// do(X=x), X's distribution is replaced by a point mass on x and the edges
// from its parents are cut; the edges to its children, and every other
// distribution, are kept (Pearl's graph surgery). Each variable must be
// discrete and appear once; m must be a Bayesian network. The result may
// be answered with do's observations as evidence (they have probability
// 1 in it). m is not changed.
func (m *Model) WithDo(do []Obs) (*Model, error) {
	if len(do) == 0 {
		return m, nil
	}
	if !m.IsBayesNet() {
		panic("ir: WithDo: a Markov network has no edges to cut")
	}
	ds := make([]Dist, 0, len(do))
	for _, o := range do {
		x := m.Vars[o.Var]
		if !x.Discrete() || o.State < 0 || o.State >= x.Card() {
			panic("ir: WithDo: not a state of a discrete variable")
		}
		f := NewFactor([]VarID{o.Var}, []int{x.Card()})
		f.Vals[o.State] = 1
		ds = append(ds, &CPT{Pos: Pos{File: m.Source}, Child: o.Var, Factor: f})
	}
	return m.WithDists(ds...)
}

// WithLikelihoods returns m times the factor λ(X) of each likelihood
// evidence in soft, as potentials (so the product is no longer
// normalised: the engines divide by its partition function). m is not
// changed.
func (m *Model) WithLikelihoods(soft []SoftObs) *Model {
	fs := make([]*Factor, 0, len(soft))
	for _, s := range soft {
		x := m.Vars[s.Var]
		if !x.Discrete() || len(s.Lambda) != x.Card() {
			panic("ir: WithLikelihoods: not one likelihood per state of a discrete variable")
		}
		f := NewFactor([]VarID{s.Var}, []int{x.Card()})
		copy(f.Vals, s.Lambda)
		fs = append(fs, f)
	}
	return m.WithPotentials(fs...)
}

// softValues parses the likelihoods of X~[l1, l2, ...] for the variable
// x, reporting each that is not a finite number at least 0, a count other
// than x's number of states, and all zeros. ok is false if it reported
// anything.
func softValues(x *Variable, t *grammar.Term, errs *ErrorList) ([]float64, bool) {
	before := len(*errs)
	name := strconv.Quote(x.Name)
	ls := make([]float64, len(t.Soft))
	for i, n := range t.Soft {
		v, err := strconv.ParseFloat(n.Number, 64)
		switch {
		case n.Number == "":
			errs.Add(pos(n.Pos), "the likelihoods of %s are numbers, one per state, as in %s~[0.8, 0.2]; %s is not a number", name, Quote(x.Name), strconv.Quote(n.Text()))
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			errs.Add(pos(n.Pos), "a likelihood of %s must be a finite number, not %s", name, n.Number)
		case v < 0:
			errs.Add(pos(n.Pos), "a likelihood of %s must be at least 0, not %s", name, n.Number)
		}
		ls[i] = v
	}
	if len(t.Soft) != x.Card() {
		errs.Add(pos(t.Pos), "%s has %d states (%s), so %s~[...] needs %d likelihoods, in that order; %d given", name, x.Card(), stateList(x), Quote(x.Name), x.Card(), len(t.Soft))
	}
	if len(*errs) == before {
		zero := true
		for _, v := range ls {
			zero = zero && v == 0
		}
		if zero {
			errs.Add(pos(t.Pos), "the likelihoods of %s are all 0: that finding is impossible", name)
		}
	}
	return ls, len(*errs) == before
}

// misplacedTerms reports interventions and likelihood evidence where a
// query of kind k cannot take them, and a do(...) that does not set one
// variable to a state: they are conditions, written after the bar (or
// among the evidence of P(e) and MPE(e)), and indep(...) is about the
// graph alone.
func misplacedTerms(q *grammar.Query, k queryKind, errs *ErrorList) {
	check := func(ts []*grammar.Term, before bool) {
		for _, t := range ts {
			if t.Do == nil && t.Soft == nil {
				continue
			}
			what := "do(...)"
			if t.Do == nil {
				what = "likelihood evidence " + Quote(t.Name.Text()) + "~[...]"
			} else {
				if in := t.Do; in.Do != nil || in.Star || in.Group != nil || in.Soft != nil || in.Name == nil || in.State == nil {
					errs.Add(pos(t.Pos), "do(...) sets one variable to one of its states, as in do(X=x)")
					continue
				}
			}
			switch {
			case k == kindIndep:
				errs.Add(pos(t.Pos), "indep(...) is about the graph: %s is not allowed in it", what)
			case !before || k == kindMPE || k == kindProb && !q.Bar:
			default:
				errs.Add(pos(t.Pos), "%s is a condition: write it after |, as in %s(... | %s)", what, k, what)
			}
		}
	}
	check(q.Targets, true)
	check(q.Given, false)
}

// softAtMostOne reports likelihoods above 1 in a query for the
// probability of evidence, P(e, X~[...]) = Σ_x P(x, e) λ(x): there each
// likelihood is the probability of the finding given the state, so that
// the answer is a probability. terms are the queries' terms of soft, in
// order.
func softAtMostOne(soft []SoftObs, terms []*grammar.Term, errs *ErrorList) {
	for i, s := range soft {
		for j, l := range s.Lambda {
			if l > 1 {
				n := terms[i].Soft[j]
				errs.Add(pos(n.Pos), "in P(e), a likelihood is the probability of the finding given the state, at most 1, not %s (to weigh the states, ask P(Y | %s~[...]))", n.Number, Quote(terms[i].Name.Text()))
			}
		}
	}
}
