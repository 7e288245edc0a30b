package ir

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file builds influence diagrams for the readers of other formats
// (Hugin NET, XMLBIF): decisions, their information parents and utility
// tables, checked as the lowering of `decision` and `utility` declarations
// checks them (decision.go).

// AddDecision declares a decision of an influence diagram, as `decision
// NAME: TYPE` does: a discrete variable whose state is chosen, so that it
// takes no distribution, its parents (SetInformation) being what is known
// when it is taken. kind, states and lo are AddVar's; a real-valued
// decision is an error.
func (b *Builder) AddDecision(pos Pos, name string, kind Kind, states []string, lo int) (VarID, bool) {
	if kind == Real {
		b.Errorf(pos, "decision %s is real-valued: a decision has states to choose among", strconv.Quote(name))
		return 0, false
	}
	id, ok := b.AddVar(pos, name, kind, states, lo)
	if ok {
		b.m.Vars[id].Decision = true
	}
	return id, ok
}

// SetInformation gives the decision d its information parents: the
// variables, chance or decision, whose states are known when d is taken
// (in pbl, the edges into d). They must be discrete and distinct, and not
// d itself; a cycle through them is reported by Finish.
func (b *Builder) SetInformation(pos Pos, d VarID, parents []VarID) {
	m := b.m
	name := strconv.Quote(m.Vars[d].Name)
	if !m.Vars[d].Decision {
		panic(fmt.Sprintf("ir: SetInformation: %s is not a decision", name))
	}
	for i, p := range parents {
		switch {
		case p == d:
			b.Errorf(pos, "decision %s cannot be its own information parent", name)
			return
		case !m.Vars[p].Discrete():
			b.Errorf(pos, "%s, an information parent of decision %s, is real-valued: a decision is taken knowing discrete variables", strconv.Quote(m.Vars[p].Name), name)
			return
		case containsVar(parents[:i], p):
			b.Errorf(pos, "information parent %s of decision %s listed twice", strconv.Quote(m.Vars[p].Name), name)
			return
		}
	}
	m.Parents[d] = append([]VarID(nil), parents...)
}

// AddUtility adds the utility table `utility NAME(PARENTS) = { ... }`:
// one finite number per configuration of parents (discrete variables,
// chance or decision, distinct, at least one), vals row-major with the
// last parent fastest. A name that is a variable's or another utility's,
// a parent of the wrong kind, a table too large and a number that is not
// finite are errors. len(vals) must be the number of configurations (a
// reader checks its count first, as for SetCPT).
func (b *Builder) AddUtility(pos Pos, name string, parents []VarID, vals []float64) {
	m := b.m
	q := strconv.Quote(name)
	if name == "" {
		b.Errorf(pos, "empty utility name")
		return
	}
	if _, isVar := m.byName[name]; isVar {
		b.Errorf(pos, "utility %s has the name of a variable", q)
		return
	}
	if u := b.utility(name); u != nil {
		b.Errorf(pos, "second utility %s (first at %s)", q, u.Pos)
		return
	}
	if len(parents) == 0 {
		b.Errorf(pos, "utility %s has no parents: a utility table gives a number for each configuration of one or more variables", q)
		return
	}
	card := make([]int, len(parents))
	for i, p := range parents {
		v := m.Vars[p]
		switch {
		case !v.Discrete():
			b.Errorf(pos, "%s is real-valued: utility %s needs discrete parents", strconv.Quote(v.Name), q)
			return
		case containsVar(parents[:i], p):
			b.Errorf(pos, "parent %s of utility %s listed twice", strconv.Quote(v.Name), q)
			return
		}
		card[i] = v.Card()
	}
	n, ok := TableSize(card)
	if !ok {
		b.Errorf(pos, "the table of utility %s %s", q, TooLarge(card, MaxTableSize))
		return
	}
	if len(vals) != n {
		panic(fmt.Sprintf("ir: AddUtility: %d values for a table of %d", len(vals), n))
	}
	for idx, x := range vals {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.Errorf(pos, "utility %s is %s for %s: a utility is a finite number", q, FormatFloat(x), rowConfig(m, parents, card, idx))
			return
		}
	}
	m.Utilities = append(m.Utilities, &Utility{Pos: pos, Name: strings.Clone(name),
		Parents: append([]VarID(nil), parents...), Values: append([]float64(nil), vals...)})
}

// decisionDist reports, with an error of kind ErrDecisionDist, a
// distribution given to the decision child.
func (b *Builder) decisionDist(pos Pos, child VarID) bool {
	v := b.m.Vars[child]
	if !v.Decision {
		return false
	}
	b.Errs = append(b.Errs, &Error{Pos: pos, Err: ErrDecisionDist,
		Msg: fmt.Sprintf("%s is a decision: its state is chosen, so it has no distribution", strconv.Quote(v.Name))})
	return true
}

// utility returns the model's utility named name, or nil.
func (b *Builder) utility(name string) *Utility {
	for _, u := range b.m.Utilities {
		if u.Name == name {
			return u
		}
	}
	return nil
}

// ErrInfluenceDiagram is the kind of error of a writer of a format that
// describes only Bayesian (or Markov) networks, BIF or UAI, given an
// influence diagram: a model with decisions or utilities.
var ErrInfluenceDiagram = errors.New("an influence diagram, which the format does not describe")
