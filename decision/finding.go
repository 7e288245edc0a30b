package decision

import (
	"math"
	"slices"
)

// Finding is evidence on a chance variable that is a fact of the case,
// known before any decision is taken: Weights[s] is the likelihood of
// state s of Var (1 for the state observed and 0 for the others, for a
// hard finding; any non-negative numbers, not all 0, for likelihood
// evidence). A diagram's answers are conditioned on its findings: the
// MEU is the maximum over strategies of E[U | findings], each decision
// choosing knowing the findings, and every expected utility is
// conditional on them.
//
// A finding's variable must not be a descendant of a decision (that
// decision's choice would change the finding's probability, so the
// conditional expected utility would reward a strategy for making the
// facts of the case unlikely); a decision set by Set is no longer one.
type Finding struct {
	Var     int
	Weights []float64
}

// hard returns the state of a hard finding (one positive weight), or -1.
func (f *Finding) hard() int {
	s := -1
	for x, w := range f.Weights {
		if w > 0 {
			if s >= 0 {
				return -1
			}
			s = x
		}
	}
	return s
}

// checkFindings checks the diagram's findings: on chance variables, in
// range, once each, weights finite and non-negative and not all zero,
// and no decision among the variable's ancestors.
func (d *Diagram) checkFindings() error {
	for i, f := range d.Findings {
		if f.Var < 0 || f.Var >= len(d.Vars) {
			return errorf(ErrEvidence, "", "a finding on variable %d, out of range", f.Var)
		}
		v := d.Vars[f.Var]
		if v.Kind != Chance {
			return errorf(ErrEvidence, v.Name, "a finding on decision %s: a decision is chosen, not observed (set it instead)", v.Name)
		}
		if slices.ContainsFunc(d.Findings[:i], func(g Finding) bool { return g.Var == f.Var }) {
			return errorf(ErrEvidence, v.Name, "two findings on %s", v.Name)
		}
		if len(f.Weights) != v.Card {
			return errorf(ErrEvidence, v.Name, "a finding on %s has %d weights; %s has %d states", v.Name, len(f.Weights), v.Name, v.Card)
		}
		sum := 0.0
		for _, w := range f.Weights {
			if !(w >= 0) || math.IsInf(w, 0) {
				return errorf(ErrEvidence, v.Name, "a finding on %s has weight %v", v.Name, w)
			}
			sum += w
		}
		if !(sum > 0) {
			return errorf(ErrEvidence, v.Name, "a finding on %s has every weight 0", v.Name)
		}
		anc := d.ancestors(f.Var)
		for a, is := range anc {
			if is && d.Vars[a].Kind == Decision {
				return errorf(ErrEvidence, v.Name, "%s depends on decision %s: a finding on it cannot be a fact known before %s is taken", v.Name, d.Vars[a].Name, d.Vars[a].Name)
			}
		}
	}
	return nil
}

// hasFinding reports whether variable v has a finding.
func (d *Diagram) hasFinding(v int) bool {
	return slices.ContainsFunc(d.Findings, func(f Finding) bool { return f.Var == v })
}

// findingTables returns the findings as probability potentials.
func (d *Diagram) findingTables(sz *sizer) []*table {
	out := make([]*table, len(d.Findings))
	for i, f := range d.Findings {
		out[i] = &table{vars: []int{f.Var}, card: []int{sz.cards[f.Var]}, vals: slices.Clone(f.Weights)}
	}
	return out
}

// Set returns a copy of d in which variable v, a chance variable or a
// decision, is set to state by an intervention (Pearl's graph surgery,
// do(v=state)): v becomes a chance variable with no parents and all its
// probability on state; the arcs out of v are kept, so the decisions
// that knew v know state. A decision set is no longer chosen: it has no
// policy, and it leaves the temporal order. d is not changed.
func (d *Diagram) Set(v, state int) (*Diagram, error) {
	if v < 0 || v >= len(d.Vars) {
		return nil, errorf(ErrEvidence, "", "variable %d, out of range", v)
	}
	x := d.Vars[v]
	if state < 0 || state >= x.Card {
		return nil, errorf(ErrEvidence, x.Name, "%s has no state %d", x.Name, state)
	}
	e := *d
	e.Vars = slices.Clone(d.Vars)
	cpt := make([]float64, x.Card)
	cpt[state] = 1
	e.Vars[v] = Var{Name: x.Name, Kind: Chance, Card: x.Card, CPT: cpt}
	if d.Order != nil {
		e.Order = slices.DeleteFunc(slices.Clone(d.Order), func(o int) bool { return o == v })
	}
	return &e, nil
}
