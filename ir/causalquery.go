package ir

import (
	"fmt"
	"strconv"

	"github.com/pbl-lang/pbl/grammar"
)

// CausalForm is the form of a causal question.
type CausalForm int

const (
	// CausalEffect is P(Y | do(X=x), Z=z) asked of a model that
	// NeedsIdentification: answered by identification on the observed
	// distribution (a number, or a table over Y when Y has no states).
	CausalEffect CausalForm = iota
	// CausalIdentify is identify(Y | do(X), Z): the estimand of the
	// effect, or the hedge that proves there is none, without evaluating
	// it.
	CausalIdentify
	// CausalAdjust is adjust(X, Y): the minimal backdoor adjustment sets
	// of X's effect on Y.
	CausalAdjust
	// CausalCF is CF(Y=y | do(X=x), e): the probability that Y would have
	// been y had X been x, given the factual evidence e, on a structural
	// model.
	CausalCF
)

// CausalQuery is a causal question: identification (P on a model with
// unobserved confounders, identify), adjustment sets (adjust) or a
// counterfactual (CF). Y are the outcomes, X the interventions (do, or
// adjust's treatment), Z the conditions (the factual evidence of CF);
// a State is -1 where none is given (identify and adjust, and a table's
// outcomes).
type CausalQuery struct {
	QueryHeader
	Form    CausalForm
	Y, X, Z []Obs
}

func (*CausalQuery) query()             {}
func (*CausalQuery) Conds() *Conditions { return nil }
func (q *CausalQuery) Vars() (y, x, z []VarID) {
	ids := func(os []Obs) []VarID {
		out := make([]VarID, len(os))
		for i, o := range os {
			out[i] = o.Var
		}
		return out
	}
	return ids(q.Y), ids(q.X), ids(q.Z)
}

// causalQuery lowers identify(Y | do(X), Z), adjust(X, Y) and
// CF(Y=y | do(X=x), e).
func (l *queryLowerer) causalQuery(kind queryKind) Query {
	m, q := l.m, l.q
	if !m.IsBayesNet() {
		l.errs = append(l.errs, &Error{Pos: l.at, Err: ErrNotCausal,
			Msg: fmt.Sprintf("%s(...) is a causal question about a graph of causes; this model is a Markov network, whose factors have no direction", kind)})
		return nil
	}
	lq := &CausalQuery{}
	switch kind {
	case kindIdentify:
		lq.Form = CausalIdentify
		if len(q.Targets) == 0 {
			l.errs.Add(l.at, "identify needs an outcome, as in identify(Y | do(X))")
			return nil
		}
		lq.Y = l.causalTerms(q.Targets, false, false, false)
		lq.X, lq.Z = l.causalGiven(q.Given, false, false)
	case kindAdjust:
		lq.Form = CausalAdjust
		if len(q.Targets) != 2 || q.Bar {
			l.errs = append(l.errs, &Error{Pos: l.at, Err: ErrNotCausal, Msg: "adjust takes a treatment and an outcome, as in adjust(X, Y)"})
			return nil
		}
		lq.X = l.causalTerms(q.Targets[:1], false, false, true)
		lq.Y = l.causalTerms(q.Targets[1:], false, false, true)
	case kindCF:
		lq.Form = CausalCF
		if len(q.Targets) == 0 || !q.Bar {
			l.errs = append(l.errs, &Error{Pos: l.at, Err: ErrNotCausal, Msg: "CF needs an outcome and an intervention, as in CF(Y=y | do(X=x), X=x2, Y=y2)"})
			return nil
		}
		// The outcome, the intervention and the evidence are about
		// different worlds: a variable may be in each, as X is in
		// CF(Y=y | do(X=x), X=x2).
		lq.Y = l.causalTerms(q.Targets, true, true, false)
		l.seen, l.doSeen = map[VarID]*grammar.Term{}, map[VarID]*grammar.Term{}
		lq.X, lq.Z = l.causalGiven(q.Given, true, true)
		if len(l.errs) == 0 && len(lq.X) == 0 {
			l.errs = append(l.errs, &Error{Pos: l.at, Err: ErrNotCausal, Msg: "CF needs an intervention after |, as in CF(Y=y | do(X=x), e)"})
		}
	}
	if len(l.errs) > 0 {
		return nil
	}
	lq.QueryHeader = l.h
	return lq
}

// causalTerms lowers terms X or X=x naming observed variables; with
// needState each must give a state, with allowLatent a latent variable
// may be named, with bare none may give one.
func (l *queryLowerer) causalTerms(ts []*grammar.Term, needState, allowLatent, bare bool) []Obs {
	var out []Obs
	for _, t := range ts {
		if t.Star || t.Group != nil || t.Soft != nil || t.Do != nil {
			l.errs.Add(pos(t.Pos), "%s(...) names variables here, as in %s", l.q.Kind, map[bool]string{false: "Y or Y=y", true: "Y=y"}[needState])
			continue
		}
		if o, ok := l.causalTerm(t, needState, allowLatent, bare, false); ok {
			out = append(out, o)
		}
	}
	return out
}

// causalTerm lowers one term X or X=x.
func (l *queryLowerer) causalTerm(t *grammar.Term, needState, allowLatent, bare, inDo bool) (Obs, bool) {
	m := l.m
	id, ok := l.resolve(t.Name)
	if !ok {
		return Obs{}, false
	}
	v := m.Vars[id]
	if v.Latent && !allowLatent {
		l.errs = append(l.errs, &Error{Pos: pos(t.Name.Pos), Err: ErrLatent,
			Msg: fmt.Sprintf("%s is latent: %s(...) is about observed variables", strconv.Quote(v.Name), l.q.Kind)})
		return Obs{}, false
	}
	seen := l.seen
	if inDo && l.doSeen != nil {
		seen = l.doSeen
	}
	if _, dup := seen[id]; dup {
		l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(v.Name))
		return Obs{}, false
	}
	seen[id] = t
	s := l.state(id, t)
	switch {
	case s == -2:
		return Obs{}, false
	case s >= 0 && bare:
		l.errs.Add(pos(t.State.Pos), "%s(...) is about the graph: give %s no state", l.q.Kind, strconv.Quote(v.Name))
		return Obs{}, false
	case s < 0 && needState:
		l.errs.Add(pos(t.Pos), "%q needs a state here, as in %s=%s", v.Name, Quote(v.Name), Quote(v.States[0]))
		return Obs{}, false
	}
	return Obs{Var: id, State: s}, true
}

// causalGiven lowers the terms after the bar: interventions do(X) or
// do(X=x), and conditions Z or Z=z.
func (l *queryLowerer) causalGiven(ts []*grammar.Term, needState, allowLatent bool) (x, z []Obs) {
	for _, t := range ts {
		switch {
		case t.Do != nil:
			in := t.Do
			if in.Do != nil || in.Star || in.Group != nil || in.Soft != nil || in.Name == nil {
				l.errs.Add(pos(t.Pos), "do(...) sets one variable, as in do(X=x)")
				continue
			}
			if o, ok := l.causalTerm(in, needState, false, false, true); ok {
				x = append(x, o)
			}
		case t.Star || t.Group != nil || t.Soft != nil:
			l.errs.Add(pos(t.Pos), "%s(...) is given interventions and states, as in %s(Y | do(X=x), Z=z)", l.q.Kind, l.q.Kind)
		default:
			if o, ok := l.causalTerm(t, needState, allowLatent, false, false); ok {
				z = append(z, o)
			}
		}
	}
	return x, z
}

// causalEffect turns P(Y | do(X=x), Z=z), lowered as a probability query,
// into the question identification answers on a model that
// NeedsIdentification, or reports what it cannot take.
func (l *queryLowerer) causalEffect(pq *ProbQuery) Query {
	m := l.m
	bad := func(format string, args ...any) Query {
		l.errs = append(l.errs, &Error{Pos: l.at, Err: ErrNotCausal, Msg: fmt.Sprintf(format, args...)})
		return nil
	}
	switch {
	case pq.Star || len(pq.Targets) == 0:
		return bad("this model has unobserved confounders: P(...) asks for the distribution of named outcomes, as in P(Y | do(X=x), Z=z), answered by identification from the observed distribution")
	case len(pq.Free) > 0:
		return bad("this model has unobserved confounders: give every condition a state, as in P(Y | do(X=x), %s=%s) (identification answers for given states)", Quote(m.Vars[pq.Free[0]].Name), Quote(m.Vars[pq.Free[0]].States[0]))
	case len(pq.Soft) > 0 || len(pq.Real) > 0 || len(pq.DoReal) > 0:
		return bad("this model has unobserved confounders: identification takes states of discrete variables and do(...), not likelihood evidence or real values")
	}
	lq := &CausalQuery{Form: CausalEffect, QueryHeader: pq.QueryHeader}
	for i, v := range pq.Targets {
		lq.Y = append(lq.Y, Obs{Var: v, State: pq.TargetStates[i]})
	}
	lq.X = append(lq.X, pq.Do...)
	lq.Z = append(lq.Z, pq.Evidence...)
	for _, os := range [][]Obs{lq.Y, lq.X, lq.Z} {
		for _, o := range os {
			if v := m.Vars[o.Var]; v.Latent {
				at := l.at
				for _, mn := range lq.Mentions {
					if mn.Var == o.Var {
						at = mn.Pos
						break
					}
				}
				l.errs = append(l.errs, &Error{Pos: at, Err: ErrLatent,
					Msg: fmt.Sprintf("%s is latent and has no distribution: a causal effect is asked of observed variables", strconv.Quote(v.Name))})
				return nil
			}
		}
	}
	return lq
}
