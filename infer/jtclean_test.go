package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestJTCleanIdentical: a calibration that copies the no-evidence collect
// messages of the subtrees without evidence (jtclean.go) gives every
// marginal and ln P(e) bit for bit as one that computes them, on
// Bayesian and Markov networks, on one core and on two, and skips some
// cliques (the test would otherwise prove nothing).
func TestJTCleanIdentical(t *testing.T) {
	defer func(n int) { parMinEntries = n }(parMinEntries)
	rng := rand.New(rand.NewPCG(18, 18))
	nets := []struct {
		name string
		m    *ir.Model
	}{
		{"bayes", localNet(rng, 120, 3, 6).build(t)},
		{"bayes-zeros", randomNet(rng, 40, 3, 3, true).build(t)},
		{"markov", randomMarkov(t, rng, 12)},
	}
	for _, net := range nets {
		for _, par := range []int{1 << 62, 0} {
			parMinEntries = par
			what := fmt.Sprintf("%s (parallel from %d entries)", net.name, par)
			m := net.m
			skip, full := mustCompile(t, m), mustCompile(t, m)
			ds, df := allMarginals(m), allMarginals(m)
			none := obsRow(len(m.Vars), nil)
			skip.Marginals(none, ds) // the no-evidence collect is made
			full.Marginals(none, df)
			clear(full.clean.use) // full never copies a message
			skipped := 0
			for range 30 {
				obs := obsRow(len(m.Vars), randomStates(rng, cards(m), 1+rng.IntN(3)))
				ls, es := skip.Marginals(obs, ds)
				lf, ef := full.Marginals(obs, df)
				if (es == nil) != (ef == nil) {
					t.Fatalf("%s, evidence %v: errors %v and %v", what, obs, es, ef)
				}
				w := skip.get()
				for _, s := range w.skip {
					if s {
						skipped++
					}
				}
				skip.put(w)
				if es != nil {
					continue
				}
				if math.Float64bits(ls) != math.Float64bits(lf) {
					t.Errorf("%s, evidence %v: ln P(e) %v, without copies %v", what, obs, ls, lf)
				}
				for v := range ds {
					for s := range ds[v] {
						if math.Float64bits(ds[v][s]) != math.Float64bits(df[v][s]) {
							t.Fatalf("%s, evidence %v: P(%d=%d | e) = %v, without copies %v", what, obs, v, s, ds[v][s], df[v][s])
						}
					}
				}
			}
			if skipped == 0 {
				t.Errorf("%s: no clique was skipped", what)
			}
		}
	}
}
