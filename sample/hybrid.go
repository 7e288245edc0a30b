package sample

import (
	"github.com/pbl-lang/pbl/ir"
)

// This file samples a model in which discrete variables have real parents
// (ir.Softmax: logistic or softmax of scores affine in them): the
// discrete variables can no longer all be drawn before the real ones, so
// every variable is drawn in one topological order — a table's variable
// and a softmax's from the discrete stream (one 63-bit draw each), a
// normal density's from the real stream, as elsewhere. Models without
// such a variable keep the faster order of sampler.go and real.go.

// hstep is one draw of a hybrid model: a table's node (s.nodes), a
// softmax (s.soft) or a normal density (s.gauss), by index.
type hstep struct {
	kind uint8 // stepTable, stepSoftmax, stepGauss
	i    int32
}

const (
	stepTable uint8 = iota
	stepSoftmax
	stepGauss
)

// snode is a discrete variable with real parents: its discrete parents
// are pa[pa0:pa0+np] with strides st (in configurations), its real
// parents real[r0:r0+nr].
type snode struct {
	v       int32
	d       *ir.Softmax
	pa0, np int32
	r0, nr  int32
}

// compileHybrid adds the softmax variables and orders every draw, after
// the tables' nodes (in any order) and the real variables (real.go) are
// compiled.
func (s *Sampler) compileHybrid(m *ir.Model) error {
	if len(s.joint) > 0 {
		return ir.Errorf(s.joint[0].d.Pos, "cannot sample yet a joint normal density in a model where a discrete variable has real-valued parents")
	}
	step := make(map[int32]hstep)
	for i, n := range s.nodes {
		step[n.v] = hstep{stepTable, int32(i)}
	}
	for i, n := range s.gauss {
		step[n.v] = hstep{stepGauss, int32(i)}
	}
	for v, d := range m.Dists {
		d, ok := d.(*ir.Softmax)
		if !ok {
			continue
		}
		for _, p := range d.Real {
			if m.Dists[p] == nil {
				return ir.Errorf(d.Pos, "cannot sample %s: its parent %s has no distribution", ir.Quote(m.Vars[v].Name), ir.Quote(m.Vars[p].Name))
			}
		}
		n := snode{v: int32(v), d: d, pa0: int32(len(s.pa)), np: int32(len(d.Parents)), r0: int32(len(s.real)), nr: int32(len(d.Real))}
		s.appendParents(m, d.Parents)
		for _, p := range d.Real {
			s.real = append(s.real, int32(p))
		}
		step[int32(v)] = hstep{stepSoftmax, int32(len(s.soft))}
		s.soft = append(s.soft, n)
	}
	// Kahn's order over the variables drawn, the lowest-numbered first
	// among those ready.
	indeg := make([]int, len(m.Vars))
	children := m.Children()
	var h minHeap
	for v := range m.Vars {
		if _, ok := step[int32(v)]; !ok {
			continue
		}
		for _, p := range m.Parents[v] {
			if _, ok := step[int32(p)]; ok {
				indeg[v]++
			}
		}
		if indeg[v] == 0 {
			h.push(ir.VarID(v))
		}
	}
	for len(h) > 0 {
		v := h.pop()
		s.steps = append(s.steps, step[int32(v)])
		for _, c := range children[v] {
			if _, ok := step[int32(c)]; !ok {
				continue
			}
			if indeg[c]--; indeg[c] == 0 {
				h.push(c)
			}
		}
	}
	if len(s.steps) != len(step) {
		return ir.Errorf(ir.Pos{File: m.Source}, "cannot sample: the graph has a cycle")
	}
	return nil
}

// sampleHybrid draws every variable of a hybrid model in s.steps' order:
// the discrete ones from src into dst, the real ones from reals into
// vals.
func (s *Sampler) sampleHybrid(src, reals uint64Source, dst []int32, vals []float64) {
	var pbuf, xbuf [8]float64
	for _, st := range s.steps {
		switch st.kind {
		case stepTable:
			n := &s.nodes[st.i]
			dst[n.v] = s.draw(n, dst, src.Uint64()>>1)
		case stepGauss:
			s.drawGauss(&s.gauss[st.i], reals, dst, vals)
		case stepSoftmax:
			n := &s.soft[st.i]
			u := 0
			for k := n.pa0; k < n.pa0+n.np; k++ {
				u += int(dst[s.pa[k]]) * int(s.st[k])
			}
			x := xbuf[:0]
			for _, p := range s.real[n.r0 : n.r0+n.nr] {
				x = append(x, vals[p])
			}
			p := pbuf[:0]
			if n.d.K > len(pbuf) {
				p = make([]float64, n.d.K)
			}
			p = n.d.ProbsTo(p[:n.d.K], u, x)
			r := float64(src.Uint64()>>11) / (1 << 53)
			j, acc := len(p)-1, 0.0
			for i, q := range p {
				acc += q
				if r < acc {
					j = i
					break
				}
			}
			for p[j] == 0 && j > 0 { // rounding past the last state of mass
				j--
			}
			dst[n.v] = int32(j)
		}
	}
}
