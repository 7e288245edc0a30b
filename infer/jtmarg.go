package infer

import (
	"fmt"
	"math"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// Marginals writes into dst[v], for every variable v with dst[v] != nil, the
// posterior of v given the evidence obs, dst[v][s] = P(v = s | e), and
// returns ln P(e), finite even where P(e) underflows float64. obs is
// indexed by VarID: a state, or -1 for an unobserved variable (an observed
// variable's posterior is 1 at its state).
//
// It is the way to ask for posteriors given many evidence sets on one
// compiled tree: it allocates nothing, the calibration working in a
// workspace the tree keeps (allocated by the first query) and writing only
// into dst. Where the calibration loses digits (products below float64's
// normal range) the posteriors come from exact variable elimination,
// which allocates.
//
// Evidence of probability 0 returns an *ir.Error (at the model's file)
// whose kind is [ErrImpossible], and leaves dst unchanged. Marginals
// panics if len(obs) or len(dst) is not the number of variables, if a
// state is out of range or a real variable observed, or if dst[v] is not
// nil for a real variable or has another length than v's number of
// states. It is safe for concurrent use: each call takes a workspace of
// its own.
func (t *JTree) Marginals(obs []int, dst [][]float64) (logPE float64, err error) {
	t.checkObs("Marginals", obs)
	if len(dst) != len(t.card) {
		panic(fmt.Sprintf("infer: Marginals: %d tables for %d variables", len(dst), len(t.card)))
	}
	for v, d := range dst {
		if d != nil && (t.card[v] == 0 || len(d) != t.card[v]) {
			panic(fmt.Sprintf("infer: Marginals: a table of %d entries for %s, which has %d states", len(d), ir.Quote(t.m.Vars[v].Name), t.card[v]))
		}
	}
	w := t.get()
	defer t.put(w)
	var k factor.Kernel
	pos := ir.Pos{File: t.m.Source}
	t.ensure(&k, pos, w, obs, jtHomes) // never canceled
	if w.lost {
		return t.marginalsVE(obs, dst, w)
	}
	pe := t.pe(w)
	if pe.M == 0 {
		return math.Inf(-1), impossible(pos, t.m, obsList(obs))
	}
	for v, d := range dst {
		if d != nil {
			t.marginal(w, ir.VarID(v), d)
		}
	}
	if t.bayes {
		return min(0, pe.Log()), nil
	}
	return t.logPMarkov(pe, w)
}

// logPMarkov returns ln P(e) = ln pe - ln Z on a Markov network; the first
// call computes Z in w, which then no longer holds its calibration.
func (t *JTree) logPMarkov(pe factor.Scaled, w *jtWork) (float64, error) {
	t.zmu.Lock()
	z, ok := t.z, t.zok
	t.zmu.Unlock()
	if !ok {
		var err error
		if z, err = t.partition(factor.NewKernel(nil), ir.Pos{File: t.m.Source}, w); err != nil {
			return 0, err
		}
	}
	return min(0, pe.Log()-z.Log()), nil
}

// marginalsVE is Marginals by variable elimination, one variable at a
// time, for a calibration that lost digits.
func (t *JTree) marginalsVE(obs []int, dst [][]float64, w *jtWork) (float64, error) {
	return t.eachVE(obs, dst, w, func(r *ve, v int, d []float64) error {
		f, _, err := r.Joint([]ir.VarID{ir.VarID(v)})
		if err != nil {
			return err
		}
		norm := sum(f.Vals)
		for s, x := range f.Vals {
			d[s] = prob(x / norm)
		}
		return nil
	})
}
