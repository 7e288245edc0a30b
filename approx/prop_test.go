package approx

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/internal/testrun"
	"pgregory.net/rapid"
)

// propAlgorithms are the propagation algorithms under test.
var propAlgorithms = []struct {
	name string
	run  func(*Problem, Settings) (*Result, error)
}{
	{"lbp", LBP},
	{"ijgp", IJGP},
	{"auto", Auto},
}

// propCases are small problems with their names.
func propCases() []struct {
	name string
	p    *Problem
} {
	rng := rand.New(rand.NewPCG(1, 2))
	chain := &Problem{Card: []int{2, 3, 2, 2}, Obs: []int{-1, -1, -1, 1}}
	for v := range 4 {
		vars := []factor.Var{factor.Var(v)}
		if v > 0 {
			vars = []factor.Var{factor.Var(v - 1), factor.Var(v)}
		}
		chain.Factors = append(chain.Factors, propFactor(chain.Card, vars, func() float64 { return 0.1 + rng.Float64() }))
	}
	// A star tree with a variable in no factor and one that takes no part.
	star := &Problem{Card: []int{3, 2, 2, 2, 0, 2}, Obs: []int{-1, -1, 0, -1, -1, -1}}
	for v := 1; v < 4; v++ {
		star.Factors = append(star.Factors, propFactor(star.Card, []factor.Var{0, factor.Var(v)}, func() float64 { return rng.Float64() }))
	}
	// Evidence that makes states impossible: a deterministic OR.
	or := &Problem{Card: []int{2, 2, 2, 2}, Obs: []int{-1, -1, 1, -1}}
	pa := factor.New([]factor.Var{0}, []int{2})
	pa.Vals[0], pa.Vals[1] = 0.7, 0.3
	pb := factor.New([]factor.Var{1}, []int{2})
	pb.Vals[0], pb.Vals[1] = 0.6, 0.4
	orf := factor.New([]factor.Var{0, 1, 2}, []int{2, 2, 2})
	for a := range 2 {
		for b := range 2 {
			o := a | b
			orf.Vals[orf.Index([]int{a, b, o})] = 1
		}
	}
	pd := propFactor(or.Card, []factor.Var{0, 3}, func() float64 { return 0.2 + rng.Float64() })
	or.Factors = []*factor.Factor{pa, pb, orf, pd}
	or.Likelihood = []*factor.Factor{propFactor(or.Card, []factor.Var{3}, func() float64 { return rng.Float64() })}
	return []struct {
		name string
		p    *Problem
	}{
		{"chain", chain},
		{"star", star},
		{"or", or},
		{"grid2x2", propGrid(rng, 2, 2, 0.5, 1)},
		{"grid3x3", propGrid(rng, 3, 3, 0.5, 1)},
		{"bn", propRandomBN(rng, 10, 3, false, 0.2)},
		{"bnzeros", propRandomBN(rng, 10, 2, true, 0.3)},
		{"mn", propRandomMN(rng, 8, 6, false, 0.1)},
	}
}

// TestAgainstEnumeration checks both algorithms on small problems against
// brute force: IJGP with its default (anytime) bound reaches the induced
// width and is exact; LBP is exact on the trees and within its error
// elsewhere; every LogZ within its error.
func TestAgainstEnumeration(t *testing.T) {
	for _, c := range propCases() {
		ex := propEnumerate(c.p)
		for _, alg := range propAlgorithms {
			res, err := alg.run(c.p, Settings{})
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, alg.name, err)
			}
			propCheckResult(t, c.p, res)
			exact := alg.name == "ijgp" || c.name == "chain" || c.name == "star"
			if exact && !res.Converged {
				t.Errorf("%s %s: not converged", c.name, alg.name)
			}
			for v, m := range ex.marg {
				if m == nil {
					continue
				}
				for i := range m {
					d := math.Abs(res.Marg[v][i] - m[i])
					if exact && !(d <= 1e-9 && res.Err[v][i] == 0) {
						t.Errorf("%s %s: P(%d=%d) = %v ± %v, want %v exactly", c.name, alg.name, v, i, res.Marg[v][i], res.Err[v][i], m[i])
					}
					if !(d <= res.Err[v][i]+1e-9) {
						t.Errorf("%s %s: P(%d=%d) = %v ± %v, want %v", c.name, alg.name, v, i, res.Marg[v][i], res.Err[v][i], m[i])
					}
				}
			}
			if d := math.Abs(res.LogZ - ex.logZ); !(d <= res.LogZErr+1e-9) || exact && !(d <= 1e-9) {
				t.Errorf("%s %s: ln Z = %v ± %v, want %v", c.name, alg.name, res.LogZ, res.LogZErr, ex.logZ)
			}
		}
	}
}

// TestImpossibleEvidence checks that evidence of probability 0 is
// reported as ErrImpossible, whether a factor is zero at it or only the
// propagation of zeros finds it.
func TestImpossibleEvidence(t *testing.T) {
	// x0 = x1 = x2 forced by equality factors; evidence x0=0, x2=1.
	eq := func(a, b factor.Var) *factor.Factor {
		f := factor.New([]factor.Var{a, b}, []int{2, 2})
		f.Vals[0], f.Vals[3] = 1, 1
		return f
	}
	chain := &Problem{Card: []int{2, 2, 2}, Obs: []int{0, -1, 1}, Factors: []*factor.Factor{eq(0, 1), eq(1, 2)}}
	direct := &Problem{Card: []int{2, 2}, Obs: []int{0, 1}, Factors: []*factor.Factor{eq(0, 1)}}
	// A loop of equalities with one inequality: no assignment at all.
	neq := factor.New([]factor.Var{0, 2}, []int{2, 2})
	neq.Vals[1], neq.Vals[2] = 1, 1
	loop := &Problem{Card: []int{2, 2, 2}, Obs: []int{0, -1, -1}, Factors: []*factor.Factor{eq(0, 1), eq(1, 2), neq}}
	for _, c := range []struct {
		name string
		p    *Problem
	}{{"chain", chain}, {"direct", direct}, {"loop", loop}} {
		for _, alg := range propAlgorithms {
			if _, err := alg.run(c.p, Settings{}); !errors.Is(err, ErrImpossible) {
				t.Errorf("%s %s: err = %v, want ErrImpossible", c.name, alg.name, err)
			}
		}
	}
}

// TestStop checks that a deadline in the past, a short one and a closed
// Cancel stop both algorithms at once with an answer (Stopped, no NaN),
// or, for IJGP stopped before its join graph exists, ErrNoAnswer.
func TestStop(t *testing.T) {
	p := propGrid(rand.New(rand.NewPCG(3, 4)), 60, 60, 0.5, 1.5)
	closed := make(chan struct{})
	close(closed)
	for _, c := range []struct {
		name string
		s    Settings
	}{
		{"past", Settings{Deadline: time.Now().Add(-time.Second)}},
		{"short", Settings{Deadline: time.Now().Add(20 * time.Millisecond), Tolerance: 1e-300, MaxIter: 1 << 30}},
		{"cancel", Settings{Cancel: closed}},
		{"anytime", Settings{Deadline: time.Now().Add(300 * time.Millisecond), MaxMemory: 1 << 30}},
	} {
		if c.name == "anytime" {
			// Small enough to be ordered at once, too wide to be exact
			// in time.
			p = propGrid(rand.New(rand.NewPCG(3, 4)), 30, 30, 0.5, 1.5)
		}
		// The race detector slows the algorithms about tenfold: the
		// anytime run gets ten times the time, and so does the bound on
		// how long a stop may take.
		anytime, took := 300*time.Millisecond, 2*time.Second
		if testrun.Race {
			anytime, took = 10*anytime, 10*took
		}
		for _, alg := range propAlgorithms {
			t0 := time.Now()
			if c.name == "anytime" {
				c.s.Deadline = t0.Add(anytime)
			}
			res, err := alg.run(p, c.s)
			if (alg.name == "ijgp" || alg.name == "auto") && errors.Is(err, ErrNoAnswer) && c.name != "anytime" {
				// Stopped while ordering the variables: no join graph
				// yet, so no answer.
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, alg.name, err)
			}
			if el := time.Since(t0); el > took {
				t.Errorf("%s %s: took %v", c.name, alg.name, el)
			}
			if !res.Stopped && !(c.name == "anytime" && alg.name == "lbp") {
				t.Errorf("%s %s: not Stopped", c.name, alg.name)
			}
			propCheckResult(t, p, res)
		}
	}
}

// TestDeterminism checks that the same Settings give the same numbers,
// whatever the number of workers.
func TestDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := propGrid(rng, 7, 7, 0.5, 1)
	for _, alg := range propAlgorithms {
		for _, s := range []Settings{{IBound: 4}, {MaxMemory: 64 << 10}} {
			s.Workers = 1
			a, err := alg.run(p, s)
			if err != nil {
				t.Fatal(err)
			}
			s.Workers = 4
			b, err := alg.run(p, s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %+v: Workers 1 and 4 differ", alg.name, s)
			}
		}
	}
}

// TestProperties checks on random networks (Bayesian and Markov, with
// zeros and evidence) that each row of marginals sums to 1 within [0, 1]
// and no error is NaN, or that the evidence is reported impossible only
// when it is.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		rng := rand.New(rand.NewPCG(seed, 7))
		var p *Problem
		if rapid.Bool().Draw(rt, "bn") {
			p = propRandomBN(rng, rapid.IntRange(1, 9).Draw(rt, "n"), 3, rapid.Bool().Draw(rt, "zeros"), 0.3)
		} else {
			p = propRandomMN(rng, rapid.IntRange(1, 8).Draw(rt, "n"), rapid.IntRange(0, 10).Draw(rt, "m"), rapid.Bool().Draw(rt, "zeros"), 0.2)
		}
		ex := propEnumerate(p)
		s := Settings{IBound: rapid.IntRange(0, 4).Draw(rt, "ibound"), Damping: rapid.Float64Range(-0.5, 0.9).Draw(rt, "damping")}
		for _, alg := range propAlgorithms {
			res, err := alg.run(p, s)
			if errors.Is(err, ErrImpossible) {
				if !math.IsInf(ex.logZ, -1) {
					rt.Fatalf("%s: ErrImpossible on evidence of ln P %v", alg.name, ex.logZ)
				}
				continue
			}
			if err != nil {
				rt.Fatalf("%s: %v", alg.name, err)
			}
			if math.IsInf(ex.logZ, -1) {
				// Propagation may miss an impossibility; its numbers
				// must still be numbers.
				propCheckResult(rt, p, res)
				continue
			}
			propCheckResult(rt, p, res)
		}
	})
}

func BenchmarkLBPGrid20(b *testing.B) {
	p := propGrid(rand.New(rand.NewPCG(20, 20)), 20, 20, 0.5, 1)
	for b.Loop() {
		if _, err := LBP(p, Settings{IBound: 3}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIJGPGrid20(b *testing.B) {
	p := propGrid(rand.New(rand.NewPCG(20, 20)), 20, 20, 0.5, 1)
	for b.Loop() {
		if _, err := IJGP(p, Settings{IBound: 6}); err != nil {
			b.Fatal(err)
		}
	}
}
