package infer

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pbl-lang/pbl/factor"
)

// This file schedules the cliques of a calibration pass, on one core or
// on several.
//
// A pass visits every clique once, each after the cliques it waits for:
// its children in collect, its parent in distribute. What a clique
// computes depends only on what those cliques sent, in a fixed order, so
// a pass gives the same bits whichever core runs which clique and in
// which order the independent ones run: a tree calibrated on two cores is
// the tree calibrated on one.
//
// On several cores the tree is cut, when it is compiled, into its top (a
// few cliques around the root) and the subtrees hanging from the top
// (chunks), chosen so that the chunks, shared out heaviest first, keep
// the workers equally busy while the top stays light. In collect the
// workers claim chunks one at a time (an atomic counter), each running
// its chunk's cliques children first, and then the calling goroutine
// runs the top; distribute runs the top first. A worker synchronises only
// once per chunk, and a helper that is slow to start (on a loaded
// machine) costs nothing: the caller claims every chunk left. The helpers
// are goroutines started once for the process (parked on a channel while
// there is nothing to do), so that a calibration allocates nothing.

// jtPhase is a pass of a calibration.
type jtPhase int

const (
	phaseCollect         jtPhase = iota // sum-product collect
	phaseCollectMax                     // max-product collect
	phaseDistribute                     // sum-product distribute
	phaseDistributeHomes                // sum-product distribute writing only the home cliques' tables
)

// parMinEntries is the size of a tree, in clique entries, from which a
// pass runs on several cores.
var parMinEntries = 1 << 18

// jtPar is a workspace's state for the parallel passes. mu guards every
// field but sc, next and done.
type jtPar struct {
	sc jtScratch // the calling goroutine's scratch

	next atomic.Int32 // the next chunk to claim
	done atomic.Int32 // chunks finished

	mu      sync.Mutex
	cond    sync.Cond // signalled when a helper finishes a chunk or leaves
	active  bool      // a pass is running
	phase   jtPhase
	cancel  <-chan struct{}
	stop    bool // canceled
	lost    bool // some worker's kernel recorded a lost product
	helpers int  // helpers inside the pass
}

// jtChunks is the cut of a tree for the parallel passes.
type jtChunks struct {
	top    []int32   // the top's cliques, in breadth-first order
	chunks [][]int32 // each chunk's cliques, in breadth-first order; the heaviest chunk first
}

// cutTree cuts the tree for the parallel passes: starting from the
// root's subtrees, it moves the root of the heaviest subtree to the top
// while that lowers the estimated time on two workers (the top's entries
// plus the larger of the two workers' shares, the subtrees dealt out
// heaviest first to the less loaded).
func (t *jtStructure) cutTree() jtChunks {
	k := len(t.order)
	if k == 0 {
		return jtChunks{}
	}
	size := func(c int32) float64 { return float64(t.off[c+1] - t.off[c]) }
	// weight[c]: the entries of c's subtree.
	weight := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		c := t.order[i]
		weight[c] += size(c)
		if pa := t.parent[c]; pa >= 0 {
			weight[pa] += weight[c]
		}
	}
	byWeight := func(a, b int32) int {
		if weight[a] != weight[b] {
			return cmp.Compare(weight[b], weight[a])
		}
		return cmp.Compare(a, b)
	}
	estimate := func(top float64, roots []int32) float64 {
		var w0, w1 float64
		for _, r := range roots {
			if w0 <= w1 {
				w0 += weight[r]
			} else {
				w1 += weight[r]
			}
		}
		return top + max(w0, w1)
	}
	root := t.order[0]
	inTop := []int32{root}
	roots := slices.SortedFunc(slices.Values(t.kids[root]), byWeight)
	topW := size(root)
	best, bestTop := estimate(topW, roots), 1
	var cut []int32 // the top, in the order its cliques joined it
	cut = append(cut, inTop...)
	for step := 0; step < 64 && len(roots) > 0; step++ {
		r := roots[0]
		roots = append(roots[1:], t.kids[r]...)
		slices.SortFunc(roots, byWeight)
		cut = append(cut, r)
		topW += size(r)
		if e := estimate(topW, roots); e < best {
			best, bestTop = e, len(cut)
		}
	}
	isTop := make([]bool, k)
	for _, c := range cut[:bestTop] {
		isTop[c] = true
	}
	// The chunks: the subtrees under the top, heaviest first.
	var ch jtChunks
	var heads []int32
	for _, c := range t.order {
		if isTop[c] {
			ch.top = append(ch.top, c)
			for _, d := range t.kids[c] {
				if !isTop[d] {
					heads = append(heads, d)
				}
			}
		}
	}
	slices.SortFunc(heads, byWeight)
	which := make([]int32, k) // chunk of each clique
	for i, h := range heads {
		which[h] = int32(i)
	}
	ch.chunks = make([][]int32, len(heads))
	for _, c := range t.order {
		if isTop[c] {
			continue
		}
		if pa := t.parent[c]; !isTop[pa] {
			which[c] = which[pa]
		}
		ch.chunks[which[c]] = append(ch.chunks[which[c]], c)
	}
	return ch
}

// run does clique c's part of the phase.
func (t *JTree) run(k *factor.Kernel, w *jtWork, phase jtPhase, c int32, sc *jtScratch) bool {
	switch phase {
	case phaseCollect:
		return t.collectClique(k, w, c, false, sc)
	case phaseCollectMax:
		return t.collectClique(k, w, c, true, sc)
	case phaseDistributeHomes:
		return t.distributeClique(k, w, c, t.isHome[c], sc)
	}
	return t.distributeClique(k, w, c, true, sc)
}

// runList runs the phase over the cliques cs (in breadth-first order):
// backwards in collect, forwards in distribute.
func (t *JTree) runList(k *factor.Kernel, w *jtWork, phase jtPhase, cs []int32, sc *jtScratch) bool {
	n := len(cs)
	for i := range n {
		c := cs[n-1-i]
		if phase >= phaseDistribute {
			c = cs[i]
		}
		if k.Stop() || !t.run(k, w, phase, c, sc) {
			return false
		}
	}
	return true
}

// schedule runs a phase over every clique, each after the cliques it
// waits for (its children in collect, its parent in distribute). It
// reports whether it finished (false if k is canceled) and whether a
// product fell below the normal range in its normalisations.
func (t *JTree) schedule(k *factor.Kernel, w *jtWork, phase jtPhase) (ok, lost bool) {
	w.par.sc.grow(t)
	kl := factor.Kernel{Cancel: k.CancelChan()}
	if n := runtime.GOMAXPROCS(0); n > 1 && len(t.init) >= parMinEntries && len(t.cut.chunks) > 1 {
		return t.scheduleParallel(&kl, w, phase, n-1)
	}
	return t.runList(&kl, w, phase, t.order, &w.par.sc), kl.Lost
}

// scheduleParallel is schedule on the calling goroutine and up to
// helpers helpers.
func (t *JTree) scheduleParallel(kl *factor.Kernel, w *jtWork, phase jtPhase, helpers int) (ok, lost bool) {
	p := &w.par
	top := t.cut.top
	if phase >= phaseDistribute && !t.runList(kl, w, phase, top, &p.sc) {
		return false, false
	}
	p.mu.Lock()
	if p.cond.L == nil {
		p.cond.L = &p.mu
	}
	p.active, p.phase, p.cancel = true, phase, kl.Cancel
	p.stop, p.lost = false, false
	p.next.Store(0)
	p.done.Store(0)
	p.mu.Unlock()
	jtHelpers.call(w, t, helpers)
	t.work(w, &p.sc)
	p.mu.Lock()
	for p.helpers > 0 || int(p.done.Load()) < len(t.cut.chunks) && !p.stop {
		p.cond.Wait()
	}
	p.active = false
	ok, lost = !p.stop, p.lost
	p.mu.Unlock()
	if ok && phase < phaseDistribute {
		ok = t.runList(kl, w, phase, top, &p.sc)
	}
	return ok, lost || kl.Lost
}

// work claims chunks of w's pass and runs them until none is left.
func (t *JTree) work(w *jtWork, sc *jtScratch) {
	p := &w.par
	p.mu.Lock()
	phase := p.phase
	kl := factor.Kernel{Cancel: p.cancel}
	p.mu.Unlock()
	n := int32(len(t.cut.chunks))
	ok := true
	for {
		i := p.next.Add(1) - 1
		if i >= n {
			break
		}
		ok = ok && t.runList(&kl, w, phase, t.cut.chunks[i], sc)
		if p.done.Add(1) == n || !ok {
			p.mu.Lock()
			p.stop = p.stop || !ok
			p.cond.Broadcast()
			p.mu.Unlock()
		}
	}
	p.mu.Lock()
	p.lost = p.lost || kl.Lost
	p.mu.Unlock()
}

// jtHelpers are the goroutines that join the parallel passes.
var jtHelpers helperPool

// helperPool is a set of goroutines, started as they are first needed
// and kept for the life of the process, each waiting for a pass to join.
type helperPool struct {
	mu      sync.Mutex
	started int
	jobs    chan jtJob
}

// jtJob is a pass for a helper to join.
type jtJob struct {
	t *JTree
	w *jtWork
}

// call asks up to n helpers to join the pass running on w, starting
// helpers up to n if fewer are running. A helper busy elsewhere joins
// later, or finds the pass over and leaves.
func (h *helperPool) call(w *jtWork, t *JTree, n int) {
	h.mu.Lock()
	if h.jobs == nil {
		h.jobs = make(chan jtJob, 64)
	}
	for h.started < n {
		h.started++
		go h.serve()
	}
	h.mu.Unlock()
	for range n {
		select {
		case h.jobs <- jtJob{t, w}:
		default:
			return
		}
	}
}

// serve is a helper's life: join every pass it is handed.
func (h *helperPool) serve() {
	var sc jtScratch
	for j := range h.jobs {
		p := &j.w.par
		p.mu.Lock()
		if !p.active || int(p.next.Load()) >= len(j.t.cut.chunks) || p.stop {
			p.mu.Unlock()
			continue
		}
		p.helpers++
		p.mu.Unlock()
		sc.grow(j.t)
		j.t.work(j.w, &sc)
		p.mu.Lock()
		p.helpers--
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}
