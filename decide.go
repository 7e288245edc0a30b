package pbl

import (
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

// answerDecision answers MEU(), policy(D) and EU(D=d | e) on m: exactly
// (variable elimination in the reverse decision order) when the
// decisions have perfect recall as written, else by single policy
// updating, whose answer is a local optimum.
func answerDecision(m *ir.Model, q *ir.DecisionQuery, opt AnswerOptions) (*report.Decision, error) {
	d, err := diagramOf(m, q.Pos)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error {
		return &ir.Error{Pos: q.Pos, Msg: q.Text + ": " + err.Error(), Err: err}
	}
	out := &report.Decision{Query: q, Form: q.Form}
	var (
		meu      float64
		policies []decision.Policy
		eu       func(dec, state int, ev map[int]int) (float64, error)
	)
	if order := recallOrder(m); order != nil {
		for _, v := range order {
			d.Order = append(d.Order, int(v))
		}
		sol, err := d.Solve(decision.Options{})
		if err != nil {
			return nil, fail(err)
		}
		meu, policies, eu = sol.MEU, sol.Policies, sol.EU
	} else {
		sol, err := d.SolveLIMID(decision.Options{})
		if err != nil {
			return nil, fail(err)
		}
		meu, eu = sol.MEU, sol.EU
		out.LocalOptimum = !sol.Exact
		// The policies in temporal order: the reverse of the updates.
		policies = slices.Clone(sol.Policies)
		slices.Reverse(policies)
	}
	switch q.Form {
	case ir.DecisionMEU:
		out.Value = meu
		for i := range policies {
			out.Policies = append(out.Policies, policyOf(m, &policies[i]))
		}
	case ir.DecisionPolicy:
		for i := range policies {
			if policies[i].Decision == int(q.Decision) {
				out.Policies = append(out.Policies, policyOf(m, &policies[i]))
			}
		}
	case ir.DecisionEU:
		ev := map[int]int{}
		for _, o := range q.Evidence {
			ev[int(o.Var)] = o.State
		}
		x, err := eu(int(q.Decision), q.Choice, ev)
		if err != nil {
			return nil, fail(err)
		}
		out.Value = x
	}
	return out, nil
}

// policyOf names a policy's information and choices.
func policyOf(m *ir.Model, p *decision.Policy) report.Policy {
	dv := m.Vars[p.Decision]
	out := report.Policy{Decision: dv.Name}
	for _, v := range p.Info {
		out.Info = append(out.Info, m.Vars[v].Name)
	}
	cfg := make([]int, len(p.Info))
	for _, c := range p.Choice {
		given := make([]string, len(p.Info))
		for j, v := range p.Info {
			given[j] = m.Vars[v].States[cfg[j]]
		}
		out.Rows = append(out.Rows, report.PolicyRow{Given: given, Choice: dv.States[c], Index: c})
		for j := len(cfg) - 1; j >= 0; j-- {
			if cfg[j]++; cfg[j] < p.Cards[j] {
				break
			}
			cfg[j] = 0
		}
	}
	return out
}
