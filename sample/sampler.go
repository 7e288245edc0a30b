package sample

import (
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/ir"
)

// one is 2⁶³, the scale of the thresholds: draws are 63-bit integers.
const one = 1 << 63

// linearMax is the largest number of states searched linearly.
const linearMax = 8

// Sampler draws samples from a Bayesian network by forward sampling. It is
// immutable once built and safe for concurrent use.
type Sampler struct {
	m     *ir.Model
	nodes []node   // the sampled variables, in topological order
	thr   []uint64 // every CPT's cumulative thresholds, one per entry
	pa    []int32  // every node's parents' VarIDs, node by node
	st    []int32  // the parents' row strides, parallel to pa
	cols  []int32  // the VarIDs of the written columns, in declaration order

	// The real-valued variables with a density (real.go): drawn after
	// the discrete ones, realDraws values a row.
	joint     []jnode
	gauss     []gnode
	real      []int32 // every Gaussian's real parents' VarIDs, node by node
	realCol   []int32 // the real variables sampled, in declaration order
	realDraws int

	// A model with discrete variables given real parents (hybrid.go):
	// every draw in one topological order, or nil.
	steps []hstep
	soft  []snode
}

// node is one sampled variable: its CPT's rows start at thr[off], k
// entries each; the row of a parent configuration is Σ state(pa[i])·st[i]
// for i in [pa0, pa0+np), the strides st counted in rows.
type node struct {
	v   int32 // VarID
	k   int32 // number of states
	off int   // offset of the CPT's first row in Sampler.thr
	pa0 int32 // offset of the parents in Sampler.pa and Sampler.st
	np  int32 // number of parents
}

// NewSampler compiles a sampler for m. It fails if m is not a Bayesian
// network (a Markov network has no CPTs to sample from) or has no variable
// to sample: no discrete variable and no real one with a density.
func NewSampler(m *ir.Model) (*Sampler, error) {
	at := ir.Pos{File: m.Source}
	if !m.IsBayesNet() {
		return nil, ir.Errorf(at, "cannot sample a Markov network: forward sampling needs a conditional distribution (CPT) for every variable, and this model has potentials")
	}
	s := &Sampler{m: m}
	hybrid := false
	for v, x := range m.Vars {
		if !x.Discrete() {
			continue
		}
		if _, ok := m.Dist(ir.VarID(v)).(*ir.Softmax); ok {
			// Drawn in one topological order with the real variables
			// (hybrid.go).
			hybrid = true
			s.cols = append(s.cols, int32(v))
			continue
		}
		if m.Table(ir.VarID(v)) == nil {
			return nil, ir.Errorf(x.Pos, "cannot sample %s: it has no distribution (give it a CPT, or learn the model from data first)", ir.Quote(x.Name))
		}
		for _, p := range m.Parents[v] {
			if !m.Vars[p].Discrete() {
				return nil, ir.Errorf(m.Table(ir.VarID(v)).Pos, "cannot sample %s: its parent %s is real-valued", ir.Quote(x.Name), ir.Quote(m.Vars[p].Name))
			}
		}
		s.cols = append(s.cols, int32(v))
	}
	discrete := s.cols
	var order []ir.VarID
	if hybrid {
		// The tables' nodes in declaration order: hybrid.go orders
		// every draw.
		for _, v := range discrete {
			if m.Table(ir.VarID(v)) != nil {
				order = append(order, ir.VarID(v))
			}
		}
	} else {
		var ok bool
		if order, ok = topoOrder(m, discrete); !ok {
			return nil, ir.Errorf(at, "cannot sample: the graph has a cycle")
		}
	}
	for _, v := range order {
		cpt := m.Table(ir.VarID(v))
		f := cpt.Factor
		k := f.Card[len(f.Card)-1]
		n := node{v: int32(v), k: int32(k), off: len(s.thr), pa0: int32(len(s.pa)), np: int32(len(cpt.Parents))}
		for i, p := range cpt.Parents {
			s.pa = append(s.pa, int32(p))
			s.st = append(s.st, int32(f.Stride[i]/k))
		}
		s.nodes = append(s.nodes, n)
		s.thr = appendThresholds(s.thr, f.Vals, k)
	}
	if err := s.compileReal(m); err != nil {
		return nil, err
	}
	if hybrid {
		if err := s.compileHybrid(m); err != nil {
			return nil, err
		}
	}
	if len(discrete) == 0 && len(s.realCol) == 0 {
		return nil, ir.Errorf(at, "the model has no discrete variables to sample, and no real-valued variables with a density")
	}
	// The columns: every sampled variable, in declaration order.
	s.cols = nil
	for v, x := range m.Vars {
		if x.Discrete() || m.Dists[v] != nil {
			s.cols = append(s.cols, int32(v))
		}
	}
	return s, nil
}

// appendThresholds appends the cumulative thresholds of every row of vals
// (rows of k entries) to thr.
func appendThresholds(thr []uint64, vals []float64, k int) []uint64 {
	for r := 0; r+k <= len(vals); r += k {
		row := vals[r : r+k]
		sum, last := 0.0, -1
		for j, p := range row {
			sum += p
			if p > 0 {
				last = j
			}
		}
		c := 0.0
		for j, p := range row {
			c += p
			switch {
			case last < 0:
				// An all-zero row (impossible for a validated model):
				// always the first state.
				thr = append(thr, one)
			case j >= last:
				thr = append(thr, one)
			default:
				x := c / sum * one
				if x >= one {
					thr = append(thr, one)
				} else {
					thr = append(thr, uint64(x))
				}
			}
		}
	}
	return thr
}

// topoOrder orders vars so that parents come first, choosing at each step
// the lowest-numbered variable whose parents are all placed. ok is false
// if the graph has a cycle.
func topoOrder(m *ir.Model, vars []int32) (order []ir.VarID, ok bool) {
	indeg := make([]int, len(m.Vars))
	children := m.Children()
	want := 0
	for _, v := range vars {
		indeg[v] = len(m.Parents[v])
		want++
	}
	var h minHeap
	for _, v := range vars {
		if indeg[v] == 0 {
			h.push(ir.VarID(v))
		}
	}
	for len(h) > 0 {
		v := h.pop()
		order = append(order, v)
		for _, c := range children[v] {
			if indeg[c]--; indeg[c] == 0 {
				h.push(c)
			}
		}
	}
	return order, len(order) == want
}

// minHeap is a binary min-heap of VarIDs.
type minHeap []ir.VarID

func (h *minHeap) push(v ir.VarID) {
	*h = append(*h, v)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *minHeap) pop() ir.VarID {
	a := *h
	v := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < n && a[l] < a[min] {
			min = l
		}
		if r < n && a[r] < a[min] {
			min = r
		}
		if min == i {
			break
		}
		a[i], a[min] = a[min], a[i]
		i = min
	}
	*h = a
	return v
}

// Model returns the model the sampler draws from.
func (s *Sampler) Model() *ir.Model { return s.m }

// Columns returns the VarIDs of the sampled variables (the discrete ones,
// and the real ones with a density) in declaration order: the columns of
// WriteCSV.
func (s *Sampler) Columns() []ir.VarID {
	out := make([]ir.VarID, len(s.cols))
	for i, v := range s.cols {
		out[i] = ir.VarID(v)
	}
	return out
}

// Sample draws one joint sample using rng and writes the state of every
// discrete variable v to dst[v]. The entries of real-valued variables are
// left unchanged. dst must have at least len(Model().Vars) elements. It
// calls rng.Uint64 once per discrete variable, in the same order as
// WriteCSV: Sample over rand.New(ChunkSource(seed, c)) draws the rows of
// WriteCSV's chunk c (when nothing is blanked).
func (s *Sampler) Sample(rng *rand.Rand, dst []int32) {
	if len(dst) < len(s.m.Vars) {
		panic("sample: Sample: dst shorter than the number of variables")
	}
	if s.steps != nil {
		// The discrete variables depend on real ones: drawn too, from
		// rng, into scratch.
		s.sampleHybrid(rng, rng, dst, make([]float64, len(s.m.Vars)))
		return
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		dst[n.v] = s.draw(n, dst, rng.Uint64()>>1)
	}
}

// SampleValues is Sample that also draws every sampled real-valued
// variable v, from reals (one Uint64 per value), into vals[v] (other
// entries are left unchanged); vals must have at least len(Model().Vars)
// elements. Over rand.New(ChunkSource(seed, c)) and
// rand.New(ChunkRealSource(seed, c)) it draws the rows of WriteCSV's chunk
// c (when nothing is blanked).
func (s *Sampler) SampleValues(rng, reals *rand.Rand, dst []int32, vals []float64) {
	if len(vals) < len(s.m.Vars) {
		panic("sample: SampleValues: vals shorter than the number of variables")
	}
	if s.steps != nil {
		s.sampleHybrid(rng, reals, dst, vals)
		return
	}
	s.Sample(rng, dst)
	s.sampleReal(reals, dst, vals)
}

// sampleRow is SampleValues with a concrete PCG source, which the
// compiler calls directly, and draw inlined by hand.
func (s *Sampler) sampleRow(src, reals *rand.PCG, dst []int32, vals []float64) {
	if s.steps != nil {
		s.sampleHybrid(src, reals, dst, vals)
		return
	}
	s.sampleDiscrete(src, dst)
	if s.realDraws > 0 {
		s.sampleReal(reals, dst, vals)
	}
}

func (s *Sampler) sampleDiscrete(src *rand.PCG, dst []int32) {
	thr, pa, st := s.thr, s.pa, s.st
	for i := range s.nodes {
		n := &s.nodes[i]
		u := src.Uint64() >> 1
		row := 0
		for j := n.pa0; j < n.pa0+n.np; j++ {
			row += int(dst[pa[j]]) * int(st[j])
		}
		k := int(n.k)
		if k > linearMax {
			dst[n.v] = s.draw(n, dst, u)
			continue
		}
		// Branch-free: the number of thresholds at or below u. Every
		// t[j] ≥ t[j-1] and t[k-1] > u, so this is the first j with
		// u < t[j].
		t := thr[n.off+row*k : n.off+row*k+k-1]
		j := 0
		for _, x := range t {
			if u >= x {
				j++
			}
		}
		dst[n.v] = int32(j)
	}
}

// draw returns the state of n given its parents' states in dst, for the
// 63-bit uniform draw u.
func (s *Sampler) draw(n *node, dst []int32, u uint64) int32 {
	row := 0
	for j := n.pa0; j < n.pa0+n.np; j++ {
		row += int(dst[s.pa[j]]) * int(s.st[j])
	}
	k := int(n.k)
	t := s.thr[n.off+row*k : n.off+row*k+k]
	if k <= linearMax {
		j := 0
		for u >= t[j] {
			j++
		}
		return int32(j)
	}
	// The first j with u < t[j]; t[k-1] = 2⁶³ > u.
	lo, hi := 0, k-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if u >= t[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int32(lo)
}

// missingThreshold returns ⌊2⁶³ · missing⌋: a cell is blank when its
// 63-bit draw is below it.
func missingThreshold(missing float64) uint64 {
	if !(missing > 0) {
		return 0
	}
	if missing >= 1 {
		return math.MaxUint64
	}
	return uint64(missing * one)
}
