package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// allMarginals returns a dst for Marginals with a table for every discrete
// variable.
func allMarginals(m *ir.Model) [][]float64 {
	dst := make([][]float64, len(m.Vars))
	for v := range dst {
		if m.Discrete(ir.VarID(v)) {
			dst[v] = make([]float64, len(m.Vars[v].States))
		}
	}
	return dst
}

// TestJTMarginalsEnum: on random Bayesian networks (with zeros in their
// tables) and Markov networks, Marginals gives enumeration's posteriors
// and ln P(e) to 1e-9, and refuses the same evidence of probability 0.
func TestJTMarginalsEnum(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	impossibles := 0
	for net := range 80 {
		var m *ir.Model
		if net%4 == 3 {
			m = randomMarkov(t, rng, 3+rng.IntN(6))
		} else {
			m = randomNet(rng, 3+rng.IntN(7), 4, 3, net%2 == 0).build(t)
		}
		jt := mustCompile(t, m)
		dst := allMarginals(m)
		for k := range 6 {
			ev := randomStates(rng, cards(m), rng.IntN(4))
			what := fmt.Sprintf("net %d, evidence %v", net, ev)
			want, werr := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, Options{Engine: Enum})
			wpe, perr := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{Engine: Enum})
			lp, err := jt.Marginals(obsRow(len(m.Vars), ev), dst)
			if werr != nil || err != nil || perr != nil {
				// Impossible evidence (P(e) = 0, or a Markov network
				// whose every assignment weighs 0).
				if !errors.Is(werr, ErrImpossible) || !errors.Is(err, ErrImpossible) || perr == nil && wpe.(*Evidence).P != 0 || perr != nil && !errors.Is(perr, ErrImpossible) {
					t.Fatalf("%s: enumeration: %v, P(e): %v, %v; Marginals: %v", what, werr, wpe, perr, err)
				}
				impossibles++
				continue
			}
			if !(math.Abs(lp-wpe.(*Evidence).LogP) <= 1e-9*max(1, math.Abs(wpe.(*Evidence).LogP))) {
				t.Errorf("%s: ln P(e) %v, enumeration %v", what, lp, wpe.(*Evidence).LogP)
			}
			for _, mg := range want.(*Marginals).Marginals {
				for s, p := range mg.P {
					if !(math.Abs(dst[mg.Var][s]-p) <= 1e-9) {
						t.Fatalf("%s, try %d: P(%s=%d | e) = %v, enumeration %v", what, k, m.Vars[mg.Var].Name, s, dst[mg.Var][s], p)
					}
				}
			}
			for _, o := range ev {
				for s, p := range dst[o.Var] {
					if want := float64(b2i(s == o.State)); p != want {
						t.Fatalf("%s: observed %s has posterior %v", what, m.Vars[o.Var].Name, dst[o.Var])
					}
				}
			}
		}
	}
	if impossibles == 0 {
		t.Error("no evidence set was impossible: that path is untested")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestJTMarginalsCorpus: on corpus networks, Marginals agrees with VE to
// 1e-9 on P(e) (relatively) and on the posteriors of a sample of
// variables, for random evidence.
func TestJTMarginalsCorpus(t *testing.T) {
	corpus(t)
	nets := []string{"alarm", "hepar2", "win95pts", "insurance", "hailfinder", "pathfinder", "andes", "water", "mildew", "pigs", "munin", "link"}
	if !heavy() {
		nets = nets[:3]
	}
	for _, name := range nets {
		t.Run(name, func(t *testing.T) {
			m := readCorpus(t, name)
			jt := mustCompile(t, m)
			rng := rand.New(rand.NewPCG(13, 13))
			dst := allMarginals(m)
			for range 2 {
				ev := randomEvidence(rng, m, 5)
				lp, err := jt.Marginals(obsRow(len(m.Vars), ev), dst)
				if err != nil {
					t.Fatal(err)
				}
				vpe, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{Engine: VE})
				if err != nil {
					t.Fatal(err)
				}
				if !(math.Abs(lp-vpe.(*Evidence).LogP) <= 1e-9*max(1, math.Abs(vpe.(*Evidence).LogP))) {
					t.Errorf("evidence %v: ln P(e) %v, VE %v", ev, lp, vpe.(*Evidence).LogP)
				}
				obs := obsRow(len(m.Vars), ev)
				for _, v := range rng.Perm(len(m.Vars))[:min(8, len(m.Vars))] {
					if obs[v] >= 0 {
						continue
					}
					r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{ir.VarID(v)}, TargetStates: []int{-1}}, Options{Engine: VE})
					if err != nil {
						t.Fatal(err)
					}
					for s, row := range r.(*Table).Rows {
						if !(math.Abs(dst[v][s]-row.P) <= 1e-9) {
							t.Fatalf("evidence %v: P(%s=%s | e) = %v, VE %v", ev, m.Vars[v].Name, m.Vars[v].States[s], dst[v][s], row.P)
						}
					}
				}
			}
		})
	}
}

// TestJTMarginalsAllocs: once a tree has a workspace, a query for every
// posterior given a new evidence set allocates nothing, on one core and
// on two (the parallel passes forced on).
func TestJTMarginalsAllocs(t *testing.T) {
	defer func(n int) { parMinEntries = n }(parMinEntries)
	rng := rand.New(rand.NewPCG(14, 14))
	nets := map[string]*ir.Model{
		"bayes":  localNet(rng, 200, 3, 8).build(t),
		"markov": randomMarkov(t, rng, 12),
	}
	for name, m := range nets {
		jt := mustCompile(t, m)
		dst := allMarginals(m)
		var obs [][]int
		for len(obs) < 8 {
			// Possible evidence (an impossible set returns an error,
			// which allocates).
			row := obsRow(len(m.Vars), randomStates(rng, cards(m), 3))
			if _, err := jt.Marginals(row, dst); err == nil {
				obs = append(obs, row)
			}
		}
		for _, par := range []int{1 << 62, 0} {
			parMinEntries = par
			i := 0
			allocs := testing.AllocsPerRun(50, func() {
				// Alternate evidence sets so that every run
				// recalibrates.
				jt.Marginals(obs[i%len(obs)], dst)
				i++
			})
			if allocs != 0 {
				t.Errorf("%s (parallel from %d entries): %v allocations per evidence set", name, par, allocs)
			}
		}
	}
}

// BenchmarkJTMarginals measures one evidence update (five observed
// variables) and every posterior through Marginals, which allocates
// nothing; with -cpu 1,2 it gives the one- and two-core figures. ns/entry
// is the wall time per clique-table entry, cpu-ns/op the process's CPU
// time per evidence set (what a single-threaded run spent computing, on a
// machine shared with other work).
func BenchmarkJTMarginals(b *testing.B) {
	for _, name := range jtBenchNets {
		b.Run(name, func(b *testing.B) {
			jt := compiledCorpus(b, name)
			var obs [][]int
			for _, ev := range benchEvidence(jt.m) {
				obs = append(obs, obsRow(len(jt.m.Vars), ev))
			}
			dst := allMarginals(jt.m)
			// The workspace, and the collect tables a tree keeps from
			// its second evidence set on (jtclean.go): every set once,
			// the first iteration's not last (it would otherwise find
			// its answer calibrated already).
			for _, o := range obs {
				jt.Marginals(o, dst)
			}
			b.ReportAllocs()
			i := 0
			cpu := cpuTime()
			for b.Loop() {
				// Alternate evidence sets so that every iteration
				// recalibrates.
				if _, err := jt.Marginals(obs[i%len(obs)], dst); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(jt.init)), "ns/entry")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
