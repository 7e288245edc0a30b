package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file prepares an MPE problem for search (mpesearch.go): the
// factors restricted by the evidence, the states that no assignment of
// positive probability can take removed (determinism propagated), the
// variables left with one state fixed, and every table turned into
// natural logarithms over the remaining states.

// lfac is a table of natural logarithms (-Inf for 0) over vars, row-major
// with the last variable fastest, like ir.Factor.
type lfac struct {
	vars []ir.VarID
	card []int
	str  []int
	vals []float64
}

// newLfac returns a table of zeros (ln 1) over vars with the given
// cardinalities.
func newLfac(vars []ir.VarID, card []int) *lfac {
	f := &lfac{vars: vars, card: card, str: make([]int, len(vars))}
	n := 1
	for i := len(vars) - 1; i >= 0; i-- {
		f.str[i] = n
		n *= card[i]
	}
	f.vals = make([]float64, n)
	return f
}

// stride returns the stride of v in f, 0 if f does not depend on v.
func (f *lfac) stride(v ir.VarID) int {
	for i, w := range f.vars {
		if w == v {
			return f.str[i]
		}
	}
	return 0
}

// mpeProblem is an MPE problem reduced for search.
type mpeProblem struct {
	card  []int     // card[v]: the states v may still take (0: observed, fixed, real)
	live  [][]int32 // live[v][s]: the model's state of v's s-th remaining state
	fixed []int     // fixed[v]: the state of a variable with one possible state, else -1
	vars  []ir.VarID
	fs    []*lfac
	konst float64 // ln of the factors that became constants
}

// reduceMPE restricts the model's factors by the evidence obs (indexed by
// VarID), removes the states of unobserved variables that have no
// support of positive probability in some factor given the other
// variables' remaining states (generalised arc consistency on the zeros,
// repeated until nothing changes), fixes the variables left with one
// state, and returns the problem over the others in logarithms. ok is
// false when the zeros leave no assignment of positive probability.
func reduceMPE(m *ir.Model, obs, card []int, k *factor.Kernel) (p *mpeProblem, ok bool) {
	n := len(m.Vars)
	var fs []*ir.Factor
	konst := 0.0
	add := func(f *ir.Factor) {
		g := factor.Restrict(f, obs)
		if len(g.Vars) == 0 {
			konst += math.Log(g.Vals[0])
			return
		}
		fs = append(fs, g)
	}
	for v := range m.Vars {
		if f := m.Factor(ir.VarID(v)); f != nil && card[v] > 0 {
			add(f)
		}
	}
	for _, f := range m.Potentials {
		add(f)
	}
	if math.IsInf(konst, -1) {
		return nil, false
	}
	// alive[off[v]+s]: state s of v is still possible.
	off := make([]int, n+1)
	for v := range n {
		off[v+1] = off[v]
		if obs[v] < 0 {
			off[v+1] += card[v]
		}
	}
	alive := make([]bool, off[n])
	for i := range alive {
		alive[i] = true
	}
	count := make([]int, n)
	for v := range n {
		if obs[v] < 0 {
			count[v] = card[v]
		}
	}
	byVar := make([][]int32, n)
	for i, f := range fs {
		for _, v := range f.Vars {
			byVar[v] = append(byVar[v], int32(i))
		}
	}
	// The tables to revise, a stack: the fixed point does not depend on
	// the order, and a table is on it at most once, so it never grows past
	// its first allocation (a queue sliding along was reallocated). A table
	// without zeros supports every remaining state of its variables
	// whatever the others' domains (none is ever empty here), so it is
	// never revised: it stays marked as queued.
	queued := make([]bool, len(fs))
	queue := make([]int32, 0, len(fs))
	for i := len(fs) - 1; i >= 0; i-- {
		if slices.Contains(fs[i].Vals, 0) {
			queue = append(queue, int32(i))
		}
		queued[i] = true // a table without zeros: never queued
	}
	var support []bool
	var cnt []int
	for len(queue) > 0 {
		if k.Stop() {
			return nil, false
		}
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		queued[i] = false
		f := fs[i]
		// support[base[j]+s]: state s of f's j-th variable occurs in an
		// entry > 0 whose states are all alive.
		nb := 0
		for _, c := range f.Card {
			nb += c
		}
		support = append(support[:0], make([]bool, nb)...)
		cnt = append(cnt[:0], make([]int, len(f.Vars))...)
		for e, x := range f.Vals {
			if e > 0 {
				for d := len(cnt) - 1; d >= 0; d-- {
					cnt[d]++
					if cnt[d] < f.Card[d] {
						break
					}
					cnt[d] = 0
				}
			}
			if x == 0 {
				continue
			}
			good := true
			for j, v := range f.Vars {
				if !alive[off[v]+cnt[j]] {
					good = false
					break
				}
			}
			if !good {
				continue
			}
			b := 0
			for j, c := range f.Card {
				support[b+cnt[j]] = true
				b += c
			}
		}
		b := 0
		for j, v := range f.Vars {
			changed := false
			for s := range f.Card[j] {
				if alive[off[v]+s] && !support[b+s] {
					alive[off[v]+s] = false
					count[v]--
					changed = true
				}
			}
			b += f.Card[j]
			if count[v] == 0 {
				return nil, false
			}
			if changed {
				for _, g := range byVar[v] {
					if g != i && !queued[g] {
						queued[g] = true
						queue = append(queue, g)
					}
				}
			}
		}
	}
	p = &mpeProblem{card: make([]int, n), live: make([][]int32, n), fixed: make([]int, n), konst: konst}
	fix := make([]int, n) // the observed and fixed states, for restrict
	for v := range n {
		p.fixed[v], fix[v] = -1, obs[v]
		if obs[v] >= 0 || card[v] == 0 {
			continue
		}
		for s := range card[v] {
			if alive[off[v]+s] {
				p.live[v] = append(p.live[v], int32(s))
			}
		}
		if len(p.live[v]) == 1 {
			p.fixed[v], fix[v] = int(p.live[v][0]), int(p.live[v][0])
			continue
		}
		p.card[v] = len(p.live[v])
		p.vars = append(p.vars, ir.VarID(v))
	}
	for _, f := range fs {
		g := factor.Restrict(f, fix)
		if len(g.Vars) == 0 {
			p.konst += math.Log(g.Vals[0])
			continue
		}
		p.fs = append(p.fs, p.logOf(g))
	}
	if math.IsInf(p.konst, -1) {
		return nil, false
	}
	return p, true
}

// logOf returns the logarithms of f's entries at the remaining states of
// its variables.
func (p *mpeProblem) logOf(f *ir.Factor) *lfac {
	card := make([]int, len(f.Vars))
	for i, v := range f.Vars {
		card[i] = p.card[v]
	}
	g := newLfac(f.Vars, card)
	cnt := make([]int, len(card))
	src := 0
	for i := range f.Vars {
		src += int(p.live[f.Vars[i]][0]) * f.Stride[i]
	}
	for e := range g.vals {
		g.vals[e] = math.Log(f.Vals[src])
		for d := len(cnt) - 1; d >= 0; d-- {
			v := f.Vars[d]
			old := int(p.live[v][cnt[d]])
			cnt[d]++
			if cnt[d] < card[d] {
				src += (int(p.live[v][cnt[d]]) - old) * f.Stride[d]
				break
			}
			cnt[d] = 0
			src += (int(p.live[v][0]) - old) * f.Stride[d]
		}
	}
	return g
}
