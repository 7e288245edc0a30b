package approx

import (
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// TestWMBProposalProperty checks the importance-sampling proposal of a
// weighted mini-bucket run (wmbis.go) on random small networks at an
// i-bound below their width, over every assignment: q sums to 1, q is
// positive wherever the product f is, each weight f/q is at most the
// upper bound of the forward pass the proposal comes from (the property
// its error rests on), and the f it evaluates sums to the brute-force Z.
func TestWMBProposalProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 11))
		n := rapid.IntRange(3, 8).Draw(rt, "n")
		zeros := rapid.SampledFrom([]float64{0, 0, 0.1}).Draw(rt, "zeros")
		var p *Problem
		if rapid.Bool().Draw(rt, "bn") {
			p = wmbRandomBN(r, n, 3, 3, 0.2, zeros)
		} else {
			p = wmbRandomMN(r, n, 2*n, 3, rapid.Float64Range(0.3, 2).Draw(rt, "coupling"), 0.2, zeros)
		}
		ex := propEnumerate(p)
		if math.IsInf(ex.logZ, -1) {
			return
		}
		w := newWMB(p, Settings{})
		if w.impossible {
			return
		}
		ib := rapid.IntRange(1, max(1, w.width)).Draw(rt, "ibound")
		run := w.run(w.plan(max(ib, w.arity)), 3)
		if run == nil {
			rt.Fatalf("no run")
		}
		ref, ok := run.forward(run.weight, true, 0)
		if !ok || math.IsNaN(ref) {
			rt.Fatalf("forward: %v %v", ref, ok)
		}
		q := run.proposal()
		var free []int
		for v, c := range w.card {
			if c > 0 {
				free = append(free, v)
			}
		}
		a := make([]int, len(w.card))
		sumQ, sumF := 0.0, 0.0
		for {
			lq := q.logQ(a, nil)
			lf := q.logF(a)
			sumQ += math.Exp(lq)
			if !math.IsInf(lf, -1) && !(lf-lq <= ref+1e-9*max(1, math.Abs(ref))) {
				rt.Fatalf("weight ln f/q = %v above the bound %v at %v (i-bound %d)", lf-lq, ref, a, run.pl.ibound)
			}
			if !math.IsInf(lf, -1) {
				sumF += math.Exp(lf)
				if math.IsInf(lq, -1) {
					rt.Fatalf("q(%v) = 0 where f > 0", a)
				}
			}
			k := 0
			for k < len(free) {
				v := free[k]
				a[v]++
				if a[v] < w.card[v] {
					break
				}
				a[v] = 0
				k++
			}
			if k == len(free) {
				break
			}
		}
		if !(math.Abs(sumQ-1) <= 1e-9) {
			rt.Fatalf("q sums to %v", sumQ)
		}
		if !(math.Abs(math.Log(sumF)-ex.logZ) <= 1e-9*max(1, math.Abs(ex.logZ))) {
			rt.Fatalf("Σ f = e^%v, brute force Z = e^%v", math.Log(sumF), ex.logZ)
		}
	})
}

// TestWMBImportanceCalibration: where WMB answers ln Z by importance
// sampling (its error below the bounds' half gap), the brute-force ln Z
// lies within the reported error at least 95 % of the time, over 200
// random networks at a low i-bound; and it does so on most of them (the
// test would pass vacuously if the sampling were never used).
func TestWMBImportanceCalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 1))
	used, within, trials := 0, 0, 0
	var gain float64
	for trial := range 200 {
		var p *Problem
		switch trial % 3 {
		case 0:
			p = wmbRandomBN(r, 10, 3, 3, 0.2, 0)
		case 1:
			p = wmbRandomMN(r, 10, 20, 3, 1, 0.2, 0)
		default:
			p = wmbGrid(r, 4, 1, 0.2)
		}
		ex := propEnumerate(p)
		if math.IsInf(ex.logZ, -1) {
			continue
		}
		res, err := WMB(p, Settings{IBound: 2, Samples: 2000, Seed: uint64(trial)})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		wmbCheckResult(t, p, res, ex.logZ)
		trials++
		half := (res.LogZHi - res.LogZLo) / 2
		if res.LogZLo == res.LogZHi || !(res.LogZErr < half) {
			continue // exact at this i-bound, or the midpoint
		}
		used++
		gain += half / res.LogZErr
		if math.Abs(res.LogZ-ex.logZ) <= res.LogZErr {
			within++
		}
	}
	t.Logf("%d networks, %d by importance sampling, %d within their error; the error %.0f× smaller than the half gap on average", trials, used, within, gain/float64(max(used, 1)))
	if used < trials/2 {
		t.Fatalf("importance sampling answered %d of %d networks", used, trials)
	}
	if float64(within) < 0.95*float64(used) {
		t.Fatalf("%d of %d estimates within their error, want ≥ 95 %%", within, used)
	}
}
