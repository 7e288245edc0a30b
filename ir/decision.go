package ir

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pbl-lang/pbl/grammar"
)

// Utility is a utility table of an influence diagram, `utility U(A, B) =
// { ... }`: one number per configuration of its parents (discrete
// variables, chance or decision), row-major, the last parent fastest. A
// utility is not a variable: it has no states and no children, and the
// total utility is the sum of a model's utilities.
type Utility struct {
	Pos     Pos
	Name    string
	Parents []VarID
	Values  []float64
}

// ErrUtilityRow is the kind of error of a utility table that does not
// give a number for every configuration of its parents.
var ErrUtilityRow = errors.New("a utility row is missing")

// ErrUtilityChild is the kind of error of a utility used as a variable: a
// parent of a variable or of another utility, an end of an edge, a
// query's term. A utility has no children.
var ErrUtilityChild = errors.New("a utility has no children")

// ErrDecisionDist is the kind of error of a distribution given to a
// decision, whose state is chosen, not drawn.
var ErrDecisionDist = errors.New("a decision has no distribution")

// ErrNotDecision is the kind of error of a decision query (MEU, policy,
// EU) that names something other than a decision where it needs one, or
// is asked of a model with no decision or no utility.
var ErrNotDecision = errors.New("not a decision")

// Decisions returns the model's decision variables, in declaration order.
func (m *Model) Decisions() []VarID {
	var out []VarID
	for _, v := range m.Vars {
		if v.Decision {
			out = append(out, v.ID)
		}
	}
	return out
}

// decisionDecl lowers `decision D: TYPE`: a discrete variable marked as a
// decision.
func (l *lowerer) decisionDecl(d *grammar.Decision) {
	n := len(l.b.m.Vars)
	l.varDecl(&grammar.VarDecl{Pos: d.Pos, Names: []*grammar.Name{d.Name}, Type: d.Type})
	if len(l.b.m.Vars) == n {
		return // reported
	}
	v := l.b.m.Vars[n]
	if !v.Discrete() {
		l.b.Errorf(pos(d.Type.Pos), "decision %s is real-valued: a decision has states to choose among (bool, {states} or lo..hi)", strconv.Quote(v.Name))
	}
	v.Decision = true
}

// utilityNames records the names of the utilities of f, so that a use of
// one as a variable is reported as such.
func (l *lowerer) utilityNames(f *grammar.File) {
	for _, s := range f.Stmts {
		u, ok := s.(*grammar.Utility)
		if !ok {
			continue
		}
		name := u.Name.Text()
		if _, isVar := l.b.m.byName[name]; isVar {
			l.b.Errorf(pos(u.Name.Pos), "utility %s has the name of a variable", strconv.Quote(name))
			continue
		}
		if first, dup := l.utilities[name]; dup {
			l.b.Errorf(pos(u.Name.Pos), "second utility %s (first at %s)", strconv.Quote(name), first)
			continue
		}
		if l.utilities == nil {
			l.utilities = map[string]Pos{}
		}
		l.utilities[name] = pos(u.Name.Pos)
	}
}

// notUtility reports n if it names a utility, which is not a variable.
func (l *lowerer) notUtility(n *grammar.Name) bool {
	if _, ok := l.utilities[n.Text()]; !ok {
		return true
	}
	l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Pos), Err: ErrUtilityChild,
		Msg: fmt.Sprintf("%s is a utility, not a variable: a utility has no children (its parents are named in its table)", strconv.Quote(n.Text()))})
	return false
}

// utility lowers `utility U(A, B) = { ROWS }`: every configuration of the
// parents once, a number each.
func (l *lowerer) utility(u *grammar.Utility) {
	m := l.b.m
	errs := len(l.b.Errs)
	var parents []VarID
	card := make([]int, 0, len(u.Parents))
	size := 1
	for _, n := range u.Parents {
		id, ok := l.lookup(n)
		if !ok {
			continue
		}
		v := m.Vars[id]
		switch {
		case !v.Discrete():
			l.b.Errorf(pos(n.Pos), "%s is real-valued: a utility table needs discrete parents", strconv.Quote(v.Name))
			continue
		case containsVar(parents, id):
			l.b.Errorf(pos(n.Pos), "parent %s listed twice", strconv.Quote(v.Name))
			continue
		}
		parents = append(parents, id)
		card = append(card, v.Card())
		if size > MaxTableSize/max(v.Card(), 1) {
			l.b.Errorf(pos(u.Pos), "utility %s has more than %d rows", strconv.Quote(u.Name.Text()), MaxTableSize)
			return
		}
		size *= v.Card()
	}
	if len(l.b.Errs) > errs {
		return
	}
	vals := make([]float64, size)
	seen := make([]bool, size)
	for _, r := range u.Rows {
		at := pos(r.Pos)
		idx, ok := l.rowIndex(at, r.States, parents, card)
		if !ok {
			continue
		}
		if seen[idx] {
			l.b.Errorf(at, "row %s given twice", rowText(r))
			continue
		}
		seen[idx] = true
		if r.Value.Number == nil {
			l.b.Errorf(pos(r.Value.Pos), "a utility row gives one number, as in %s: 10", rowText(r))
			continue
		}
		x, ok := l.number(r.Value.Pos, *r.Value.Number)
		if ok && (x != x) {
			ok = false
		}
		vals[idx] = x
	}
	if len(l.b.Errs) > errs {
		return
	}
	for idx, ok := range seen {
		if !ok {
			l.b.Errs = append(l.b.Errs, &Error{Pos: pos(u.Pos), Err: ErrUtilityRow,
				Msg: fmt.Sprintf("utility %s has no row for %s (one number for each configuration of %s)", strconv.Quote(u.Name.Text()), rowConfig(m, parents, card, idx), nameList(m, parents))})
			return
		}
	}
	m.Utilities = append(m.Utilities, &Utility{Pos: pos(u.Pos), Name: u.Name.Text(), Parents: parents, Values: vals})
}

// rowConfig names configuration idx of parents as a row writes it.
func rowConfig(m *Model, parents []VarID, card []int, idx int) string {
	s := ""
	for i := len(parents) - 1; i >= 0; i-- {
		st := Quote(m.Vars[parents[i]].States[idx%card[i]])
		idx /= card[i]
		if s == "" {
			s = st
		} else {
			s = st + ", " + s
		}
	}
	return s
}
