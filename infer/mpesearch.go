package infer

import (
	"math"
	"math/bits"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file is MPE by AND/OR branch and bound (Marinescu and Dechter),
// guided by the mini-bucket bound (minibucket.go) on the problem reduced by
// the evidence and the zeros (mpereduce.go).
//
// The pseudo-tree is the elimination tree of the order: a variable's
// parent is the first-eliminated of its neighbours in the induced graph,
// so every table's scope lies on one path from a root, and the subproblems
// below the children of a variable are independent once it and its
// ancestors are assigned. The search assigns a variable, then solves its
// children's subproblems one after the other; the value of a subproblem
// is the largest sum of the logarithms of its tables (those in the buckets
// of its variables).
//
// The bound of a subproblem is the sum of the mini-bucket messages that
// leave it (sent from a bucket inside to a bucket above it, or constants),
// at the current assignment of the variables above. A variable's states
// are tried in decreasing order of their bound (ties: lower state first);
// a state is cut when its bound is not above what the parent needs from
// this subproblem (alpha), or, once a state has met that, not above the
// best value found for it; a child is given as alpha what its siblings'
// values and bounds leave to reach. So the search proves every
// subproblem's value exactly, or that it cannot reach alpha.
//
// At the top, the search runs in passes with a threshold T: the forest of
// subproblems must exceed T, which starts just under the root bound and
// goes down (fourfold steps) until a pass succeeds. Where the bound is
// tight (as on networks with much determinism, whose greedy assignment may
// meet zeros deep down) the first pass sees only the nodes that can reach
// it. The greedy assignment along the bounds (the first dive) gives a
// value below which T never goes: a pass at that value that fails proves
// the greedy assignment optimal. When every bucket is one group the bound
// is exact and the first dive is the answer (max-product elimination and
// its traceback).
//
// Ties: the bounds are sums of logarithms, exact only to rounding, so
// values within tieTol of each other count as ties: once a subproblem has
// a value, another state replaces it only when its value exceeds it by
// more. So among tied assignments the search returns the first it reaches
// in the order above; its value is within tieTol per variable of the
// maximum (in practice the maximum, ties being exact or nowhere near).

// tieTol is the difference of logarithms below which two values tie.
const tieTol = 1e-11

// mpeTerm is one table read at the current assignment: the strides of
// its variables other than one variable v, and v's stride (0 if the table
// does not depend on v).
type mpeTerm struct {
	vals []float64
	vars []ir.VarID
	str  []int
	sv   int
}

func termOf(f *lfac, v ir.VarID) mpeTerm {
	t, _, _ := termInto(f, v, nil, nil)
	return t
}

// termInto is termOf with the term's variables and strides appended to
// vars and str, which it returns.
func termInto(f *lfac, v ir.VarID, vars []ir.VarID, str []int) (mpeTerm, []ir.VarID, []int) {
	t := mpeTerm{vals: f.vals, sv: f.stride(v)}
	v0 := len(vars)
	for i, w := range f.vars {
		if w != v {
			vars = append(vars, w)
			str = append(str, f.str[i])
		}
	}
	if len(vars) > v0 {
		t.vars, t.str = vars[v0:len(vars):len(vars)], str[v0:len(str):len(str)]
	}
	return t, vars, str
}

// at returns the offset of t at the current assignment a.
func (t *mpeTerm) at(a []int) int {
	o := 0
	for i, w := range t.vars {
		o += a[w] * t.str[i]
	}
	return o
}

// aoSearch is one AND/OR branch and bound. Variables are numbered by
// their place in the elimination order.
type aoSearch struct {
	order []ir.VarID
	card  []int       // by VarID
	orig  [][]mpeTerm // orig[i]: the tables of i's bucket, relative to order[i]
	cross [][]mpeTerm // cross[c]: the messages leaving c's subproblem, relative to c's parent
	kids  [][]int32
	roots []int32
	off   [][]int32 // off[i][k]: where kids[i][k]'s solution starts in sol[i]
	sol   [][]int32 // sol[i]: the best states of i's subproblem (i, then each child's), as last proved
	a     []int     // the current assignment (reduced states, by VarID), -1 if unassigned

	w, h, ub [][]float64 // per variable: table values, children's bounds (child-major), bounds per state
	ord      [][]int32

	nodes   int
	limit   int
	maxDrop float64 // the attempt gives up when its threshold falls further below the bound
	k       *factor.Kernel
	stop    bool

	// Caching: ctx[i] are the ancestors i's subproblem depends on (its
	// induced neighbours), with strides into cache[i], which holds an upper
	// bound on the subproblem's value in each of their configurations
	// (+Inf: none known), allocated at the first visit; nil where the table
	// would be too large.
	ctx    [][]ir.VarID
	ctxStr [][]int
	cache  [][]uint64 // bounds encoded by cacheCode, so that 0 (fresh memory) is +Inf
	csize  []int      // the entries of cache[i] (0: no cache)
	visits []uint8    // visits before the cache is made, at the second

	// Forward checking (nil dom: off).
	dom   []uint64 // by VarID: the states still possible
	fc    []fcTable
	byVar [][]int32 // by VarID: the tables with the variable
	trail []fcUndo
}

// newAOSearch prepares the search over the mini-bucket elimination b of p
// with the elimination tree parent (by place in the order, -1 for roots).
// It returns nil if the solutions' bookkeeping would exceed maxSol states.
func newAOSearch(p *mpeProblem, b *mbe, parent []int32, nbs [][]ir.VarID, k *factor.Kernel, limit, maxSol int) *aoSearch {
	n := len(b.order)
	s := &aoSearch{order: b.order, card: p.card, orig: make([][]mpeTerm, n), cross: make([][]mpeTerm, n),
		kids: make([][]int32, n), off: make([][]int32, n), sol: make([][]int32, n), a: make([]int, len(p.card)),
		w: make([][]float64, n), h: make([][]float64, n), ub: make([][]float64, n), ord: make([][]int32, n),
		k: k, limit: limit, maxDrop: math.Inf(1)}
	for i := range s.a {
		s.a[i] = -1
	}
	// Subtree sizes (children come before parents in the order).
	size := make([]int, n)
	total := 0
	for i := range n {
		size[i]++
		total += size[i]
		if pa := parent[i]; pa >= 0 {
			size[pa] += size[i]
			s.kids[pa] = append(s.kids[pa], int32(i))
		} else {
			s.roots = append(s.roots, int32(i))
		}
	}
	if total > maxSol {
		return nil
	}
	s.initFC(p)
	s.initCache(p, nbs)
	// Each variable's buffers are slices of a few shared arrays, allocated
	// once (per variable, they were 5 allocations of the 21,600 of a
	// search on pigs).
	nf, ni, nt, nv := 0, 0, 0, 0
	for i, v := range b.order {
		cv := p.card[v]
		nf += cv * (2 + len(s.kids[i]))
		ni += cv + size[i] + len(s.kids[i])
		nt += len(b.orig[i])
		for _, f := range b.orig[i] {
			nv += len(f.vars)
		}
	}
	fbuf, ibuf := make([]float64, nf), make([]int32, ni)
	terms, tvars, tstr := make([]mpeTerm, 0, nt), make([]ir.VarID, 0, nv), make([]int, 0, nv)
	for i, v := range b.order {
		start := len(terms)
		for _, f := range b.orig[i] {
			var t mpeTerm
			t, tvars, tstr = termInto(f, v, tvars, tstr)
			terms = append(terms, t)
		}
		s.orig[i] = terms[start:len(terms):len(terms)]
		cv := p.card[v]
		ik := len(s.kids[i])
		s.sol[i], ibuf = ibuf[:size[i]:size[i]], ibuf[size[i]:]
		s.off[i], ibuf = ibuf[:ik:ik], ibuf[ik:]
		s.ord[i], ibuf = ibuf[:cv:cv], ibuf[cv:]
		o := int32(1)
		for k, c := range s.kids[i] {
			s.off[i][k] = o
			o += int32(size[c])
		}
		s.w[i], fbuf = fbuf[:cv:cv], fbuf[cv:]
		s.ub[i], fbuf = fbuf[:cv:cv], fbuf[cv:]
		s.h[i], fbuf = fbuf[:cv*ik:cv*ik], fbuf[cv*ik:]
	}
	// A message from bucket u to bucket t leaves the subproblems of u and
	// of its ancestors below t (all of them when it is a constant).
	for _, m := range b.msgs {
		for c := int32(m.from); c >= 0 && int(c) != m.to; c = parent[c] {
			pa := parent[c]
			if pa < 0 {
				// A root: what leaves it is a constant.
				s.cross[c] = append(s.cross[c], mpeTerm{vals: []float64{m.c}})
				continue
			}
			if m.f == nil {
				s.cross[c] = append(s.cross[c], mpeTerm{vals: []float64{m.c}})
			} else {
				s.cross[c] = append(s.cross[c], termOf(m.f, b.order[pa]))
			}
		}
	}
	return s
}

// bound returns the bound of i's subproblem at the current assignment for
// state 0 of its parent (for roots: their constant).
func (s *aoSearch) rootBound(i int32) float64 {
	u := 0.0
	for _, t := range s.cross[i] {
		u += t.vals[0]
	}
	return u
}

// eval fills w, h and ub of variable i at the current assignment, and
// orders its states.
func (s *aoSearch) eval(i int32) {
	v := s.order[i]
	cv := s.card[v]
	w, h, ub := s.w[i], s.h[i], s.ub[i]
	clear(w)
	for ti := range s.orig[i] {
		t := &s.orig[i][ti]
		o := t.at(s.a)
		for x := range cv {
			w[x] += t.vals[o+x*t.sv]
		}
	}
	if s.dom != nil {
		for m := ^s.dom[v] & (1<<uint(cv) - 1); m != 0; m &= m - 1 {
			w[bits.TrailingZeros64(m)] = math.Inf(-1)
		}
	}
	copy(ub, w)
	for k, c := range s.kids[i] {
		hk := h[k*cv : (k+1)*cv]
		clear(hk)
		for ti := range s.cross[c] {
			t := &s.cross[c][ti]
			o := t.at(s.a)
			for x := range cv {
				hk[x] += t.vals[o+x*t.sv]
			}
		}
		for x := range cv {
			ub[x] += hk[x]
		}
	}
	ord := s.ord[i]
	for x := range cv {
		j := x
		for j > 0 && ub[ord[j-1]] < ub[x] {
			ord[j] = ord[j-1]
			j--
		}
		ord[j] = int32(x)
	}
}

// solve returns the value of i's subproblem at the current assignment of
// its ancestors and true, if that value exceeds alpha; otherwise false.
// On success sol[i] holds the subproblem's best states.
func (s *aoSearch) solve(i int32, alpha float64) (float64, bool) {
	s.nodes++
	if s.limit > 0 && s.nodes > s.limit || s.nodes&1023 == 0 && s.k.Stop() {
		s.stop = true
	}
	if s.stop {
		return 0, false
	}
	key := -1
	if s.csize[i] > 0 && s.cache[i] == nil && s.visits[i] < 1 {
		s.visits[i]++ // a subproblem met once needs no cache
	} else if s.csize[i] > 0 {
		key = 0
		for j, w := range s.ctx[i] {
			key += s.a[w] * s.ctxStr[i][j]
		}
		c := s.cache[i]
		if c == nil {
			// Second visit: make the table, all +Inf (zeros). Pages of
			// it that no configuration reaches are never touched.
			c = make([]uint64, s.csize[i])
			s.cache[i] = c
		}
		if !(cacheBound(c[key]) > alpha) {
			return 0, false
		}
	}
	s.eval(i)
	v := s.order[i]
	cv := s.card[v]
	w, h, ub := s.w[i], s.h[i], s.ub[i]
	kids := s.kids[i]
	best, found := alpha, false
	// i's buffers stay as they are while its descendants are solved
	// (each variable has its own).
	for _, x := range s.ord[i] {
		ubx := ub[x]
		if !(ubx > best) || found && !(ubx > best+tieTol) {
			break
		}
		s.a[v] = int(x)
		mark := len(s.trail)
		if !s.assign(v) {
			s.unassign(v, mark)
			continue
		}
		val := w[x]
		rest := ubx - val
		ok := true
		for k, c := range kids {
			rest -= h[k*cv+int(x)]
			need := best - val - rest
			if found {
				need += tieTol
			}
			vc, f := s.solve(c, need)
			if !f {
				ok = false
				break
			}
			val += vc
		}
		s.unassign(v, mark)
		if s.stop {
			break
		}
		if ok && (val > best && !found || val > best+tieTol) {
			best, found = val, true
			sol := s.sol[i]
			sol[0] = x
			for k, c := range kids {
				copy(sol[s.off[i][k]:], s.sol[c])
			}
		}
	}
	s.a[v] = -1
	if key >= 0 && !s.stop {
		// Not found: the value is at most alpha; found: it is best (to
		// the ties' tolerance).
		u := best
		if found {
			u += tieTol
		}
		c := s.cache[i]
		c[key] = cacheCode(min(cacheBound(c[key]), u))
	}
	return best, found
}

// greedy assigns i's subproblem along the largest bounds (the first
// dive), writes the states into ga (by VarID) and returns its value.
func (s *aoSearch) greedy(i int32, ga []int) float64 {
	s.eval(i)
	v := s.order[i]
	for _, x := range s.ord[i] {
		val := s.w[i][x]
		if math.IsInf(val, -1) {
			break
		}
		s.a[v], ga[v] = int(x), int(x)
		mark := len(s.trail)
		if !s.assign(v) {
			s.unassign(v, mark)
			continue
		}
		for _, c := range s.kids[i] {
			val += s.greedy(c, ga)
		}
		s.unassign(v, mark)
		s.a[v] = -1
		return val
	}
	s.a[v] = -1
	return math.Inf(-1)
}

// infBits are the bits of +Inf (math.Float64bits(math.Inf(1))), the bound
// of a subproblem with none known; a constant, so that start-up need not
// compute it.
const infBits = 0x7ff0000000000000

// cacheCode encodes a cached bound so that +Inf is 0, and cacheBound
// decodes it: a fresh table need not be filled.
func cacheCode(u float64) uint64  { return math.Float64bits(u) ^ infBits }
func cacheBound(c uint64) float64 { return math.Float64frombits(c ^ infBits) }

// initCache plans the caches of the subproblems with children whose
// context has at most cacheEntries configurations, up to cacheTotal
// entries in all, in the elimination order (deepest subproblems first); a
// leaf's subproblem costs no more to solve than to look up.
func (s *aoSearch) initCache(p *mpeProblem, nbs [][]ir.VarID) {
	n := len(s.order)
	s.ctx = make([][]ir.VarID, n)
	s.ctxStr = make([][]int, n)
	s.cache = make([][]uint64, n)
	s.csize = make([]int, n)
	s.visits = make([]uint8, n)
	total := 0
	for i, v := range s.order {
		ctx := nbs[v]
		size := 1
		for _, w := range ctx {
			size *= p.card[w]
			if size > cacheEntries {
				break
			}
		}
		if size > cacheEntries || total+size > cacheTotal || s.kids[i] == nil {
			continue
		}
		total += size
		str := make([]int, len(ctx))
		m := 1
		for j := len(ctx) - 1; j >= 0; j-- {
			str[j] = m
			m *= p.card[ctx[j]]
		}
		s.ctx[i], s.ctxStr[i], s.csize[i] = ctx, str, size
	}
}

// Forward checking: when a variable is assigned, every table of the
// problem left with one unassigned variable removes from that variable's
// domain the states at which it is 0 given the assignment; a domain left
// empty rejects the assignment at once, rather than when the search
// reaches that variable, perhaps after solving other subproblems first.
// The unassigned variable of such a table is a descendant of the assigned
// one (every scope lies on a path from a root, and only the current
// path is assigned). Domains are bit sets (variables of up to 64 states;
// with more, forward checking is off); a trail restores them.

// fcTable is a table of the problem for forward checking.
type fcTable struct {
	vals  []float64
	vars  []ir.VarID
	str   []int
	unset int // unassigned variables
}

// initFC prepares forward checking over the problem's tables.
func (s *aoSearch) initFC(p *mpeProblem) {
	for _, v := range s.order {
		if p.card[v] > 64 {
			return
		}
	}
	s.dom = make([]uint64, len(p.card))
	for _, v := range s.order {
		s.dom[v] = 1<<uint(p.card[v]) - 1
	}
	s.byVar = make([][]int32, len(p.card))
	for _, f := range p.fs {
		t := fcTable{vals: f.vals, vars: f.vars, str: f.str, unset: len(f.vars)}
		for _, v := range f.vars {
			s.byVar[v] = append(s.byVar[v], int32(len(s.fc)))
		}
		s.fc = append(s.fc, t)
	}
}

// assign records v's assignment (s.a[v] set) in the tables and checks
// them forward; false means a domain became empty (call unassign anyway).
func (s *aoSearch) assign(v ir.VarID) bool {
	if s.dom == nil {
		return true
	}
	for _, ti := range s.byVar[v] {
		s.fc[ti].unset--
	}
	for _, ti := range s.byVar[v] {
		t := &s.fc[ti]
		if t.unset != 1 {
			continue
		}
		o, u, su := 0, ir.VarID(-1), 0
		for j, w := range t.vars {
			if s.a[w] < 0 {
				u, su = w, t.str[j]
			} else {
				o += s.a[w] * t.str[j]
			}
		}
		d := s.dom[u]
		keep := d
		for m := d; m != 0; m &= m - 1 {
			x := bits.TrailingZeros64(m)
			if math.IsInf(t.vals[o+x*su], -1) {
				keep &^= 1 << uint(x)
			}
		}
		if keep != d {
			s.trail = append(s.trail, fcUndo{u, d})
			s.dom[u] = keep
			if keep == 0 {
				return false
			}
		}
	}
	return true
}

// fcUndo is a domain before forward checking changed it.
type fcUndo struct {
	v   ir.VarID
	dom uint64
}

// unassign undoes assign(v), restoring the domains changed since mark.
func (s *aoSearch) unassign(v ir.VarID, mark int) {
	if s.dom == nil {
		return
	}
	for i := len(s.trail) - 1; i >= mark; i-- {
		s.dom[s.trail[i].v] = s.trail[i].dom
	}
	s.trail = s.trail[:mark]
	for _, ti := range s.byVar[v] {
		s.fc[ti].unset++
	}
}

// forest solves every root's subproblem; it reports whether their sum
// with c exceeds alpha, and the sum.
func (s *aoSearch) forest(c, alpha float64) (float64, bool) {
	rest := 0.0
	for _, r := range s.roots {
		rest += s.rootBound(r)
	}
	val := c
	for _, r := range s.roots {
		rest -= s.rootBound(r)
		vr, ok := s.solve(r, alpha-val-rest)
		if !ok {
			return 0, false
		}
		val += vr
	}
	return val, true
}

// run searches in passes of decreasing threshold (see the top of the
// file) and reports false when canceled or over the node limit. c is the
// constant part of the value, bound the root's bound. It returns the
// maximum and writes the maximising states into a (by VarID, reduced
// states).
func (s *aoSearch) run(c, bound float64, a []int) (float64, bool) {
	lb := c
	for _, r := range s.roots {
		lb += s.greedy(r, a)
	}
	if trace := mpeTrace; trace != nil {
		trace("greedy assignment %.12g", lb)
	}
	step := 1e-9 * (1 + math.Abs(bound))
	t := bound - step
	step = max(step, 1e-3)
	for lb < t {
		if bound-t > s.maxDrop {
			return 0, false // the bound is too weak for this attempt
		}
		val, ok := s.forest(c, t)
		if s.stop {
			return 0, false
		}
		if trace := mpeTrace; trace != nil {
			trace("pass with threshold %.12g: %d nodes, found %v", t, s.nodes, ok)
		}
		if ok {
			s.assignment(a)
			return val, true
		}
		t = bound - step
		step *= 4
	}
	// Nothing exceeds t ≤ lb + tieTol unless something exceeds lb.
	if bound-lb > s.maxDrop {
		return 0, false
	}
	val, ok := s.forest(c, lb+tieTol)
	if s.stop {
		return 0, false
	}
	if trace := mpeTrace; trace != nil {
		trace("last pass above the greedy assignment: %d nodes, found %v", s.nodes, ok)
	}
	if ok {
		s.assignment(a)
		return val, true
	}
	return lb, true // the greedy assignment, in a already
}

// assignment writes the states of the last proved solution into a (by
// VarID, reduced states).
func (s *aoSearch) assignment(a []int) {
	var walk func(i int32, sol []int32)
	walk = func(i int32, sol []int32) {
		a[s.order[i]] = int(sol[0])
		for k, c := range s.kids[i] {
			walk(c, sol[s.off[i][k]:])
		}
	}
	for _, r := range s.roots {
		walk(r, s.sol[r])
	}
}

// mpeTrace, if not nil, receives a line about each phase of the search
// (tests and benchmarks set it).
var mpeTrace func(format string, args ...any)

// Work budgets of the search, in table entries (the estimated cost that
// chooses): mini-bucket elimination is exact (max-product elimination,
// no search) when the exact buckets' tables add up to at most 2^16
// entries; up to boundWork, the small attempt below comes first, then
// exact elimination. Otherwise the search starts with the largest i-bound (a power
// of 4) whose groups' tables add up to at most boundWork, with a node
// budget of a quarter of those entries (at least minNodes); if that runs
// out, it tries 4 times the i-bound, and so on while the tables add up to
// at most maxWork (or until the bound is exact), the last with
// searchNodes. Before those, an attempt with i-bound smallIBound, at most
// smallNodes nodes and thresholds at most smallDrop below its bound: cheap
// nodes often suffice where zeros make the bound tight (pedigrees: pigs,
// link), and a bound that far above the maximum gives up at once
// (munin). When the last gives up, the caller falls back on
// max-product elimination (the junction tree or VE).
const (
	boundWork   = 1 << 22
	maxWork     = 1 << 24
	searchNodes = 1 << 22
	minIBound   = 1 << 4
	minNodes    = 1 << 12
	smallIBound = 1 << 8
	smallNodes  = 1 << 17
	smallDrop   = 8 // nats below its bound the small attempt searches
	// The solutions' bookkeeping holds a state per variable per ancestor
	// (inclusive): the search gives up on deeper pseudo-trees.
	maxSolStates = 1 << 24
	// The bounds cached per subproblem and in all.
	cacheEntries = 1 << 16
	cacheTotal   = 1 << 22
)

// searchMPE returns the MPE of m given the evidence obs (indexed by VarID,
// -1 if unobserved): the states of the unobserved discrete variables
// (indexed by VarID, -1 elsewhere) and P(x, e). ok is false when the
// search gave up (over its node budget) or found no assignment of
// positive probability; the caller then answers otherwise.
func searchMPE(m *ir.Model, obs, card []int, k *factor.Kernel, pos ir.Pos) (best []int, mx factor.Scaled, ok bool, err error) {
	return searchMPEWith(m, obs, card, k, pos, searchOverride)
}

// searchOverride replaces the budgets of the searches Answer runs (tests
// set it to make the search give up).
var searchOverride searchConfig

// searchConfig overrides the search's budgets (tests): the i-bound (0:
// chosen by the work budgets) and the node limit (0: searchNodes).
type searchConfig struct {
	ibound float64
	nodes  int
}

func searchMPEWith(m *ir.Model, obs, card []int, k *factor.Kernel, pos ir.Pos, cfg searchConfig) (best []int, mx factor.Scaled, ok bool, err error) {
	p, ok := reduceMPE(m, obs, card, k)
	if k.Poll() {
		return nil, mx, false, canceled(pos)
	}
	if !ok {
		return nil, mx, false, nil
	}
	ra, _, ok, err := solveMax(p, k, pos, cfg)
	if !ok || err != nil {
		return nil, mx, false, err
	}
	best = assignmentOf(m, p, obs, card, ra)
	return best, jointAt(m, obs, card, best), true, nil
}

// solveMax maximises the sum of p's tables over p's variables: the
// maximising states (reduced, by VarID; -1 elsewhere) and the maximum. ok
// is false when the search gave up or found no assignment of positive
// probability.
func solveMax(p *mpeProblem, k *factor.Kernel, pos ir.Pos, cfg searchConfig) (ra []int, lnmax float64, ok bool, err error) {
	card := p.card
	sc := make([][]ir.VarID, len(p.fs))
	for i, f := range p.fs {
		sc[i] = f.vars
	}
	// The order, and each variable's neighbours when eliminated (its
	// parent in the pseudo-tree is the first eliminated of them).
	nbs := make([][]ir.VarID, len(card))
	order := elimOrder(MinFill, p.card, sc, func(v ir.VarID, nb []ir.VarID, _ float64) bool {
		nbs[v] = append([]ir.VarID(nil), nb...)
		return true
	}, p.vars)
	place := make([]int, len(card))
	for i, v := range order {
		place[v] = i
	}
	parent := make([]int32, len(order))
	for i, v := range order {
		parent[i] = -1
		for _, w := range nbs[v] {
			if j := int32(place[w]); parent[i] < 0 || j < parent[i] {
				parent[i] = j
			}
		}
	}
	// The i-bounds to try: exact elimination if it is cheap; otherwise
	// growing bounds, each searched with a node budget in proportion to
	// its elimination's work, the last with the full budget.
	type attempt struct {
		ib    float64
		nodes int
	}
	var tries []attempt
	type planned struct {
		w     float64
		exact bool
	}
	plans := map[float64]planned{}
	plan := func(ib float64) (float64, bool) {
		if pl, ok := plans[ib]; ok {
			return pl.w, pl.exact
		}
		w, exact := mbPlan(order, p.card, sc, ib)
		plans[ib] = planned{w, exact}
		return w, exact
	}
	w, _ := plan(math.Inf(1))
	if trace := mpeTrace; trace != nil {
		trace("exact elimination: %g entries", w)
	}
	switch {
	case cfg.ibound > 0:
		tries = []attempt{{cfg.ibound, searchNodes}}
	case w <= 1<<16:
		tries = []attempt{{math.Inf(1), searchNodes}}
	case w <= boundWork:
		tries = []attempt{{smallIBound, smallNodes}, {math.Inf(1), searchNodes}}
	default:
		// A small i-bound with a small budget first: cheap nodes, and
		// on networks with much determinism (pedigrees) often enough.
		// Then the largest power of 4 whose groups' tables fit
		// boundWork, then larger ones up to maxWork or exactness.
		tries = append(tries, attempt{smallIBound, smallNodes})
		ib := float64(minIBound)
		for ib*4 <= boundWork {
			if wi, _ := plan(ib * 4); wi > boundWork {
				break
			}
			ib *= 4
		}
		for ; ; ib *= 4 {
			wi, exact := plan(ib)
			if wi > maxWork && len(tries) > 0 {
				break
			}
			tries = append(tries, attempt{ib, max(minNodes, int(wi/4))})
			if exact {
				break
			}
		}
		tries[len(tries)-1].nodes = searchNodes
	}
	if cfg.nodes > 0 {
		tries[len(tries)-1].nodes = cfg.nodes
	}
	var s *aoSearch
	var b *mbe
	for _, try := range tries {
		var done bool
		b, done = runMBE(p, order, try.ib, k)
		if !done {
			return nil, 0, false, canceled(pos)
		}
		if trace := mpeTrace; trace != nil {
			trace("%d variables to search (%d fixed by zeros); i-bound %g, exact %v; bound %.12g", len(p.vars), countFixed(p), try.ib, b.exact, b.bound)
		}
		s = newAOSearch(p, b, parent, nbs, k, try.nodes, maxSolStates)
		if s == nil {
			return nil, 0, false, nil
		}
		if try.ib == smallIBound && len(tries) > 1 {
			s.maxDrop = smallDrop
		}
		ra = make([]int, len(card))
		for i := range ra {
			ra[i] = -1
		}
		var ran bool
		lnmax, ran = s.run(p.konst, b.bound, ra)
		if trace := mpeTrace; trace != nil {
			trace("search: %d nodes, maximum %.12g, done %v", s.nodes, lnmax, ran)
		}
		if !ran {
			if k.Poll() {
				return nil, 0, false, canceled(pos)
			}
			continue
		}
		if math.IsInf(lnmax, -1) {
			return nil, 0, false, nil
		}
		return ra, lnmax, true, nil
	}
	return nil, 0, false, nil
}

// assignmentOf returns the model's states of the search's assignment ra
// (reduced states, by VarID), with the variables fixed by the zeros, and
// -1 for the observed and real ones.
func assignmentOf(m *ir.Model, p *mpeProblem, obs, card, ra []int) []int {
	best := make([]int, len(card))
	for v := range best {
		switch {
		case obs[v] >= 0 || card[v] == 0:
			best[v] = -1
		case p.fixed[v] >= 0:
			best[v] = p.fixed[v]
		case ra[v] >= 0:
			best[v] = int(p.live[v][ra[v]])
		default:
			best[v] = int(p.live[v][0]) // in no table
		}
	}
	return best
}

// jointAt returns Π φ(x) at the assignment of the observed states obs and
// the states best of the others, exactly (a mantissa and an exponent).
func jointAt(m *ir.Model, obs, card, best []int) factor.Scaled {
	x := factor.Scaled{M: 0.5, E: 1}
	at := func(f *ir.Factor) {
		o := 0
		for i, v := range f.Vars {
			s := obs[v]
			if s < 0 {
				s = best[v]
			}
			o += s * f.Stride[i]
		}
		x = x.MulFloat(f.Vals[o])
	}
	for v := range m.Vars {
		if f := m.Factor(ir.VarID(v)); f != nil && card[v] > 0 {
			at(f)
		}
	}
	for _, f := range m.Potentials {
		at(f)
	}
	return x
}

func countFixed(p *mpeProblem) int {
	n := 0
	for _, s := range p.fixed {
		if s >= 0 {
			n++
		}
	}
	return n
}
