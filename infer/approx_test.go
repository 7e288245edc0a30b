package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/pbl-lang/pbl/ir"
)

// approxNames are the approximate engines, as registered.
var approxNames = []string{"cascade", "gibbs", "ijgp", "is", "lbp", "lw", "wmb"}

// calibQueries is how many random queries the calibration test asks each
// engine.
const calibQueries = 200

// calibRuns is how many queries TestApproxCalibration asks each engine:
// calibQueries, or a tenth of them under the race detector, whose run is
// for data races (the numbers are the plain run's to check) and would
// take minutes with them all.
func calibRuns() int {
	if raceEnabled {
		return calibQueries / 10
	}
	return calibQueries
}

// calibNet returns a small random network for the calibration test: a
// Bayesian network of 5 to 8 variables, or, for an engine that takes
// them, a Markov network every other time.
func calibNet(t *testing.T, rng *rand.Rand, markov bool) *ir.Model {
	if markov {
		return randomMarkovPositive(t, rng, 4+rng.IntN(3))
	}
	return randomNet(rng, 5+rng.IntN(4), 3, 2, false).build(t)
}

// randomMarkovPositive is randomMarkov without zeros: a Markov network of
// n variables with random potentials in [0.1, 2.1).
func randomMarkovPositive(t *testing.T, rng *rand.Rand, n int) *ir.Model {
	b := ir.NewBuilder("markov.uai")
	for i := range n {
		b.AddVar(ir.Pos{File: "markov.uai", Line: 1}, fmt.Sprintf("X%d", i), ir.Enum, []string{"0", "1", "2"}[:2+rng.IntN(2)], 0)
	}
	m := b.Model()
	for range n + 2 {
		perm := rng.Perm(n)[:min(1+rng.IntN(3), n)]
		vars := make([]ir.VarID, len(perm))
		size := 1
		for i, v := range perm {
			vars[i] = ir.VarID(v)
			size *= len(m.Vars[v].States)
		}
		vals := make([]float64, size)
		for i := range vals {
			vals[i] = 0.1 + 2*rng.Float64()
		}
		b.AddFactor(ir.Pos{File: "markov.uai", Line: 2}, vars, vals)
	}
	model, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// TestApproxCalibration: over calibQueries random queries on small random
// networks, each approximate engine forced by name, the exact answer
// (enumeration) lies within the reported error of the approximate one for
// at least 95 % of the numbers; no number is NaN or outside [0, 1]. The
// rate per engine is logged.
func TestApproxCalibration(t *testing.T) {
	for _, name := range approxNames {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(29, uint64(len(name))))
			bnOnly := name == "is" || name == "lw"
			in, all, queries, skipped := 0, 0, 0, 0
			infs, sumErr, sumDiff := 0, 0.0, 0.0
			for queries < calibRuns() {
				m := calibNet(t, rng, !bnOnly && rng.IntN(2) == 0)
				q := randomQuery(rng, cards(m))
				want, err := Answer(m, q, Options{Engine: Enum})
				if errors.Is(err, ErrImpossible) || errors.Is(err, ErrUnderflow) {
					skipped++
					continue
				}
				if err != nil {
					t.Fatalf("%s: enumeration: %v", q.Head().Text, err)
				}
				queries++
				// ijgp and wmb are exact when the i-bound holds the
				// network's width: a bound of 2 makes them approximate.
				// Under the race detector the samplers draw a quarter of
				// their default 65,536 samples: wider errors, checked the
				// same way.
				samples := 0
				if bnOnly {
					samples = raceFewer(0, 1<<14)
				}
				got, err := Answer(m, q, Options{Engine: name, Seed: uint64(queries), IBound: 2, Samples: samples})
				if err != nil {
					t.Errorf("%s: %v", q.Head().Text, err)
					continue
				}
				h := got.Head()
				if h.Exact || h.Engine != name || h.Why == nil || !h.Why.Caller {
					t.Errorf("%s: header %+v, want inexact by %s, chosen by the caller", q.Head().Text, h, name)
				}
				gp, _, gs := resultParts(got)
				wp, _, ws := resultParts(want)
				if len(h.ErrorEstimate) != len(gp) {
					t.Errorf("%s: %d errors for %d numbers", q.Head().Text, len(h.ErrorEstimate), len(gp))
					continue
				}
				if fmt.Sprint(gs) != fmt.Sprint(ws) {
					// Rows omitted by one and not the other: every number
					// counts as outside.
					all += len(wp)
					continue
				}
				for i, p := range gp {
					e := h.ErrorEstimate[i]
					if !(p >= 0 && p <= 1) || math.IsNaN(e) || e < 0 {
						t.Errorf("%s: number %d = %v ± %v", q.Head().Text, i, p, e)
					}
					all++
					if math.Abs(p-wp[i]) <= e+1e-9 {
						in++
					}
					if math.IsInf(e, 1) {
						infs++
					} else {
						sumErr += e
					}
					sumDiff += math.Abs(p - wp[i])
				}
			}
			rate := float64(in) / float64(all)
			meanErr := sumErr / float64(max(1, all-infs))
			t.Logf("%s: %d of %d numbers (%.1f %%) within the reported error, over %d queries (%d impossible skipped); mean reported error %.2g (%d unbounded), mean actual error %.2g",
				name, in, all, 100*rate, queries, skipped, meanErr, infs, sumDiff/float64(all))
			if !(rate >= 0.95) {
				t.Errorf("%s: only %.1f %% of the exact numbers within the reported error, want at least 95 %%", name, 100*rate)
			}
			// An error estimate that says nothing would pass the rate:
			// the errors must be informative.
			if !(float64(infs) <= 0.05*float64(all) && meanErr <= 0.1) {
				t.Errorf("%s: %d of %d errors unbounded, the others %.2g on average: not informative", name, infs, all, meanErr)
			}
		})
	}
}

// TestApproxProperty: no approximate engine gives NaN or a number outside
// [0, 1], and every number has an error, on random Bayesian networks
// with random evidence and queries.
func TestApproxProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		name := rapid.SampledFrom(approxNames).Draw(rt, "engine")
		rng := rand.New(rand.NewPCG(seed, 7))
		m := randomNet(rng, 3+rng.IntN(4), 3, 2, rng.IntN(2) == 0).build(t)
		q := randomQuery(rng, cards(m))
		r, err := Answer(m, q, Options{Engine: name, Seed: seed, Samples: 200})
		if err != nil {
			if errors.Is(err, ErrImpossible) || errors.Is(err, ErrUnderflow) {
				return
			}
			rt.Fatalf("%s: %v", q.Head().Text, err)
		}
		ps, logp, _ := resultParts(r)
		if math.IsNaN(logp) || logp > 0 {
			rt.Fatalf("%s: ln P = %v", q.Head().Text, logp)
		}
		for i, p := range ps {
			if !(p >= 0 && p <= 1) {
				rt.Fatalf("%s: number %d = %v", q.Head().Text, i, p)
			}
		}
		if len(r.Head().ErrorEstimate) != len(ps) {
			rt.Fatalf("%s: %d errors for %d numbers", q.Head().Text, len(r.Head().ErrorEstimate), len(ps))
		}
		for _, e := range r.Head().ErrorEstimate {
			if math.IsNaN(e) || e < 0 {
				rt.Fatalf("%s: error %v", q.Head().Text, e)
			}
		}
	})
}

// TestApproxWorkers: the same seed gives the same numbers with 1, 2 and 4
// workers.
func TestApproxWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := randomNet(rng, 8, 3, 2, false).build(t)
	q := &ir.ProbQuery{Star: true, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 7, State: 1}}}}
	for _, name := range approxNames {
		var first []float64
		for _, w := range []int{1, 2, 4} {
			r, err := Answer(m, q, Options{Engine: name, Seed: 9, Workers: w})
			if err != nil {
				t.Fatalf("%s, %d workers: %v", name, w, err)
			}
			ps, _, _ := resultParts(r)
			ps = append(ps, r.Head().ErrorEstimate...)
			if first == nil {
				first = ps
			} else if !slices.Equal(ps, first) {
				t.Errorf("%s: %d workers give %v, 1 worker %v", name, w, ps, first)
			}
		}
	}
}

// gridNet returns an n×n grid of binary variables, each with its upper
// and left neighbours as parents, its tables random: its junction tree
// grows as 2^n.
func gridNet(rng *rand.Rand, n int) netSpec {
	s := newSpec(n * n)
	for v := range n * n {
		s.card[v] = 2
		if v%n > 0 {
			s.parents[v] = append(s.parents[v], v-1)
		}
		if v >= n {
			s.parents[v] = append(s.parents[v], v-n)
		}
		s.randomTable(rng, v, false)
	}
	return s
}

// TestAutoApproximate: on a 16×16 grid whose junction tree is over a
// memory limit of 1 MiB, Auto answers approximately with the planner's
// engine, labelled with the exact plan's refusal; Exact refuses with the
// *TooLargeError; where exact inference fits, Auto stays exact.
func TestAutoApproximate(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	m := gridNet(rng, 16).build(t)
	ev := ir.Conditions{Evidence: []ir.Obs{{Var: 255, State: 1}, {Var: 100, State: 0}}}
	// Under the race detector on a busy machine the cascade had no answer
	// yet after 2 s: ten times the limit there, as in TestAutoTimeLimit.
	opt := Options{MaxMemory: 1 << 20, Seed: 1, TimeLimit: 2 * time.Second}
	if raceEnabled {
		opt.TimeLimit *= 10
	}
	for _, tc := range []struct {
		q      ir.Query
		engine string
	}{
		{&ir.ProbQuery{Targets: ids(0), TargetStates: []int{-1}, Conditions: ev}, "cascade"},
		{&ir.ProbQuery{Star: true, Conditions: ev}, "cascade"},
		{&ir.ProbQuery{Conditions: ev}, "cascade"},
		{&ir.MPEQuery{Conditions: ev}, "ijgp"},
	} {
		r, err := Answer(m, tc.q, opt)
		if err != nil {
			t.Errorf("%T: %v", tc.q, err)
			continue
		}
		h := r.Head()
		var tl *TooLargeError
		if h.Exact || h.Engine != tc.engine || h.Why == nil || h.Why.Caller || h.Why.TooLarge == nil && h.Why.Limit == 0 {
			t.Errorf("%T: header %+v, want approximate by %s for a limit", tc.q, h, tc.engine)
		} else if h.Why.TooLarge != nil {
			tl = h.Why.TooLarge
			t.Logf("%T: %s: %s", tc.q, h.Engine, h.Why)
		}
		_ = tl
		if _, ok := r.(*Assignment); !ok && h.ErrorEstimate == nil {
			t.Errorf("%T: no error estimates", tc.q)
		}
		// The refusal is the memory limit's: the plan is refused before
		// any elimination. A minute rather than the 2 s the approximate
		// engines are given, since under the race detector on a busy
		// machine the planning alone took longer than 2 s.
		eopt := opt
		eopt.Exact, eopt.TimeLimit = true, time.Minute
		_, err = Answer(m, tc.q, eopt)
		var te *TooLargeError
		if !errors.As(err, &te) {
			t.Errorf("%T with Exact: %v, want a *TooLargeError", tc.q, err)
		}
	}
	// Exact inference fits: Auto is exact.
	small := randomNet(rng, 8, 3, 2, false).build(t)
	for range 20 {
		q := randomQuery(rng, cards(small))
		r, err := Answer(small, q, Options{TimeLimit: time.Minute})
		if err == nil && (!r.Head().Exact || r.Head().Engine != "") {
			t.Errorf("%s: Auto answered approximately: %+v", q.Head().Text, r.Head())
		}
	}
}

// TestAutoTimeLimit: with a time limit of 1 s on a grid whose exact
// answer takes far longer, Auto answers approximately within the limit
// and a margin.
func TestAutoTimeLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	m := gridNet(rng, 30).build(t)
	q := &ir.ProbQuery{Star: true, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 899, State: 1}}}}
	limit := time.Second
	if raceEnabled {
		// The race detector slows the engines about tenfold: in half a
		// second the cascade had no answer yet.
		limit *= 10
	}
	start := time.Now()
	r, err := Answer(m, q, Options{TimeLimit: limit, Seed: 1})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if r.Head().Exact {
		t.Errorf("answered exactly")
	}
	if took > limit+time.Second {
		t.Errorf("took %v with a limit of %v", took, limit)
	}
	t.Logf("%v (limit %v): %s, %v", took, limit, r.Head().Engine, r.Head().Why)
}

// TestAutoApproximateGrid: a 12×12 grid under a memory limit of 32 KiB
// (its exact plan, in its rows' order, needs 52.5 KiB),
// a tenth of its variables observed at their MPE states: Auto answers
// P(* | e) approximately, labelled, and at least 95 % of the exact
// marginals (the junction tree's, without the limit) lie within the
// reported errors; the mean Hellinger distance is logged.
func TestAutoApproximateGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	m := gridNet(rng, 12).build(t)
	mpe, err := Answer(m, &ir.MPEQuery{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ev []ir.Obs
	for i, o := range mpe.(*Assignment).Assignment {
		if i%10 == 0 {
			ev = append(ev, o)
		}
	}
	q := &ir.ProbQuery{Star: true, Conditions: ir.Conditions{Evidence: ev}}
	want, err := Answer(m, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Answer(m, q, Options{MaxMemory: 32 << 10, TimeLimit: 2 * time.Second, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	h := got.Head()
	if h.Exact || h.Why == nil || h.Why.Caller {
		t.Fatalf("header %+v, want an approximate answer for a limit", h)
	}
	gp, _, _ := resultParts(got)
	wp, _, _ := resultParts(want)
	if len(gp) != len(wp) || len(h.ErrorEstimate) != len(gp) {
		t.Fatalf("%d numbers, %d errors, exact %d", len(gp), len(h.ErrorEstimate), len(wp))
	}
	in := 0
	for i := range gp {
		if math.Abs(gp[i]-wp[i]) <= h.ErrorEstimate[i]+1e-9 {
			in++
		}
	}
	hell, n, k := 0.0, 0, 0
	for _, mg := range got.(*Marginals).Marginals {
		s := 0.0
		for j := range mg.P {
			d := math.Sqrt(gp[k+j]) - math.Sqrt(wp[k+j])
			s += d * d
		}
		k += len(mg.P)
		hell += math.Sqrt(s / 2)
		n++
	}
	rate := float64(in) / float64(len(gp))
	t.Logf("%s (%s): %.1f %% of %d marginals within the error, mean Hellinger %.3g", h.Engine, h.Why, 100*rate, len(gp), hell/float64(n))
	if !(rate >= 0.95) {
		t.Errorf("only %.1f %% within the reported errors", 100*rate)
	}
}

// TestExactTimeLimit: an exact engine named by the caller, or Auto with
// Exact, under a time limit is stopped at it with a *TimeLimitError (of
// kind ErrCanceled), promptly.
func TestExactTimeLimit(t *testing.T) {
	m := roots(24, 0.3).build(t) // enumeration visits 2^24 assignments
	q := &ir.ProbQuery{Targets: ids(0), TargetStates: []int{-1}}
	limit := 50 * time.Millisecond
	start := time.Now()
	_, err := Answer(m, q, Options{Engine: Enum, TimeLimit: limit})
	took := time.Since(start)
	var tle *TimeLimitError
	if !errors.As(err, &tle) || !errors.Is(err, ErrCanceled) || tle.Limit != limit {
		t.Fatalf("got %v, want a *TimeLimitError of %v", err, limit)
	}
	if took > limit+time.Second {
		t.Errorf("stopped after %v", took)
	}
}

// TestApproxCancel: closing Options.Cancel (Ctrl-C on the command line)
// stops an approximate engine, which answers with its best so far,
// marked Stopped.
func TestApproxCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	m := gridNet(rng, 30).build(t)
	q := &ir.ProbQuery{Star: true, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 899, State: 1}}}}
	cancel := make(chan struct{})
	// Under the race detector on a busy machine Gibbs had no sweep done
	// after 300 ms: ten times that there.
	after := 300 * time.Millisecond
	if raceEnabled {
		after *= 10
	}
	time.AfterFunc(after, func() { close(cancel) })
	start := time.Now()
	r, err := Answer(m, q, Options{Engine: "gibbs", Samples: 1 << 30, Cancel: cancel, Seed: 1})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Head(); !h.Stopped || h.Exact || len(h.ErrorEstimate) == 0 {
		t.Errorf("header %+v, want a stopped approximate answer", h)
	}
	if took > after+3*time.Second {
		t.Errorf("stopped after %v, cancelled at %v", took, after)
	}
}
