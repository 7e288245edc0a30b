package ir

import (
	"errors"
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
	want, kind := "a number", ExpectNumber
	switch {
	case q.Hyp != nil && (q.Hyp.Classify || q.Kind == Prob):
		want, kind = "a vector of the probabilities it prints [p1, p2, ...]", ExpectVector
	case q.Hyp != nil:
		want, kind = "a hypothesis {w0: 1.5, ...}", ExpectAssign
	case q.Kind == Indep:
		want, kind = "true or false", ExpectBool
	case q.Kind == MPE || q.Kind == MAP:
		want, kind = "an assignment {X: x, ...}", ExpectAssign
	case q.Kind == Entropy || q.Kind == MI:
		want, kind = "a number of bits", ExpectNumber
	default:
		switch q.Form() {
		case FormTable:
			want, kind = "a vector of its rows' probabilities [p1, p2, ...]", ExpectVector
		case FormMarginals:
			want, kind = "a vector of every marginal, in printed order [p1, p2, ...]", ExpectVector
		}
	}
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
		errs.Add(pos(v.Pos), "%s answers with %s, not %s", q.Text, want, s.Want.Text)
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
		if q.Hyp != nil {
			s.Want.Hyp = expectHyp(m, q.Hyp, v.Assign, &errs)
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
