package approx

import (
	"math"
	"slices"

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
// one sweep is exact, and the answer is exact: Err 0, LogZErr 0,
// Converged.
//
// Messages are passed as in [LBP] (sweeps forward and backward in the
// order of the mini-buckets' creation, damped by Settings.Damping, until
// Settings.Tolerance or Settings.MaxIter). With Settings.IBound > 0 it
// runs with that bound (and, for the error estimate, first with the bound
// one less); with 0 it is anytime: it starts at the largest factor's
// scope (at least 2) and raises the bound while the join graph's tables
// fit Settings.MaxMemory (default 256 MiB) and the deadline allows,
// until the answer is exact. At the deadline it returns the answer of the
// last bound that finished (Stopped set). Result.IBound is the bound of
// the answer. Without a deadline, the bound grows until the answer is
// exact or the memory is spent.
//
// # Error estimate
//
// An inexact answer's Err[v][s] is ijgpKappa times the change of that
// number between the answer's i-bound and the previous one (bounds that
// give the same join graph counted as one), plus the same multiple of the
// mean change over all variables (a floor for variables whose marginal
// happens not to move), plus ten times the last message change when
// propagation did not converge; capped at 1. The idea is that of an
// extrapolation: the answers approach the exact one as the bound grows,
// and their steps shrink, so that the remaining distance is about a
// multiple of the last step. It is a heuristic, not a bound; its
// calibration is measured in calib_test.go (TestCalibration). LogZErr is
// formed in the same way from LogZ. With a single finished bound the
// errors are +Inf.
func IJGP(p *Problem, s Settings) (*Result, error) {
	r, err := reduce(p)
	if err != nil {
		return nil, err
	}
	order := ijgpOrder(r)
	st := newStopper(s)
	mem := propMemory(s)
	lo := max(r.maxArity, 2)
	if s.IBound == 0 {
		runs, err := ijgpSeq(r, order, s, st, lo, len(r.card)+lo+1, mem)
		if err != nil {
			return nil, err
		}
		res := runs[len(runs)-1].res
		res.Stopped = st.stopped
		ijgpErr(r, runs)
		return res, nil
	}
	i := s.IBound
	runs, err := ijgpSeq(r, order, s, st, i, i, mem)
	if err != nil {
		return nil, err
	}
	res := runs[0].res
	if runs[0].exact || st.stopped {
		res.Stopped = st.stopped
		ijgpErr(r, runs)
		return res, nil
	}
	// The reference: the bounds above i, within 16 times i's memory.
	cl, ed, _ := ijgpSchematic(r, order, i)
	refMem := min(mem, max(16*cgBytes(r.card, cl, ed, mem), 4<<20))
	refs, err := ijgpSeq(r, order, s, st, i+1, len(r.card)+lo+1, refMem)
	if err != nil && err != ErrNoAnswer {
		return nil, err
	}
	if len(refs) == 0 {
		// No larger bound fits: the step from the largest smaller one.
		sig := ijgpSig(r, order, i)
		for j := i - 1; j >= 1; j-- {
			if ijgpSig(r, order, j) != sig {
				lower, err := ijgpSeq(r, order, s, st, j, j, mem)
				if err != nil {
					return nil, err
				}
				runs = append(lower, runs...)
				break
			}
		}
		res.Stopped = st.stopped
		ijgpErr(r, runs)
		return res, nil
	}
	// The error of i's answer: its distance to the reference's answer
	// plus the reference's error.
	top := refs[len(refs)-1].res
	ijgpErr(r, append(runs, refs...))
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
// (the last run, exact set) or st stops it. It returns ErrNoAnswer when
// not even the first bound fits.
func ijgpSeq(r *reduced, order []factor.Var, s Settings, st *stopper, from, to int, mem int64) ([]ijgpRun, error) {
	damp, tol, maxIter := propDefaults(s)
	var hist []ijgpRun
	prev := [3]int{-1}
	for i := from; i <= to; i++ {
		cl, ed, home := ijgpSchematic(r, order, i)
		sig := ijgpSigOf(r, cl, ed)
		if sig == prev {
			continue
		}
		prev = sig
		if cgBytes(r.card, cl, ed, mem) < 0 {
			break
		}
		g, err := newClusterGraph(r.card, cl, ed)
		if err != nil {
			return nil, err
		}
		iter, conv, err := g.propagate(damp, tol, maxIter, st)
		if err != nil {
			return nil, err
		}
		if st.stopped && len(hist) > 0 {
			break
		}
		res := r.result(g, home)
		if math.IsInf(res.LogZ, -1) {
			return nil, ErrImpossible
		}
		res.Engine, res.Iterations, res.Converged, res.IBound = "ijgp", iter, conv, i
		res.Stopped = st.stopped
		run := ijgpRun{res: res, exact: g.tree && conv}
		if !conv {
			run.resid = g.maxChange
		}
		hist = append(hist, run)
		if run.exact || st.stopped {
			break
		}
	}
	if len(hist) == 0 {
		return nil, ErrNoAnswer
	}
	return hist, nil
}

// ijgpRun is one i-bound's answer and its last message change (0 when it
// converged).
type ijgpRun struct {
	res   *Result
	resid float64
	exact bool // the join graph is a tree: res is exact
}

// ijgpSig summarises the join graph of bound i (clusters, edges, table
// entries): bounds with the same summary give the same graph.
func ijgpSig(r *reduced, order []factor.Var, i int) [3]int {
	cl, ed, _ := ijgpSchematic(r, order, i)
	return ijgpSigOf(r, cl, ed)
}

// ijgpSigOf is ijgpSig of a built join graph.
func ijgpSigOf(r *reduced, cl []cgCluster, ed []cgEdge) [3]int {
	sig := [3]int{len(cl), len(ed), 0}
	for _, c := range cl {
		sig[2] += max(0, cgSize(r.card, c.vars, math.MaxInt32))
	}
	return sig
}

// ijgpKappa is the multiple of the last step that IJGP reports as its
// error (see IJGP's error estimate).
const ijgpKappa = 2

// ijgpErr sets the errors of the last answer of hist from its step from
// the previous one; see IJGP.
func ijgpErr(r *reduced, hist []ijgpRun) {
	res := hist[len(hist)-1].res
	resid := hist[len(hist)-1].resid
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
	mean, n := 0.0, 0
	for v, m := range res.Marg {
		if m == nil || r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		d := 0.0
		for i := range m {
			d = max(d, math.Abs(m[i]-prev.Marg[v][i]))
		}
		mean += d
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
			res.Err[v][i] = propErrBound(ijgpKappa*(math.Abs(m[i]-prev.Marg[v][i])+mean) + 10*resid)
		}
	}
	res.LogZErr = propRound(ijgpKappa*math.Abs(res.LogZ-prev.LogZ) + 10*resid*float64(n))
}

// propExactErr sets to 0 the errors of the variables whose marginal is
// exact whatever the algorithm: the observed ones and those in no factor.
func propExactErr(r *reduced, res *Result) {
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
func ijgpSchematic(r *reduced, order []factor.Var, i int) ([]cgCluster, []cgEdge, []int) {
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

// ijgpOrder returns a min-fill elimination order of the variables in r's
// factors (ties to fewer neighbours, then to the lower variable): the
// order in which mini-bucket partitioning processes them.
func ijgpOrder(r *reduced) []factor.Var {
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
	order := make([]factor.Var, 0, len(vs))
	dirty := make([]int, n)
	dstamp := 0
	for len(order) < len(vs) {
		best := -1
		for _, v := range vs {
			if alive[v] && (best < 0 || score[v] < score[best] || score[v] == score[best] && len(adj[v]) < len(adj[best])) {
				best = v
			}
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
		// Recompute the scores of the vertices within distance two.
		dstamp++
		for _, a := range nb {
			if dirty[a] != dstamp {
				dirty[a] = dstamp
				score[a] = fill(int(a))
			}
			for _, b := range adj[a] {
				if dirty[b] != dstamp {
					dirty[b] = dstamp
					score[b] = fill(int(b))
				}
			}
		}
		adj[best] = nil
	}
	return order
}
