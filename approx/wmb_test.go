package approx

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/pbl-lang/pbl/factor"
)

// wmbRandomBN returns a random Bayesian network of n variables (up to
// maxPar parents each, 2 to maxCard states, Dirichlet(1) CPTs, a zero in
// a CPT with probability zeros) with a fraction obs of the variables
// observed at states drawn from the network (so the evidence is possible).
func wmbRandomBN(r *rand.Rand, n, maxPar, maxCard int, obs, zeros float64) *Problem {
	p := &Problem{Card: make([]int, n), Obs: make([]int, n), BN: &Network{CPT: make([]int, n)}}
	for v := range n {
		p.Card[v] = 2 + r.IntN(maxCard-1)
		p.BN.Order = append(p.BN.Order, factor.Var(v))
	}
	sample := make([]int, n)
	for v := range n {
		var par []factor.Var
		for _, u := range r.Perm(v) {
			if len(par) < maxPar && r.IntN(2) == 0 {
				par = append(par, factor.Var(u))
			}
		}
		vars := append(par, factor.Var(v))
		card := make([]int, len(vars))
		for k, u := range vars {
			card[k] = p.Card[u]
		}
		f := factor.New(vars, card)
		cv := p.Card[v]
		for row := 0; row < len(f.Vals); row += cv {
			s := 0.0
			for k := range cv {
				x := -math.Log(1 - r.Float64())
				if r.Float64() < zeros {
					x = 0
				}
				f.Vals[row+k] = x
				s += x
			}
			if s == 0 {
				f.Vals[row] = 1
				s = 1
			}
			for k := range cv {
				f.Vals[row+k] /= s
			}
		}
		// Draw v given its sampled parents.
		st := make([]int, len(vars))
		for k, u := range par {
			st[k] = sample[u]
		}
		base := f.Index(st)
		u, acc := r.Float64(), 0.0
		sample[v] = cv - 1
		for k := range cv {
			acc += f.Vals[base+k]
			if u < acc {
				sample[v] = k
				break
			}
		}
		p.BN.CPT[v] = len(p.Factors)
		p.Factors = append(p.Factors, f)
	}
	for v := range n {
		p.Obs[v] = -1
		if r.Float64() < obs {
			p.Obs[v] = sample[v]
		}
	}
	return p
}

// wmbRandomMN returns a random Markov network: m factors of 1 to 3
// variables with entries exp(N(0, coupling²)) (a zero with probability
// zeros), a fraction obs of the variables observed at random states.
func wmbRandomMN(r *rand.Rand, n, m, maxCard int, coupling, obs, zeros float64) *Problem {
	p := &Problem{Card: make([]int, n), Obs: make([]int, n)}
	for v := range n {
		p.Card[v] = 2 + r.IntN(maxCard-1)
		p.Obs[v] = -1
		if r.Float64() < obs {
			p.Obs[v] = r.IntN(p.Card[v])
		}
	}
	for range m {
		k := 1 + r.IntN(min(3, n))
		perm := r.Perm(n)[:k]
		vars := make([]factor.Var, k)
		card := make([]int, k)
		for i, v := range perm {
			vars[i] = factor.Var(v)
			card[i] = p.Card[v]
		}
		f := factor.New(vars, card)
		for i := range f.Vals {
			f.Vals[i] = math.Exp(coupling * r.NormFloat64())
			if r.Float64() < zeros {
				f.Vals[i] = 0
			}
		}
		p.Factors = append(p.Factors, f)
	}
	return p
}

// wmbGrid returns an n×n binary grid Markov network (Ising-like: fields
// N(0, 0.5²), couplings N(0, coupling²)) with a fraction obs observed.
func wmbGrid(r *rand.Rand, n int, coupling, obs float64) *Problem {
	nv := n * n
	p := &Problem{Card: make([]int, nv), Obs: make([]int, nv)}
	for v := range nv {
		p.Card[v] = 2
		p.Obs[v] = -1
		if r.Float64() < obs {
			p.Obs[v] = r.IntN(2)
		}
		h := 0.5 * r.NormFloat64()
		f := factor.New([]factor.Var{factor.Var(v)}, []int{2})
		f.Vals[0], f.Vals[1] = math.Exp(-h), math.Exp(h)
		p.Factors = append(p.Factors, f)
	}
	edge := func(a, b int) {
		j := coupling * r.NormFloat64()
		f := factor.New([]factor.Var{factor.Var(a), factor.Var(b)}, []int{2, 2})
		f.Vals[0], f.Vals[1], f.Vals[2], f.Vals[3] = math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)
		p.Factors = append(p.Factors, f)
	}
	for i := range n {
		for j := range n {
			if j+1 < n {
				edge(i*n+j, i*n+j+1)
			}
			if i+1 < n {
				edge(i*n+j, (i+1)*n+j)
			}
		}
	}
	return p
}

// wmbCheckResult checks what every WMB answer must satisfy: no NaN,
// bounds around the truth (with a relative slack of 1e-9 for rounding),
// marginal rows in [0, 1] summing to 1, observed variables point masses.
func wmbCheckResult(t interface {
	Helper()
	Fatalf(string, ...any)
}, p *Problem, res *Result, truth float64) {
	t.Helper()
	slack := 1e-9 * max(1, math.Abs(truth))
	if math.IsNaN(res.LogZ) || math.IsNaN(res.LogZErr) || math.IsNaN(res.LogZLo) || math.IsNaN(res.LogZHi) {
		t.Fatalf("NaN in the answer: %+v", res)
	}
	if !(res.LogZLo <= truth+slack) || !(truth <= res.LogZHi+slack) {
		t.Fatalf("ln Z = %v not within [%v, %v] (i-bound %d)", truth, res.LogZLo, res.LogZHi, res.IBound)
	}
	if !(res.LogZLo <= res.LogZ+slack) || !(res.LogZ <= res.LogZHi+slack) {
		t.Fatalf("LogZ %v outside its bounds [%v, %v]", res.LogZ, res.LogZLo, res.LogZHi)
	}
	if res.Engine != "wmb" {
		t.Fatalf("Engine = %q", res.Engine)
	}
	for v, row := range res.Marg {
		if (p.Card[v] > 0) != (row != nil) {
			t.Fatalf("variable %d (card %d): marginal row %v", v, p.Card[v], row)
		}
		s := 0.0
		for k, x := range row {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("Marg[%d][%d] = %v", v, k, x)
			}
			if e := res.Err[v][k]; !(e >= 0) {
				t.Fatalf("Err[%d][%d] = %v", v, k, e)
			}
			s += x
		}
		if row != nil && !(math.Abs(s-1) <= 1e-9) {
			t.Fatalf("Marg[%d] sums to %v", v, s)
		}
		if row != nil && p.Obs[v] >= 0 && row[p.Obs[v]] != 1 {
			t.Fatalf("observed variable %d: marginal %v", v, row)
		}
	}
}

// TestWMBBoundsProperty: on random small Bayesian and Markov networks
// with evidence, at any i-bound, ln Z lies within [LogZLo, LogZHi].
func TestWMBBoundsProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		r := rand.New(rand.NewPCG(seed, 7))
		var p *Problem
		n := rapid.IntRange(1, 9).Draw(rt, "n")
		zeros := rapid.SampledFrom([]float64{0, 0, 0.1, 0.3}).Draw(rt, "zeros")
		obs := rapid.Float64Range(0, 0.5).Draw(rt, "obs")
		if rapid.Bool().Draw(rt, "bn") {
			p = wmbRandomBN(r, n, 3, 3, obs, zeros)
		} else {
			m := rapid.IntRange(1, 3*n).Draw(rt, "m")
			coupling := rapid.Float64Range(0.1, 3).Draw(rt, "coupling")
			p = wmbRandomMN(r, n, m, 3, coupling, obs, zeros)
		}
		if rapid.Bool().Draw(rt, "likelihood") {
			// Soft evidence on a free variable.
			v := r.IntN(n)
			f := factor.New([]factor.Var{factor.Var(v)}, []int{p.Card[v]})
			for k := range f.Vals {
				f.Vals[k] = r.Float64()
			}
			p.Likelihood = append(p.Likelihood, f)
		}
		if rapid.Bool().Draw(rt, "absent") {
			// A variable that takes no part (a real one).
			p.Card = append(p.Card, 0)
			p.Obs = append(p.Obs, -1)
		}
		ib := rapid.IntRange(0, n+1).Draw(rt, "ibound")
		ex := propEnumerate(p)
		truth, want := ex.logZ, ex.marg
		res, err := WMB(p, Settings{IBound: ib})
		if math.IsInf(truth, -1) {
			if err != nil && !errors.Is(err, ErrImpossible) {
				rt.Fatalf("impossible evidence: error %v", err)
			}
			if res != nil && !(res.LogZLo == truth) {
				rt.Fatalf("impossible evidence: lower bound %v", res.LogZLo)
			}
			return
		}
		if err != nil {
			rt.Fatalf("WMB: %v", err)
		}
		wmbCheckResult(rt, p, res, truth)
		if ib != 0 && ib < n {
			return
		}
		// The i-bound covers every order's width: exact.
		if !(math.Abs(res.LogZ-truth) <= 1e-9*max(1, math.Abs(truth))) || res.LogZLo != res.LogZHi {
			rt.Fatalf("i-bound %d ≥ n: ln Z %v [%v, %v], want exactly %v", ib, res.LogZ, res.LogZLo, res.LogZHi, truth)
		}
		for v, row := range want {
			for k, x := range row {
				if !(math.Abs(res.Marg[v][k]-x) <= 1e-9) {
					rt.Fatalf("i-bound %d ≥ n: P(x%d=%d) = %v, want %v", ib, v, k, res.Marg[v][k], x)
				}
			}
		}
	})
}

// TestWMBExactAtFullWidth: with the default i-bound (memory allows the
// full width on small networks) the answer is exact: the bounds meet at
// ln Z and the marginals are the brute-force ones.
func TestWMBExactAtFullWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for trial := range 40 {
		var p *Problem
		if trial%2 == 0 {
			p = wmbRandomBN(r, 4+trial%6, 3, 3, 0.3, 0.05)
		} else {
			p = wmbRandomMN(r, 4+trial%6, 12, 3, 1, 0.3, 0)
		}
		ex := propEnumerate(p)
		truth, want := ex.logZ, ex.marg
		if math.IsInf(truth, -1) {
			continue
		}
		res, err := WMB(p, Settings{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		wmbCheckResult(t, p, res, truth)
		if !(math.Abs(res.LogZ-truth) <= 1e-9*max(1, math.Abs(truth))) || res.LogZLo != res.LogZHi || res.LogZErr != 0 {
			t.Fatalf("trial %d: ln Z %v [%v, %v] ± %v, want exactly %v", trial, res.LogZ, res.LogZLo, res.LogZHi, res.LogZErr, truth)
		}
		for v, row := range want {
			for k, x := range row {
				if !(math.Abs(res.Marg[v][k]-x) <= 1e-9) || res.Err[v][k] != 0 {
					t.Fatalf("trial %d: P(x%d=%d) = %v ± %v, want %v", trial, v, k, res.Marg[v][k], res.Err[v][k], x)
				}
			}
		}
	}
}

// TestWMBTightensWithIBound: on 4×4 grids the upper bound's gap falls as
// the i-bound grows (on average over networks; a single network may not
// be monotone) and vanishes at the full width.
func TestWMBTightensWithIBound(t *testing.T) {
	bounds := []int{2, 3, 4, 5}
	gapHi := make([]float64, len(bounds))
	gapLo := make([]float64, len(bounds))
	const nets = 10
	for seed := range uint64(nets) {
		p := wmbGrid(rand.New(rand.NewPCG(seed, 11)), 4, 1, 0.1)
		truth := propEnumerate(p).logZ
		for k, ib := range bounds {
			res, err := WMB(p, Settings{IBound: ib})
			if err != nil {
				t.Fatal(err)
			}
			wmbCheckResult(t, p, res, truth)
			gapHi[k] += (res.LogZHi - truth) / nets
			gapLo[k] += (truth - res.LogZLo) / nets
		}
	}
	t.Logf("mean gaps by i-bound %v: upper %v, lower %v", bounds, gapHi, gapLo)
	for k := 1; k < len(bounds); k++ {
		if !(gapHi[k] <= gapHi[k-1]+1e-12) {
			t.Errorf("upper gap at i-bound %d is %v, at %d %v", bounds[k], gapHi[k], bounds[k-1], gapHi[k-1])
		}
	}
	if !(gapHi[len(bounds)-1] <= 1e-9) || !(gapLo[len(bounds)-1] <= 1e-9) {
		t.Errorf("at i-bound 5 (a 4×4 grid's width is 4) the gaps are %v and %v", gapHi[len(bounds)-1], gapLo[len(bounds)-1])
	}
	if !(gapHi[0] > 1e-3) {
		t.Errorf("at i-bound 2 the upper gap is %v: the test does not exercise the bound", gapHi[0])
	}
}

// TestWMBMarginalsApproximate: on a loopy grid at a small i-bound, the
// marginals are estimates near the truth (mean absolute error well below
// that of uniform marginals).
func TestWMBMarginalsApproximate(t *testing.T) {
	p := wmbGrid(rand.New(rand.NewPCG(5, 5)), 4, 0.5, 0.2)
	ex := propEnumerate(p)
	truth, want := ex.logZ, ex.marg
	res, err := WMB(p, Settings{IBound: 3})
	if err != nil {
		t.Fatal(err)
	}
	wmbCheckResult(t, p, res, truth)
	var errW, errU float64
	for v, row := range want {
		errW += math.Abs(res.Marg[v][1] - row[1])
		errU += math.Abs(0.5 - row[1])
	}
	t.Logf("mean |error| of P(x=1): wmb %v, uniform %v", errW/16, errU/16)
	if !(errW < errU/3) {
		t.Errorf("wmb's marginals (error %v) are not much better than uniform ones (%v)", errW/16, errU/16)
	}
}

// TestWMBStops: canceled before it starts, WMB has no answer; with a
// deadline it returns bounds in time.
func TestWMBStops(t *testing.T) {
	// Width about 27 given the evidence: never exact within the deadline.
	p := wmbGrid(rand.New(rand.NewPCG(1, 1)), 30, 1, 0.1)
	done := make(chan struct{})
	close(done)
	if _, err := WMB(p, Settings{Cancel: done}); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("canceled: error %v, want ErrNoAnswer", err)
	}
	start := time.Now()
	res, err := WMB(p, Settings{Deadline: start.Add(500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("deadline 500ms: took %v", el)
	}
	if !(res.LogZLo < res.LogZHi) || math.IsNaN(res.LogZ) || math.IsInf(res.LogZHi, 0) || math.IsInf(res.LogZLo, 0) {
		t.Errorf("bounds [%v, %v]", res.LogZLo, res.LogZHi)
	}
	t.Logf("500ms: i-bound %d, ln Z in [%v, %v], %v", res.IBound, res.LogZLo, res.LogZHi, time.Since(start))
}

// TestWMBImpossible: evidence of probability 0 found by the bound is
// ErrImpossible with ln Z = −Inf.
func TestWMBImpossible(t *testing.T) {
	f := factor.New([]factor.Var{0, 1}, []int{2, 2})
	f.Vals = []float64{0.5, 0, 0.5, 0} // x1 is never 1
	p := &Problem{Card: []int{2, 2}, Obs: []int{-1, 1}, Factors: []*factor.Factor{f}}
	res, err := WMB(p, Settings{})
	if !errors.Is(err, ErrImpossible) {
		t.Fatalf("error %v, want ErrImpossible", err)
	}
	if !math.IsInf(res.LogZ, -1) || !math.IsInf(res.LogZHi, -1) {
		t.Errorf("ln Z %v, upper bound %v, want -Inf", res.LogZ, res.LogZHi)
	}
}

// TestWMBAllObserved: with every variable observed, ln Z is the product
// of the factors at the evidence, exactly, under every setting.
func TestWMBAllObserved(t *testing.T) {
	p := wmbRandomBN(rand.New(rand.NewPCG(4, 4)), 6, 2, 3, 1, 0)
	truth := propEnumerate(p).logZ
	for _, s := range []Settings{{}, {IBound: 2}, {Deadline: time.Now().Add(time.Second)}} {
		res, err := WMB(p, s)
		if err != nil {
			t.Fatal(err)
		}
		wmbCheckResult(t, p, res, truth)
		if !(math.Abs(res.LogZ-truth) <= 1e-12) || res.LogZErr != 0 {
			t.Errorf("%+v: ln Z %v ± %v, want %v", s, res.LogZ, res.LogZErr, truth)
		}
	}
}
