package infer

import (
	"math"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file is MAP by search: the variables that are not MAP variables
// are summed out first, exactly, by variable elimination in logarithms
// (max and sum do not commute, so they go first), which leaves tables
// over MAP variables only; the MPE search (mpesearch.go) then maximises
// their sum over the MAP variables, with the mini-bucket bound of those
// tables, which is a valid bound on the MAP value. Barren variables (in
// a Bayesian network, those that are not ancestors of a MAP or observed
// variable) are dropped first: summed out, they give 1.

// searchMAP returns the states of the MAP variables vars (by VarID, -1
// elsewhere) maximising P(vars, e), and that maximum. ok is false when the
// summing out would exceed maxWork entries or the search gave up; the
// caller then answers by variable elimination.
func searchMAP(m *ir.Model, obs, card []int, vars []ir.VarID, k *factor.Kernel, pos ir.Pos, cfg searchConfig) (best []int, mx factor.Scaled, ok bool, err error) {
	n := len(m.Vars)
	mark := (&ve{m: m, obs: obs}).relevant(vars)
	isMAP := make([]bool, n)
	for _, v := range vars {
		isMAP[v] = true
	}
	// The relevant factors in logarithms, restricted by the evidence.
	p := &mpeProblem{card: make([]int, n), live: make([][]int32, n), fixed: make([]int, n)}
	for v := range n {
		p.fixed[v] = -1
		if card[v] > 0 && obs[v] < 0 {
			p.card[v] = card[v]
			p.live[v] = make([]int32, card[v])
			for s := range p.live[v] {
				p.live[v][s] = int32(s)
			}
		}
	}
	var fs []*lfac
	add := func(f *ir.Factor) {
		g := factor.Restrict(f, obs)
		if len(g.Vars) == 0 {
			p.konst += math.Log(g.Vals[0])
			return
		}
		fs = append(fs, p.logOf(g))
	}
	for v := range n {
		if f := m.Factor(ir.VarID(v)); f != nil && card[v] > 0 && mark[v] {
			add(f)
		}
	}
	for _, f := range m.Potentials {
		add(f)
	}
	var sumVars []ir.VarID
	for v := range n {
		if mark[v] && card[v] > 0 && obs[v] < 0 && !isMAP[v] {
			sumVars = append(sumVars, ir.VarID(v))
		}
	}
	sc := make([][]ir.VarID, len(fs))
	for i, f := range fs {
		sc[i] = f.vars
	}
	work := 0.0
	order := elimOrder(MinFill, p.card, sc, func(v ir.VarID, nb []ir.VarID, size float64) bool {
		work += size * float64(p.card[v])
		return work <= maxWork
	}, sumVars)
	if len(order) < len(sumVars) {
		return nil, mx, false, nil
	}
	// Sum out the order, bucket by bucket.
	pos2 := make([]int, n)
	for i := range pos2 {
		pos2[i] = -1
	}
	for i, v := range order {
		pos2[v] = i
	}
	buckets := make([][]*lfac, len(order))
	var rest []*lfac
	place := func(f *lfac) {
		b := -1
		for _, v := range f.vars {
			if j := pos2[v]; j >= 0 && (b < 0 || j < b) {
				b = j
			}
		}
		if b < 0 {
			rest = append(rest, f)
		} else {
			buckets[b] = append(buckets[b], f)
		}
	}
	for _, f := range fs {
		place(f)
	}
	for i, v := range order {
		if k.Stop() {
			return nil, mx, false, canceled(pos)
		}
		in := buckets[i]
		buckets[i] = nil
		if len(in) == 0 {
			p.konst += math.Log(float64(p.card[v]))
			continue
		}
		var vs []ir.VarID
		for _, f := range in {
			for _, w := range f.vars {
				if w != v && factor.IndexOf(vs, w) < 0 {
					vs = append(vs, w)
				}
			}
		}
		cs := make([]int, len(vs))
		for j, w := range vs {
			cs[j] = p.card[w]
		}
		msg := newLfac(vs, cs)
		sumOut(msg, v, p.card[v], in)
		if len(vs) == 0 {
			p.konst += msg.vals[0]
			continue
		}
		place(msg)
	}
	if math.IsInf(p.konst, -1) {
		return nil, mx, false, nil
	}
	p.fs = rest
	for _, v := range vars {
		p.vars = append(p.vars, v)
	}
	// MAP variables outside every remaining table keep card > 0 and take
	// state 0 (their tables summed to constants).
	ra, lnmax, ok, err := solveMax(p, k, pos, cfg)
	if !ok || err != nil {
		return nil, mx, false, err
	}
	best = make([]int, n)
	for v := range best {
		best[v] = -1
	}
	for _, v := range vars {
		best[v] = max(ra[v], 0)
	}
	return best, fromLog(lnmax), true, nil
}

// sumOut sets dst (whose scope excludes v) to the logarithm of the sum
// over v's cv states of the exponentials of the sum of items.
func sumOut(dst *lfac, v ir.VarID, cv int, items []*lfac) {
	sumBlocks(dst, v, cv, items, nil, func(e0 int, block []float64) {
		out := dst.vals[e0 : e0+len(block)/cv]
		for c := range out {
			row := block[c*cv : (c+1)*cv]
			top := math.Inf(-1)
			for _, y := range row {
				top = max(top, y)
			}
			if math.IsInf(top, -1) {
				out[c] = top
				continue
			}
			s := 0.0
			for _, y := range row {
				s += math.Exp(y - top)
			}
			out[c] = top + math.Log(s)
		}
	})
}

// fromLog returns e^l as an factor.Scaled (0 for -Inf), exact to rounding
// whatever l.
func fromLog(l float64) factor.Scaled {
	if math.IsInf(l, -1) {
		return factor.Scaled{}
	}
	e := math.Floor(l / math.Ln2)
	return factor.Scaled{M: math.Exp(l - e*math.Ln2), E: int(e)}.Norm()
}
