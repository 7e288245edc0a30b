package approx

import (
	"container/heap"
	"math"
	"slices"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// IJGP is iterative join-graph propagation (Dechter, Kask and Mateescu
// 2002; Mateescu, Kask, Gogate and Dechter, JAIR 37, 2010): belief
// propagation on a join graph whose clusters hold at most i variables
// (the i-bound).
//
// The join graph is built by schematic mini-bucket partitioning along a
// min-fill elimination order of p restricted to its evidence: each
// bucket's functions (factors and the scopes of earlier mini-buckets'
// messages) are split greedily, largest scope first, into mini-buckets of
// at most i variables (a factor with more variables has one of its own);
// each mini-bucket is a cluster, joined to the mini-bucket that receives
// its message by an edge labelled with the message's scope, and the
// mini-buckets of one bucket are joined in a chain by edges labelled with
// the bucket's variable. The graph has the running-intersection property
// for every variable, so its Bethe-like free energy (counting numbers 1
// for clusters, −1 for edges) counts each variable once; LogZ is that
// free energy at the last messages. When every bucket is one mini-bucket
// (i at least the induced width + 1) the join graph is a junction tree,
// propagation on it is exact, and so is the answer: Err 0, LogZErr 0,
// Converged.
//
// Messages are passed as in [LBP] (sweeps forward and backward in the
// order of the mini-buckets' creation, damped by Settings.Damping, until
// Settings.Tolerance or Settings.MaxIter). With Settings.IBound > 0 it
// answers with that bound (and runs larger ones for its error estimate,
// below). With 0 it is anytime: it starts at the largest factor's scope
// (at least 2) and raises the bound while the join graph's tables fit
// Settings.MaxMemory (default 256 MiB) and the deadline allows, until the
// answer is exact; when the junction tree (the join graph of the induced
// width) fits the memory, it goes there at once, with half the time left. After the first two bounds, each join graph takes at
// least twice the memory of the one before (a junction tree is never
// skipped), so that the bounds before the last take about as long as the
// last; each bound gets at most 100 sweeps and a tolerance of at least
// 1e-6 unless Settings.MaxIter is set. At the deadline it returns the
// answer of the last bound that finished (Stopped set). Result.IBound is
// the bound of the answer. Without a deadline, the bound grows until the
// answer is exact or the memory is spent. Stopped before the variables'
// elimination order or the first join graph exists, it returns
// ErrNoAnswer. Like LBP it is sequential (Settings.Workers is not used).
//
// # Error estimate
//
// An anytime answer's error comes from the steps between the answers of
// successive i-bounds (bounds that give the same join graph counted as
// one). With d_v the largest change of v's marginal (over its states)
// from the answers of the previous two bounds, and d̄ the mean of d_v over
// the unobserved variables, Err[v][s] = κ·(d_v + d̄), κ = 4 (κ = 8 when
// only one earlier bound finished), plus, when propagation did not
// converge, κ·(o_v + ō), o_v the largest change of v's marginal over 10
// more sweeps; plus κ·(a_v + ā), a_v the difference between v's marginal
// and that of the same bound on the join graph of another elimination
// order (min-degree); capped at 1. The idea is an extrapolation: the
// answers approach the exact one as the bound grows and their steps
// shrink, so that the distance left is about a multiple of the last
// steps; the mean is a floor for a variable whose marginal happens not to
// move, and the second join graph catches steps that have stalled. It is
// a heuristic, not a bound: measured against exact answers on random
// networks (TestCalibration) the exact marginal lies within it for 97–100
// % of the variables, on the UAI 2014 corpus at 2 s for about 97 %
// (TestCorpusAccuracy; Segmentation_11, whose propagation does not
// converge, about 76 %).
//
// LogZErr is formed in the same way: κ times the largest change of LogZ
// over the same steps, taken as at least half the sum of the marginals'
// steps (join graphs may agree on LogZ while their marginals differ),
// plus the same for the second join graph.
//
// With a single finished bound (the deadline, or the memory), or when the
// last two answers are the same (to 1e-9: IJGP(1) and IJGP(2) of a
// pairwise network are both loopy BP), the errors are +Inf (1 for the
// marginals).
//
// With a fixed Settings.IBound = i, the answer is IJGP(i)'s and its error
// is its distance to the answer r of the anytime run over the larger
// bounds within 8 times IJGP(i)'s memory (at least 1 MiB, at most
// Settings.MaxMemory), plus r's own error: |b − r| + ε_r (0 when r is
// exact). When no larger bound fits, it is the step from the largest
// smaller bound whose join graph differs, as above.
func IJGP(p *Problem, s Settings) (*Result, error) {
	r, err := propReduce(p)
	if err != nil {
		return nil, err
	}
	st := newPropStopper(s)
	order := ijgpOrder(r, false, st)
	if order == nil {
		return nil, ErrNoAnswer
	}
	mem := propMemory(s)
	lo := max(r.maxArity, 2)
	if s.IBound == 0 {
		// A junction tree that fits is propagated at once: exact, in
		// one sweep, where loopy bounds would take a hundred each.
		if w := ijgpTreeBound(r, order, lo, mem); w > 0 {
			// It has half the time left; the loopy bounds, the rest.
			tst := newPropStopper(s)
			if !s.Deadline.IsZero() {
				tst.deadline = time.Now().Add(time.Until(s.Deadline) / 2)
			}
			runs, err := ijgpSeq(r, order, s, tst, w, w, mem, false)
			if err != nil && err != ErrNoAnswer {
				return nil, err
			}
			if len(runs) > 0 && runs[0].exact {
				res := runs[0].res
				ijgpErr(r, runs)
				res.Stopped = st.stopped
				return res, nil
			}
		}
		runs, err := ijgpSeq(r, order, s, st, lo, len(r.card)+lo+1, mem, true)
		if err != nil {
			return nil, err
		}
		res := runs[len(runs)-1].res
		ijgpErr(r, runs)
		if err := ijgpAltErr(r, s, st, runs[len(runs)-1], mem); err != nil {
			return nil, err
		}
		res.Stopped = st.stopped
		return res, nil
	}
	i := s.IBound
	runs, err := ijgpSeq(r, order, s, st, i, i, mem, true)
	if err != nil {
		return nil, err
	}
	res := runs[0].res
	if runs[0].exact || st.stopped {
		res.Stopped = st.stopped
		ijgpErr(r, runs)
		return res, nil
	}
	// The reference: the bounds above i, within 8 times i's memory.
	cl, ed, _ := ijgpSchematic(r, order, i)
	refMem := min(mem, max(8*cgBytes(r.card, cl, ed, math.MaxInt64), 1<<20))
	refs, err := ijgpSeq(r, order, s, st, i+1, len(r.card)+lo+1, refMem, false)
	if err != nil && err != ErrNoAnswer {
		return nil, err
	}
	if len(refs) == 0 {
		// No larger bound fits: the step from the largest smaller one.
		sig := ijgpSig(r, order, i)
		for j := i - 1; j >= 1; j-- {
			if ijgpSig(r, order, j) != sig {
				lower, err := ijgpSeq(r, order, s, st, j, j, mem, true)
				if err != nil {
					return nil, err
				}
				runs = append(lower, runs...)
				break
			}
		}
		ijgpErr(r, runs)
		if err := ijgpAltErr(r, s, st, runs[len(runs)-1], mem); err != nil {
			return nil, err
		}
		res.Stopped = st.stopped
		return res, nil
	}
	// The error of i's answer: its distance to the reference's answer
	// plus the reference's error.
	top := refs[len(refs)-1].res
	ijgpErr(r, append(runs, refs...))
	if err := ijgpAltErr(r, s, st, refs[len(refs)-1], mem); err != nil {
		return nil, err
	}
	for v, m := range res.Marg {
		if m == nil || r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		for k := range m {
			res.Err[v][k] = propErrBound(math.Abs(m[k]-top.Marg[v][k]) + top.Err[v][k])
		}
	}
	res.LogZErr = propRound(math.Abs(res.LogZ-top.LogZ) + top.LogZErr)
	res.Stopped = st.stopped
	return res, nil
}

// ijgpSeq runs IJGP at each bound from from to to whose join graph
// differs from the previous one's and fits mem, until an exact answer
// (the last run, exact set) or st stops it. With force the first bound
// runs whatever its memory; without, it returns ErrNoAnswer when not
// even the first bound fits.
func ijgpSeq(r *propReduced, order []factor.Var, s Settings, st *propStopper, from, to int, mem int64, force bool) ([]ijgpRun, error) {
	damp, tol, maxIter := propDefaults(s)
	if from < to && s.MaxIter == 0 {
		// Along a sequence of bounds, a larger bound is worth more than
		// more sweeps of a loopy graph that does not converge, or than
		// digits beyond the sixth.
		maxIter = ijgpSweeps
		tol = max(tol, ijgpSeqTol)
	}
	var hist []ijgpRun
	// bound runs IJGP(i) on its join graph and reports whether the
	// sequence ends there (exact, or stopped).
	bound := func(i int, cl []cgCluster, ed []cgEdge, home []int) (bool, error) {
		gst := st
		if force && len(hist) == 0 {
			gst = nil // the first bound's graph, the smallest, is always built
		}
		g, err := newClusterGraph(r.card, cl, ed, gst)
		if err == errPropStopped {
			return true, nil
		}
		if err != nil {
			return true, err
		}
		iter, conv, err := g.propagate(damp, tol, maxIter, st)
		if err != nil {
			return true, err
		}
		if st.stopped && (len(hist) > 0 || !force) {
			// Stopped mid-run: an answer only when there is none.
			return true, nil
		}
		res := r.result(g, home)
		if math.IsInf(res.LogZ, -1) {
			return true, ErrImpossible
		}
		res.Engine, res.Iterations, res.Converged, res.IBound = "ijgp", iter, conv, i
		res.Stopped = st.stopped
		run := ijgpRun{res: res, exact: g.tree && conv, bytes: cgBytes(r.card, cl, ed, math.MaxInt64)}
		if !conv && !st.stopped {
			// Not converged: the marginals' movement over a few more
			// sweeps measures how far they are from settling.
			more, conv2, err := g.propagate(damp, tol, ijgpMoreSweeps, st)
			if err != nil {
				return true, err
			}
			if !st.stopped {
				after := r.result(g, home)
				run.osc = make([]float64, len(res.Marg))
				for v, m := range after.Marg {
					for k := range m {
						run.osc[v] = max(run.osc[v], math.Abs(m[k]-res.Marg[v][k]))
					}
				}
				after.Engine, after.Iterations, after.Converged, after.IBound = "ijgp", iter+more, conv2, i
				run.res, run.oscZ = after, math.Abs(after.LogZ-res.LogZ)
			}
		}
		hist = append(hist, run)
		return run.exact || st.stopped, nil
	}
	type candidate struct {
		i    int
		cl   []cgCluster
		ed   []cgEdge
		home []int
	}
	var pending *candidate // a bound skipped for growing too little
	prev := [3]int{-1}
	for i := from; i <= to; i++ {
		cl, ed, home := ijgpSchematic(r, order, i)
		sig := ijgpSigOf(r, cl, ed)
		if sig == prev {
			continue
		}
		prev = sig
		bytes := cgBytes(r.card, cl, ed, mem)
		if bytes < 0 && !(force && len(hist) == 0) {
			break
		}
		if from < to && len(hist) >= 2 && bytes < ijgpGrowth*hist[len(hist)-1].bytes && !cgForest(len(cl), ed) {
			// Along a sequence, each bound's tables at least double
			// (a junction tree is never skipped), so that the time
			// of the bounds before the last is about that of the
			// last.
			pending = &candidate{i, cl, ed, home}
			continue
		}
		pending = nil
		done, err := bound(i, cl, ed, home)
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
	}
	if pending != nil && !st.stop() {
		if _, err := bound(pending.i, pending.cl, pending.ed, pending.home); err != nil {
			return nil, err
		}
	}
	if len(hist) == 0 {
		return nil, ErrNoAnswer
	}
	return hist, nil
}

// ijgpGrowth is the least factor by which the memory of the join graphs
// of an anytime sequence grows from one bound to the next (after the
// first two).
const ijgpGrowth = 2

// ijgpSeqTol is the least tolerance of the bounds of an anytime sequence
// when Settings.MaxIter is 0.
const ijgpSeqTol = 1e-6

// ijgpSame is the largest step between the answers of two join graphs
// that counts as none.
const ijgpSame = 1e-9

// ijgpSweeps bounds the sweeps of each i-bound of an anytime sequence
// when Settings.MaxIter is 0.
const ijgpSweeps = 100

// ijgpMoreSweeps is the number of sweeps over which the movement of a
// run that did not converge is measured.
const ijgpMoreSweeps = 10

// ijgpRun is one i-bound's answer and, when propagation did not converge,
// how much each marginal (osc, nil when it converged) and LogZ moved over
// ijgpMoreSweeps more sweeps.
type ijgpRun struct {
	res   *Result
	bytes int64 // the join graph's memory
	osc   []float64
	oscZ  float64
	exact bool // the join graph is a tree: res is exact
}

// ijgpTreeBound returns the smallest bound from lo up whose join graph
// along order is a junction tree (a forest) fitting mem, or 0 if the
// join graphs outgrow mem first.
func ijgpTreeBound(r *propReduced, order []factor.Var, lo int, mem int64) int {
	for i := lo; i <= len(r.card)+lo+1; i++ {
		cl, ed, _ := ijgpSchematic(r, order, i)
		if cgBytes(r.card, cl, ed, mem) < 0 {
			return 0
		}
		if cgForest(len(cl), ed) {
			return i
		}
	}
	return 0
}

// ijgpSig summarises the join graph of bound i (clusters, edges, table
// entries): bounds with the same summary give the same graph.
func ijgpSig(r *propReduced, order []factor.Var, i int) [3]int {
	cl, ed, _ := ijgpSchematic(r, order, i)
	return ijgpSigOf(r, cl, ed)
}

// ijgpSigOf is ijgpSig of a built join graph.
func ijgpSigOf(r *propReduced, cl []cgCluster, ed []cgEdge) [3]int {
	sig := [3]int{len(cl), len(ed), 0}
	for _, c := range cl {
		sig[2] += max(0, cgSize(r.card, c.vars, math.MaxInt32))
	}
	return sig
}

// ijgpKappa is the multiple of the last step that IJGP reports as its
// error (see IJGP's error estimate).
const ijgpKappa = 4.0

// ijgpErr sets the errors of the last answer of hist from its step from
// the previous one; see IJGP.
func ijgpErr(r *propReduced, hist []ijgpRun) {
	res := hist[len(hist)-1].res
	last := hist[len(hist)-1]
	if hist[len(hist)-1].exact {
		res.LogZLo, res.LogZHi = res.LogZ, res.LogZ
		return
	}
	if len(hist) < 2 {
		propSetErr(res, math.Inf(1))
		propExactErr(r, res)
		return
	}
	prev := hist[len(hist)-2].res
	kappa, prev2 := 2*ijgpKappa, prev
	if len(hist) >= 3 {
		kappa, prev2 = ijgpKappa, hist[len(hist)-3].res
	}
	// d[v]: the largest step of v's marginal from the last two answers.
	d := make([]float64, len(res.Marg))
	mean, n := 0.0, 0
	for v, m := range res.Marg {
		if m == nil || r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		for i := range m {
			d[v] = max(d[v], math.Abs(m[i]-prev.Marg[v][i]), math.Abs(m[i]-prev2.Marg[v][i]))
		}
		mean += d[v]
		n++
	}
	if n > 0 {
		mean /= float64(n)
	}
	if n > 0 && slices.Max(d) <= ijgpSame {
		// Two join graphs with the same answer (IJGP(1) and IJGP(2) of
		// a pairwise network are both loopy BP): the step says nothing.
		propSetErr(res, math.Inf(1))
		propExactErr(r, res)
		return
	}
	oscMean := 0.0
	if last.osc != nil && n > 0 {
		for v, o := range last.osc {
			if res.Marg[v] != nil && r.obs[v] < 0 && r.inFactor[v] {
				oscMean += o
			}
		}
		oscMean /= float64(n)
	}
	for v, m := range res.Marg {
		if m == nil || r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		e := kappa * (d[v] + mean)
		if last.osc != nil {
			e += kappa * (last.osc[v] + oscMean)
		}
		for i := range m {
			res.Err[v][i] = propErrBound(e)
		}
	}
	dz := max(math.Abs(res.LogZ-prev.LogZ), math.Abs(res.LogZ-prev2.LogZ))
	// Join graphs can agree on LogZ while their marginals differ; half
	// the sum of the marginals' steps is a floor for LogZ's.
	res.LogZErr = propRound(kappa * (max(dz, mean*float64(n)/2) + last.oscZ))
}

// ijgpAltErr adds to the errors of run's inexact answer (of i-bound i)
// the disagreement with IJGP(i) on the join graph of another elimination
// order (ijgpOrder's alt): κ·(a_v + ā), a_v the largest difference of
// v's marginal between the two, ā its mean over the variables; and κ
// times the difference of LogZ. Two join graphs that agree are likelier
// right than one whose steps have stalled. Nothing is added when the
// other graph does not fit mem or time runs out.
func ijgpAltErr(r *propReduced, s Settings, st *propStopper, run ijgpRun, mem int64) error {
	res := run.res
	if run.exact || st.stopped || math.IsInf(res.LogZErr, 1) {
		return nil
	}
	altOrder := ijgpOrder(r, true, st)
	if altOrder == nil {
		return nil
	}
	alt, err := ijgpSeq(r, altOrder, s, st, res.IBound, res.IBound, mem, false)
	if err == ErrNoAnswer || st.stopped {
		return nil
	}
	if err != nil {
		return err
	}
	b := alt[0].res
	a := make([]float64, len(res.Marg))
	mean, n := 0.0, 0
	for v, m := range res.Marg {
		if m == nil || r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		for i := range m {
			a[v] = max(a[v], math.Abs(m[i]-b.Marg[v][i]))
		}
		mean += a[v]
		n++
	}
	if n > 0 {
		mean /= float64(n)
	}
	for v, m := range res.Marg {
		if m == nil || r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		for i := range m {
			res.Err[v][i] = min(1, res.Err[v][i]+propRound(ijgpKappa*(a[v]+mean)))
		}
	}
	res.LogZErr += propRound(ijgpKappa * max(math.Abs(res.LogZ-b.LogZ), mean*float64(n)/2))
	return nil
}

// propExactErr sets to 0 the errors of the variables whose marginal is
// exact whatever the algorithm: the observed ones and those in no factor.
func propExactErr(r *propReduced, res *Result) {
	for v, e := range res.Err {
		if e != nil && (r.obs[v] >= 0 || !r.inFactor[v]) {
			clear(e)
		}
	}
}

// ijgpSchematic partitions r's factors into the mini-buckets of bound i
// along order and returns the join graph's clusters and edges, with the
// first mini-bucket of each variable's bucket (-1 for a variable in no
// factor).
func ijgpSchematic(r *propReduced, order []factor.Var, i int) ([]cgCluster, []cgEdge, []int) {
	n := len(r.card)
	pos := make([]int, n)
	for k, v := range order {
		pos[v] = k
	}
	type item struct {
		vars []factor.Var
		f    *factor.Factor // nil for a message
		src  int            // the cluster that sends the message
	}
	buckets := make([][]item, len(order))
	first := func(vs []factor.Var) int {
		b := math.MaxInt
		for _, v := range vs {
			b = min(b, pos[v])
		}
		return b
	}
	for _, f := range r.fs {
		b := first(f.Vars)
		buckets[b] = append(buckets[b], item{vars: f.Vars, f: f, src: -1})
	}
	home := make([]int, n)
	for v := range home {
		home[v] = -1
	}
	var cl []cgCluster
	var ed []cgEdge
	mark := make([]int, n)
	stamp := 0
	type mini struct {
		vars  []factor.Var
		items []int
	}
	var mbs []mini
	for b, v := range order {
		items := buckets[b]
		if len(items) == 0 {
			continue
		}
		slices.SortStableFunc(items, func(x, y item) int { return len(y.vars) - len(x.vars) })
		mbs = mbs[:0]
		for k, it := range items {
			placed := false
			for m := range mbs {
				stamp++
				for _, w := range mbs[m].vars {
					mark[w] = stamp
				}
				extra := 0
				for _, w := range it.vars {
					if mark[w] != stamp {
						extra++
					}
				}
				if len(mbs[m].vars)+extra <= i {
					for _, w := range it.vars {
						if mark[w] != stamp {
							mbs[m].vars = append(mbs[m].vars, w)
						}
					}
					mbs[m].items = append(mbs[m].items, k)
					placed = true
					break
				}
			}
			if !placed {
				mbs = append(mbs, mini{vars: slices.Clone(it.vars), items: []int{k}})
			}
		}
		for m, mb := range mbs {
			c := len(cl)
			x := cgCluster{vars: mb.vars}
			for _, k := range mb.items {
				it := items[k]
				if it.f != nil {
					x.pot = append(x.pot, it.f)
				} else {
					ed = append(ed, cgEdge{a: it.src, b: c, sep: it.vars})
				}
			}
			cl = append(cl, x)
			if m == 0 {
				home[v] = c
			} else {
				ed = append(ed, cgEdge{a: c - 1, b: c, sep: []factor.Var{v}})
			}
			msg := make([]factor.Var, 0, len(mb.vars)-1)
			for _, w := range mb.vars {
				if w != v {
					msg = append(msg, w)
				}
			}
			if len(msg) > 0 {
				bb := first(msg)
				buckets[bb] = append(buckets[bb], item{vars: msg, src: c})
			}
		}
	}
	return cl, ed, home
}

// ijgpOrder returns an (approximate) min-fill elimination order of the variables in r's
// factors (ties to fewer neighbours, then to the lower variable): the
// order in which mini-bucket partitioning processes them. With alt, it is
// a min-degree order instead (ties to less fill, then to the higher
// variable): a second join graph whose errors differ from the first's.
//
// It returns nil if st stops it first.
func ijgpOrder(r *propReduced, alt bool, st *propStopper) []factor.Var {
	n := len(r.card)
	adj := make([][]int32, n)
	stampOf := make([]int, n)
	stamp := 0
	for _, f := range r.fs {
		for _, a := range f.Vars {
			for _, b := range f.Vars {
				if a != b {
					adj[a] = append(adj[a], int32(b))
				}
			}
		}
	}
	for v := range adj {
		slices.Sort(adj[v])
		adj[v] = slices.Compact(adj[v])
	}
	alive := make([]bool, n)
	var vs []int
	for v := range n {
		if r.inFactor[v] {
			alive[v] = true
			vs = append(vs, v)
		}
	}
	fill := func(u int) int {
		c := 0
		for k, a := range adj[u] {
			stamp++
			for _, x := range adj[a] {
				stampOf[x] = stamp
			}
			for _, b := range adj[u][k+1:] {
				if stampOf[b] != stamp {
					c++
				}
			}
		}
		return c
	}
	score := make([]int, n)
	for _, v := range vs {
		score[v] = fill(v)
	}
	key := func(v int) ijgpKey {
		if alt {
			return ijgpKey{len(adj[v]), score[v], -v}
		}
		return ijgpKey{score[v], len(adj[v]), v}
	}
	h := &ijgpHeap{}
	for _, v := range vs {
		*h = append(*h, ijgpEntry{key(v), v})
	}
	heap.Init(h)
	order := make([]factor.Var, 0, len(vs))
	for len(order) < len(vs) {
		if len(order)%64 == 0 && st.stop() {
			return nil
		}
		e := heap.Pop(h).(ijgpEntry)
		best := e.v
		if !alive[best] || e.key != key(best) {
			continue // a stale entry
		}
		alive[best] = false
		order = append(order, factor.Var(best))
		nb := adj[best]
		// Connect the neighbours and remove best from their lists.
		for k, a := range nb {
			stamp++
			for _, x := range adj[a] {
				stampOf[x] = stamp
			}
			for _, b := range nb[k+1:] {
				if stampOf[b] != stamp {
					adj[a] = append(adj[a], b)
					adj[b] = append(adj[b], a)
				}
			}
		}
		for _, a := range nb {
			adj[a] = slices.DeleteFunc(adj[a], func(x int32) bool { return int(x) == best })
		}
		// Recompute the scores of best's neighbours, whose neighbourhoods
		// changed. (A vertex two steps away whose neighbours were joined
		// keeps a stale, larger score: the order is approximate min-fill,
		// which keeps each step linear in the neighbourhoods' sizes.)
		for _, a := range nb {
			score[a] = fill(int(a))
			heap.Push(h, ijgpEntry{key(int(a)), int(a)})
		}
		adj[best] = nil
	}
	return order
}

// ijgpKey orders the candidates of elimination: lexicographically, the
// smallest first.
type ijgpKey [3]int

// ijgpEntry is a candidate in ijgpHeap with its key when it was pushed.
type ijgpEntry struct {
	key ijgpKey
	v   int
}

// ijgpHeap is a min-heap of candidates (container/heap).
type ijgpHeap []ijgpEntry

func (h ijgpHeap) Len() int { return len(h) }
func (h ijgpHeap) Less(i, j int) bool {
	a, b := h[i].key, h[j].key
	for k := range a {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return false
}
func (h ijgpHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *ijgpHeap) Push(x any)   { *h = append(*h, x.(ijgpEntry)) }
func (h *ijgpHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
