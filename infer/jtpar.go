package infer

// This file schedules the cliques of a calibration pass.

// jtPhase is a pass of a calibration.
type jtPhase int

const (
	phaseCollect    jtPhase = iota // sum-product collect
	phaseCollectMax                // max-product collect
	phaseDistribute                // sum-product distribute
)

// jtPar is a workspace's state for the parallel calibration.
type jtPar struct {
	cnt []int // the sequential pass's scratch
}

// run does clique c's part of the phase.
func (t *JTree) run(k *kernel, w *jtWork, phase jtPhase, c int32, cnt []int) bool {
	switch phase {
	case phaseCollect:
		return t.collectClique(k, w, c, false, cnt)
	case phaseCollectMax:
		return t.collectClique(k, w, c, true, cnt)
	}
	return t.distributeClique(k, w, c, cnt)
}

// schedule runs a phase over every clique, each after the cliques it
// waits for (its children in collect, its parent in distribute). It
// reports whether it finished (false if k is canceled) and whether a
// product fell below the normal range in its normalisations.
func (t *JTree) schedule(k *kernel, w *jtWork, phase jtPhase) (ok, lost bool) {
	kl := kernel{cancel: k.cancelChan()}
	if w.par.cnt == nil {
		w.par.cnt = make([]int, t.maxVars)
	}
	n := len(t.order)
	for i := range n {
		c := t.order[n-1-i]
		if phase == phaseDistribute {
			c = t.order[i]
		}
		if kl.stop() || !t.run(&kl, w, phase, c, w.par.cnt) {
			return false, false
		}
	}
	return true, kl.lost
}
