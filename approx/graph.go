package approx

import (
	"errors"
	"math"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// This file is the message passing that LBP and IJGP share: belief
// propagation on a cluster graph, whose clusters hold potentials over
// sets of variables and whose edges are labelled by separators (for LBP
// the factor graph: a cluster per factor and per variable, separators of
// one variable; for IJGP the join graph of mini-buckets).
//
// Every table is a flat row-major []float64 (package factor's layout). A
// message is one pass over the cluster's table, row by row (a row: the
// last variable's states, contiguous), with the offset of the row in each
// separator's table kept up to date as in package factor's kernels: for
// each edge of a cluster, the stride in the separator's table of each of
// the cluster's variables (0 for one not in the separator). Memory is the
// tables themselves, 8 bytes an entry, and the messages. Messages are normalised to sum 1 after each update, so
// that nothing underflows however many messages a cluster multiplies
// (their largest entries are at least 1/|separator|), and potentials are
// scaled to a largest entry of 1, their log scales kept in logScale.

// clusterGraph is a cluster graph ready for propagation. Clusters are
// numbered in schedule order: a sweep sends, cluster by cluster, the
// messages toward higher-numbered neighbours, then, backwards, toward
// lower-numbered ones; when the graph is a tree numbered so that each
// cluster has at most one higher-numbered neighbour, one sweep is exact
// (on other trees, a few).
type clusterGraph struct {
	card   []int          // the problem's cardinalities
	vars   [][]factor.Var // scope of each cluster
	stride [][]int        // stride of each cluster's variables
	psi    [][]float64    // potential of each cluster, largest entry 1
	// Edge e joins ea[e] and eb[e]; message 2e goes from ea[e] to
	// eb[e], message 2e+1 back.
	ea, eb []int
	sep    [][]factor.Var
	msg    [][]float64 // current messages, each summing to 1
	// For cluster c and its k-th edge: the message into c (in[c][k]),
	// the message out of c (out[c][k]), the neighbour (nb[c][k]) and the
	// strides in the separator's table of c's variables (sstr[c][k]).
	in, out, nb [][]int
	sstr        [][][]int
	ccard       [][]int // cardinalities of each cluster's variables
	it          cgRowIter
	logScale    float64   // ln of the constant taken off the potentials
	tree        bool      // the graph is a forest: propagation is exact
	maxChange   float64   // largest message change of the last sweep
	scratch     []float64 // a message or a belief
	bbuf        []float64 // a belief, during a sweep
}

// cgCluster is a cluster's scope and potential as a builder hands it to
// newClusterGraph (pot nil for a potential of 1), and cgEdge an edge.
type cgCluster struct {
	vars []factor.Var
	pot  []*factor.Factor // factors over subsets of vars, multiplied in
}

type cgEdge struct {
	a, b int
	sep  []factor.Var
}

// cgSize returns the number of entries of a table over vars, or -1 beyond
// limit.
func cgSize(card []int, vars []factor.Var, limit int) int {
	n := 1
	for _, v := range vars {
		c := card[v]
		if n > limit/c {
			return -1
		}
		n *= c
	}
	return n
}

// cgBytes estimates the memory of a cluster graph: each cluster's table
// (8 bytes an entry) and the messages (two of 8 bytes an entry of each
// separator); -1 beyond limit.
func cgBytes(card []int, cl []cgCluster, ed []cgEdge, limit int64) int64 {
	var total int64
	for _, e := range ed {
		n := cgSize(card, e.sep, math.MaxInt32)
		if n < 0 {
			return -1
		}
		total += 16 * int64(n)
	}
	for _, x := range cl {
		n := cgSize(card, x.vars, math.MaxInt32)
		if n < 0 {
			return -1
		}
		total += int64(n) * 8
		if total > limit {
			return -1
		}
	}
	return total
}

// newClusterGraph builds the graph of the clusters cl and edges ed (whose
// separators must be non-empty subsets of both ends' scopes). The
// potentials are scaled copies; the inputs are not modified. It returns
// ErrImpossible when a cluster's potential is zero everywhere.
//
// It polls st (nil for never) between clusters and returns errPropStopped
// when told to stop.
func newClusterGraph(card []int, cl []cgCluster, ed []cgEdge, st *propStopper) (*clusterGraph, error) {
	g := &clusterGraph{card: card}
	n := len(cl)
	// The kernels poll a channel: one closed at st's deadline or
	// cancellation, for the products of a large cluster's factors.
	var k *factor.Kernel
	if st != nil && (st.cancel != nil || !st.deadline.IsZero()) {
		ch, done := make(chan struct{}), make(chan struct{})
		defer close(done)
		go func() {
			var tc <-chan time.Time
			if !st.deadline.IsZero() {
				t := time.NewTimer(time.Until(st.deadline))
				defer t.Stop()
				tc = t.C
			}
			select {
			case <-st.cancel:
			case <-tc:
			case <-done:
				return
			}
			close(ch)
		}()
		k = factor.NewKernel(ch)
	}
	g.vars = make([][]factor.Var, n)
	g.stride = make([][]int, n)
	g.psi = make([][]float64, n)
	g.in = make([][]int, n)
	g.out = make([][]int, n)
	g.nb = make([][]int, n)
	g.sstr = make([][][]int, n)
	g.ccard = make([][]int, n)
	maxVars := 1
	maxSize := 1
	for c, x := range cl {
		if st != nil && st.stop() {
			return nil, errPropStopped
		}
		f := factor.New(x.vars, cgCards(card, x.vars))
		for i := range f.Vals {
			f.Vals[i] = 1
		}
		if len(x.pot) > 0 {
			g.logScale += float64(factor.MultiplyInto(k, f, x.pot)) * math.Ln2
			if k.Poll() {
				st.stopped = true
				return nil, errPropStopped
			}
		}
		mx := 0.0
		for _, y := range f.Vals {
			mx = max(mx, y)
		}
		if mx == 0 {
			return nil, ErrImpossible
		}
		for i := range f.Vals {
			f.Vals[i] /= mx
		}
		g.logScale += math.Log(mx)
		g.vars[c], g.stride[c], g.psi[c], g.ccard[c] = f.Vars, f.Stride, f.Vals, f.Card
		maxVars = max(maxVars, len(f.Vars))
		maxSize = max(maxSize, len(f.Vals))
	}
	g.ea = make([]int, len(ed))
	g.eb = make([]int, len(ed))
	g.sep = make([][]factor.Var, len(ed))
	g.msg = make([][]float64, 2*len(ed))
	for e, x := range ed {
		g.ea[e], g.eb[e], g.sep[e] = x.a, x.b, x.sep
		m := cgSize(card, x.sep, math.MaxInt32)
		pool := make([]float64, 2*m)
		for i := range pool {
			pool[i] = 1 / float64(m)
		}
		g.msg[2*e], g.msg[2*e+1] = pool[:m:m], pool[m:]
		for _, end := range [2]int{x.a, x.b} {
			into, from, other := 2*e+1, 2*e, x.b
			if end == x.b {
				into, from, other = 2*e, 2*e+1, x.a
			}
			g.in[end] = append(g.in[end], into)
			g.out[end] = append(g.out[end], from)
			g.nb[end] = append(g.nb[end], other)
			g.sstr[end] = append(g.sstr[end], g.sepStrides(end, x.sep))
		}
		if st != nil && e%64 == 0 && st.stop() {
			return nil, errPropStopped
		}
	}
	g.scratch = make([]float64, maxSize)
	g.bbuf = make([]float64, maxSize)
	maxDeg := 0
	for _, in := range g.in {
		maxDeg = max(maxDeg, len(in))
	}
	g.it = cgRowIter{cnt: make([]int, maxVars), off: make([]int, maxDeg)}
	g.tree = cgForest(n, ed)
	return g, nil
}

func cgCards(card []int, vars []factor.Var) []int {
	cs := make([]int, len(vars))
	for i, v := range vars {
		cs[i] = card[v]
	}
	return cs
}

// sepStrides returns the stride in a table over sep (row-major) of each
// of cluster c's variables, 0 for those not in sep.
func (g *clusterGraph) sepStrides(c int, sep []factor.Var) []int {
	ss := make([]int, len(g.vars[c]))
	s := 1
	for i := len(sep) - 1; i >= 0; i-- {
		ss[factor.IndexOf(g.vars[c], sep[i])] = s
		s *= g.card[sep[i]]
	}
	return ss
}

// cgRowIter walks a cluster's table row by row (a row: the states of its
// last variable), keeping in off[k] the offset of the row's first entry
// in the table of the cluster's k-th separator.
type cgRowIter struct {
	card []int
	str  [][]int
	cnt  []int
	off  []int
	n    int
}

// start sets it at the first row of cluster c and returns the row's
// length.
func (g *clusterGraph) start(c int) (*cgRowIter, int) {
	it := &g.it
	it.card, it.str, it.n = g.ccard[c], g.sstr[c], len(g.ccard[c])
	it.cnt = it.cnt[:cap(it.cnt)][:it.n]
	it.off = it.off[:cap(it.off)][:len(it.str)]
	clear(it.cnt)
	clear(it.off)
	return it, it.card[it.n-1]
}

// next moves it to the next row and reports whether there is one.
func (it *cgRowIter) next() bool {
	for d := it.n - 2; d >= 0; d-- {
		it.cnt[d]++
		if it.cnt[d] < it.card[d] {
			for k, s := range it.str {
				it.off[k] += s[d]
			}
			return true
		}
		it.cnt[d] = 0
		for k, s := range it.str {
			it.off[k] -= (it.card[d] - 1) * s[d]
		}
	}
	return false
}

// cgForest reports whether the graph of n nodes and edges ed has no cycle.
func cgForest(n int, ed []cgEdge) bool {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range ed {
		a, b := find(e.a), find(e.b)
		if a == b {
			return false
		}
		parent[a] = b
	}
	return true
}

// errPropStopped is newClusterGraph's error when its propStopper stops it.
var errPropStopped = errors.New("approx: stopped")

// propStopper polls a deadline and a cancellation channel.
type propStopper struct {
	deadline time.Time
	cancel   <-chan struct{}
	stopped  bool
}

func newPropStopper(s Settings) *propStopper {
	return &propStopper{deadline: s.Deadline, cancel: s.Cancel}
}

// stop reports whether the computation must stop (and remembers it).
func (st *propStopper) stop() bool {
	if st.stopped {
		return true
	}
	if st.cancel != nil {
		select {
		case <-st.cancel:
			st.stopped = true
			return true
		default:
		}
	}
	if !st.deadline.IsZero() && !time.Now().Before(st.deadline) {
		st.stopped = true
	}
	return st.stopped
}

// update recomputes the k-th message out of cluster c, damped by d (the
// weight of the old message), and returns the largest change of an entry.
// It returns ErrImpossible when the undamped message is zero everywhere:
// propagation of zeros is sound (it removes only states without support),
// so the evidence is then impossible.
func (g *clusterGraph) update(c, k int, d float64) (float64, error) {
	dst := g.msg[g.out[c][k]]
	tmp := g.scratch[:len(dst)]
	g.direct(c, k, tmp)
	return propCommit(dst, tmp, d)
}

// direct writes into tmp the k-th message out of cluster c, unnormalised:
// c's potential times its incoming messages but the k-th, summed onto the
// separator. Cost: one pass over c's table, deg(c) products an entry.
func (g *clusterGraph) direct(c, k int, tmp []float64) {
	clear(tmp)
	psi, in := g.psi[c], g.in[c]
	it, L := g.start(c)
	last := it.n - 1
	sk := it.str[k][last]
	for i := 0; ; i += L {
		row, to := psi[i:i+L], it.off[k]
		for t, p := range row {
			if p == 0 {
				continue
			}
			for j, e := range in {
				if j != k {
					p *= g.msg[e][it.off[j]+t*it.str[j][last]]
				}
			}
			tmp[to+t*sk] += p
		}
		if !it.next() {
			return
		}
	}
}

// fromBelief writes into tmp the k-th message out of cluster c from c's
// unnormalised belief bel (its potential times all its incoming
// messages): bel summed onto the separator, divided by the message that
// came in along the same edge. It reports false, leaving tmp undefined,
// when that message has an entry too small to divide by (0 included).
func (g *clusterGraph) fromBelief(c, k int, bel, tmp []float64) bool {
	in := g.msg[g.in[c][k]]
	for _, x := range in {
		if !(x >= 1e-200) {
			return false
		}
	}
	clear(tmp)
	it, L := g.start(c)
	sk := it.str[k][it.n-1]
	for i := 0; ; i += L {
		to := it.off[k]
		for t, b := range bel[i : i+L] {
			tmp[to+t*sk] += b
		}
		if !it.next() {
			break
		}
	}
	for s, x := range in {
		tmp[s] /= x
	}
	return true
}

// propCommit normalises the new message tmp and mixes it into dst with weight
// d for the old one, returning the largest change of an entry.
func propCommit(dst, tmp []float64, d float64) (float64, error) {
	sum := 0.0
	for _, x := range tmp {
		sum += x
	}
	if !(sum > 0) {
		return 0, ErrImpossible
	}
	change := 0.0
	for i, x := range tmp {
		y := (1-d)*x/sum + d*dst[i]
		change = max(change, math.Abs(y-dst[i]))
		dst[i] = y
	}
	if d > 0 {
		// Renormalise against drift.
		t := 0.0
		for _, y := range dst {
			t += y
		}
		for i := range dst {
			dst[i] /= t
		}
	}
	return change, nil
}

// sweep runs one forward and one backward pass of messages, damped by d,
// and records the largest change. It polls st between clusters and
// returns with stopped set when told to stop.
func (g *clusterGraph) sweep(d float64, st *propStopper) (stopped bool, err error) {
	g.maxChange = 0
	work := 0
	n := len(g.vars)
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < n; j++ {
			c := j
			if pass == 1 {
				c = n - 1 - j
			}
			// With three edges or more and two messages to send, the
			// messages come from c's belief, computed once: one
			// product an entry and edge instead of one per pair.
			targets := 0
			for _, o := range g.nb[c] {
				if (pass == 0) == (o > c) {
					targets++
				}
			}
			var bel []float64
			if targets >= 2 && len(g.in[c]) >= 3 {
				bel = g.bbuf[:len(g.psi[c])]
				g.unnormBelief(c, bel)
			}
			for k, o := range g.nb[c] {
				if (pass == 0) != (o > c) {
					continue
				}
				dst := g.msg[g.out[c][k]]
				tmp := g.scratch[:len(dst)]
				if bel == nil || !g.fromBelief(c, k, bel, tmp) {
					g.direct(c, k, tmp)
				}
				ch, err := propCommit(dst, tmp, d)
				if err != nil {
					return false, err
				}
				g.maxChange = max(g.maxChange, ch)
				work += len(g.psi[c]) * len(g.in[c])
			}
			if work >= 1<<15 {
				work = 0
				if st.stop() {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// propagate runs sweeps until the largest message change is at most tol,
// maxIter sweeps, or st stops it; on a forest it runs undamped sweeps
// until no message changes, which is exact. It returns the sweeps done and whether they converged.
func (g *clusterGraph) propagate(d, tol float64, maxIter int, st *propStopper) (iter int, converged bool, err error) {
	if g.tree {
		// Undamped messages on a tree reach their fixed point, exactly,
		// after as many sweeps as the tree is deep (one when each
		// cluster has a single higher-numbered neighbour); a further
		// sweep that changes nothing confirms it.
		d, tol, maxIter = 0, 0, len(g.vars)+1
	}
	for iter < maxIter {
		if st.stop() {
			return iter, false, nil
		}
		stopped, err := g.sweep(d, st)
		if err != nil {
			return iter, false, err
		}
		if stopped {
			return iter, false, nil
		}
		iter++
		if g.maxChange <= tol {
			return iter, true, nil
		}
	}
	return iter, false, nil
}

// unnormBelief writes into dst cluster c's potential times all its
// incoming messages.
func (g *clusterGraph) unnormBelief(c int, dst []float64) {
	psi, in := g.psi[c], g.in[c]
	it, L := g.start(c)
	last := it.n - 1
	for i := 0; ; i += L {
		for t, p := range psi[i : i+L] {
			if p != 0 {
				for j, e := range in {
					p *= g.msg[e][it.off[j]+t*it.str[j][last]]
				}
			}
			dst[i+t] = p
		}
		if !it.next() {
			return
		}
	}
}

// belief writes into dst (len of c's table) cluster c's normalised belief,
// its potential times all its incoming messages, and returns the sum
// before normalisation.
func (g *clusterGraph) belief(c int, dst []float64) float64 {
	g.unnormBelief(c, dst)
	sum := 0.0
	for _, p := range dst {
		sum += p
	}
	if sum > 0 {
		for i := range dst {
			dst[i] /= sum
		}
	}
	return sum
}

// marginal writes into dst the marginal of v (which must be in cluster
// c's scope) from c's belief bel.
func (g *clusterGraph) marginal(c int, v factor.Var, bel, dst []float64) {
	p := factor.IndexOf(g.vars[c], v)
	st, cv := g.stride[c][p], g.card[v]
	clear(dst)
	for i, b := range bel {
		dst[(i/st)%cv] += b
	}
}

// logZ returns the Bethe (region-based) estimate of ln Z at the current
// messages: Σ_c ln Σ ψ_c·Π m_in − Σ_e ln Σ m_ab·m_ba, plus the scale taken
// off the potentials; at a fixed point it is the Bethe free energy of the
// cluster graph (counting numbers 1 for clusters, −1 for separators), and
// on a tree it is exact. -Inf when a cluster's belief is zero.
func (g *clusterGraph) logZ() float64 {
	z := g.logScale
	for c := range g.vars {
		s := g.belief(c, g.beliefBuf(c))
		if !(s > 0) {
			return math.Inf(-1)
		}
		z += math.Log(s)
	}
	for e := range g.ea {
		a, b := g.msg[2*e], g.msg[2*e+1]
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		if !(s > 0) {
			return math.Inf(-1)
		}
		z -= math.Log(s)
	}
	return z
}

func (g *clusterGraph) beliefBuf(c int) []float64 { return g.scratch[:len(g.psi[c])] }
