package ir

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// LowerQuery validates a parsed query against m.
func LowerQuery(m *Model, q *grammar.Query) (Query, error) {
	lq, errs := lowerQuery(m, q)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return lq, nil
}

func lowerQuery(m *Model, q *grammar.Query) (Query, ErrorList) {
	var errs ErrorList
	at := pos(q.Pos)
	kind, ok := kindOf(q.Kind)
	if !ok {
		errs.Add(at, "%s(...) is not a query", q.Kind)
		return nil, errs
	}
	h := QueryHeader{Pos: at, Text: QueryText(q), Bar: q.Bar}
	if isHypQuery(m, q) {
		return lowerHypQuery(m, q, kind, h)
	}
	l := &queryLowerer{m: m, q: q, h: h, at: at, seen: map[VarID]*grammar.Term{}, role: map[VarID]int{}, doState: map[VarID]int{}}
	var lq Query
	switch kind {
	case kindIdentify, kindAdjust, kindCF:
		if lq = l.causalQuery(kind); lq == nil || len(l.errs) > 0 {
			return nil, l.errs
		}
		return lq, nil
	}
	if misplacedTerms(q, kind, &errs); len(errs) > 0 {
		return nil, errs
	}
	switch kind {
	case kindProb:
		lq = l.prob()
		if pq, ok := lq.(*ProbQuery); ok && len(l.errs) == 0 && m.NeedsIdentification() {
			lq = l.causalEffect(pq)
		}
	case kindMPE:
		lq = l.mpe()
	case kindMAP:
		lq = l.mapQuery()
	case kindDensity:
		lq = l.density()
	case kindEntropy, kindMI:
		lq = l.info(kind)
	case kindIndep:
		lq = l.indep()
	case kindMEU, kindPolicy, kindEU:
		lq = l.decision(kind)
	}
	if lq == nil || len(l.errs) > 0 {
		return nil, l.errs
	}
	return lq, nil
}

// A queryLowerer lowers one query: the lowering of each kind (prob, mpe,
// mapQuery, density, info, indep) and the conditions they share (given).
// Its methods report to errs; a kind's method returns the query it builds,
// or nil when it stops at an error that makes the rest meaningless.
type queryLowerer struct {
	m    *Model
	q    *grammar.Query
	h    QueryHeader // the lowered query's header, Mentions added as names resolve
	c    Conditions  // its conditions, as given lowers them
	at   Pos
	errs ErrorList

	seen      map[VarID]*grammar.Term // every variable mentioned, to catch repeats
	role      map[VarID]int           // its state given, or -1 for free
	doState   map[VarID]int           // the state do(...) sets a variable to
	softTerms []*grammar.Term         // the terms of likelihood evidence, in c.Soft's order
	doSeen    map[VarID]*grammar.Term // CF: the variables of do(...), a world apart from the evidence's
}

// resolve returns the variable of a term, rejecting real-valued ones.
func (l *queryLowerer) resolve(n *grammar.Name) (VarID, bool) {
	m := l.m
	id, ok := lookupVar(m, n, &l.errs)
	if ok {
		l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(n.Pos)})
	}
	if ok && !m.Vars[id].Discrete() {
		l.errs.Add(pos(n.Pos), "%s is real-valued: ask for its density, as in density(%s=1.5), or observe it, as in P(... | %s=1.5)", strconv.Quote(n.Text()), Quote(n.Text()), Quote(n.Text()))
		return 0, false
	}
	return id, ok
}

// realName returns the real-valued variable a plain term (X or X=x)
// names, if it names one.
func (l *queryLowerer) realName(t *grammar.Term) (VarID, bool) {
	if t.Star || t.Group != nil || t.Do != nil || t.Soft != nil || t.Name == nil {
		return 0, false
	}
	id, ok := l.m.byName[t.Name.Text()]
	if !ok || l.m.Vars[id].Discrete() {
		return 0, false
	}
	return id, true
}

// state returns the state a term gives its variable id, -1 if none, or -2
// (reported) if the variable has no such state.
func (l *queryLowerer) state(id VarID, t *grammar.Term) int {
	if t.State == nil {
		return -1
	}
	s, ok := lookupState(l.m.Vars[id], t.State, &l.errs)
	if !ok {
		return -2
	}
	return s
}

// named resolves a term X or X=x: its variable and state (-1 if none).
// Stars and groups, reported elsewhere, and unknown names give !ok.
func (l *queryLowerer) named(t *grammar.Term) (VarID, int, bool) {
	if t.Star || t.Group != nil || t.Do != nil || t.Soft != nil {
		return 0, 0, false
	}
	id, ok := l.resolve(t.Name)
	if !ok {
		return 0, 0, false
	}
	s := l.state(id, t)
	return id, s, s != -2
}

// noGroupsOrStars reports the stars and groups among ts.
func (l *queryLowerer) noGroupsOrStars(ts []*grammar.Term) {
	for _, t := range ts {
		switch {
		case t.Star:
			l.errs.Add(pos(t.Pos), "* is allowed only as P(* | evidence)")
		case t.Group != nil:
			l.errs.Add(pos(t.Pos), "a group {...} is allowed only in indep(...)")
		}
	}
}

// realTerm lowers a term that names a real-valued variable, which must
// give it a finite number (x=1.5): its variable and value, and whether it
// is one (ok is false, and nothing reported, otherwise).
func (l *queryLowerer) realTerm(t *grammar.Term) (RealObs, bool, bool) {
	m := l.m
	if t.Star || t.Group != nil || t.Name == nil {
		return RealObs{}, false, false
	}
	id, ok := m.byName[t.Name.Text()]
	if !ok || m.Vars[id].Discrete() {
		return RealObs{}, false, false
	}
	l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(t.Name.Pos)})
	x := m.Vars[id]
	if _, dup := l.seen[id]; dup {
		l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
		return RealObs{}, true, false
	}
	l.seen[id], l.role[id] = t, -1
	if t.State == nil {
		l.errs.Add(pos(t.Pos), "%s is real-valued: give it a value, as in %s=1.5", strconv.Quote(x.Name), Quote(x.Name))
		return RealObs{}, true, false
	}
	v, err := strconv.ParseFloat(t.State.Text(), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		l.errs.Add(pos(t.State.Pos), "%s is real-valued: its value must be a finite number, not %s", strconv.Quote(x.Name), strconv.Quote(t.State.Text()))
		return RealObs{}, true, false
	}
	return RealObs{Var: id, Value: v}, true, true
}

// intervene lowers do(X=x) into lq.Do (misplacedTerms has checked its
// form). Observing X=x as well is harmless; another state is not.
func (l *queryLowerer) intervene(t *grammar.Term) {
	m := l.m
	in := t.Do
	if !m.IsBayesNet() {
		l.errs.Add(pos(t.Pos), "do(...) cuts a variable from its parents in a Bayesian network; this model is a Markov network, whose factors have no direction")
		return
	}
	id, ok := lookupVar(m, in.Name, &l.errs)
	if !ok {
		return
	}
	l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(in.Name.Pos)})
	x := m.Vars[id]
	if !x.Discrete() {
		// do(X=2.5): X set to the value, cut from its parents.
		v, err := strconv.ParseFloat(in.State.Text(), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			l.errs.Add(pos(in.State.Pos), "%s is real-valued: do(...) sets it to a finite number, not %s", strconv.Quote(x.Name), strconv.Quote(in.State.Text()))
			return
		}
		if _, dup := l.seen[id]; dup {
			l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
			return
		}
		l.seen[id], l.role[id] = in, -1
		l.c.DoReal = append(l.c.DoReal, RealObs{Var: id, Value: v})
		return
	}
	s, ok := lookupState(x, in.State, &l.errs)
	if !ok {
		return
	}
	if prev, dup := l.seen[id]; dup {
		ps := l.role[id]
		_, wasDo := l.doState[id]
		switch {
		case ps >= 0 && ps != s:
			l.errs.Add(pos(t.Pos), "%s is set to %s by do(...) and given %s", strconv.Quote(x.Name), strconv.Quote(x.States[s]), strconv.Quote(x.States[ps]))
			return
		case ps == s && wasDo:
			return // the same intervention twice
		case ps != s || prev.State == nil:
			l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
			return
		}
		// observed as x, and set to x: the intervention decides
	}
	l.seen[id], l.role[id], l.doState[id] = in, s, s
	l.c.Do = append(l.c.Do, Obs{Var: id, State: s})
}

// soft lowers X~[l1, l2, ...] into lq.Soft, and its term into softTerms.
func (l *queryLowerer) soft(t *grammar.Term) {
	m := l.m
	id, ok := lookupVar(m, t.Name, &l.errs)
	if !ok {
		return
	}
	l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(t.Name.Pos)})
	x := m.Vars[id]
	if !x.Discrete() {
		l.errs.Add(pos(t.Name.Pos), "%s is real-valued: likelihood evidence %s~[...] is for a discrete variable (observe a value, as in %s=1.5)", strconv.Quote(x.Name), Quote(x.Name), Quote(x.Name))
		return
	}
	if _, dup := l.seen[id]; dup {
		if _, wasDo := l.doState[id]; wasDo {
			l.errs.Add(pos(t.Pos), "%s is set by do(...): it cannot also have likelihood evidence", strconv.Quote(x.Name))
		} else {
			l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(x.Name))
		}
		return
	}
	ls, ok := softValues(x, t, &l.errs)
	if !ok {
		return
	}
	l.seen[id], l.role[id] = t, -1
	l.c.Soft = append(l.c.Soft, SoftObs{Var: id, Lambda: ls})
	l.softTerms = append(l.softTerms, t)
}

// given lowers the terms after the bar (or an MPE's terms), the conditions
// every kind of query shares: evidence, real values, interventions,
// likelihood evidence and, where allowFree, free conditioning variables.
func (l *queryLowerer) given(ts []*grammar.Term, allowFree bool) {
	m, c := l.m, &l.c
	for _, t := range ts {
		switch {
		case t.Do != nil:
			l.intervene(t)
			continue
		case t.Soft != nil:
			l.soft(t)
			continue
		}
		if r, real, ok := l.realTerm(t); real {
			if ok {
				c.Real = append(c.Real, r)
			}
			continue
		}
		id, s, ok := l.named(t)
		if !ok {
			continue
		}
		if prev, dup := l.seen[id]; dup {
			ps := l.role[id]
			switch {
			case ps >= 0 && s >= 0 && ps != s:
				l.errs.Add(pos(t.Pos), "%s is given two different states, %s and %s", strconv.Quote(m.Vars[id].Name),
					strconv.Quote(m.Vars[id].States[ps]), strconv.Quote(m.Vars[id].States[s]))
			case ps == s && prev.State != nil:
				// the same observation twice: harmless
			default:
				l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
			}
			continue
		}
		l.seen[id], l.role[id] = t, s
		if s < 0 {
			if !allowFree {
				l.errs.Add(pos(t.Pos), "%q needs a state here, as in %s=%s", m.Vars[id].Name, Quote(m.Vars[id].Name), Quote(m.Vars[id].States[0]))
				continue
			}
			c.Free = append(c.Free, id)
		} else {
			c.Evidence = append(c.Evidence, Obs{Var: id, State: s})
		}
	}
}

// prob lowers P(...): a table, a number, the probability of evidence, or
// every marginal (P(* | e)).
func (l *queryLowerer) prob() Query {
	m, q := l.m, l.q
	lq := &ProbQuery{}
	if len(q.Targets) == 0 {
		l.errs.Add(l.at, "empty query: name at least one variable, as in P(X) or P(X | Y=y)")
		return nil
	}
	if q.Targets[0].Star {
		if len(q.Targets) > 1 {
			l.errs.Add(pos(q.Targets[1].Pos), "P(* | ...) asks for every variable; list no others beside *")
		}
		l.noGroupsOrStars(q.Given)
		l.given(q.Given, false)
		lq.Star = true
		return l.probDone(lq)
	}
	l.noGroupsOrStars(q.Targets)
	l.noGroupsOrStars(q.Given)
	fixed, free := 0, 0
	for _, t := range q.Targets {
		if id, ok := l.realName(t); ok {
			// A real variable: P(X | e) asks for its posterior (a normal,
			// or a mixture of normals); P(X=1.5, e) for the density of
			// the evidence.
			switch {
			case t.State == nil:
				l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(t.Name.Pos)})
				if _, dup := l.seen[id]; dup {
					l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
					continue
				}
				l.seen[id], l.role[id] = t, -1
				free++
				lq.Targets = append(lq.Targets, id)
				lq.TargetStates = append(lq.TargetStates, -1)
			case q.Bar:
				l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(t.Name.Pos)})
				l.errs.Add(pos(t.Pos), "%s is real-valued: ask for its density, as in density(%s=1.5 | ...), or for its posterior, as in P(%s | ...)", strconv.Quote(t.Name.Text()), Quote(t.Name.Text()), Quote(t.Name.Text()))
			default:
				if r, _, ok := l.realTerm(t); ok {
					l.c.Real = append(l.c.Real, r)
					fixed++
				}
			}
			continue
		}
		id, s, ok := l.named(t)
		if !ok {
			continue
		}
		if _, dup := l.seen[id]; dup {
			l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
			continue
		}
		l.seen[id], l.role[id] = t, s
		if s >= 0 {
			fixed++
		} else {
			free++
		}
		lq.Targets = append(lq.Targets, id)
		lq.TargetStates = append(lq.TargetStates, s)
	}
	if fixed > 0 && free > 0 {
		l.errs.Add(l.at, "give a state to every variable before | or to none: P(X, Y | e) is a table, P(X=x, Y=y | e) a number")
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
			if _, isTarget := l.seen[id]; isTarget {
				l.errs.Add(pos(t.Pos), "%s is both asked for and given", strconv.Quote(m.Vars[id].Name))
			}
		}
	}
	if len(l.errs) > 0 {
		return nil
	}
	l.given(q.Given, true)
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
			l.errs.Add(pos(special[0].Pos), "do(...) and likelihood evidence X~[...] are conditions: write them after |, as in P(Y | do(X=x)) or P(Y | X~[0.8, 0.2])")
			return nil
		}
		l.given(special, false)
	}
	if !q.Bar && fixed > 0 {
		// P(A=a, B=b): the probability of evidence.
		for i, v := range lq.Targets {
			l.c.Evidence = append(l.c.Evidence, Obs{Var: v, State: lq.TargetStates[i]})
		}
		lq.Targets, lq.TargetStates = nil, nil
	}
	return l.probDone(lq)
}

// probDone completes a P(...) query: its header and conditions, and, for
// the probability of evidence, the check that its likelihoods are at most
// 1.
func (l *queryLowerer) probDone(lq *ProbQuery) Query {
	lq.QueryHeader, lq.Conditions = l.h, l.c
	if len(l.errs) == 0 && lq.Form() == ProbEvidence {
		softAtMostOne(lq.Soft, l.softTerms, &l.errs)
	}
	return lq
}

// mpe lowers MPE(e), whose terms are all evidence.
func (l *queryLowerer) mpe() Query {
	if l.q.Bar {
		l.errs.Add(l.at, "MPE takes only evidence, as in MPE(X=x, Y=y); to maximise over some variables use MAP(X, Y | e)")
		return nil
	}
	l.noGroupsOrStars(l.q.Targets)
	l.given(l.q.Targets, false)
	return &MPEQuery{QueryHeader: l.h, Conditions: l.c}
}

// mapQuery lowers MAP(X, Y | e).
func (l *queryLowerer) mapQuery() Query {
	m, q := l.m, l.q
	lq := &MAPQuery{}
	if len(q.Targets) == 0 {
		l.errs.Add(l.at, "MAP needs the variables to maximise over, as in MAP(X, Y | e)")
		return nil
	}
	l.noGroupsOrStars(q.Targets)
	l.noGroupsOrStars(q.Given)
	for _, t := range q.Targets {
		if t.Name == nil {
			continue
		}
		if t.State != nil {
			l.errs.Add(pos(t.State.Pos), "MAP(...) maximises over %s: give no state before |", strconv.Quote(t.Name.Text()))
			continue
		}
		id, ok := l.resolve(t.Name)
		if !ok {
			continue
		}
		if _, dup := l.seen[id]; dup {
			l.errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(m.Vars[id].Name))
			continue
		}
		l.seen[id], l.role[id] = t, -1
		lq.Targets = append(lq.Targets, id)
	}
	l.given(q.Given, false)
	lq.QueryHeader, lq.Conditions = l.h, l.c
	return lq
}

// density lowers density(x=1.3, y=-0.2 | e).
func (l *queryLowerer) density() Query {
	m, q := l.m, l.q
	lq := &DensityQuery{}
	if len(q.Targets) == 0 {
		l.errs.Add(l.at, "density needs the values of real-valued variables, as in density(x=1.5)")
		return nil
	}
	l.noGroupsOrStars(q.Targets)
	l.noGroupsOrStars(q.Given)
	for _, t := range q.Targets {
		r, real, ok := l.realTerm(t)
		switch {
		case ok:
			lq.Values = append(lq.Values, r)
		case !real && t.Name != nil:
			if id, known := lookupVar(m, t.Name, &l.errs); known {
				l.errs.Add(pos(t.Name.Pos), "density(...) is of real-valued variables, and %s is discrete: ask P(...) for it", strconv.Quote(m.Vars[id].Name))
			}
		}
	}
	l.given(q.Given, false)
	lq.QueryHeader, lq.Conditions = l.h, l.c
	return lq
}

// info lowers entropy(X, Y | e) and MI(X, Y | e).
func (l *queryLowerer) info(kind queryKind) Query {
	a, b := lowerInfo(l.m, l.q, kind, &l.h, &l.errs, l.seen, l.role)
	if len(l.errs) > 0 {
		return nil
	}
	l.noGroupsOrStars(l.q.Given)
	l.given(l.q.Given, false)
	if kind == kindEntropy {
		return &EntropyQuery{QueryHeader: l.h, Conditions: l.c, Vars: a}
	}
	return &MIQuery{QueryHeader: l.h, Conditions: l.c, A: a, B: b}
}

// indep lowers indep(A, B | C), whose terms are variables or groups.
func (l *queryLowerer) indep() Query {
	q := l.q
	lq := &IndepQuery{}
	if len(q.Targets) != 2 {
		l.errs.Add(l.at, "indep takes two variables or groups and optional given ones, as in indep(A, B | C) or indep(A, {B, C} | D)")
		return nil
	}
	lq.A = l.group(q.Targets[0])
	lq.B = l.group(q.Targets[1])
	for _, t := range q.Given {
		lq.C = append(lq.C, l.group(t)...)
	}
	lq.QueryHeader = l.h
	return lq
}

// group returns the variables of indep's term t: one, or a group {...}.
func (l *queryLowerer) group(t *grammar.Term) []VarID {
	names := t.Group
	switch {
	case t.Star:
		l.errs.Add(pos(t.Pos), "* is not allowed in indep(...)")
		return nil
	case t.Name != nil:
		if t.State != nil {
			l.errs.Add(pos(t.State.Pos), "indep(...) is about the graph: give no states")
		}
		names = []*grammar.Name{t.Name}
	}
	var ids []VarID
	for _, n := range names {
		// d-separation reads the graph: real-valued variables, and their
		// real parents, are in it as discrete ones are.
		if id, ok := lookupVar(l.m, n, &l.errs); ok {
			l.h.Mentions = append(l.h.Mentions, Mention{Var: id, Pos: pos(n.Pos)})
			ids = append(ids, id)
		}
	}
	return ids
}

// A queryKind is the keyword a query starts with, as the lowering reads
// it (the lowered query's kind is its type).
type queryKind int

const (
	kindProb queryKind = iota
	kindMPE
	kindMAP
	kindIndep
	kindDensity
	kindML
	kindMDL
	kindGibbs
	kindEntropy
	kindMI
	kindMEU
	kindPolicy
	kindEU
	kindIdentify
	kindAdjust
	kindCF
)

var kindWords = [...]string{kindProb: "P", kindMPE: "MPE", kindMAP: "MAP", kindIndep: "indep", kindDensity: "density",
	kindML: "ML", kindMDL: "MDL", kindGibbs: "Gibbs", kindEntropy: "entropy", kindMI: "MI",
	kindMEU: "MEU", kindPolicy: "policy", kindEU: "EU",
	kindIdentify: "identify", kindAdjust: "adjust", kindCF: "CF"}

func (k queryKind) String() string { return kindWords[k] }

// QueryKeywords returns the words that start a query (P, MPE, MAP, indep,
// density, ML, MDL, Gibbs, entropy, MI, MEU, policy, EU, identify, adjust,
// CF), each lowered to its own [Query]
// type (P and MAP also to a question about hypotheses given data).
func QueryKeywords() []string { return slices.Clone(kindWords[:]) }

// kindOf returns the kind of query a keyword starts.
func kindOf(word string) (queryKind, bool) {
	for k, w := range kindWords {
		if w == word {
			return queryKind(k), true
		}
	}
	return 0, false
}

// ProbForm is the form of a P(...) query, which decides the shape of its
// answer.
type ProbForm int

const (
	ProbTable     ProbForm = iota // P(X, Y | Z, e): a table (the default)
	ProbNumber                    // P(X=x | e): one number
	ProbEvidence                  // P(e): the probability of the evidence
	ProbMarginals                 // P(* | e): every unobserved variable's marginal
)

// Form returns q's form. A query written with states for every variable
// and no bar, P(A=a, B=b), is lowered with no targets and its observations
// in Evidence: it is the probability of evidence.
func (q *ProbQuery) Form() ProbForm {
	switch {
	case q.Star:
		return ProbMarginals
	case len(q.Targets) == 0:
		return ProbEvidence
	case q.TargetStates[0] >= 0 && len(q.Free) == 0:
		return ProbNumber
	}
	return ProbTable
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
