package approx_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/approx"
	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/testrun"
	"github.com/pbl-lang/pbl/ir"
)

// This file checks the samplers on networks of the corpus, against the
// exact answers of pbl's junction tree (infer.Compile): importance
// sampling against likelihood weighting on unlikely evidence.

// sampCorpus returns the path of the corpus network bif/name.bif, skipping
// the test when the corpus (../../shared/corpus or $PBL_CORPUS) is absent.
func sampCorpus(tb testing.TB, name string) string {
	tb.Helper()
	d := os.Getenv("PBL_CORPUS")
	if d == "" {
		d = "../../shared/corpus"
	}
	path := filepath.Join(d, "bif", name+".bif")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("corpus network not found (set PBL_CORPUS): %v", err)
	}
	return path
}

// sampProblem returns the Problem of a Bayesian network m with the
// evidence obs: m's CPTs as factors, in a topological order.
func sampProblem(m *ir.Model, obs []int) *approx.Problem {
	n := len(m.Vars)
	p := &approx.Problem{Card: make([]int, n), Obs: obs, BN: &approx.Network{CPT: make([]int, n)}}
	for v, x := range m.Vars {
		p.BN.CPT[v] = -1
		if x.Discrete() {
			p.Card[v] = x.Card()
		}
		if f := m.Factor(ir.VarID(v)); f != nil {
			p.BN.CPT[v] = len(p.Factors)
			p.Factors = append(p.Factors, f)
		}
	}
	done := make([]bool, n)
	for len(p.BN.Order) < n {
		for v := range n {
			if done[v] {
				continue
			}
			ready := true
			for _, u := range m.Parents[v] {
				ready = ready && done[u]
			}
			if ready {
				done[v] = true
				p.BN.Order = append(p.BN.Order, factor.Var(v))
			}
		}
	}
	return p
}

// sampUnlikely returns evidence on k variables of m, each observed at the
// least probable state that keeps the evidence possible, chosen greedily
// given the evidence so far; the exact marginals given it and ln P(e).
func sampUnlikely(tb testing.TB, t *infer.JTree, m *ir.Model, k int, seed uint64) ([]int, [][]float64, float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := len(m.Vars)
	obs := make([]int, n)
	for v := range obs {
		obs[v] = -1
	}
	marg := func() ([][]float64, float64) {
		dst := make([][]float64, n)
		for v := range dst {
			dst[v] = make([]float64, m.Vars[v].Card())
		}
		lpe, err := t.Marginals(obs, dst)
		if err != nil {
			tb.Fatal(err)
		}
		return dst, lpe
	}
	for _, v := range rng.Perm(n)[:k] {
		cur, _ := marg()
		best := -1
		for s, p := range cur[v] {
			if p > 1e-6 && (best < 0 || p < cur[v][best]) {
				best = s
			}
		}
		obs[v] = best
	}
	dst, lpe := marg()
	return obs, dst, lpe
}

// sampMeanErr returns the mean absolute error of r's marginals of the
// unobserved variables and the largest.
func sampMeanErr(r *approx.Result, exact [][]float64, obs []int) (mean, worst float64) {
	n := 0
	for v, row := range exact {
		if obs[v] >= 0 {
			continue
		}
		for s, p := range row {
			d := math.Abs(r.Marg[v][s] - p)
			if math.IsNaN(d) {
				d = math.Inf(1)
			}
			mean += d
			worst = max(worst, d)
			n++
		}
	}
	return mean / float64(n), worst
}

// TestImportanceBeatsLW compares adaptive importance sampling with
// likelihood weighting on networks of the corpus with 15 variables
// observed at unlikely states, given the same number of samples: its
// marginals' mean error must be at most half of likelihood weighting's,
// and its ln P(e) closer.
func TestImportanceBeatsLW(t *testing.T) {
	nets, nq := []string{"alarm", "hepar2"}, 3
	if !testrun.Heavy() {
		nets, nq = nets[:1], 1
	}
	for _, name := range nets {
		t.Run(name, func(t *testing.T) {
			m, err := bif.ReadFile(sampCorpus(t, name))
			if err != nil {
				t.Fatal(err)
			}
			jt, err := infer.Compile(m, infer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var sumLW, sumIS, sumEP float64
			for q := range nq {
				obs, exact, lpe := sampUnlikely(t, jt, m, 15, uint64(q))
				p := sampProblem(m, obs)
				s := approx.Settings{Seed: 1, Samples: 20000}
				run := func(name string, f func(*approx.Problem, approx.Settings) (*approx.Result, error), s approx.Settings) float64 {
					start := time.Now()
					r, err := f(p, s)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					mean, worst := sampMeanErr(r, exact, obs)
					t.Logf("query %d (ln P(e) = %.2f): %-7s mean error %.5f, worst %.4f, ln Z %.2f ± %.2f, %v", q, lpe, name, mean, worst, r.LogZ, r.LogZErr, time.Since(start).Round(time.Millisecond))
					return mean
				}
				sumLW += run("lw", approx.LikelihoodWeighting, s)
				sumIS += run("is", approx.Importance, s)
				s.Init = exact
				sumEP += run("is+init", approx.Importance, s)
			}
			if !(sumIS <= sumLW/2) {
				t.Errorf("importance sampling's mean error %.5f, more than half of likelihood weighting's %.5f", sumIS/float64(nq), sumLW/float64(nq))
			}
			if !(sumEP <= sumLW/2) {
				t.Errorf("importance sampling from beliefs: mean error %.5f, more than half of likelihood weighting's %.5f", sumEP/float64(nq), sumLW/float64(nq))
			}
		})
	}
}

// TestImportanceZeros checks importance sampling where the evidence meets
// deterministic zeros of the CPTs: on insurance with 15 findings at
// unlikely states, every sample of likelihood weighting has weight 0
// (ErrImpossible), while importance sampling's evidence messages find the
// posterior; its marginals must lie within their reported errors (at least
// 90 % of them: one query) and ln P(e) within its error.
func TestImportanceZeros(t *testing.T) {
	if !testrun.Heavy() {
		t.Skip("heavy: a corpus network")
	}
	m, err := bif.ReadFile(sampCorpus(t, "insurance"))
	if err != nil {
		t.Fatal(err)
	}
	jt, err := infer.Compile(m, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs, exact, lpe := sampUnlikely(t, jt, m, 15, 101)
	p := sampProblem(m, obs)
	s := approx.Settings{Seed: 1, Samples: 5000}
	if _, err := approx.LikelihoodWeighting(p, s); !errors.Is(err, approx.ErrImpossible) {
		t.Logf("likelihood weighting: err = %v (the case no longer needs evidence messages)", err)
	}
	r, err := approx.Importance(p, s)
	if err != nil {
		t.Fatalf("ln P(e) = %.1f: %v", lpe, err)
	}
	in, n := 0, 0
	for v, row := range exact {
		if obs[v] >= 0 {
			continue
		}
		for s, x := range row {
			n++
			if math.Abs(r.Marg[v][s]-x) <= r.Err[v][s] {
				in++
			}
		}
	}
	mean, worst := sampMeanErr(r, exact, obs)
	t.Logf("ln P(e) = %.2f, estimate %.2f ± %.2f; mean error %.4f, worst %.4f; %d of %d within their error", lpe, r.LogZ, r.LogZErr, mean, worst, in, n)
	if !(float64(in) >= 0.9*float64(n)) || !(math.Abs(r.LogZ-lpe) <= r.LogZErr) {
		t.Errorf("errors not covered")
	}
}
