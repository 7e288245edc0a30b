package ir

import (
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/grammar"
)

// lowerInfo lowers the targets of an information query, entropy(X, Y | e)
// or MI(X, Y | e): for entropy, its variables (a); for MI, the groups a
// and b; the variables named go to h's Mentions. Each target is a discrete variable or a group
// {A, B} of them, named once, without a state; MI takes exactly two. The
// variables are entered in seen and role (as free, -1), so that the
// evidence after the bar may not name them again.
func lowerInfo(m *Model, q *grammar.Query, kind queryKind, h *QueryHeader, errs *ErrorList, seen map[VarID]*grammar.Term, role map[VarID]int) (a, b []VarID) {
	at := pos(q.Pos)
	switch {
	case kind == kindEntropy && len(q.Targets) == 0:
		errs.Add(at, "entropy needs the variables whose entropy is asked for, as in entropy(X | e) or entropy(X, Y | e)")
		return nil, nil
	case kind == kindMI && len(q.Targets) != 2:
		errs.Add(at, "MI takes two variables or groups and optional evidence, as in MI(X, Y | e) or MI({A, B}, C | e)")
		return nil, nil
	}
	for i, t := range q.Targets {
		names := t.Group
		switch {
		case t.Star:
			errs.Add(pos(t.Pos), "* is not allowed in %s(...): name the variables", kind)
			continue
		case t.Group == nil:
			if t.State != nil {
				errs.Add(pos(t.State.Pos), "%s(...) is about the distribution of %s: give no state before |", kind, strconv.Quote(t.Name.Text()))
				continue
			}
			names = []*grammar.Name{t.Name}
		}
		for _, n := range names {
			id, ok := lookupVar(m, n, errs)
			if !ok {
				continue
			}
			h.Mentions = append(h.Mentions, Mention{Var: id, Pos: pos(n.Pos)})
			x := m.Vars[id]
			if !x.Discrete() {
				errs.Add(pos(n.Pos), "%s is real-valued: %s(...) is of discrete variables (observe a real variable after |, as in %s=1.5)", strconv.Quote(x.Name), kind, Quote(x.Name))
				continue
			}
			if _, dup := seen[id]; dup {
				if kind == kindMI && i == 1 && slices.Contains(a, id) {
					errs.Add(pos(n.Pos), "%s is on both sides of MI(...): the information a variable shares with itself is its entropy, entropy(%s | e)", strconv.Quote(x.Name), Quote(x.Name))
				} else {
					errs.Add(pos(n.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
				}
				continue
			}
			seen[id], role[id] = t, -1
			if kind == kindMI && i == 1 {
				b = append(b, id)
			} else {
				a = append(a, id)
			}
		}
	}
	for _, t := range q.Given {
		for _, n := range append([]*grammar.Name{t.Name}, t.Group...) {
			if n == nil {
				continue
			}
			if id, ok := m.byName[n.Text()]; ok {
				if _, asked := seen[id]; asked {
					errs.Add(pos(t.Pos), "%s is both asked for and given: %s(...) of an observed variable is 0", strconv.Quote(m.Vars[id].Name), kind)
				}
			}
		}
	}
	return a, b
}
