package ir

import (
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// LowerQuery validates a parsed query against m.
func LowerQuery(m *Model, q *grammar.Query) (*Query, error) {
	lq, errs := lowerQuery(m, q)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return lq, nil
}

func lowerQuery(m *Model, q *grammar.Query) (*Query, ErrorList) {
	var errs ErrorList
	at := pos(q.Pos)
	lq := &Query{Pos: at, Text: QueryText(q), Bar: q.Bar}
	kind, ok := queryKind(q.Kind)
	if !ok {
		errs.Add(at, "%s(...) is not a query", q.Kind)
		return nil, errs
	}
	lq.Kind = kind
	if isHypQuery(m, q) {
		return lowerHypQuery(m, q, lq)
	}
	if misplacedTerms(q, kind, &errs); len(errs) > 0 {
		return nil, errs
	}

	// resolve returns the variable of a term, rejecting real-valued ones.
	resolve := func(n *grammar.Name) (VarID, bool) {
		id, ok := lookupVar(m, n, &errs)
		if ok {
			lq.Mentions = append(lq.Mentions, Mention{Var: id, Pos: pos(n.Pos)})
		}
		if ok && !m.Vars[id].Discrete() {
			errs.Add(pos(n.Pos), "%s is real-valued: ask for its density, as in density(%s=1.5), or observe it, as in P(... | %s=1.5)", strconv.Quote(n.Text()), Quote(n.Text()), Quote(n.Text()))
			return 0, false
		}
		return id, ok
	}
	state := func(id VarID, t *grammar.Term) int {
		if t.State == nil {
			return -1
		}
		s, ok := lookupState(m.Vars[id], t.State, &errs)
		if !ok {
			return -2
		}
		return s
	}
	// named resolves a term X or X=x: its variable and state (-1 if none).
	// Stars and groups, reported elsewhere, and unknown names give !ok.
	named := func(t *grammar.Term) (VarID, int, bool) {
		if t.Star || t.Group != nil || t.Do != nil || t.Soft != nil {
			return 0, 0, false
		}
		id, ok := resolve(t.Name)
		if !ok {
			return 0, 0, false
		}
		s := state(id, t)
		return id, s, s != -2
	}
	noGroupsOrStars := func(ts []*grammar.Term) {
		for _, t := range ts {
			switch {
			case t.Star:
				errs.Add(pos(t.Pos), "* is allowed only as P(* | evidence)")
			case t.Group != nil:
				errs.Add(pos(t.Pos), "a group {...} is allowed only in indep(...)")
			}
		}
	}
	// seen tracks every variable mentioned, to catch repeats.
	seen := map[VarID]*grammar.Term{}
	role := map[VarID]int{} // state given, or -1 for free
	// realTerm lowers a term that names a real-valued variable, which
	// must give it a finite number (x=1.5): its variable and value, and
	// whether it is one (ok is false, and nothing reported, otherwise).
	realTerm := func(t *grammar.Term) (RealObs, bool, bool) {
		if t.Star || t.Group != nil || t.Name == nil {
			return RealObs{}, false, false
		}
		id, ok := m.byName[t.Name.Text()]
		if !ok || m.Vars[id].Discrete() {
			return RealObs{}, false, false
		}
		lq.Mentions = append(lq.Mentions, Mention{Var: id, Pos: pos(t.Name.Pos)})
		x := m.Vars[id]
		if _, dup := seen[id]; dup {
			errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
			return RealObs{}, true, false
		}
		seen[id], role[id] = t, -1
		if t.State == nil {
			errs.Add(pos(t.Pos), "%s is real-valued: give it a value, as in %s=1.5", strconv.Quote(x.Name), Quote(x.Name))
			return RealObs{}, true, false
		}
		v, err := strconv.ParseFloat(t.State.Text(), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			errs.Add(pos(t.State.Pos), "%s is real-valued: its value must be a finite number, not %s", strconv.Quote(x.Name), strconv.Quote(t.State.Text()))
			return RealObs{}, true, false
		}
		return RealObs{Var: id, Value: v}, true, true
	}
	// intervene lowers do(X=x) into lq.Do (misplacedTerms has checked
	// its form). Observing X=x as well is harmless; another state is not.
	doState := map[VarID]int{}
	intervene := func(t *grammar.Term) {
		in := t.Do
		if !m.IsBayesNet() {
			errs.Add(pos(t.Pos), "do(...) cuts a variable from its parents in a Bayesian network; this model is a Markov network, whose factors have no direction")
			return
		}
		id, ok := lookupVar(m, in.Name, &errs)
		if !ok {
			return
		}
		lq.Mentions = append(lq.Mentions, Mention{Var: id, Pos: pos(in.Name.Pos)})
		x := m.Vars[id]
		if !x.Discrete() {
			errs.Add(pos(in.Name.Pos), "%s is real-valued: do(...) sets a discrete variable to one of its states", strconv.Quote(x.Name))
			return
		}
		s, ok := lookupState(x, in.State, &errs)
		if !ok {
			return
		}
		if prev, dup := seen[id]; dup {
			ps := role[id]
			_, wasDo := doState[id]
			switch {
			case ps >= 0 && ps != s:
				errs.Add(pos(t.Pos), "%s is set to %s by do(...) and given %s", strconv.Quote(x.Name), strconv.Quote(x.States[s]), strconv.Quote(x.States[ps]))
				return
			case ps == s && wasDo:
				return // the same intervention twice
			case ps != s || prev.State == nil:
				errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
				return
			}
			// observed as x, and set to x: the intervention decides
		}
		seen[id], role[id], doState[id] = in, s, s
		lq.Do = append(lq.Do, Obs{Var: id, State: s})
	}
	// soft lowers X~[l1, l2, ...] into lq.Soft, and its term into
	// softTerms.
	var softTerms []*grammar.Term
	soft := func(t *grammar.Term) {
		id, ok := lookupVar(m, t.Name, &errs)
		if !ok {
			return
		}
		lq.Mentions = append(lq.Mentions, Mention{Var: id, Pos: pos(t.Name.Pos)})
		x := m.Vars[id]
		if !x.Discrete() {
			errs.Add(pos(t.Name.Pos), "%s is real-valued: likelihood evidence %s~[...] is for a discrete variable (observe a value, as in %s=1.5)", strconv.Quote(x.Name), Quote(x.Name), Quote(x.Name))
			return
		}
		if _, dup := seen[id]; dup {
			if _, wasDo := doState[id]; wasDo {
				errs.Add(pos(t.Pos), "%s is set by do(...): it cannot also have likelihood evidence", strconv.Quote(x.Name))
			} else {
				errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
			}
			return
		}
		ls, ok := softValues(x, t, &errs)
		if !ok {
			return
		}
		seen[id], role[id] = t, -1
		lq.Soft = append(lq.Soft, SoftObs{Var: id, Lambda: ls})
		softTerms = append(softTerms, t)
	}
	// given lowers the terms after the bar (or an MPE's terms): evidence
	// and free conditioning variables.
	given := func(ts []*grammar.Term, allowFree bool) {
		for _, t := range ts {
			switch {
			case t.Do != nil:
				intervene(t)
				continue
			case t.Soft != nil:
				soft(t)
				continue
			}
			if r, real, ok := realTerm(t); real {
				if ok {
					lq.Real = append(lq.Real, r)
				}
				continue
			}
			id, s, ok := named(t)
			if !ok {
				continue
			}
			if prev, dup := seen[id]; dup {
				ps := role[id]
				switch {
				case ps >= 0 && s >= 0 && ps != s:
					errs.Add(pos(t.Pos), "%s is given two different states, %s and %s", strconv.Quote(m.Vars[id].Name),
						strconv.Quote(m.Vars[id].States[ps]), strconv.Quote(m.Vars[id].States[s]))
				case ps == s && prev.State != nil:
					// the same observation twice: harmless
				default:
					errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
				}
				continue
			}
			seen[id], role[id] = t, s
			if s < 0 {
				if !allowFree {
					errs.Add(pos(t.Pos), "%q needs a state here, as in %s=%s", m.Vars[id].Name, Quote(m.Vars[id].Name), Quote(m.Vars[id].States[0]))
					continue
				}
				lq.Free = append(lq.Free, id)
			} else {
				lq.Evidence = append(lq.Evidence, Obs{Var: id, State: s})
			}
		}
	}

	switch lq.Kind {
	case Prob:
		if len(q.Targets) == 0 {
			errs.Add(at, "empty query: name at least one variable, as in P(X) or P(X | Y=y)")
			return nil, errs
		}
		if q.Targets[0].Star {
			if len(q.Targets) > 1 {
				errs.Add(pos(q.Targets[1].Pos), "P(* | ...) asks for every variable; list no others beside *")
			}
			noGroupsOrStars(q.Given)
			given(q.Given, false)
			lq.Star = true
			break
		}
		noGroupsOrStars(q.Targets)
		noGroupsOrStars(q.Given)
		fixed, free := 0, 0
		for _, t := range q.Targets {
			id, s, ok := named(t)
			if !ok {
				continue
			}
			if _, dup := seen[id]; dup {
				errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
				continue
			}
			seen[id], role[id] = t, s
			if s >= 0 {
				fixed++
			} else {
				free++
			}
			lq.Targets = append(lq.Targets, id)
			lq.TargetStates = append(lq.TargetStates, s)
		}
		if fixed > 0 && free > 0 {
			errs.Add(at, "give a state to every variable before | or to none: P(X, Y | e) is a table, P(X=x, Y=y | e) a number")
		}
		for _, t := range q.Given {
			n := t.Name
			if t.Do != nil {
				n = t.Do.Name
			}
			if n == nil {
				continue
			}
			if id, ok := m.byName[n.Text()]; ok {
				if _, isTarget := seen[id]; isTarget {
					errs.Add(pos(t.Pos), "%s is both asked for and given", strconv.Quote(m.Vars[id].Name))
				}
			}
		}
		if len(errs) > 0 {
			return nil, errs
		}
		given(q.Given, true)
		if !q.Bar {
			// P(e, do(X=x), X~[...]): interventions and likelihood
			// evidence among the evidence.
			var special []*grammar.Term
			for _, t := range q.Targets {
				if t.Do != nil || t.Soft != nil {
					special = append(special, t)
				}
			}
			if len(special) > 0 && free > 0 {
				errs.Add(pos(special[0].Pos), "do(...) and likelihood evidence X~[...] are conditions: write them after |, as in P(Y | do(X=x)) or P(Y | X~[0.8, 0.2])")
				return nil, errs
			}
			given(special, false)
		}
		if !q.Bar && fixed > 0 {
			// P(A=a, B=b): the probability of evidence.
			for i, v := range lq.Targets {
				lq.Evidence = append(lq.Evidence, Obs{Var: v, State: lq.TargetStates[i]})
			}
			lq.Targets, lq.TargetStates = nil, nil
		}
	case MPE:
		if q.Bar {
			errs.Add(at, "MPE takes only evidence, as in MPE(X=x, Y=y); to maximise over some variables use MAP(X, Y | e)")
			return nil, errs
		}
		noGroupsOrStars(q.Targets)
		given(q.Targets, false)
	case MAP:
		if len(q.Targets) == 0 {
			errs.Add(at, "MAP needs the variables to maximise over, as in MAP(X, Y | e)")
			return nil, errs
		}
		noGroupsOrStars(q.Targets)
		noGroupsOrStars(q.Given)
		for _, t := range q.Targets {
			if t.Name == nil {
				continue
			}
			if t.State != nil {
				errs.Add(pos(t.State.Pos), "MAP(...) maximises over %s: give no state before |", strconv.Quote(t.Name.Text()))
				continue
			}
			id, ok := resolve(t.Name)
			if !ok {
				continue
			}
			if _, dup := seen[id]; dup {
				errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
				continue
			}
			seen[id], role[id] = t, -1
			lq.Targets = append(lq.Targets, id)
			lq.TargetStates = append(lq.TargetStates, -1)
		}
		given(q.Given, false)
	case Density:
		if len(q.Targets) == 0 {
			errs.Add(at, "density needs the values of real-valued variables, as in density(x=1.5)")
			return nil, errs
		}
		noGroupsOrStars(q.Targets)
		noGroupsOrStars(q.Given)
		for _, t := range q.Targets {
			r, real, ok := realTerm(t)
			switch {
			case ok:
				lq.Values = append(lq.Values, r)
			case !real && t.Name != nil:
				if id, known := lookupVar(m, t.Name, &errs); known {
					errs.Add(pos(t.Name.Pos), "density(...) is of real-valued variables, and %s is discrete: ask P(...) for it", strconv.Quote(m.Vars[id].Name))
				}
			}
		}
		given(q.Given, false)
	case Entropy, MI:
		lowerInfo(m, q, lq, &errs, seen, role)
		if len(errs) > 0 {
			return nil, errs
		}
		noGroupsOrStars(q.Given)
		given(q.Given, false)
	case Indep:
		if len(q.Targets) != 2 {
			errs.Add(at, "indep takes two variables or groups and optional given ones, as in indep(A, B | C) or indep(A, {B, C} | D)")
			return nil, errs
		}
		group := func(t *grammar.Term) []VarID {
			names := t.Group
			switch {
			case t.Star:
				errs.Add(pos(t.Pos), "* is not allowed in indep(...)")
				return nil
			case t.Name != nil:
				if t.State != nil {
					errs.Add(pos(t.State.Pos), "indep(...) is about the graph: give no states")
				}
				names = []*grammar.Name{t.Name}
			}
			var ids []VarID
			for _, n := range names {
				if id, ok := resolve(n); ok {
					ids = append(ids, id)
				}
			}
			return ids
		}
		lq.A = group(q.Targets[0])
		lq.B = group(q.Targets[1])
		for _, t := range q.Given {
			lq.C = append(lq.C, group(t)...)
		}
	}
	if len(errs) == 0 && lq.Kind == Prob && lq.Form() == FormEvidence {
		softAtMostOne(lq, softTerms, &errs)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return lq, nil
}

// queryKind returns the kind of query a keyword starts.
func queryKind(word string) (QueryKind, bool) {
	for k := Prob; k <= MI; k++ {
		if k.String() == word {
			return k, true
		}
	}
	return 0, false
}

// QueryText renders a parsed query in canonical form:
// P(Campfire | Storm=true, BusTourGroup), names quoted only where needed.
func QueryText(q *grammar.Query) string {
	var b strings.Builder
	b.WriteString(q.Kind)
	b.WriteByte('(')
	terms(&b, q.Targets)
	if q.Bar {
		if len(q.Targets) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("| ")
		terms(&b, q.Given)
	}
	b.WriteByte(')')
	return b.String()
}

func terms(b *strings.Builder, ts []*grammar.Term) {
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case t.Star:
			b.WriteByte('*')
		case t.Group != nil:
			b.WriteByte('{')
			for j, n := range t.Group {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(Quote(n.Text()))
			}
			b.WriteByte('}')
		case t.Do != nil:
			b.WriteString("do(")
			terms(b, []*grammar.Term{t.Do})
			b.WriteByte(')')
		case t.Soft != nil:
			b.WriteString(Quote(t.Name.Text()))
			b.WriteString("~[")
			for j, n := range t.Soft {
				if j > 0 {
					b.WriteString(", ")
				}
				if n.Number != "" {
					b.WriteString(n.Number)
				} else {
					b.WriteString(Quote(n.Text()))
				}
			}
			b.WriteByte(']')
		default:
			b.WriteString(Quote(t.Name.Text()))
			if t.State != nil {
				b.WriteByte('=')
				if t.State.Number != "" {
					b.WriteString(t.State.Number) // a value, or a state written as a number
				} else {
					b.WriteString(Quote(t.State.Text()))
				}
			}
		}
	}
}
