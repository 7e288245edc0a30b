package ir

// This file lowers the compact tables — noisy_or(...), noisy_max(...),
// lookup { ... } and logical formulas of the parents — to their kinds
// (dist.go) and computes the flat table each stands for, which
// [Model.Table] gives the engines and the table formats.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// Formula is a logical formula of a [Deterministic] table's parents,
// which are named by their index in its Parents. The set is closed:
// [*FormulaVar], [*FormulaState], [*FormulaSame], [*FormulaNot],
// [*FormulaAnd], [*FormulaOr].
type Formula interface{ formula() }

// FormulaVar is a bool parent: true when it is.
type FormulaVar struct{ Parent int }

// FormulaState is `A = s` (or `A != s`, Negate): parent A is (is not) in
// state State.
type FormulaState struct {
	Parent, State int
	Negate        bool
}

// FormulaSame is `A == B` (or `A != B`, Negate): parents A and B are in
// states of the same name.
type FormulaSame struct {
	A, B   int
	Negate bool
}

// FormulaNot is `not X`.
type FormulaNot struct{ X Formula }

// FormulaAnd is `X and Y and ...`.
type FormulaAnd struct{ Xs []Formula }

// FormulaOr is `X or Y or ...`.
type FormulaOr struct{ Xs []Formula }

func (*FormulaVar) formula()   {}
func (*FormulaState) formula() {}
func (*FormulaSame) formula()  {}
func (*FormulaNot) formula()   {}
func (*FormulaAnd) formula()   {}
func (*FormulaOr) formula()    {}

// evalFormula evaluates f at the parents' states a; states[i] names
// parent i's states.
func evalFormula(f Formula, a []int, states [][]string) bool {
	switch f := f.(type) {
	case *FormulaVar:
		return a[f.Parent] == 0 // true is a bool's first state
	case *FormulaState:
		return (a[f.Parent] == f.State) != f.Negate
	case *FormulaSame:
		return (states[f.A][a[f.A]] == states[f.B][a[f.B]]) != f.Negate
	case *FormulaNot:
		return !evalFormula(f.X, a, states)
	case *FormulaAnd:
		for _, x := range f.Xs {
			if !evalFormula(x, a, states) {
				return false
			}
		}
		return true
	case *FormulaOr:
		for _, x := range f.Xs {
			if evalFormula(x, a, states) {
				return true
			}
		}
		return false
	}
	panic("ir: unknown formula kind")
}

// Params returns the noisy-OR's number of free parameters: one per
// active parent state (a bool parent's true), and the leak if it has one.
func (d *NoisyOr) Params() int {
	n := 0
	if d.Leak != 0 {
		n++
	}
	for _, l := range d.Link {
		for _, p := range l {
			if p != 0 {
				n++
			}
		}
	}
	return n
}

// Params returns the noisy-MAX's number of free parameters: k − 1 for
// each active parent state (one whose link is not the point mass on the
// child's last state) and for the leak if it has one, the child having k
// states.
func (d *NoisyMax) Params() int {
	k := len(d.Leak)
	n := 0
	if !absent(d.Leak) {
		n++
	}
	for _, l := range d.Link {
		for _, dist := range l {
			if !absent(dist) {
				n++
			}
		}
	}
	return n * (k - 1)
}

// Params returns 0: a deterministic table has no free parameter.
func (d *Deterministic) Params() int { return 0 }

// absent reports whether dist is the point mass on the last state.
func absent(dist []float64) bool {
	for _, p := range dist[:len(dist)-1] {
		if p != 0 {
			return false
		}
	}
	return true
}

// tableOf returns a CPT of child given parents whose rows row fills: row
// r (row-major over the parents) at dst, given the parents' states a.
func tableOf(m *Model, pos Pos, child VarID, parents []VarID, row func(a []int, dst []float64)) *CPT {
	vars := append(append([]VarID(nil), parents...), child)
	card := make([]int, len(vars))
	for i, v := range vars {
		card[i] = len(m.Vars[v].States)
	}
	f := NewFactor(vars, card)
	k := card[len(card)-1]
	a := make([]int, len(parents))
	for r := 0; r*k < len(f.Vals); r++ {
		row(a, f.Vals[r*k:(r+1)*k])
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < card[i] {
				break
			}
			a[i] = 0
		}
	}
	return &CPT{Pos: pos, Child: child, Parents: append([]VarID(nil), parents...), Factor: f}
}

// noisyOrTable computes d's table: a noisy-OR is the noisy-MAX of a bool
// child whose links are [p, 1 − p].
func noisyOrTable(m *Model, d *NoisyOr) *CPT {
	bern := func(p float64) []float64 { return []float64{p, 1 - p} }
	links := make([][][]float64, len(d.Link))
	for i, l := range d.Link {
		links[i] = make([][]float64, len(l))
		for s, p := range l {
			links[i][s] = bern(p)
		}
	}
	return noisyTable(m, d.Pos, d.Child, d.Parents, links, bern(d.Leak))
}

// noisyMaxTable computes d's table from its renormalised links and leak.
func noisyMaxTable(m *Model, d *NoisyMax) *CPT {
	return noisyTable(m, d.Pos, d.Child, d.Parents, d.Link, d.Leak)
}

// noisyTable computes the table of a noisy-MAX whose links (link[i][s],
// parent i in state s) and leak are distributions of the child, each
// summing to 1. With F_c(j) the probability that cause c alone gives the
// child y_j or a milder state (Σ_{t ≥ j} of its distribution d_c), a row
// is P(y_j) = Π_c F_c(j) − Π_c F_c(j+1). That difference is computed as
// the telescoping sum
//
//	Σ_c Π_{c' < c} F_c'(j) · d_c[j] · Π_{c' > c} F_c'(j+1)
//
// whose terms are products of non-negative numbers: no entry comes out
// negative by rounding (1 − (0.56 + 0.34 + 0.1) is −2.2e-16) and none
// small is lost to cancellation (1 − (1 − 1e-20) is 0, where a cause of
// probability 1e-20 must leave the state possible). Each row is then
// divided by its sum, 1 within rounding, so that it sums to 1 as a CPT's
// renormalised rows do. Causes that give the last state for certain (an
// inactive state, an absent leak) are the factor 1 and are left out.
func noisyTable(m *Model, pos Pos, child VarID, parents []VarID, link [][][]float64, leak []float64) *CPT {
	k := len(leak)
	type cause struct{ d, f []float64 } // the distribution, and f[j] = F(j) for j in 0..k
	prep := func(d []float64) *cause {
		if absent(d) {
			return nil
		}
		f := make([]float64, k+1) // f[k] = 0
		for j := k - 1; j > 0; j-- {
			f[j] = f[j+1] + d[j]
		}
		f[0] = 1
		return &cause{d, f}
	}
	leakC := prep(leak)
	links := make([][]*cause, len(link))
	for i, l := range link {
		links[i] = make([]*cause, len(l))
		for s, d := range l {
			links[i][s] = prep(d)
		}
	}
	cs := make([]*cause, 0, len(parents)+1)
	suf := make([]float64, len(parents)+2)
	return tableOf(m, pos, child, parents, func(a []int, dst []float64) {
		cs = cs[:0]
		if leakC != nil {
			cs = append(cs, leakC)
		}
		for i, s := range a {
			if c := links[i][s]; c != nil {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			dst[k-1] = 1 // no cause active: the distinguished state
			return
		}
		n := len(cs)
		sum := 0.0
		for j := range k {
			suf[n] = 1
			for c := n - 1; c >= 0; c-- {
				suf[c] = suf[c+1] * cs[c].f[j+1]
			}
			pre, p := 1.0, 0.0
			for c, x := range cs {
				p += pre * x.d[j] * suf[c+1]
				pre *= x.f[j]
			}
			dst[j] = p
			sum += p
		}
		for j := range dst {
			dst[j] /= sum
		}
	})
}

// deterministicTable computes d's table: a 1 in each row, at the state
// Func gives.
func deterministicTable(m *Model, d *Deterministic) *CPT {
	r := 0
	return tableOf(m, d.Pos, d.Child, d.Parents, func(_ []int, dst []float64) {
		dst[d.Func[r]] = 1
		r++
	})
}

// setCompact gives a compact table's child its distribution, computing
// the table it stands for.
func (b *Builder) setCompact(d Dist) {
	child, parents := family(d)
	if b.cptSeen[child] {
		b.Errorf(d.Position(), "second distribution for %s (first at %s)", strconv.Quote(b.m.Vars[child].Name), b.m.Dists[child].Position())
		return
	}
	b.cptSeen[child] = true
	switch d := d.(type) {
	case *NoisyOr:
		d.table = noisyOrTable(b.m, d)
	case *NoisyMax:
		d.table = noisyMaxTable(b.m, d)
	case *Deterministic:
		d.table = deterministicTable(b.m, d)
	default:
		panic("ir: setCompact: not a compact table")
	}
	b.m.Dists[child] = d
	b.m.Parents[child] = append([]VarID(nil), parents...)
}

// compact lowers a distribution written as a compact table. The child and
// its parents are discrete, and the table fits.
func (l *lowerer) compact(d *grammar.Dist, child VarID, parents []VarID) {
	body := d.Body
	if d.Normalize {
		l.b.Errorf(pos(body.Pos), "normalize applies to rows of counts or weights, not to a compact table")
		return
	}
	switch {
	case body.Logic != nil && len(parents) == 0:
		// A word where a number was expected: say so, as for any
		// distribution without parents (a formula needs parents).
		l.b.Errorf(pos(body.Pos), "expected a probability, a vector [p1, p2, ...] or normal(MEAN, SD), found %s", strconv.Quote(firstWord(body.Logic)))
	case body.Noisy != nil:
		l.noisy(d, body.Noisy, child, parents)
	case body.Lookup != nil:
		l.lookupTable(d, body.Lookup, child, parents)
	case body.Logic != nil:
		l.logicTable(d, body.Logic, child, parents)
	}
}

// firstWord returns the first token of a formula.
func firstWord(g *grammar.Logic) string {
	lit := g.Terms[0].Literals[0]
	switch {
	case lit.Not != nil:
		return "not"
	case lit.Paren != nil:
		return "("
	}
	return lit.Var.Text()
}

// parentIndex returns the index of the parent named n, reporting a name
// that is not a parent; extra lists other words accepted there (for the
// hint).
func (l *lowerer) parentIndex(d *grammar.Dist, n *grammar.Name, parents []VarID, extra ...string) (int, bool) {
	m := l.b.m
	names := append([]string(nil), extra...)
	for i, p := range parents {
		if m.Vars[p].Name == n.Text() {
			return i, true
		}
		names = append(names, m.Vars[p].Name)
	}
	msg := strconv.Quote(n.Text()) + " is not a parent of " + strconv.Quote(d.Child.Text())
	if s := spell.Nearest(n.Text(), names); s != "" {
		msg += " (did you mean " + strconv.Quote(s) + "?)"
	}
	l.b.Errorf(pos(n.Pos), "%s", msg)
	return 0, false
}

// noisy lowers noisy_or(...) and noisy_max(...).
func (l *lowerer) noisy(d *grammar.Dist, n *grammar.Noisy, child VarID, parents []VarID) {
	m := l.b.m
	cv := m.Vars[child]
	k := len(cv.States)
	isOr := n.Kind == "noisy_or"
	if isOr && cv.Kind != Bool {
		l.b.Errorf(pos(n.Pos), "noisy_or needs a bool child; %s has %s: use noisy_max", Quote(cv.Name), Plural(k, "state"))
		return
	}
	if k < 2 {
		l.b.Errorf(pos(n.Pos), "%s needs a child with at least 2 states; %s has 1", n.Kind, Quote(cv.Name))
		return
	}
	errs := len(l.b.Errs)
	// links[i][s] is a distribution of the child; nil until given.
	links := make([][][]float64, len(parents))
	given := make([]bool, len(parents))
	var leak []float64
	leakGiven := false
	for _, lk := range n.Links {
		if lk.Name.Ident == "leak" {
			if leakGiven {
				l.b.Errorf(pos(lk.Pos), "the leak is given twice")
				continue
			}
			leakGiven = true
			if lk.Value == nil {
				l.b.Errorf(pos(lk.Pos), "the leak is one value, not rows of states")
				continue
			}
			if dist, ok := l.link(lk.Value, cv, isOr); ok {
				leak = dist
			}
			continue
		}
		i, ok := l.parentIndex(d, lk.Name, parents, "leak")
		if !ok {
			continue
		}
		pv := m.Vars[parents[i]]
		if given[i] {
			l.b.Errorf(pos(lk.Pos), "the link of %s is given twice", Quote(pv.Name))
			continue
		}
		given[i] = true
		row := make([][]float64, len(pv.States))
		if lk.Value != nil {
			if pv.Kind != Bool {
				l.b.Errorf(pos(lk.Value.Pos), "%s has %s: give the link of each active state, as in %s: { %s: ... }",
					Quote(pv.Name), Plural(len(pv.States), "state"), Quote(pv.Name), Quote(pv.States[0]))
				continue
			}
			if dist, ok := l.link(lk.Value, cv, isOr); ok {
				row[0] = dist // true, a bool's first state, is its active state
			}
		}
		for _, r := range lk.Rows {
			if len(r.States) != 1 {
				l.b.Errorf(pos(r.Pos), "a link's row names one state of %s, not %d", Quote(pv.Name), len(r.States))
				continue
			}
			s, ok := lookupState(pv, r.States[0], &l.b.Errs)
			if !ok {
				continue
			}
			if row[s] != nil {
				l.b.Errorf(pos(r.Pos), "the link of %s=%s is given twice", Quote(pv.Name), Quote(pv.States[s]))
				continue
			}
			if dist, ok := l.link(r.Value, cv, isOr); ok {
				row[s] = dist
			}
		}
		links[i] = row
	}
	for i, p := range parents {
		if !given[i] {
			l.b.Errorf(pos(n.Pos), "%s(...) gives no link for parent %s", n.Kind, Quote(m.Vars[p].Name))
		}
	}
	if len(l.b.Errs) > errs {
		return
	}
	off := make([]float64, k) // the point mass on the last state: an inactive cause
	off[k-1] = 1
	if leak == nil {
		leak = off
	}
	for _, row := range links {
		for s := range row {
			if row[s] == nil {
				row[s] = off
			}
		}
	}
	if isOr {
		nd := &NoisyOr{Pos: pos(d.Pos), Child: child, Parents: parents, Link: make([][]float64, len(parents)), Leak: leak[0]}
		for i, row := range links {
			nd.Link[i] = make([]float64, len(row))
			for s, dist := range row {
				nd.Link[i][s] = dist[0]
			}
		}
		l.b.setCompact(nd)
		return
	}
	nd := &NoisyMax{Pos: pos(d.Pos), Child: child, Parents: parents, Link: links, Leak: leak}
	nd.normalize()
	l.b.setCompact(nd)
}

// link lowers one link or the leak: a probability (noisy_or; also a bool
// child's shorthand in noisy_max), returned as the child's distribution
// [p, 1 − p], or a distribution of the child.
func (l *lowerer) link(v *grammar.Value, cv *Variable, isOr bool) ([]float64, bool) {
	k := len(cv.States)
	if isOr && v.Number == nil {
		l.b.Errorf(pos(v.Pos), "a noisy_or link is one probability, as in 0.8")
		return nil, false
	}
	if v.Number != nil {
		p, ok := l.number(v.Pos, *v.Number)
		if !ok {
			return nil, false
		}
		if !(p >= 0 && p <= 1) {
			l.b.Errorf(pos(v.Pos), "link probability %s is outside [0, 1]", *v.Number)
			return nil, false
		}
		if cv.Kind != Bool {
			l.b.Errorf(pos(v.Pos), "%s has %s: give a link as a distribution [%s]", Quote(cv.Name), Plural(k, "state"), exampleVec(k))
			return nil, false
		}
		return []float64{p, 1 - p}, true
	}
	dist := make([]float64, k)
	if !l.value(v, cv, false, dist) {
		return nil, false
	}
	sum := 0.0
	for _, p := range dist {
		if !(p >= 0 && p <= 1) {
			l.b.Errorf(pos(v.Pos), "link probability %s is outside [0, 1]", FormatFloat(p))
			return nil, false
		}
		sum += p
	}
	if !(math.Abs(sum-1) <= RowTolerance) {
		l.b.Errorf(pos(v.Pos), "the link sums to %s, expected 1", strconv.FormatFloat(sum, 'g', 10, 64))
		return nil, false
	}
	return dist, true
}

// lookupTable lowers lookup { a, b: s ... else: s }.
func (l *lowerer) lookupTable(d *grammar.Dist, lk *grammar.Lookup, child VarID, parents []VarID) {
	m := l.b.m
	cv := m.Vars[child]
	card := make([]int, len(parents))
	for i, p := range parents {
		card[i] = len(m.Vars[p].States)
	}
	nrows, _ := TableSize(card)
	fn := make([]int, nrows)
	at := make([]Pos, nrows)
	def, hasDef := 0, false
	var defPos Pos
	errs := len(l.b.Errs)
	malformed := false
	for _, c := range lk.Cases {
		st, ok := lookupState(cv, c.State, &l.b.Errs)
		if c.Else {
			if hasDef {
				l.b.Errorf(pos(c.Pos), "second else row (first at %s)", defPos)
				continue
			}
			hasDef, def, defPos = true, st, pos(c.Pos)
			continue
		}
		idx, good := l.rowIndex(pos(c.Pos), c.States, parents, card)
		if !good {
			malformed = true
			continue
		}
		if at[idx].IsValid() {
			l.b.Errorf(pos(c.Pos), "duplicate row (%s) (first at %s)", caseText(c), at[idx])
			continue
		}
		at[idx] = pos(c.Pos)
		if ok {
			fn[idx] = st
		}
	}
	if !hasDef && !malformed {
		missing := 0
		for idx, p := range at {
			if p.IsValid() {
				continue
			}
			if missing++; missing <= 3 {
				l.b.Errorf(pos(lk.Pos), "lookup for %s is missing the row (%s); give it, or an else row", Quote(cv.Name), rowStates(m, parents, card, idx))
			}
		}
		if missing > 3 {
			l.b.Errorf(pos(lk.Pos), "lookup for %s is missing %d rows in all", Quote(cv.Name), missing)
		}
	}
	if len(l.b.Errs) > errs {
		return
	}
	for idx, p := range at {
		if !p.IsValid() {
			fn[idx] = def
		}
	}
	l.b.setCompact(&Deterministic{Pos: pos(d.Pos), Child: child, Parents: parents, Func: fn})
}

// rowStates names configuration idx of parents (row-major): "a, b".
func rowStates(m *Model, parents []VarID, card []int, idx int) string {
	states := make([]string, len(parents))
	for i := len(parents) - 1; i >= 0; i-- {
		states[i] = Quote(m.Vars[parents[i]].States[idx%card[i]])
		idx /= card[i]
	}
	return strings.Join(states, ", ")
}

func caseText(c *grammar.Case) string {
	s := make([]string, len(c.States))
	for i, n := range c.States {
		s[i] = Quote(n.Text())
	}
	return strings.Join(s, ", ")
}

// logicTable lowers a logical formula of the parents.
func (l *lowerer) logicTable(d *grammar.Dist, g *grammar.Logic, child VarID, parents []VarID) {
	m := l.b.m
	cv := m.Vars[child]
	if cv.Kind != Bool {
		l.b.Errorf(pos(g.Pos), "a logical formula gives a bool variable; %s has %s: use lookup { ... }", Quote(cv.Name), Plural(len(cv.States), "state"))
		return
	}
	errs := len(l.b.Errs)
	used := make([]bool, len(parents))
	f := l.formula(d, g, parents, used)
	if len(l.b.Errs) > errs {
		return
	}
	for i, p := range parents {
		if !used[i] {
			l.b.Errorf(pos(d.Parents[i].Pos), "parent %s is not used in the formula of %s", Quote(m.Vars[p].Name), Quote(cv.Name))
		}
	}
	if len(l.b.Errs) > errs {
		return
	}
	card := make([]int, len(parents))
	states := make([][]string, len(parents))
	for i, p := range parents {
		card[i] = len(m.Vars[p].States)
		states[i] = m.Vars[p].States
	}
	nrows, _ := TableSize(card)
	fn := make([]int, nrows)
	a := make([]int, len(parents))
	for r := range fn {
		if !evalFormula(f, a, states) {
			fn[r] = 1 // false
		}
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < card[i] {
				break
			}
			a[i] = 0
		}
	}
	l.b.setCompact(&Deterministic{Pos: pos(d.Pos), Child: child, Parents: parents, Func: fn, Formula: f})
}

// formula lowers a disjunction; used[i] records that parent i appears.
func (l *lowerer) formula(d *grammar.Dist, g *grammar.Logic, parents []VarID, used []bool) Formula {
	var or []Formula
	for _, c := range g.Terms {
		var and []Formula
		for _, lit := range c.Literals {
			and = append(and, l.literal(d, lit, parents, used))
		}
		if len(and) == 1 {
			or = append(or, and[0])
		} else {
			or = append(or, &FormulaAnd{Xs: and})
		}
	}
	if len(or) == 1 {
		return or[0]
	}
	return &FormulaOr{Xs: or}
}

func (l *lowerer) literal(d *grammar.Dist, g *grammar.Literal, parents []VarID, used []bool) Formula {
	m := l.b.m
	switch {
	case g.Not != nil:
		return &FormulaNot{X: l.literal(d, g.Not, parents, used)}
	case g.Paren != nil:
		return l.formula(d, g.Paren, parents, used)
	}
	i, ok := l.parentIndex(d, g.Var, parents)
	if !ok {
		return &FormulaVar{}
	}
	used[i] = true
	pv := m.Vars[parents[i]]
	switch g.Op {
	case "":
		if pv.Kind != Bool {
			l.b.Errorf(pos(g.Var.Pos), "%s is not bool: compare it with a state, as in %s = %s", Quote(pv.Name), Quote(pv.Name), Quote(pv.States[0]))
		}
		return &FormulaVar{Parent: i}
	case "=":
		s, _ := lookupState(pv, g.Right, &l.b.Errs)
		return &FormulaState{Parent: i, State: s}
	}
	// A == B and A != B compare A with the parent B or, when no parent is
	// named B, with A's state B: a parent wins, as it did before states
	// were allowed here, and A = B says the state whatever the parents.
	negate := g.Op == "!="
	if j, ok := l.parentOf(g.Right, parents); ok {
		used[j] = true
		return &FormulaSame{A: i, B: j, Negate: negate}
	}
	if s := pv.State(g.Right.Text()); s >= 0 {
		return &FormulaState{Parent: i, State: s, Negate: negate}
	}
	names := slices.Clone(pv.States)
	for _, p := range parents {
		names = append(names, m.Vars[p].Name)
	}
	msg := fmt.Sprintf("%s is neither a state of %s nor a parent of %s", strconv.Quote(g.Right.Text()), strconv.Quote(pv.Name), strconv.Quote(d.Child.Text()))
	if s := spell.Nearest(g.Right.Text(), names); s != "" {
		msg += " (did you mean " + strconv.Quote(s) + "?)"
	}
	l.b.Errorf(pos(g.Right.Pos), "%s", msg)
	return &FormulaVar{}
}

// parentOf returns the index of the parent named n, if there is one.
func (l *lowerer) parentOf(n *grammar.Name, parents []VarID) (int, bool) {
	for i, p := range parents {
		if l.b.m.Vars[p].Name == n.Text() {
			return i, true
		}
	}
	return 0, false
}
