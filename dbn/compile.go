package dbn

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// MaxEntries is the largest product one step may enumerate: the number
// of joint assignments of the interface before a step and the variables
// of the step (the work of one step; its memory is the interface's
// table). A larger one is a *TooLargeError from Compile.
const MaxEntries = 1 << 24

// MaxBytes is the most memory a buffer that grows with a sequence's
// length may take (Viterbi's back-pointers, smoothing's checkpoints); a
// larger one is a *TooLargeError, before it is allocated.
const MaxBytes int64 = 1 << 30

// Net is a compiled time-indexed model: the template's factors laid out
// once for every kind of step, and the interfaces between steps. A Net
// is a value: any number of goroutines may use one at once.
type Net struct {
	m      *ir.Model
	order  int // the model's order
	w      int // order+1: a template variable's local copies, one per slice of a step's window
	nS     int // the number of static variables
	names  []string
	real   []bool // per template variable
	card   []int  // per template variable (0 for a real one)
	snames []string
	sreal  []bool
	scard  []int
	local  []int // cardinality of each local variable (0 for a real one)

	kinds []*plan // kinds[0] the statics' prior, then the initial slices 0..order-1, then the template at phase 0..w-1
	fast  *fastHMM
}

// plan is the work of one kind of step: the factors of the slice's
// variables over local variables, the interface before (in) and after
// (out) it.
type plan struct {
	slice int              // the slice it is the plan of (-1: the prior; a template's representative slice)
	cpts  []*factor.Factor // the discrete variables' tables over local variables (shared numbers)
	gauss []density        // the real variables' densities
	in    []factor.Var     // the interface before the step (nil for the prior)
	out   []factor.Var     // the interface after it
}

// density is a real variable's density at a step: its variable's index
// (template or static) and its discrete parents as local variables.
type density struct {
	v       int
	d       *ir.Gaussian
	parents []factor.Var
	card    []int
}

// Vars returns the names of the template variables (declared X[t]) in
// declaration order, as m.Time.Vars lists them: a step's values are in
// this order.
func (n *Net) Vars() []string { return slices.Clone(n.names) }

// Statics returns the names of the static variables (declared without
// [t]) in the order of the model's variables: a sequence's static values
// are in this order.
func (n *Net) Statics() []string { return slices.Clone(n.snames) }

// Fast reports whether n is a plain hidden Markov model that package hmm
// answers (see the package documentation).
func (n *Net) Fast() bool { return n.fast != nil }

// kindOf returns the plan of step t (-1 for the prior).
func (n *Net) kindOf(t int) int {
	switch {
	case t < 0:
		return 0
	case t < n.order:
		return 1 + t
	}
	return 1 + n.order + t%n.w
}

// tlocal returns the local variable of template variable i at slice s.
func (n *Net) tlocal(i, s int) factor.Var { return factor.Var(n.nS + i*n.w + s%n.w) }

// Compile reads the template of the time-indexed model m: the initial
// slices 0..Order-1 and slice Order, whose distributions every later
// slice shares. The errors are of kind ErrNotTemporal, ErrRealParent
// (positioned *ir.Error where a distribution is at fault) and
// ErrTooLarge.
func Compile(m *ir.Model) (*Net, error) {
	t := m.Time
	if t == nil || len(t.Vars) == 0 {
		return nil, fmt.Errorf("the model has no time-indexed variables (var X[t]: ...): %w", ErrNotTemporal)
	}
	if t.Horizon < t.Order {
		return nil, fmt.Errorf("the model is unrolled to slice %d, before its order %d: %w", t.Horizon, t.Order, ErrNotTemporal)
	}
	if len(m.Potentials) > 0 || len(m.Utilities) > 0 {
		return nil, fmt.Errorf("a Markov network or an influence diagram: %w", ErrNotTemporal)
	}
	n := &Net{m: m, order: t.Order, w: t.Order + 1}
	// where[v]: static index (slice -1) or template variable and slice.
	type at struct{ i, s int }
	where := make(map[ir.VarID]at, len(m.Vars))
	for i, tv := range t.Vars {
		if len(tv.Slices) != t.Horizon+1 {
			return nil, fmt.Errorf("%s has %d slices for horizon %d: %w", tv.Name, len(tv.Slices), t.Horizon, ErrNotTemporal)
		}
		for s, v := range tv.Slices {
			where[v] = at{i, s}
		}
		x := m.Vars[tv.Slices[0]]
		n.names = append(n.names, tv.Name)
		n.real = append(n.real, !x.Discrete())
		n.card = append(n.card, x.Card())
	}
	var statics []ir.VarID
	for v, x := range m.Vars {
		if _, ok := where[ir.VarID(v)]; ok {
			continue
		}
		where[ir.VarID(v)] = at{len(statics), -1}
		statics = append(statics, ir.VarID(v))
		n.snames = append(n.snames, x.Name)
		n.sreal = append(n.sreal, !x.Discrete())
		n.scard = append(n.scard, x.Card())
	}
	n.nS = len(statics)
	n.local = make([]int, n.nS+len(t.Vars)*n.w)
	copy(n.local, n.scard)
	for i, c := range n.card {
		for s := range n.w {
			n.local[n.tlocal(i, s)] = c
		}
	}
	// Every variable the engine reads: its distribution must be a table
	// or a Gaussian density with discrete parents, and a real variable
	// has no children.
	children := m.Children()
	check := func(v ir.VarID) error {
		x := m.Vars[v]
		if x.Decision {
			return fmt.Errorf("%s is a decision: %w", x.Name, ErrNotTemporal)
		}
		d := m.Dists[v]
		if d == nil {
			return &ir.Error{Pos: x.Pos, Err: ErrNotTemporal, Msg: fmt.Sprintf("%s has no distribution", ir.Quote(x.Name))}
		}
		if x.Discrete() {
			if m.Table(v) == nil {
				return &ir.Error{Pos: d.Position(), Err: ErrNotTemporal, Msg: fmt.Sprintf("the distribution of %s has no table (a discrete variable given real parents)", ir.Quote(x.Name))}
			}
			return nil
		}
		g, ok := d.(*ir.Gaussian)
		if !ok {
			return &ir.Error{Pos: d.Position(), Err: ErrNotTemporal, Msg: fmt.Sprintf("%s: the sequence engine takes a real variable's normal density given discrete parents only", ir.Quote(x.Name))}
		}
		if len(g.Real) > 0 || len(children[v]) > 0 {
			return &ir.Error{Pos: d.Position(), Err: ErrRealParent, Msg: fmt.Sprintf("%s: a real variable is a parent (a linear Gaussian density): the sequence engine takes real variables with discrete parents and no children", ir.Quote(x.Name))}
		}
		return nil
	}
	for _, v := range statics {
		if err := check(v); err != nil {
			return nil, err
		}
	}
	for s := 0; s <= n.order; s++ {
		for _, tv := range t.Vars {
			if err := check(tv.Slices[s]); err != nil {
				return nil, err
			}
		}
	}
	// The lowering gives every slice from Order on the template's
	// numbers: check the next slice where the model has it.
	if t.Horizon > n.order {
		for _, tv := range t.Vars {
			a, b := tv.Slices[n.order], tv.Slices[n.order+1]
			same := false
			if fa, fb := m.Factor(a), m.Factor(b); fa != nil && fb != nil {
				same = slices.Equal(fa.Vals, fb.Vals)
			} else if ga, gb := m.Gaussian(a), m.Gaussian(b); ga != nil && gb != nil {
				same = slices.Equal(ga.Mean, gb.Mean) && slices.Equal(ga.SD, gb.SD)
			}
			if !same {
				return nil, fmt.Errorf("%s: slice %d's distribution is not the template's of slice %d: %w", tv.Name, n.order+1, n.order, ErrNotTemporal)
			}
		}
	}
	// mapVar maps a model variable read at model slice base onto the
	// local variables of a step at slice rep.
	mapVar := func(v ir.VarID, base, rep int) factor.Var {
		a := where[v]
		if a.s < 0 {
			return factor.Var(a.i)
		}
		return n.tlocal(a.i, a.s-base+rep)
	}
	mapAll := func(vs []ir.VarID, base, rep int) []factor.Var {
		out := make([]factor.Var, len(vs))
		for j, v := range vs {
			out[j] = mapVar(v, base, rep)
		}
		return out
	}
	addDensity := func(p *plan, v ir.VarID, idx, base, rep int) {
		g := m.Gaussian(v)
		dn := density{v: idx, d: g, parents: mapAll(g.Parents, base, rep)}
		for _, q := range dn.parents {
			dn.card = append(dn.card, n.local[q])
		}
		p.gauss = append(p.gauss, dn)
	}
	// The statics' prior.
	prior := &plan{slice: -1}
	for j, v := range statics {
		if n.sreal[j] {
			addDensity(prior, v, j, 0, 0)
			continue
		}
		f := *m.Factor(v)
		f.Vars = mapAll(f.Vars, 0, 0)
		prior.cpts = append(prior.cpts, &f)
	}
	n.kinds = append(n.kinds, prior)
	// A step's plan: slice base of the model, laid out at slice rep.
	stepPlan := func(base, rep int) *plan {
		p := &plan{slice: rep}
		for i, tv := range t.Vars {
			v := tv.Slices[base]
			if n.real[i] {
				addDensity(p, v, i, base, rep)
				continue
			}
			f := *m.Factor(v)
			f.Vars = mapAll(f.Vars, base, rep)
			p.cpts = append(p.cpts, &f)
		}
		return p
	}
	for s := 0; s < n.order; s++ {
		n.kinds = append(n.kinds, stepPlan(s, s))
	}
	for ph := range n.w {
		rep := n.order + ((ph-n.order%n.w)%n.w+n.w)%n.w
		n.kinds = append(n.kinds, stepPlan(n.order, rep))
	}
	// The interfaces: the discrete statics, and the template variables
	// at slices up to s with a child after s.
	parentsAt := func(u int) [][2]int { // (template variable, slice) of every parent of slice u's variables
		base := min(u, n.order)
		var out [][2]int
		for _, tv := range t.Vars {
			for _, p := range m.Parents[tv.Slices[base]] {
				if a := where[p]; a.s >= 0 {
					out = append(out, [2]int{a.i, a.s - base + u})
				}
			}
		}
		return out
	}
	iface := func(s int) []factor.Var {
		var out []factor.Var
		for j := range statics {
			if !n.sreal[j] {
				out = append(out, factor.Var(j))
			}
		}
		for sp := max(s-n.order, 0); sp <= s; sp++ {
			for i := range t.Vars {
				need := false
				for u := s + 1; u <= s+n.order && !need; u++ {
					need = slices.Contains(parentsAt(u), [2]int{i, sp})
				}
				if need {
					out = append(out, n.tlocal(i, sp))
				}
			}
		}
		return out
	}
	prior.out = iface(-1)
	for _, p := range n.kinds[1:] {
		p.in, p.out = iface(p.slice-1), iface(p.slice)
	}
	// Every step's product must fit.
	for _, p := range n.kinds {
		fs := append([]*factor.Factor{{Vars: p.in, Card: n.cards(p.in)}}, p.cpts...)
		for _, d := range p.gauss {
			fs = append(fs, &factor.Factor{Vars: d.parents, Card: d.card})
		}
		u, card := factor.UnionScope(nil, fs)
		_ = u
		if sz := factor.Size(card, MaxEntries); sz < 0 {
			return nil, &TooLargeError{What: "the product of one step", Size: sizeOf(card), Limit: MaxEntries, Unit: "entries"}
		}
	}
	n.fast = n.fastPath()
	return n, nil
}

// cards returns the cardinalities of local variables.
func (n *Net) cards(vs []factor.Var) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = n.local[v]
	}
	return out
}

// sizeOf returns the product of card, math.MaxInt64 on overflow.
func sizeOf(card []int) int64 {
	s := int64(1)
	for _, c := range card {
		if s > math.MaxInt64/int64(max(c, 1)) {
			return math.MaxInt64
		}
		s *= int64(max(c, 1))
	}
	return s
}
