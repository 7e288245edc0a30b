package approx

import (
	"math"
	"slices"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// This file is weighted mini-bucket elimination (Liu and Ihler, "Bounding
// the partition function using Hölder's inequality", ICML 2011): bounds on
// ln Z, and marginals from its forward–backward message passing.
//
// # Buckets and mini-buckets
//
// Along a min-fill order (order.go) each table (the problem's factors
// restricted to the evidence, in logarithms) goes to the bucket of its
// first-eliminated variable X. Exact elimination would sum X out of the
// product of the bucket's tables, a table over all their other variables;
// mini-buckets split the bucket into groups (first fit, largest scopes
// first) whose joint scope has at most i variables (the i-bound), and
// eliminate X from each group apart. Each group's message goes to the
// mini-bucket, in the bucket of its first-eliminated variable, that it was
// placed in: the mini-buckets form a forest.
//
// # Weights and the bound
//
// Hölder's inequality gives, for weights w_r > 0 with Σ w_r = 1,
//
//	Σ_X Π_r g_r  ≤  Π_r ( Σ_X g_r^{1/w_r} )^{w_r},
//
// so eliminating X from group r by the power sum (Σ_X g_r^{1/w_r})^{w_r}
// (ltPowerSum) gives an upper bound on Z at the roots. The reverse Hölder
// inequality gives a lower bound when one weight is positive (w₁ ≥ 1) and
// the others negative, again with Σ w_r = 1. WMB runs the upper bound with
// weights that start uniform and move along the gradient of the bound
// (each group's conditional entropy of X against their weighted average,
// as Liu and Ihler's weight update), and the lower bound with the largest
// group's weight 1 + (R−1)δ and −δ for the R−1 others, for a few δ
// (δ → 0 is the minimum over X: Dechter and Rish's lower bound), keeping
// the largest. A group whose tables are 0 somewhere makes a negative
// weight's power sum 0 there, so on networks with zeros the lower bound
// may be 0 (ln Z ≥ −Inf): valid, but empty.
//
// # Moment matching
//
// Before a bucket of several groups sends its messages, each group's
// table is shifted by a function of the variables the groups share (X
// among them) so that the groups' weighted beliefs agree on those
// variables: with b_r ∝ (θ_r · messages)^{1/w_r} and δ_r its log
// marginal on the shared variables, θ_r gains w_r·(δ̄ − δ_r), δ̄ = Σ w_r δ_r.
// The shifts' sum is 0, so the product of all tables, and Z, is unchanged:
// every bound stays valid, and it is usually tighter. Forward passes
// (bounds) alternate with backward passes (messages from the roots back
// down, which the next forward pass's matching uses) while time remains
// and the upper bound improves.
//
// # Marginals
//
// The backward pass gives each mini-bucket a belief b_r ∝ (θ_r · forward
// messages from its children · backward message from its parent)^{1/w_r};
// a variable's marginal is the weighted average, over the mini-buckets of
// its bucket, of their beliefs' marginals on it. With a single group per
// bucket (the i-bound reaches the order's induced width plus one) the
// weights are 1, the passes are exact elimination and the junction tree's
// two passes, and the bounds meet: the answer is exact (Err 0, LogZLo =
// LogZHi). Otherwise each marginal's Err is a residual, not a bound: the
// largest disagreement between the bucket's groups' beliefs plus the
// change since the previous backward pass.
//
// # i-bound, memory and time
//
// Settings.IBound fixes i (lowered, if need be, until the tables fit the
// memory bound); otherwise i is the largest for which the mini-buckets'
// tables and messages fit Settings.MaxMemory (default DefaultWMBMemory). With a Deadline, WMB is anytime: it first runs a
// small i-bound, measures its speed, then runs the largest i-bound whose
// estimated time fits what remains, then larger ones while time remains,
// keeping the tightest bounds of all runs (each is valid). The order's
// induced width plus one is the largest i-bound that means anything.

// DefaultWMBMemory is the memory WMB's tables may take when
// Settings.MaxMemory is 0: 256 MiB.
const DefaultWMBMemory = 256 << 20

// wmbIterations is the most forward passes of one run when Settings.MaxIter
// is 0; a run also stops when the upper bound improves by less than the
// tolerance.
const wmbIterations = 20

// WMB bounds ln Z by weighted mini-bucket elimination, estimates it by
// importance sampling from the tightest bound's proposal (wmbis.go), and
// estimates the marginals from its beliefs (see the file's comment).
// Result.LogZHi is an upper bound on ln Z, Result.LogZLo a lower bound
// (−Inf when the network's zeros empty it). LogZ is the sampling's
// estimate and LogZErr its ~95 % half-width where that is below half the
// gap (it clipped into the bounds); otherwise the bounds' midpoint and half
// the gap (LogZ the upper bound and LogZErr +Inf when the lower bound is
// −Inf). Engine is "wmb", IBound the i-bound of the tightest upper bound,
// Iterations the forward passes of that run; Converged reports that the
// bound stopped improving (or is exact). When the upper bound is 0 the
// evidence is impossible: WMB returns the result (LogZ −Inf, Marg nil)
// with ErrImpossible. Stopped before any bound, it returns ErrNoAnswer.
//
// Time: without a Deadline the bounds run to their end and Settings.Samples
// samples are drawn (wmbSamples when 0); with one, when no exact run fits
// the memory, the bounds have the first half of the time and the sampling
// the rest (Samples, if set, stops it sooner).
//
// WMB runs on one goroutine (Settings.Workers is not used); its samples
// come from one stream seeded by Settings.Seed. The same problem and
// settings give the same numbers, except with a Deadline, where the
// i-bounds reached and the samples drawn, and so the numbers, depend on
// the machine's speed (fix Settings.IBound and Samples for reproducible
// numbers).
func WMB(p *Problem, s Settings) (*Result, error) {
	w := newWMB(p, s)
	if w.impossible {
		return w.impossibleResult(), ErrImpossible
	}
	if w.stop() {
		return nil, ErrNoAnswer
	}
	mem := s.MaxMemory
	if mem <= 0 {
		mem = DefaultWMBMemory
	}
	full := w.width + 1
	lo := max(w.arity, 1)
	// The largest i-bound that fits memory (a larger one than full is the
	// same plan).
	// Plans grow with the i-bound (not strictly: the partition is
	// greedy), so the scan stops at the first that does not fit.
	fits := func(i int) bool { return i <= full && w.plan(i).bytes <= mem }
	largest := func() int {
		fit := lo
		for i := lo + 1; fits(i); i++ {
			fit = i
		}
		return fit
	}
	maxIter := s.MaxIter
	if maxIter <= 0 {
		maxIter = wmbIterations
	}
	deadline := s.Deadline
	if !deadline.IsZero() && !fits(full) {
		// No exact run fits the memory: the bounds have half the time,
		// the importance sampling (wmbis.go) the rest.
		w.s.Deadline = time.Now().Add(time.Until(deadline) / 2)
	}
	var best *wmbRun
	keep := func(r *wmbRun) {
		if r == nil {
			return
		}
		if best == nil {
			best = r
			return
		}
		if r.exact || r.hi < best.hi {
			r.lo = max(r.lo, best.lo)
			best = r
		} else {
			best.lo = max(best.lo, r.lo)
		}
	}
	switch {
	case s.IBound > 0:
		// The memory bound holds whatever the i-bound asked for.
		i := min(s.IBound, full)
		if !fits(i) {
			i = min(i, largest())
		}
		keep(w.run(w.plan(i), maxIter))
	case s.Deadline.IsZero():
		keep(w.run(w.plan(largest()), maxIter))
	default:
		// Anytime: a small run measures the speed, then the largest
		// i-bound whose estimated time fits, then larger ones, the speed
		// measured again on each run.
		i := lo
		if fits(2) {
			i = max(lo, 2)
		}
		// The first run only measures (two iterations); each later one
		// may be the last.
		iters := min(2, maxIter)
		for {
			start := time.Now()
			r := w.run(w.plan(i), iters)
			iters = maxIter
			keep(r)
			if r == nil || best.exact || w.stop() {
				break
			}
			rate := r.work() / max(time.Since(start).Seconds(), 1e-6) // units of work a second
			left := time.Until(w.s.Deadline).Seconds()
			next := i
			// Two iterations and the lower bound's passes at the
			// measured speed, with room to spare.
			for j := i + 1; fits(j) && float64(w.plan(j).entries)*(2+float64(len(lowerDeltas))/2)/rate < 0.85*left; j++ {
				next = j
			}
			if next == i {
				break
			}
			i = next
		}
	}
	if best == nil {
		return nil, ErrNoAnswer
	}
	if math.IsInf(best.hi, -1) {
		return w.impossibleResult(), ErrImpossible
	}
	var est wmbEstimate
	sampled := false
	if !best.exact {
		if w.s.Deadline != deadline {
			// The bounds' half is over, not the time (stop checks
			// Cancel again).
			w.s.Deadline, w.stopped = deadline, false
		}
		n := s.Samples
		if n == 0 && deadline.IsZero() {
			n = wmbSamples
		}
		est, sampled = best.sample(n, s.Seed)
	}
	res := w.result(best)
	if sampled && est.err < res.LogZErr {
		res.LogZ, res.LogZErr = min(max(est.logZ, res.LogZLo), res.LogZHi), est.err
	}
	return res, nil
}

// wmbProblem is a problem restricted to the evidence, in logarithms, with
// its elimination order.
type wmbProblem struct {
	p          *Problem
	s          Settings
	card       []int   // card[v], 0 for observed and absent variables
	tabs       []*ltab // the restricted tables with a scope
	konst      float64 // ln of the product of the constant tables
	order      []int   // min-fill order of the free variables
	pos        []int   // pos[v]: v's place in order, -1 if none
	width      int     // the order's induced width
	arity      int     // the largest scope of a table
	impossible bool    // a constant table is 0
	stopped    bool    // the deadline passed or Cancel closed
	bucketTabs [][]int // bucketTabs[i]: the tables whose first variable is order[i]
	plans      map[int]*wmbPlan
}

func newWMB(p *Problem, s Settings) *wmbProblem {
	n := len(p.Card)
	w := &wmbProblem{p: p, s: s, card: make([]int, n), pos: make([]int, n), plans: map[int]*wmbPlan{}}
	obs := make([]int, n)
	for v := range n {
		obs[v] = -1
		if v < len(p.Obs) {
			obs[v] = p.Obs[v]
		}
		if p.Card[v] > 0 && obs[v] < 0 {
			w.card[v] = p.Card[v]
		}
		w.pos[v] = -1
	}
	var restricted []*factor.Factor
	for _, fs := range [][]*factor.Factor{p.Factors, p.Likelihood} {
		for _, f := range fs {
			g := factor.Restrict(f, obs)
			if len(g.Vars) == 0 {
				if g.Vals[0] <= 0 {
					w.impossible = true
				}
				w.konst += math.Log(g.Vals[0])
				continue
			}
			restricted = append(restricted, g)
		}
	}
	scopes := make([][]int, len(restricted))
	for i, f := range restricted {
		for _, v := range f.Vars {
			scopes[i] = append(scopes[i], int(v))
		}
	}
	w.order, w.width = MinFillOrder(w.card, scopes)
	for i, v := range w.order {
		w.pos[v] = i
	}
	w.bucketTabs = make([][]int, len(w.order))
	for i, f := range restricted {
		vars := w.sortScope(scopes[i])
		card := make([]int, len(vars))
		for k, v := range vars {
			card[k] = w.card[v]
		}
		w.tabs = append(w.tabs, ltFromFactor(f, vars, card))
		w.arity = max(w.arity, len(vars))
		b := w.pos[vars[len(vars)-1]]
		w.bucketTabs[b] = append(w.bucketTabs[b], i)
	}
	return w
}

// sortScope returns a copy of vs sorted latest-eliminated first.
func (w *wmbProblem) sortScope(vs []int) []int {
	out := slices.Clone(vs)
	slices.SortFunc(out, func(a, b int) int { return w.pos[b] - w.pos[a] })
	return out
}

// stop reports whether the deadline has passed or Cancel is closed.
func (w *wmbProblem) stop() bool {
	if w.stopped {
		return true
	}
	if !w.s.Deadline.IsZero() && time.Now().After(w.s.Deadline) {
		w.stopped = true
	}
	if w.s.Cancel != nil {
		select {
		case <-w.s.Cancel:
			w.stopped = true
		default:
		}
	}
	return w.stopped
}

// mbNode is a mini-bucket: its clique (sorted latest-eliminated first, its
// bucket's variable last), the tables and child messages it holds, and
// its parent (-1 for a root).
type mbNode struct {
	bucket   int
	clique   []int
	card     []int
	tabs     []int // indices into wmbProblem.tabs
	children []int
	parent   int
}

// wmbPlan is the structure of the mini-buckets for an i-bound.
type wmbPlan struct {
	ibound  int
	nodes   []mbNode
	buckets [][]int // buckets[i]: the nodes of order[i]'s bucket
	exact   bool    // one node per bucket
	entries int64   // entries of the nodes' tables
	bytes   int64   // memory of a run's tables and messages
}

// plan partitions every bucket into mini-buckets of at most ibound
// variables (first fit, largest scopes first; a table larger than ibound
// alone makes one).
func (w *wmbProblem) plan(ibound int) *wmbPlan {
	if pl, ok := w.plans[ibound]; ok {
		return pl
	}
	pl := &wmbPlan{ibound: ibound, buckets: make([][]int, len(w.order)), exact: true}
	type item struct {
		vars  []int
		tab   int // table index, or -1
		child int // node index, or -1
	}
	pending := make([][]item, len(w.order))
	for i, ts := range w.bucketTabs {
		for _, t := range ts {
			pending[i] = append(pending[i], item{vars: w.tabs[t].vars, tab: t, child: -1})
		}
	}
	var maxClique int64
	for i, x := range w.order {
		items := pending[i]
		pending[i] = nil
		slices.SortStableFunc(items, func(a, b item) int { return len(b.vars) - len(a.vars) })
		var nodes []int
		for _, it := range items {
			placed := -1
			for _, id := range nodes {
				if len(unionVars(pl.nodes[id].clique, it.vars)) <= ibound {
					placed = id
					break
				}
			}
			if placed < 0 {
				pl.nodes = append(pl.nodes, mbNode{bucket: i, parent: -1})
				placed = len(pl.nodes) - 1
				nodes = append(nodes, placed)
			}
			nd := &pl.nodes[placed]
			nd.clique = unionVars(nd.clique, it.vars)
			if it.tab >= 0 {
				nd.tabs = append(nd.tabs, it.tab)
			} else {
				nd.children = append(nd.children, it.child)
				pl.nodes[it.child].parent = placed
			}
		}
		if len(nodes) == 0 {
			// A variable in no table: a node of its own, uniform.
			pl.nodes = append(pl.nodes, mbNode{bucket: i, parent: -1, clique: []int{x}})
			nodes = append(nodes, len(pl.nodes)-1)
		}
		if len(nodes) > 1 {
			pl.exact = false
		}
		for _, id := range nodes {
			nd := &pl.nodes[id]
			nd.clique = w.sortScope(nd.clique)
			nd.card = make([]int, len(nd.clique))
			size := int64(1)
			for k, v := range nd.clique {
				nd.card[k] = w.card[v]
				size = wmbSatMul(size, int64(w.card[v]))
			}
			pl.entries = wmbSatAdd(pl.entries, size)
			maxClique = max(maxClique, size)
			msg := nd.clique[:len(nd.clique)-1]
			msize := size / int64(w.card[x])
			pl.bytes = wmbSatAdd(pl.bytes, wmbSatAdd(wmbSatMul(8, size), wmbSatMul(16, msize)))
			if len(msg) > 0 {
				b := w.pos[msg[len(msg)-1]]
				pending[b] = append(pending[b], item{vars: msg, tab: -1, child: id})
			}
		}
		pl.buckets[i] = nodes
	}
	// Scratch: two tables and an index map of the largest clique.
	pl.bytes = wmbSatAdd(pl.bytes, wmbSatMul(20, maxClique))
	w.plans[ibound] = pl
	return pl
}

// wmbSatMul returns a·b for a, b ≥ 0, or math.MaxInt64 if it overflows.
func wmbSatMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// wmbSatAdd returns a+b for a, b ≥ 0, or math.MaxInt64 if it overflows.
func wmbSatAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// unionVars returns a's variables followed by those of b not in a.
func unionVars(a, b []int) []int {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// wmbRun is one i-bound's message passing: the reparameterised tables,
// the messages, the weights and the best bounds found.
type wmbRun struct {
	w           *wmbProblem
	pl          *wmbPlan
	theta       []*ltab
	fwd         [][]float64 // fwd[id]: node id's message to its parent, over clique minus its variable
	bwd         [][]float64 // bwd[id]: the parent's message to node id, same scope
	weight      []float64
	hi, lo      float64 // the best bounds on ln Z (konst included)
	iters       int     // forward passes done for the upper bound
	lowerPasses int     // forward passes done for the lower bound
	exact       bool
	conv        bool
	marg        [][]float64 // by variable, from the last backward pass
	margErr     [][]float64
	ix          []int32
	buf         []float64 // reused's buffer
}

// work returns a measure of the work a run did: its plan's entries times
// its iterations (a forward pass with matching and a backward pass each)
// and half its lower bound's forward passes.
func (r *wmbRun) work() float64 {
	return float64(r.pl.entries) * (float64(r.iters) + float64(r.lowerPasses)/2)
}

// run carries out at most maxIter forward and backward passes for the
// plan pl while time remains; nil if stopped before the first bound.
func (w *wmbProblem) run(pl *wmbPlan, maxIter int) *wmbRun {
	r := &wmbRun{w: w, pl: pl, hi: math.Inf(1), lo: math.Inf(-1), exact: pl.exact}
	r.theta = make([]*ltab, len(pl.nodes))
	r.fwd = make([][]float64, len(pl.nodes))
	r.bwd = make([][]float64, len(pl.nodes))
	r.weight = make([]float64, len(pl.nodes))
	for id := range pl.nodes {
		nd := &pl.nodes[id]
		t := newLtab(nd.clique, nd.card)
		for _, k := range nd.tabs {
			src := w.tabs[k]
			r.ix = ltIndexMap(r.ix, t, src.vars, src.card)
			ltAddMapped(t.vals, src.vals, r.ix, 1)
		}
		r.theta[id] = t
		m := len(t.vals) / nd.card[len(nd.card)-1]
		r.fwd[id] = make([]float64, m)
		r.bwd[id] = make([]float64, m)
	}
	for _, nodes := range pl.buckets {
		for _, id := range nodes {
			r.weight[id] = 1 / float64(len(nodes))
		}
	}
	tol := w.s.Tolerance
	if tol <= 0 {
		tol = 1e-8
	}
	var perIter time.Duration
	for r.iters < maxIter {
		// Leave time for the lower bound's passes (about one iteration
		// each) after this iteration.
		if r.iters > 0 && !w.s.Deadline.IsZero() && time.Until(w.s.Deadline) < perIter*time.Duration(2+len(lowerDeltas)) {
			break
		}
		t0 := time.Now()
		step := 0.0
		if r.iters > 0 {
			step = 0.1 // weights move once beliefs from a backward pass exist
		}
		b, ok := r.forward(r.weight, true, step)
		if !ok {
			break
		}
		r.iters++
		improved := b < r.hi-tol*max(1, math.Abs(b))
		r.hi = min(r.hi, b)
		if r.exact {
			r.lo = r.hi
			r.conv = true
		}
		if math.IsInf(r.hi, -1) {
			break
		}
		if !r.backward() {
			break
		}
		perIter = max(perIter, time.Since(t0))
		if r.exact || !improved && r.iters > 1 {
			r.conv = true
			break
		}
	}
	if r.iters == 0 {
		return nil
	}
	if !r.exact && !math.IsInf(r.hi, -1) {
		r.lower()
	}
	return r
}

// belief sets t (a scratch table over node id's clique) to ln of θ times
// the children's forward messages, and the backward message if withBwd.
func (r *wmbRun) belief(t *ltab, id int, withBwd bool) {
	nd := &r.pl.nodes[id]
	copy(t.vals, r.theta[id].vals)
	cx := nd.card[len(nd.card)-1]
	for _, c := range nd.children {
		cn := &r.pl.nodes[c]
		r.ix = ltIndexMap(r.ix, t, cn.clique[:len(cn.clique)-1], cn.card[:len(cn.card)-1])
		ltAddMapped(t.vals, r.fwd[c], r.ix, 1)
	}
	if withBwd {
		for k, x := range r.bwd[id] {
			row := t.vals[k*cx : (k+1)*cx]
			for j := range row {
				row[j] += x
			}
		}
	}
}

// scratch returns a table over node id's clique for temporary use.
func (r *wmbRun) scratch(id int) *ltab {
	nd := &r.pl.nodes[id]
	return newLtab(nd.clique, nd.card)
}

// reused returns a table over node id's clique in the run's one reused
// buffer (its entries are garbage): for a belief used and dropped before
// the next call.
func (r *wmbRun) reused(id int) *ltab {
	nd := &r.pl.nodes[id]
	n := len(r.theta[id].vals)
	if cap(r.buf) < n {
		r.buf = make([]float64, n)
	}
	return &ltab{vars: nd.clique, card: nd.card, vals: r.buf[:n]}
}

// forward computes the forward messages with the weights wt (matching
// the groups of each bucket first if match, and moving the weights of an
// upper bound by step), and returns the bound on ln Z; false if stopped.
func (r *wmbRun) forward(wt []float64, match bool, step float64) (float64, bool) {
	bound := r.w.konst
	for _, nodes := range r.pl.buckets {
		if r.w.stop() {
			return 0, false
		}
		if len(nodes) > 1 && (match || step > 0) {
			r.matchBucket(nodes, wt, match, step)
		}
		for _, id := range nodes {
			nd := &r.pl.nodes[id]
			t := r.reused(id)
			r.belief(t, id, false)
			cx := nd.card[len(nd.card)-1]
			out := r.fwd[id]
			for k := range out {
				out[k] = ltPowerSum(t.vals[k*cx:(k+1)*cx], wt[id])
			}
			if nd.parent < 0 {
				bound += out[0]
			}
		}
	}
	if math.IsNaN(bound) {
		return math.Inf(1), true
	}
	return bound, true
}

// matchBucket shifts the tables of a bucket's groups so that their
// weighted beliefs agree on the variables they share, and moves their
// weights (upper bound) by step along the bound's gradient.
func (r *wmbRun) matchBucket(nodes []int, wt []float64, match bool, step float64) {
	common := r.pl.nodes[nodes[0]].clique
	for _, id := range nodes[1:] {
		c := r.pl.nodes[id].clique
		common = slices.DeleteFunc(slices.Clone(common), func(v int) bool { return !slices.Contains(c, v) })
	}
	common = r.w.sortScope(common)
	ccard := make([]int, len(common))
	csize := 1
	for k, v := range common {
		ccard[k] = r.w.card[v]
		csize *= ccard[k]
	}
	bel := make([]*ltab, len(nodes))
	norm := func(j, id int) {
		t := bel[j]
		for i := range t.vals {
			t.vals[i] /= wt[id]
		}
		z := ltLSE(t.vals)
		if math.IsInf(z, 0) || math.IsNaN(z) {
			return
		}
		for i := range t.vals {
			t.vals[i] -= z
		}
	}
	for j, id := range nodes {
		bel[j] = r.scratch(id)
		r.belief(bel[j], id, true)
		norm(j, id)
	}
	if match {
		delta := make([][]float64, len(nodes))
		avg := make([]float64, csize)
		wsum := 0.0
		for j, id := range nodes {
			delta[j] = make([]float64, csize)
			r.ix = ltIndexMap(r.ix, bel[j], common, ccard)
			ltLSEMapped(delta[j], bel[j].vals, r.ix, 1)
			wsum += wt[id]
			for k, x := range delta[j] {
				avg[k] += wt[id] * x
			}
		}
		for k := range avg {
			avg[k] /= wsum
		}
		for j, id := range nodes {
			shift := make([]float64, csize)
			for k := range shift {
				a, d := avg[k], delta[j][k]
				if math.IsInf(a, 0) || math.IsNaN(a) || math.IsInf(d, 0) || math.IsNaN(d) {
					shift[k] = 0 // a zero of the product: no shift there
					continue
				}
				shift[k] = wt[id] * (a - d)
			}
			// Every group's shift must be 0 where any is skipped, so
			// that the shifts' sum stays 0.
			for k := range shift {
				if math.IsInf(avg[k], 0) || math.IsNaN(avg[k]) {
					shift[k] = 0
				}
			}
			r.ix = ltIndexMap(r.ix, r.theta[id], common, ccard)
			ltAddMapped(r.theta[id].vals, shift, r.ix, 1)
			ltAddMapped(bel[j].vals, shift, r.ix, 1/wt[id])
		}
	}
	if step > 0 {
		// Conditional entropy of X given the rest under each belief.
		h := make([]float64, len(nodes))
		havg := 0.0
		for j, id := range nodes {
			t := bel[j]
			z := ltLSE(t.vals)
			cx := r.pl.nodes[id].card[len(t.card)-1]
			for k := 0; k < len(t.vals); k += cx {
				row := t.vals[k : k+cx]
				lr := ltLSE(row)
				for _, x := range row {
					if !math.IsInf(x, -1) {
						h[j] -= math.Exp(x-z) * (x - lr)
					}
				}
			}
			havg += wt[id] * h[j]
		}
		tot := 0.0
		nw := make([]float64, len(nodes))
		for j, id := range nodes {
			nw[j] = wt[id] * math.Exp(-step*wt[id]*(h[j]-havg))
			tot += nw[j]
		}
		if tot > 0 && !math.IsInf(tot, 0) && !math.IsNaN(tot) {
			for j, id := range nodes {
				wt[id] = nw[j] / tot
			}
		}
	}
}

// backward computes the backward messages from the roots down and the
// marginals of every free variable; false if stopped.
func (r *wmbRun) backward() bool {
	n := len(r.w.card)
	marg := make([][]float64, n)
	merr := make([][]float64, n)
	for i := len(r.pl.buckets) - 1; i >= 0; i-- {
		if r.w.stop() {
			return false
		}
		nodes := r.pl.buckets[i]
		x := r.w.order[i]
		cx := r.w.card[x]
		var rows [][]float64
		for _, id := range nodes {
			nd := &r.pl.nodes[id]
			t := r.reused(id)
			r.belief(t, id, true)
			m := math.Inf(-1)
			for _, y := range t.vals {
				m = max(m, y)
			}
			if math.IsInf(m, 0) {
				m = 0
			}
			for k := range t.vals {
				t.vals[k] = (t.vals[k] - m) / r.weight[id]
			}
			for _, c := range nd.children {
				cn := &r.pl.nodes[c]
				sep, sc := cn.clique[:len(cn.clique)-1], cn.card[:len(cn.card)-1]
				r.ix = ltIndexMap(r.ix, t, sep, sc)
				ltLSEMapped(r.bwd[c], t.vals, r.ix, 1)
				for k := range r.bwd[c] {
					b := r.weight[c]*r.bwd[c][k] - r.fwd[c][k]
					switch {
					case math.IsNaN(b):
						// The child's tables are 0 at k (its message is
						// −Inf there): its belief is 0 whatever this is.
						b = math.Inf(-1)
					case math.IsInf(b, 1):
						b = 0
					}
					r.bwd[c][k] = b
				}
			}
			// The marginal of x (the clique's last variable).
			row := make([]float64, cx)
			for k := range row {
				row[k] = math.Inf(-1)
			}
			lm := make([]float64, cx)
			r.ix = ltIndexMap(r.ix, t, []int{x}, []int{cx})
			ltLSEMapped(lm, t.vals, r.ix, 1)
			z := ltLSE(lm)
			for k := range row {
				row[k] = math.Exp(lm[k] - z)
			}
			rows = append(rows, row)
		}
		avg := make([]float64, cx)
		wsum := 0.0
		for j, id := range nodes {
			wj := math.Abs(r.weight[id])
			if !wmbFiniteRow(rows[j]) {
				continue
			}
			wsum += wj
			for k, y := range rows[j] {
				avg[k] += wj * y
			}
		}
		if wsum == 0 {
			for k := range avg {
				avg[k] = 1 / float64(cx)
			}
		} else {
			for k := range avg {
				avg[k] /= wsum
			}
		}
		e := make([]float64, cx)
		for j := range nodes {
			for k, y := range rows[j] {
				if d := math.Abs(y - avg[k]); d > e[k] || math.IsNaN(d) {
					e[k] = math.Min(1, d)
					if math.IsNaN(d) {
						e[k] = 1
					}
				}
			}
		}
		marg[x], merr[x] = avg, e
	}
	for v, row := range marg {
		if row == nil || r.marg == nil || r.marg[v] == nil {
			continue
		}
		for k := range row {
			merr[v][k] = math.Min(1, merr[v][k]+math.Abs(row[k]-r.marg[v][k]))
		}
	}
	if r.exact {
		for _, e := range merr {
			clear(e)
		}
	}
	r.marg, r.margErr = marg, merr
	return true
}

// wmbFiniteRow reports whether every entry of xs is a number.
func wmbFiniteRow(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// lowerDeltas are the negative weights tried for the lower bound (0: the
// minimum over X).
var lowerDeltas = []float64{0, 0.05, 0.2, 0.5, 1, 2}

// lower runs forward passes with lower-bound weights on the matched
// tables, keeping the best lower bound (the tables' product is Z's, so
// any such pass is a bound).
func (r *wmbRun) lower() {
	wt := make([]float64, len(r.weight))
	for _, d := range lowerDeltas {
		for _, nodes := range r.pl.buckets {
			// The largest clique gets the positive weight.
			big := nodes[0]
			for _, id := range nodes {
				if len(r.theta[id].vals) > len(r.theta[big].vals) {
					big = id
				}
			}
			for _, id := range nodes {
				wt[id] = -d
			}
			wt[big] = 1 + float64(len(nodes)-1)*d
		}
		b, ok := r.forward(wt, true, 0)
		if !ok {
			return
		}
		r.lowerPasses++
		if !math.IsNaN(b) && b <= r.hi {
			r.lo = max(r.lo, b)
		}
	}
}

// result turns the best run into the Result.
func (w *wmbProblem) result(r *wmbRun) *Result {
	res := &Result{
		Engine:     "wmb",
		LogZHi:     r.hi,
		LogZLo:     r.lo,
		IBound:     r.pl.ibound,
		Iterations: r.iters,
		Converged:  r.conv,
		Stopped:    w.stopped,
	}
	switch {
	case r.exact:
		res.LogZ, res.LogZErr, res.LogZLo = r.hi, 0, r.hi
	case math.IsInf(r.lo, -1):
		res.LogZ, res.LogZErr = r.hi, math.Inf(1)
	default:
		res.LogZ, res.LogZErr = (r.hi+r.lo)/2, (r.hi-r.lo)/2
	}
	n := len(w.p.Card)
	res.Marg = make([][]float64, n)
	res.Err = make([][]float64, n)
	for v := range n {
		c := w.p.Card[v]
		if c <= 0 {
			continue
		}
		if v < len(w.p.Obs) && w.p.Obs[v] >= 0 {
			res.Marg[v] = make([]float64, c)
			res.Marg[v][w.p.Obs[v]] = 1
			res.Err[v] = make([]float64, c)
			continue
		}
		if r.marg == nil || r.marg[v] == nil {
			res.Marg[v] = make([]float64, c)
			res.Err[v] = make([]float64, c)
			for k := range c {
				res.Marg[v][k] = 1 / float64(c)
				res.Err[v][k] = math.Inf(1)
			}
			continue
		}
		res.Marg[v] = wmbClampRow(r.marg[v])
		res.Err[v] = r.margErr[v]
	}
	return res
}

// wmbClampRow returns xs with every entry in [0, 1] and summing to 1.
func wmbClampRow(xs []float64) []float64 {
	out := make([]float64, len(xs))
	s := 0.0
	for k, x := range xs {
		if !(x > 0) {
			x = 0
		}
		out[k] = x
		s += x
	}
	if !(s > 0) || math.IsInf(s, 0) {
		for k := range out {
			out[k] = 1 / float64(len(out))
		}
		return out
	}
	for k := range out {
		out[k] = min(1, out[k]/s)
	}
	return out
}

// impossibleResult is the answer for evidence of probability 0.
func (w *wmbProblem) impossibleResult() *Result {
	inf := math.Inf(-1)
	return &Result{Engine: "wmb", LogZ: inf, LogZLo: inf, LogZHi: inf, Converged: true}
}
