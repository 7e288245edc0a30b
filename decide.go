//go:build !js

package pbl

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pbl-lang/pbl/decision"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// diagramOf builds the influence diagram of m for package decision: every
// variable (chance variables with their tables, decisions with their
// information parents) at its own index, and the utilities.
func diagramOf(m *ir.Model, at ir.Pos) (*decision.Diagram, error) {
	d := &decision.Diagram{Vars: make([]decision.Var, len(m.Vars))}
	for i, v := range m.Vars {
		if !v.Discrete() {
			return nil, &ir.Error{Pos: at, Msg: fmt.Sprintf("%s is real-valued: an influence diagram's variables are discrete", ir.Quote(v.Name))}
		}
		dv := decision.Var{Name: v.Name, Card: v.Card()}
		if v.Decision {
			dv.Kind = decision.Decision
			for _, p := range m.Parents[i] {
				dv.Parents = append(dv.Parents, int(p))
			}
		} else {
			c := m.Table(v.ID)
			if c == nil {
				return nil, &ir.Error{Pos: at, Err: ir.ErrNoDistribution, Msg: fmt.Sprintf("%s has no distribution yet: an influence diagram needs every chance variable's table", ir.Quote(v.Name))}
			}
			if !slices.Equal(c.Factor.Vars, append(slices.Clip(c.Parents), v.ID)) {
				return nil, &ir.Error{Pos: at, Msg: fmt.Sprintf("the table of %s is not laid out as its parents then itself", ir.Quote(v.Name))}
			}
			for _, p := range c.Parents {
				dv.Parents = append(dv.Parents, int(p))
			}
			dv.CPT = c.Factor.Vals
		}
		d.Vars[i] = dv
	}
	for _, u := range m.Utilities {
		du := decision.Utility{Name: u.Name, Table: u.Values}
		for _, p := range u.Parents {
			du.Parents = append(du.Parents, int(p))
		}
		d.Utilities = append(d.Utilities, du)
	}
	return d, nil
}

// recallOrder returns the decisions of d in temporal order if d has
// perfect recall as written: the decisions are totally ordered by
// directed paths, and each one's parents include the decision before it
// and all that decision's parents. Otherwise it returns nil, and d is
// solved as a LIMID.
func recallOrder(m *ir.Model) []ir.VarID {
	ds := m.Decisions()
	parents := func(v ir.VarID) []ir.VarID { return m.Parents[v] }
	// Each decision's information must hold every other decision before
	// it: order them by the number of decisions among their parents.
	count := func(v ir.VarID) int {
		n := 0
		for _, p := range parents(v) {
			if m.Vars[p].Decision {
				n++
			}
		}
		return n
	}
	order := slices.Clone(ds)
	slices.SortStableFunc(order, func(a, b ir.VarID) int { return count(a) - count(b) })
	for i := 1; i < len(order); i++ {
		prev, cur := order[i-1], order[i]
		if !slices.Contains(parents(cur), prev) {
			return nil
		}
		for _, p := range parents(prev) {
			if !slices.Contains(parents(cur), p) {
				return nil
			}
		}
	}
	return order
}

// solved is an influence diagram solved under a query's conditions.
type solved struct {
	meu      float64
	policies []decision.Policy // in temporal order
	eu       func(dec, state int, ev map[int]int) (float64, error)
	local    bool        // a local optimum (single policy updating), not known to be the best
	observed map[int]int // EU only: D's information observed
}

// conditioned returns m's diagram under q's conditions: do(X=x) sets X (a
// chance variable or a decision) by graph surgery; for EU, a state of a
// variable of D's information (its parents: perfect recall is as
// written), a chance variable or an earlier decision, is what D observes
// (in observed), the earlier decisions not named following their
// policies; any other decision named is set, as by do() (the other
// decisions are solved knowing it); any other chance variable named is a
// finding, a fact known before every decision that conditions the answer
// (hard, or likelihood evidence). It also returns the decisions' temporal
// order if they have perfect recall (nil: a LIMID).
func conditioned(m *ir.Model, q *ir.DecisionQuery) (*decision.Diagram, []int, map[int]int, error) {
	d, err := diagramOf(m, q.Pos)
	if err != nil {
		return nil, nil, nil, err
	}
	var order []int
	recall := recallOrder(m)
	for _, v := range recall {
		order = append(order, int(v))
	}
	set := func(v ir.VarID, s int) error {
		if d, err = d.Set(int(v), s); err != nil {
			return err
		}
		order = slices.DeleteFunc(order, func(o int) bool { return o == int(v) })
		return nil
	}
	for _, o := range q.Do {
		if err := set(o.Var, o.State); err != nil {
			return nil, nil, nil, err
		}
	}
	observed := map[int]int{}
	for _, o := range q.Evidence {
		switch {
		case q.Form == ir.DecisionEU && slices.Contains(m.Parents[q.Decision], o.Var):
			observed[int(o.Var)] = o.State
		case m.Vars[o.Var].Decision:
			if err := set(o.Var, o.State); err != nil {
				return nil, nil, nil, err
			}
		default:
			w := make([]float64, m.Vars[o.Var].Card())
			w[o.State] = 1
			d.Findings = append(d.Findings, decision.Finding{Var: int(o.Var), Weights: w})
		}
	}
	for _, o := range q.Soft {
		d.Findings = append(d.Findings, decision.Finding{Var: int(o.Var), Weights: slices.Clone(o.Lambda)})
	}
	if recall == nil {
		order = nil
	}
	return d, order, observed, nil
}

// solve solves m under q's conditions: exactly (variable elimination in
// the reverse decision order) when the decisions have perfect recall as
// written, else by single policy updating, whose answer is a local
// optimum.
func solve(m *ir.Model, q *ir.DecisionQuery) (*solved, error) {
	d, order, observed, err := conditioned(m, q)
	if err != nil {
		return nil, err
	}
	out := &solved{observed: observed}
	if order != nil {
		d.Order = order
		sol, err := d.Solve(decision.Options{})
		if err != nil {
			return nil, err
		}
		out.meu, out.policies, out.eu = sol.MEU, sol.Policies, sol.EU
		return out, nil
	}
	sol, err := d.SolveLIMID(decision.Options{})
	if err != nil {
		return nil, err
	}
	out.meu, out.eu, out.local = sol.MEU, sol.EU, !sol.Exact
	// The policies in temporal order: the reverse of the updates.
	out.policies = slices.Clone(sol.Policies)
	slices.Reverse(out.policies)
	return out, nil
}

// answerDecision answers MEU(| e), policy(D | e) and EU(D=d | e) on m.
func answerDecision(m *ir.Model, q *ir.DecisionQuery, opt AnswerOptions) (*report.Decision, error) {
	fail := func(err error) error {
		var ie *ir.Error
		if errors.As(err, &ie) {
			return err
		}
		return &ir.Error{Pos: q.Pos, Msg: q.Text + ": " + err.Error(), Err: err}
	}
	s, err := solve(m, q)
	if err != nil {
		return nil, fail(err)
	}
	out := &report.Decision{Query: q, Form: q.Form, LocalOptimum: s.local}
	switch q.Form {
	case ir.DecisionMEU:
		out.Value = s.meu
		for i := range s.policies {
			out.Policies = append(out.Policies, policyOf(m, &s.policies[i]))
		}
	case ir.DecisionPolicy:
		for i := range s.policies {
			if s.policies[i].Decision == int(q.Decision) {
				out.Policies = append(out.Policies, policyOf(m, &s.policies[i]))
			}
		}
	case ir.DecisionEU:
		x, err := s.eu(int(q.Decision), q.Choice, s.observed)
		if err != nil {
			return nil, fail(err)
		}
		out.Value = x
	}
	return out, nil
}

// RankVPI returns the maximum expected utility of m under the conditions
// of q (an MEU(| e) query) and the expected value of perfect information
// (VPI) at decision dec of every chance variable not yet known there (not
// observed before it, not a finding, not influenced by dec or a later
// decision), highest first: the MEU with the variable added to dec's
// information minus the MEU without. With cands, only those are ranked; a
// candidate that cannot be learnt before dec is an *ir.Error. The
// decisions must have perfect recall (an error of kind ErrNoRecall).
func RankVPI(m *ir.Model, dec ir.VarID, q *ir.DecisionQuery, cands []ir.VarID) (float64, []VPI, error) {
	if int(dec) < 0 || int(dec) >= len(m.Vars) || !m.Vars[dec].Decision {
		return 0, nil, &ir.Error{Err: ir.ErrNotDecision, Msg: "not a decision"}
	}
	d, order, _, err := conditioned(m, q)
	if err != nil {
		return 0, nil, err
	}
	name := ir.Quote(m.Vars[dec].Name)
	if order == nil {
		return 0, nil, &ir.Error{Err: ErrNoRecall, Msg: fmt.Sprintf("the value of information at %s needs decisions with perfect recall (each knowing the one before it and all it knew); single policy updating finds local optima only", name)}
	}
	if !slices.Contains(order, int(dec)) {
		return 0, nil, &ir.Error{Err: ir.ErrNotDecision, Msg: fmt.Sprintf("%s is set by the evidence: it is no longer chosen", name)}
	}
	d.Order = order
	sol, err := d.Solve(decision.Options{})
	if err != nil {
		return 0, nil, &ir.Error{Msg: err.Error(), Err: err}
	}
	r, err := d.RankVPI(int(dec), decision.Options{})
	if err != nil {
		return 0, nil, &ir.Error{Msg: err.Error(), Err: err}
	}
	var out []VPI
	for _, v := range r {
		if cands == nil || slices.Contains(cands, ir.VarID(v.Var)) {
			out = append(out, VPI{Var: ir.VarID(v.Var), Value: v.Value})
		}
	}
	for _, c := range cands {
		if !slices.ContainsFunc(out, func(v VPI) bool { return v.Var == c }) {
			return 0, nil, &ir.Error{Msg: fmt.Sprintf("%s cannot be learnt before %s: it is a decision, already known then, or %s or a later decision influences it", ir.Quote(m.Vars[c].Name), name, name)}
		}
	}
	return sol.MEU, out, nil
}

// policyOf names a policy's information and choices.
func policyOf(m *ir.Model, p *decision.Policy) report.Policy {
	dv := m.Vars[p.Decision]
	out := report.Policy{Decision: dv.Name}
	for _, v := range p.Info {
		out.Info = append(out.Info, m.Vars[v].Name)
	}
	cfg := make([]int, len(p.Info))
	for k, c := range p.Choice {
		given := make([]string, len(p.Info))
		for j, v := range p.Info {
			given[j] = m.Vars[v].States[cfg[j]]
		}
		row := report.PolicyRow{Given: given, Choice: dv.States[c], Index: c}
		row.Impossible = p.Impossible != nil && p.Impossible[k]
		out.Rows = append(out.Rows, row)
		for j := len(cfg) - 1; j >= 0; j-- {
			if cfg[j]++; cfg[j] < p.Cards[j] {
				break
			}
			cfg[j] = 0
		}
	}
	return out
}
