package ir

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// lowerExpect validates an expect statement: its query, and a value of the
// kind the query answers with.
func lowerExpect(m *Model, e *grammar.Expect) (*ExpectStmt, ErrorList) {
	q, errs := lowerQuery(m, e.Query)
	if len(errs) > 0 {
		return nil, errs
	}
	v := e.Value
	s := &ExpectStmt{Pos: pos(e.Pos), Query: q, Tol: DefaultTolerance,
		Want: Expected{Pos: pos(v.Pos), Text: expectText(v)}}
	if w := e.Within; w != nil {
		tol, err := strconv.ParseFloat(w.Value, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) && math.IsInf(tol, 0):
			errs.Add(pos(w.Pos), "number %s is out of range", w.Value)
		case err != nil || !(tol >= 0):
			errs.Add(pos(w.Pos), "within %s: the tolerance must be a non-negative number", w.Value)
		}
		s.Tol = tol
	}
	// want names the kind of value the query answers with.
	want, kind := expectedOf(q)
	got := ExpectNumber
	switch {
	case v.Vector != nil:
		got = ExpectVector
	case v.Assign != nil:
		got = ExpectAssign
	case v.Bool != nil:
		got = ExpectBool
	}
	if got != kind {
		errs.Add(pos(v.Pos), "%s answers with %s, not %s", q.Head().Text, want, s.Want.Text)
		return nil, errs
	}
	s.Want.Kind = kind
	switch kind {
	case ExpectNumber, ExpectVector:
		texts := v.Vector
		if v.Number != nil {
			texts = []string{*v.Number}
		}
		for _, t := range texts {
			x, err := strconv.ParseFloat(t, 64)
			if err != nil || math.IsInf(x, 0) {
				errs.Add(pos(v.Pos), "number %s is out of range", t)
			}
			s.Want.Numbers = append(s.Want.Numbers, x)
		}
	case ExpectBool:
		s.Want.Bool = *v.Bool == "true"
	case ExpectAssign:
		if h := HypOf(q); h != nil {
			s.Want.Hyp = expectHyp(m, h, v.Assign, &errs)
			break
		}
		seen := map[VarID]bool{}
		for _, b := range v.Assign {
			id, ok := lookupVar(m, b.Name, &errs)
			if !ok {
				continue
			}
			if seen[id] {
				errs.Add(pos(b.Pos), "%q appears twice in the expected assignment", m.Vars[id].Name)
				continue
			}
			seen[id] = true
			st, ok := lookupState(m.Vars[id], b.State, &errs)
			if ok {
				s.Want.Assign = append(s.Want.Assign, Obs{Var: id, State: st})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// expectedOf returns the kind of value q answers with, and its name for
// messages.
func expectedOf(q Query) (string, ExpectKind) {
	number := "a number"
	hyp := func(h *HypQuery, prob bool) (string, ExpectKind) {
		if h.Classify || prob {
			return "a vector of the probabilities it prints [p1, p2, ...]", ExpectVector
		}
		return "a hypothesis {w0: 1.5, ...}", ExpectAssign
	}
	switch q := q.(type) {
	case *ProbQuery:
		switch {
		case q.Hyp != nil:
			return hyp(q.Hyp, true)
		case q.Form() == ProbTable:
			return "a vector of its rows' probabilities [p1, p2, ...]", ExpectVector
		case q.Form() == ProbMarginals:
			return "a vector of every marginal, in printed order [p1, p2, ...]", ExpectVector
		}
		return number, ExpectNumber
	case *MAPQuery:
		if q.Hyp != nil {
			return hyp(q.Hyp, false)
		}
		return "an assignment {X: x, ...}", ExpectAssign
	case *MPEQuery:
		return "an assignment {X: x, ...}", ExpectAssign
	case *MLQuery:
		return hyp(q.Hyp, false)
	case *MDLQuery:
		return hyp(q.Hyp, false)
	case *GibbsQuery:
		return hyp(q.Hyp, false)
	case *IndepQuery:
		return "true or false", ExpectBool
	case *EntropyQuery, *MIQuery:
		return "a number of bits", ExpectNumber
	case *DensityQuery:
		return number, ExpectNumber
	case *CausalQuery:
		allStates := true
		for _, os := range [][]Obs{q.Y, q.X, q.Z} {
			for _, o := range os {
				allStates = allStates && o.State >= 0
			}
		}
		switch {
		case q.Form == CausalIdentify && allStates:
			return "the estimand's value on the observed distribution (give no states to compare whether the effect is identifiable, true or false)", ExpectNumber
		case q.Form == CausalIdentify:
			return "true if the effect is identifiable, false if not", ExpectBool
		case q.Form == CausalAdjust:
			return "true if some set of variables satisfies the backdoor criterion, false if none does", ExpectBool
		}
		for _, o := range q.Y {
			if o.State < 0 {
				return "a vector of probabilities, one per configuration of the outcomes", ExpectVector
			}
		}
		return number, ExpectNumber
	case *DecisionQuery:
		if q.Form == DecisionPolicy {
			return "a vector of the choices' state numbers (from 0), one per configuration of the information, in printed order [0, 1, ...]", ExpectVector
		}
		return "an expected utility", ExpectNumber
	}
	panic(fmt.Sprintf("ir: expect: unknown query %T", q))
}

// expectHyp lowers an expected hypothesis: a value for each of its
// components (the space's parameters, a concept's attributes, or the
// variable whose states are the hypotheses), in any order.
func expectHyp(m *Model, h *HypQuery, as []*grammar.Binding, errs *ErrorList) []Given {
	var names []string
	switch {
	case h.Space == nil:
		names = []string{m.Vars[h.Var].Name}
	case h.Space.Concept != nil:
		for _, a := range h.Space.Concept.Attrs {
			names = append(names, m.Vars[a].Name)
		}
	default:
		for _, p := range h.Space.Params {
			names = append(names, p.Name)
		}
	}
	var out []Given
	seen := map[string]bool{}
	for _, b := range as {
		n := b.Name.Text()
		if !slices.Contains(names, n) {
			errs.Add(pos(b.Name.Pos), "%s is not a component of the hypothesis (its components: %s)", strconv.Quote(n), strings.Join(names, ", "))
			continue
		}
		if seen[n] {
			errs.Add(pos(b.Pos), "%q appears twice in the expected hypothesis", n)
			continue
		}
		seen[n] = true
		out = append(out, Given{Pos: pos(b.Pos), Name: n, Value: b.State.Text()})
	}
	if len(*errs) == 0 && len(out) != len(names) {
		errs.Add(pos(as[0].Pos), "give every component of the hypothesis: %s", strings.Join(names, ", "))
	}
	return out
}

// expectText renders an expected value as pbl source.
func expectText(v *grammar.ExpectValue) string {
	switch {
	case v.Number != nil:
		return *v.Number
	case v.Vector != nil:
		return "[" + strings.Join(v.Vector, ", ") + "]"
	case v.Bool != nil:
		return *v.Bool
	}
	parts := make([]string, len(v.Assign))
	for i, b := range v.Assign {
		v := Quote(b.State.Text())
		if b.State.Number != "" {
			v = b.State.Number // a value, or a state written as a number
		}
		parts[i] = Quote(b.Name.Text()) + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
