package infer

import (
	"sync"
	"sync/atomic"

	"github.com/pbl-lang/pbl/factor"
)

// This file keeps the collect messages of a junction tree without
// evidence, so that a calibration skips the collect pass in the subtrees
// that hold no evidence.
//
// The message a clique sends towards the root in the collect pass depends
// only on its subtree: its initial table and its descendants', and the
// evidence entered in them. A clique whose subtree holds no observed
// variable (no clique of it is restricted) sends the message it sends
// without evidence, with the same exponent, smallest entry and lower
// bound. The first sum-product calibration of a tree runs a collect
// without evidence and keeps those (jtClean); later ones copy them for
// such cliques (w.skip) instead of reading their tables. The distribute
// pass then computes a skipped clique's collect table block by block
// (its initial table times its children's messages, in the order collect
// multiplies them, so bit for bit the same) and multiplies the ratio from
// its parent into it as for any other clique: one pass over its table
// instead of two.
//
// The collect tables without evidence are kept too, where the tree's
// memory limit allows (planTables): a skipped clique's table is then the
// kept one times the ratio from its parent, one product per entry, rather
// than its initial table times each child's message. A table is kept
// lazily, so that a tree asked about one evidence set holds no copy: from
// the tree's second calibration with evidence on, the distribute pass
// writes the collect table it computes for a skipped clique into the kept
// tables too (fillKept), and later calibrations read it there. It is the
// product the collect without evidence computes, by the same function
// from the same numbers, so the answers are bit for bit those computed
// without it.
//
// A clique is never skipped whose collect without evidence took the
// checked path (products that may fall below the normal range), or
// rescaled its table (its collect table is then not the product above
// but a power of two of it, which the distribute pass's bound accounts
// for), or sent a message with an entry below the normal range; nor any
// when that collect lost digits anywhere; nor the root, whose collect
// gives P(e).

// jtClean is a tree's collect pass without evidence.
type jtClean struct {
	mu    sync.Mutex  // held while the pass is made
	ready atomic.Bool // the fields up to total, and kept, are set
	sep   []float64   // the collect messages (laid out as jtWork.sep)
	cexp  []int       // cexp[c]: the exponent taken off c's message
	smin  []float64   // smin[c]: the smallest nonzero entry of c's message
	lo    []float64   // lo[c]: the lower bound of c's collect table's smallest nonzero entry
	use   []bool      // use[c]: c's message may be copied when its subtree holds no evidence
	poff  []int       // poff[c]: the offset of c's collect table in pot, -1 if it is not kept
	total int         // entries of the kept tables

	again atomic.Bool     // a calibration with evidence has marked its skipped cliques
	alloc sync.Once       // allocates pot
	pot   []float64       // the kept collect tables, one after another; nil until the second calibration with evidence (markSkip)
	kept  []atomic.Uint32 // kept[c]: c's kept table is keptEmpty, keptFilling or keptReady
}

// The states of a kept collect table: a workspace that moves one from
// keptEmpty to keptFilling writes it, then marks it keptReady, after which
// every workspace reads it.
const (
	keptEmpty uint32 = iota
	keptFilling
	keptReady
)

// cleanCollect makes t's collect pass without evidence, in w, unless it
// is made already. It reports false if k is canceled (and nothing is
// kept). w's state is then empty.
func (t *JTree) cleanCollect(k *factor.Kernel, w *jtWork) bool {
	cl := &t.clean
	if cl.ready.Load() {
		return true
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.ready.Load() {
		return true
	}
	t.prepare(w, noEvidenceIn(w.obs))
	clear(w.skip)
	ok := t.collect(k, w, false)
	w.state = jtEmpty
	if !ok {
		return false
	}
	n := len(t.cvars)
	cl.sep = append([]float64(nil), w.sep...)
	cl.cexp = append([]int(nil), w.cexp...)
	cl.smin = append([]float64(nil), w.smin...)
	cl.lo = append([]float64(nil), w.lo...)
	cl.use = make([]bool, n)
	for c := range n {
		// A message whose smallest entry fell below the normal range
		// recorded a loss in the kernel, which a copy would not.
		cl.use[c] = t.parent[c] >= 0 && w.fast[c] && !w.scaled[c] && !w.clost[c] && !(w.smin[c] < factor.MinNormal) && !w.lost
	}
	t.planTables()
	cl.ready.Store(true)
	return true
}

// planTables chooses the cliques whose collect tables without evidence
// are kept: those whose message may be copied, as many as the tree's
// memory limit leaves room for beside the tree and one workspace, the
// cliques deepest in the tree first (the most often without evidence
// below them).
func (t *JTree) planTables() {
	cl := &t.clean
	n := len(t.cvars)
	cl.poff = make([]int, n)
	cl.kept = make([]atomic.Uint32, n)
	room := (t.limit - t.memory) / 8
	total := 0
	for i := len(t.order) - 1; i >= 0; i-- {
		c := t.order[i]
		cl.poff[c] = -1
		if size := t.off[c+1] - t.off[c]; cl.use[c] && int64(total+size) <= room {
			cl.poff[c] = total
			total += size
		}
	}
	cl.total = total
}

// keptTable returns clique c's kept collect table, for w's distribute
// pass in which c is skipped, if it is ready to be read (ready is true);
// else, if w may fill it and no other workspace is filling it, the room
// to write it in, which the caller hands to filled once written; else
// nil. (pot is read only after a load of keptReady, or by a workspace
// that allocated it or saw it allocated: never while it is allocated.)
func (t *JTree) keptTable(w *jtWork, c int32) (table []float64, ready bool) {
	cl := &t.clean
	o := cl.poff[c]
	if o < 0 {
		return nil, false
	}
	switch cl.kept[c].Load() {
	case keptReady:
		return cl.pot[o : o+t.off[c+1]-t.off[c]], true
	case keptEmpty:
		if w.fill && w.fixHead[c] < 0 && cl.kept[c].CompareAndSwap(keptEmpty, keptFilling) {
			return cl.pot[o : o+t.off[c+1]-t.off[c]], false
		}
	}
	return nil, false
}

// filled marks clique c's kept table, which w's distribute pass has
// written (or, if ok is false, began to write), ready (or empty).
func (t *JTree) filled(c int32, ok bool) {
	if ok {
		t.clean.kept[c].Store(keptReady)
	} else {
		t.clean.kept[c].Store(keptEmpty)
	}
}

// noEvidenceIn fills obs with -1 and returns it.
func noEvidenceIn(obs []int) []int {
	for v := range obs {
		obs[v] = -1
	}
	return obs
}

// markSkip sets w.skip for the evidence restricted in w: the cliques
// whose subtree holds no restricted clique, whose no-evidence message may
// be used; and w.fill, unless this is the tree's first calibration with
// evidence.
func (t *JTree) markSkip(w *jtWork) {
	cl := &t.clean
	w.fill = false
	if !cl.ready.Load() {
		clear(w.skip)
		return
	}
	if cl.total > 0 && !cl.again.CompareAndSwap(false, true) {
		// Not the tree's first calibration with evidence: the
		// collect tables it computes are kept.
		cl.alloc.Do(func() { cl.pot = make([]float64, cl.total) })
		w.fill = true
	}
	copy(w.skip, cl.use)
	clear(w.dirty)
	for _, c := range w.fixed {
		for x := c; x >= 0 && !w.dirty[x]; x = t.parent[x] {
			w.dirty[x], w.skip[x] = true, false
		}
	}
}

// skipCollect is clique c's collect from the messages kept: it copies the
// message c sends without evidence.
func (t *JTree) skipCollect(w *jtWork, c int32) {
	cl := &t.clean
	copy(t.message(w.sep, c), t.message(cl.sep, c))
	w.cexp[c], w.smin[c], w.lo[c] = cl.cexp[c], cl.smin[c], cl.lo[c]
	w.clost[c], w.fast[c], w.scaled[c] = false, true, false
}
