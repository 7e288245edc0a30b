package infer

import (
	"runtime"
	"sync"
)

// This file schedules the cliques of a calibration pass, on one core or
// on several.
//
// A pass visits every clique once, each after the cliques it waits for:
// its children in collect, its parent in distribute. What a clique
// computes depends only on what those cliques sent, in a fixed order, so
// a pass gives the same bits whichever core runs which clique and in
// which order the independent ones run: a tree calibrated on two cores is
// the tree calibrated on one. On several cores, the cliques whose
// predecessors are done wait in a queue, the one with the heaviest chain
// of work still depending on it first, and each worker takes the next:
// the calling goroutine and up to GOMAXPROCS-1 helpers. The helpers are
// goroutines started once for the process (parked on a channel while
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
// field but cnt.
type jtPar struct {
	sc jtScratch // the calling goroutine's scratch

	mu      sync.Mutex
	cond    sync.Cond // signalled when the queue grows or the pass ends
	active  bool      // a pass is running
	phase   jtPhase
	cancel  <-chan struct{}
	queue   []int32 // ready cliques: a max-heap on prio
	prio    []float64
	pending []int32 // collect: children of each clique not yet done
	done    int     // cliques done
	stop    bool    // canceled
	lost    bool    // some worker's kernel recorded a lost product
	helpers int     // helpers inside the pass
}

// run does clique c's part of the phase.
func (t *JTree) run(k *kernel, w *jtWork, phase jtPhase, c int32, sc *jtScratch) bool {
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

// schedule runs a phase over every clique, each after the cliques it
// waits for (its children in collect, its parent in distribute). It
// reports whether it finished (false if k is canceled) and whether a
// product fell below the normal range in its normalisations.
func (t *JTree) schedule(k *kernel, w *jtWork, phase jtPhase) (ok, lost bool) {
	w.par.sc.grow(t)
	if n := runtime.GOMAXPROCS(0); n > 1 && len(t.init) >= parMinEntries && len(t.order) > 1 {
		return t.scheduleParallel(k, w, phase, n-1)
	}
	kl := kernel{cancel: k.cancelChan()}
	n := len(t.order)
	for i := range n {
		c := t.order[n-1-i]
		if phase >= phaseDistribute {
			c = t.order[i]
		}
		if kl.stop() || !t.run(&kl, w, phase, c, &w.par.sc) {
			return false, false
		}
	}
	return true, kl.lost
}

// scheduleParallel is schedule on the calling goroutine and up to
// helpers helpers.
func (t *JTree) scheduleParallel(k *kernel, w *jtWork, phase jtPhase, helpers int) (ok, lost bool) {
	p := &w.par
	n := len(t.order)
	p.mu.Lock()
	if p.cond.L == nil {
		p.cond.L = &p.mu
		p.queue = make([]int32, 0, n)
		p.prio = make([]float64, n)
		p.pending = make([]int32, n)
	}
	p.active, p.phase, p.cancel = true, phase, k.cancelChan()
	p.done, p.stop, p.lost = 0, false, false
	p.queue = p.queue[:0]
	if phase >= phaseDistribute {
		// The heaviest chain below a clique.
		copy(p.prio, t.span)
		p.push(t.order[0])
	} else {
		// The heaviest chain from a clique up to the root.
		for _, c := range t.order {
			p.prio[c] = float64(t.off[c+1] - t.off[c])
			if pa := t.parent[c]; pa >= 0 {
				p.prio[c] += p.prio[pa]
			}
			p.pending[c] = int32(len(t.kids[c]))
		}
		for _, c := range t.order {
			if len(t.kids[c]) == 0 {
				p.push(c)
			}
		}
	}
	p.mu.Unlock()
	jtHelpers.call(w, t, helpers)
	t.work(w, &w.par.sc)
	p.mu.Lock()
	for p.helpers > 0 {
		p.cond.Wait()
	}
	p.active = false
	ok, lost = !p.stop, p.lost
	p.mu.Unlock()
	return ok, lost
}

// work takes ready cliques of w's pass and runs them until the pass ends.
func (t *JTree) work(w *jtWork, sc *jtScratch) {
	p := &w.par
	kl := kernel{cancel: p.cancel}
	p.mu.Lock()
	for {
		for len(p.queue) == 0 && p.done < len(t.order) && !p.stop {
			p.cond.Wait()
		}
		if p.done == len(t.order) || p.stop {
			break
		}
		c := p.pop()
		p.mu.Unlock()
		ok := !kl.stop() && t.run(&kl, w, p.phase, c, sc)
		p.mu.Lock()
		if !ok {
			p.stop = true
			p.cond.Broadcast()
			break
		}
		p.done++
		grew := false
		if p.phase >= phaseDistribute {
			for _, d := range t.kids[c] {
				p.push(d)
				grew = true
			}
		} else if pa := t.parent[c]; pa >= 0 {
			if p.pending[pa]--; p.pending[pa] == 0 {
				p.push(pa)
				grew = true
			}
		}
		if grew || p.done == len(t.order) {
			p.cond.Broadcast()
		}
	}
	p.lost = p.lost || kl.lost
	p.mu.Unlock()
}

// push adds c to the ready queue.
func (p *jtPar) push(c int32) {
	p.queue = append(p.queue, c)
	i := len(p.queue) - 1
	for i > 0 {
		up := (i - 1) / 2
		if !p.before(p.queue[i], p.queue[up]) {
			break
		}
		p.queue[i], p.queue[up] = p.queue[up], p.queue[i]
		i = up
	}
}

// pop removes and returns the first clique of the ready queue.
func (p *jtPar) pop() int32 {
	q := p.queue
	c := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < len(q) && p.before(q[l], q[best]) {
			best = l
		}
		if l+1 < len(q) && p.before(q[l+1], q[best]) {
			best = l + 1
		}
		if best == i {
			break
		}
		q[i], q[best] = q[best], q[i]
		i = best
	}
	p.queue = q
	return c
}

// before orders the ready queue: the heavier chain first, then the lower
// clique.
func (p *jtPar) before(a, b int32) bool {
	if p.prio[a] != p.prio[b] {
		return p.prio[a] > p.prio[b]
	}
	return a < b
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
		if !p.active || p.done == len(j.t.order) || p.stop {
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
