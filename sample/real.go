package sample

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// This file samples the real-valued variables that have a density: joint
// normal densities (ir.MultiNormal, given discrete parents) and normal
// densities given discrete parents and, for a linear Gaussian, real
// parents (ir.Gaussian with Real), whose mean is the intercept plus each
// coefficient times its parent's drawn value.

// gnode is a real variable with an ir.Gaussian: its discrete parents are
// pa[pa0:pa0+np] with strides st (in configurations), its real parents
// real[r0:r0+nr].
type gnode struct {
	v       int32
	g       *ir.Gaussian
	pa0, np int32
	r0, nr  int32
}

// jnode is a joint normal density: chol[u] is the lower Cholesky factor of
// configuration u's covariance, d×d row-major.
type jnode struct {
	d       *ir.MultiNormal
	chol    [][]float64
	pa0, np int32
}

// compileReal adds the real variables with a density to s: each a column,
// drawn after the discrete variables. A real variable without a density
// (still to learn) is not sampled, and a density whose real parent has
// none is an error.
func (s *Sampler) compileReal(m *ir.Model) error {
	var gs []int32
	for v, x := range m.Vars {
		if x.Discrete() {
			continue
		}
		switch d := m.Dists[v].(type) {
		case *ir.Gaussian:
			for _, p := range d.Real {
				if m.Dists[p] == nil {
					return ir.Errorf(d.Pos, "cannot sample %s: its parent %s has no distribution", ir.Quote(x.Name), ir.Quote(m.Vars[p].Name))
				}
			}
			gs = append(gs, int32(v))
		case *ir.MultiNormal:
			if d.Children[0] != ir.VarID(v) {
				continue
			}
			j := jnode{d: d, pa0: int32(len(s.pa)), np: int32(len(d.Parents))}
			s.appendParents(m, d.Parents)
			for u, c := range d.Cov {
				n := len(d.Children)
				var ch mat.Cholesky
				if !ch.Factorize(mat.NewSymDense(n, append([]float64(nil), c...))) {
					return ir.Errorf(d.Pos, "cannot sample %s: the covariance of configuration %d is not positive definite", ir.Quote(x.Name), u+1)
				}
				var l mat.TriDense
				ch.LTo(&l)
				flat := make([]float64, n*n)
				for i := range n {
					for k := 0; k <= i; k++ {
						flat[i*n+k] = l.At(i, k)
					}
				}
				j.chol = append(j.chol, flat)
			}
			s.joint = append(s.joint, j)
			s.realDraws += len(d.Children)
		}
	}
	for v, x := range m.Vars {
		if !x.Discrete() && m.Dists[v] != nil {
			s.realCol = append(s.realCol, int32(v))
		}
	}
	order, ok := realOrder(m, gs)
	if !ok {
		return ir.Errorf(ir.Pos{File: m.Source}, "cannot sample: the real-valued variables' parents form a cycle")
	}
	for _, v := range order {
		g := m.Dists[v].(*ir.Gaussian)
		n := gnode{v: int32(v), g: g, pa0: int32(len(s.pa)), np: int32(len(g.Parents)), r0: int32(len(s.real)), nr: int32(len(g.Real))}
		s.appendParents(m, g.Parents)
		for _, p := range g.Real {
			s.real = append(s.real, int32(p))
		}
		s.gauss = append(s.gauss, n)
	}
	s.realDraws += len(s.gauss)
	return nil
}

// appendParents appends discrete parents and their strides in
// configurations (row-major, the last fastest) to s.pa and s.st.
func (s *Sampler) appendParents(m *ir.Model, parents []ir.VarID) {
	stride := 1
	at := len(s.st)
	for range parents {
		s.pa = append(s.pa, 0)
		s.st = append(s.st, 0)
	}
	for i := len(parents) - 1; i >= 0; i-- {
		s.pa[at+i] = int32(parents[i])
		s.st[at+i] = int32(stride)
		stride *= len(m.Vars[parents[i]].States)
	}
}

// realOrder orders the real variables vs (each with an ir.Gaussian) so
// that real parents with a Gaussian come first, choosing at each step the
// lowest-numbered variable whose such parents are placed. ok is false on
// a cycle.
func realOrder(m *ir.Model, vs []int32) ([]ir.VarID, bool) {
	in := make(map[ir.VarID]bool, len(vs))
	for _, v := range vs {
		in[ir.VarID(v)] = true
	}
	indeg := make(map[ir.VarID]int, len(vs))
	children := make(map[ir.VarID][]ir.VarID)
	var h minHeap
	for _, v := range vs {
		g := m.Dists[v].(*ir.Gaussian)
		for _, p := range g.Real {
			if in[p] {
				indeg[ir.VarID(v)]++
				children[p] = append(children[p], ir.VarID(v))
			}
		}
		if indeg[ir.VarID(v)] == 0 {
			h.push(ir.VarID(v))
		}
	}
	var order []ir.VarID
	for len(h) > 0 {
		v := h.pop()
		order = append(order, v)
		for _, c := range children[v] {
			if indeg[c]--; indeg[c] == 0 {
				h.push(c)
			}
		}
	}
	return order, len(order) == len(vs)
}

// stdNormal turns a 64-bit draw into a standard normal deviate by the
// inverse of the normal distribution function, Φ⁻¹(u) = −√2·erfc⁻¹(2u),
// at u = (⌊x / 2¹¹⌋ + ½) / 2⁵³, strictly inside (0, 1).
func stdNormal(x uint64) float64 {
	u := (float64(x>>11) + 0.5) / (1 << 53)
	return -math.Sqrt2 * math.Erfcinv(2*u)
}

// uint64Source is a generator: *rand.PCG, or *rand.Rand.
type uint64Source interface{ Uint64() uint64 }

// sampleReal draws the real variables into vals (indexed by VarID) given
// the discrete states in dst, one 64-bit draw from src per real value:
// the joint densities' children first, in the order of their first
// children, then the normal densities in topological order.
func (s *Sampler) sampleReal(src uint64Source, dst []int32, vals []float64) {
	for i := range s.joint {
		j := &s.joint[i]
		u := 0
		for k := j.pa0; k < j.pa0+j.np; k++ {
			u += int(dst[s.pa[k]]) * int(s.st[k])
		}
		d := j.d
		n := len(d.Children)
		l, mean := j.chol[u], d.Mean[u]
		var zs [8]float64
		z := zs[:0]
		if n > len(zs) {
			z = make([]float64, 0, n)
		}
		for range n {
			z = append(z, stdNormal(src.Uint64()))
		}
		for a, c := range d.Children {
			x := mean[a]
			for b := 0; b <= a; b++ {
				x += float64(l[a*n+b] * z[b]) // no fused multiply-add: the same bits on every architecture
			}
			vals[c] = x
		}
	}
	for i := range s.gauss {
		s.drawGauss(&s.gauss[i], src, dst, vals)
	}
}

// drawGauss draws n's value into vals given its parents' states in dst
// and values in vals, one 64-bit draw from src.
func (s *Sampler) drawGauss(n *gnode, src uint64Source, dst []int32, vals []float64) {
	u := 0
	for k := n.pa0; k < n.pa0+n.np; k++ {
		u += int(dst[s.pa[k]]) * int(s.st[k])
	}
	g := n.g
	mean := g.Mean[u]
	if n.nr > 0 {
		coef := g.Coef[u*int(n.nr) : (u+1)*int(n.nr)]
		for j, p := range s.real[n.r0 : n.r0+n.nr] {
			mean += float64(coef[j] * vals[p])
		}
	}
	vals[n.v] = mean + float64(g.SD[u]*stdNormal(src.Uint64()))
}
