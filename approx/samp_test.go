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

// smpSampler is one of the samplers under test.
type smpSampler struct {
	name string
	run  func(*Problem, Settings) (*Result, error)
	bn   bool // Bayesian networks only
}

var smpSamplers = []smpSampler{
	{"lw", LikelihoodWeighting, true},
	{"is", Importance, true},
	{"gibbs", Gibbs, false},
}

// smpChain returns a Markov network over n binary variables tied in a
// chain by pairwise factors tab (4 entries, row-major) with a bias on the
// first variable.
func smpChain(n int, tab []float64) *Problem {
	p := &Problem{Card: make([]int, n), Obs: make([]int, n)}
	for v := range n {
		p.Card[v], p.Obs[v] = 2, -1
	}
	b := factor.New([]factor.Var{0}, []int{2})
	b.Vals[0], b.Vals[1] = 0.3, 0.7
	p.Factors = append(p.Factors, b)
	for v := range n - 1 {
		f := factor.New([]factor.Var{factor.Var(v), factor.Var(v + 1)}, []int{2, 2})
		copy(f.Vals, tab)
		p.Factors = append(p.Factors, f)
	}
	return p
}

// smpWithin checks r against the exact answer: every marginal within
// tol and within 1.6 times its reported error (4 standard errors: the
// reported error is a ~95 % half-width, which one number in twenty may
// exceed; TestSamplersCalibration checks that rate), and ln Z likewise when r
// estimates it.
func smpWithin(t *testing.T, p *Problem, r *Result, tol float64) {
	t.Helper()
	ex := propEnumerate(p)
	marg, logZ := ex.marg, ex.logZ
	if math.IsInf(logZ, -1) {
		t.Fatal("the reference finds the evidence impossible")
	}
	for v, row := range marg {
		for s, want := range row {
			got, e := r.Marg[v][s], r.Err[v][s]
			d := math.Abs(got - want)
			if !(d <= 1.6*e) || !(d <= tol) {
				t.Errorf("%s: P(v%d=%d) = %.5f ± %.5f, exact %.5f", r.Engine, v, s, got, e, want)
			}
		}
	}
	if !math.IsInf(r.LogZErr, 1) && !(math.Abs(r.LogZ-logZ) <= 1.6*r.LogZErr) {
		t.Errorf("%s: ln Z = %.5f ± %.5f, exact %.5f", r.Engine, r.LogZ, r.LogZErr, logZ)
	}
}

// TestSamplersExact checks each smpSampler on fixed problems against
// brute-force enumeration: every marginal within its reported error and
// close, ln Z within its error.
func TestSamplersExact(t *testing.T) {
	type tcase struct {
		name string
		p    func() *Problem
		bn   bool
	}
	randBN := func(seed uint64, n, k int, soft bool) func() *Problem {
		return func() *Problem {
			rng := rand.New(rand.NewPCG(seed, 3))
			p := smpRandBN(rng, n, 3, 0.2)
			if soft {
				smpSoft(rng, p)
			}
			smpObserve(rng, p, k)
			return p
		}
	}
	randMN := func(seed uint64, n, k int) func() *Problem {
		return func() *Problem {
			rng := rand.New(rand.NewPCG(seed, 5))
			p := smpRandMN(rng, n, 2*n, 0.15)
			smpObserve(rng, p, k)
			return p
		}
	}
	cases := []tcase{
		{"bn-prior", randBN(1, 7, 0, false), true},
		{"bn-evidence", randBN(2, 8, 3, false), true},
		{"bn-soft", randBN(3, 8, 2, true), true},
		{"bn-wide", randBN(4, 10, 4, false), true},
		{"mn", randMN(5, 7, 2), false},
		{"mn-noevidence", randMN(6, 6, 0), false},
		{"equality-chain", func() *Problem { return smpChain(8, []float64{1, 0, 0, 1}) }, false},
		{"xor-chain", func() *Problem { return smpChain(8, []float64{0, 1, 1, 0}) }, false},
		{"soft-chain", func() *Problem { return smpChain(10, []float64{2, 1, 1, 3}) }, false},
	}
	for _, tc := range cases {
		for _, sa := range smpSamplers {
			if sa.bn && !tc.bn {
				continue
			}
			t.Run(tc.name+"/"+sa.name, func(t *testing.T) {
				p := tc.p()
				n, tol := 20000, 0.05 // samples; sweeps per chain for gibbs
				if sa.name == "gibbs" {
					n = 2000
				}
				if !testrun.Heavy() {
					n, tol = n/4, 0.1 // -short and -race
				}
				r, err := sa.run(p, Settings{Seed: 7, Samples: n})
				if err != nil {
					t.Fatal(err)
				}
				if r.Engine != sa.name {
					t.Errorf("Engine = %q, want %q", r.Engine, sa.name)
				}
				smpWithin(t, p, r, tol)
			})
		}
	}
}

// TestGibbsDeterministicZeros checks Gibbs sampling on chains of
// equalities and of exclusive ors, whose single-site chains cannot move:
// the variables tied by zeros are one block, the chains mix (R-hat below
// 1.1) and the marginals are those of enumeration.
func TestGibbsDeterministicZeros(t *testing.T) {
	for _, tab := range [][]float64{{1, 0, 0, 1}, {0, 1, 1, 0}} {
		p := smpChain(8, tab)
		p.Obs[3] = 1
		r, err := Gibbs(p, Settings{Seed: 3, Samples: 200})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged || !(r.RHat < 1.1) {
			t.Errorf("%v: R-hat %v, converged %v", tab, r.RHat, r.Converged)
		}
		smpWithin(t, p, r, 1e-9) // the evidence fixes every variable
	}
	// Without evidence the chain has two modes: blocked updates move between them.
	p := smpChain(8, []float64{1, 0, 0, 1})
	r, err := Gibbs(p, Settings{Seed: 3, Samples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged {
		t.Errorf("R-hat %v on the equality chain", r.RHat)
	}
	smpWithin(t, p, r, 0.02)
}

// TestGibbsRHatStuck checks that chains that cannot mix are reported: a
// chain of equalities longer than a block, whose chains stay in the
// modes they start in, gives an R-hat above 1.1 or errors that cover the
// truth.
func TestGibbsRHatStuck(t *testing.T) {
	p := smpChain(12, []float64{1, 0, 0, 1}) // 4096 joint states: two blocks
	r, err := Gibbs(p, Settings{Seed: 1, Samples: 400, Chains: 8})
	if err != nil {
		t.Fatal(err)
	}
	marg := propEnumerate(p).marg
	d := math.Abs(r.Marg[0][1] - marg[0][1])
	t.Logf("R-hat %.3g, P(v0=1) = %.3f ± %.3f, exact %.3f", r.RHat, r.Marg[0][1], r.Err[0][1], marg[0][1])
	if r.Converged && !(d <= r.Err[0][1]) {
		t.Errorf("stuck chains reported converged with an error that misses the truth")
	}
}

// TestSamplersWorkers checks that the numbers depend on the seed only,
// not on the number of workers.
func TestSamplersWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	p := smpRandBN(rng, 12, 3, 0.1)
	smpObserve(rng, p, 4)
	for _, sa := range smpSamplers {
		var first *Result
		for _, w := range []int{1, 2, 4} {
			r, err := sa.run(p, Settings{Seed: 5, Samples: 3000, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = r
				continue
			}
			if !reflect.DeepEqual(r, first) {
				t.Errorf("%s: %d workers give other numbers than 1", sa.name, w)
			}
		}
		r, err := sa.run(p, Settings{Seed: 6, Samples: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(r.Marg, first.Marg) {
			t.Errorf("%s: seeds 5 and 6 give the same numbers", sa.name)
		}
	}
}

// TestSamplersStop checks Deadline and Cancel: no answer before any
// sample, and an answer marked Stopped when time runs out midway.
func TestSamplersStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	p := smpRandBN(rng, 10, 3, 0.1)
	smpObserve(rng, p, 3)
	closed := make(chan struct{})
	close(closed)
	for _, sa := range smpSamplers {
		if _, err := sa.run(p, Settings{Cancel: closed}); !errors.Is(err, ErrNoAnswer) {
			t.Errorf("%s, canceled: err = %v, want ErrNoAnswer", sa.name, err)
		}
		if _, err := sa.run(p, Settings{Deadline: time.Now().Add(-time.Second)}); !errors.Is(err, ErrNoAnswer) {
			t.Errorf("%s, past deadline: err = %v, want ErrNoAnswer", sa.name, err)
		}
		start := time.Now()
		r, err := sa.run(p, Settings{Deadline: start.Add(50 * time.Millisecond)})
		el := time.Since(start)
		if err != nil {
			t.Fatalf("%s, deadline: %v", sa.name, err)
		}
		if !r.Stopped || r.Iterations == 0 || el > time.Second {
			t.Errorf("%s, deadline: Stopped %v after %d iterations, %v", sa.name, r.Stopped, r.Iterations, el)
		}
		smpWithin(t, p, r, 1) // a short run: only its errors must be honest
		// Cancel midway through a long run (Ctrl-C): the answer so far.
		cancel := make(chan struct{})
		tm := time.AfterFunc(30*time.Millisecond, func() { close(cancel) })
		r, err = sa.run(p, Settings{Samples: 1 << 30, Cancel: cancel, Workers: 2})
		tm.Stop()
		if err != nil {
			t.Fatalf("%s, canceled midway: %v", sa.name, err)
		}
		if !r.Stopped || r.Iterations == 0 {
			t.Errorf("%s, canceled midway: Stopped %v after %d iterations", sa.name, r.Stopped, r.Iterations)
		}
		smpWithin(t, p, r, 1) // a short run: only its errors must be honest
	}
}

// TestSamplersImpossible checks evidence of probability 0: ErrImpossible.
func TestSamplersImpossible(t *testing.T) {
	// A -> B with B = A, observed A=0 and B=1.
	a := factor.New([]factor.Var{0}, []int{2})
	a.Vals[0], a.Vals[1] = 0.5, 0.5
	b := factor.New([]factor.Var{0, 1}, []int{2, 2})
	copy(b.Vals, []float64{1, 0, 0, 1})
	c := factor.New([]factor.Var{2}, []int{2})
	c.Vals[0], c.Vals[1] = 0.4, 0.6
	p := &Problem{Card: []int{2, 2, 2}, Obs: []int{0, 1, -1}, Factors: []*factor.Factor{a, b, c},
		BN: &Network{Order: []factor.Var{0, 1, 2}, CPT: []int{0, 1, 2}}}
	q := &Problem{Card: p.Card, Obs: []int{-1, -1, 1}, Factors: p.Factors, BN: p.BN,
		Likelihood: []*factor.Factor{c.Clone()}}
	q.Likelihood[0].Vals[1] = 0 // soft evidence that rules out C's observed state
	// A Markov network with x0 = x1 = x2 and x0 ≠ x2.
	m := smpChain(3, []float64{1, 0, 0, 1})
	ne := factor.New([]factor.Var{0, 2}, []int{2, 2})
	copy(ne.Vals, []float64{0, 1, 1, 0})
	m.Factors = append(m.Factors, ne)
	for _, sa := range smpSamplers {
		for i, pr := range []*Problem{p, q, m} {
			if sa.bn && pr.BN == nil {
				continue
			}
			if _, err := sa.run(pr, Settings{Seed: 1, Samples: 1000}); !errors.Is(err, ErrImpossible) {
				t.Errorf("%s, problem %d: err = %v, want ErrImpossible", sa.name, i, err)
			}
		}
	}
}

// TestSamplersNeedBN checks that the forward smpSamplers refuse a Markov
// network.
func TestSamplersNeedBN(t *testing.T) {
	p := smpChain(3, []float64{1, 2, 3, 4})
	for _, f := range []func(*Problem, Settings) (*Result, error){LikelihoodWeighting, Importance} {
		if _, err := f(p, Settings{}); !errors.Is(err, ErrNotBayesNet) {
			t.Errorf("err = %v, want ErrNotBayesNet", err)
		}
	}
}

// TestSamplersProperties checks, on random networks drawn by rapid, that
// every smpSampler returns numbers in [0, 1] whose rows sum to 1, errors
// that are not NaN, never NaN in ln Z, and either an answer or one of the
// documented errors.
func TestSamplersProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		n := rapid.IntRange(1, 7).Draw(rt, "n")
		bn := rapid.Bool().Draw(rt, "bn")
		zero := rapid.Float64Range(0, 0.6).Draw(rt, "zero")
		rng := rand.New(rand.NewPCG(seed, 1))
		var p *Problem
		if bn {
			p = smpRandBN(rng, n, 3, zero)
		} else {
			p = smpRandMN(rng, n, 1+rng.IntN(2*n), zero)
		}
		k := rapid.IntRange(0, n).Draw(rt, "observed")
		for _, v := range rng.Perm(n)[:k] {
			p.Obs[v] = rng.IntN(p.Card[v]) // possibly impossible
		}
		if rapid.Bool().Draw(rt, "soft") {
			smpSoft(rng, p)
		}
		samples := rapid.IntRange(1, 300).Draw(rt, "samples")
		chains := rapid.IntRange(0, 5).Draw(rt, "chains")
		possible := !math.IsInf(propEnumerate(p).logZ, -1)
		for _, sa := range smpSamplers {
			if sa.bn && !bn {
				continue
			}
			r, err := sa.run(p, Settings{Seed: seed, Samples: samples, Workers: 1 + rng.IntN(3), Chains: chains})
			if err != nil {
				if !errors.Is(err, ErrImpossible) {
					rt.Fatalf("%s: %v", sa.name, err)
				}
				if possible && sa.name == "gibbs" {
					// Gibbs finds a positive state by search: on these
					// small problems it must.
					rt.Fatalf("gibbs: possible evidence found impossible")
				}
				continue
			}
			if !possible {
				rt.Fatalf("%s: an answer to impossible evidence", sa.name)
			}
			if math.IsNaN(r.LogZ) || math.IsNaN(r.LogZErr) || math.IsNaN(r.RHat) {
				rt.Fatalf("%s: NaN in %+v", sa.name, r)
			}
			for v, row := range r.Marg {
				sum := 0.0
				for s, x := range row {
					e := r.Err[v][s]
					if !(x >= 0 && x <= 1) || !(e >= 0) {
						rt.Fatalf("%s: P(v%d=%d) = %v ± %v", sa.name, v, s, x, e)
					}
					sum += x
				}
				if !(math.Abs(sum-1) <= 1e-9) {
					rt.Fatalf("%s: row %d sums to %v", sa.name, v, sum)
				}
			}
		}
	})
}

// smpGrid returns a w×w grid Markov network of binary variables with
// random attractive and repulsive couplings and fields.
func smpGrid(w int, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 9))
	n := w * w
	p := &Problem{Card: make([]int, n), Obs: make([]int, n)}
	for v := range n {
		p.Card[v], p.Obs[v] = 2, -1
		f := factor.New([]factor.Var{factor.Var(v)}, []int{2})
		h := rng.NormFloat64() * 0.5
		f.Vals[0], f.Vals[1] = math.Exp(-h), math.Exp(h)
		p.Factors = append(p.Factors, f)
	}
	pair := func(a, b int) {
		f := factor.New([]factor.Var{factor.Var(a), factor.Var(b)}, []int{2, 2})
		j := rng.NormFloat64() * 0.5
		copy(f.Vals, []float64{math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)})
		p.Factors = append(p.Factors, f)
	}
	for i := range w {
		for j := range w {
			if j+1 < w {
				pair(i*w+j, i*w+j+1)
			}
			if i+1 < w {
				pair(i*w+j, (i+1)*w+j)
			}
		}
	}
	return p
}

// smpRandBN100 returns a random Bayesian network of 100 variables with up
// to 3 parents and 10 observed, like alarm in size.
func smpRandBN100() *Problem {
	rng := rand.New(rand.NewPCG(100, 100))
	p := smpRandBN(rng, 100, 3, 0.05)
	for _, v := range rng.Perm(100)[:10] {
		p.Obs[v] = 0
	}
	return p
}

// BenchmarkLWAlarmLike is likelihood weighting's 65536 samples (the
// default) on a random 100-variable network with 10 observed.
func BenchmarkLWAlarmLike(b *testing.B) {
	p := smpRandBN100()
	for b.Loop() {
		if _, err := LikelihoodWeighting(p, Settings{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkISAlarmLike is importance sampling's learning and 65536 final
// samples on the same network.
func BenchmarkISAlarmLike(b *testing.B) {
	p := smpRandBN100()
	for b.Loop() {
		if _, err := Importance(p, Settings{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGibbsGrid20 is Gibbs sampling's 4 chains of 1000 sweeps (the
// default) on a 20×20 binary grid.
func BenchmarkGibbsGrid20(b *testing.B) {
	p := smpGrid(20, 1)
	for b.Loop() {
		if _, err := Gibbs(p, Settings{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
