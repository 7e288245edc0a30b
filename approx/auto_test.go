package approx

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// autoBipartite returns a complete bipartite Markov network of a + b
// variables of 2 or 3 states (pairwise factors between the sides, a unary
// on each variable; with zeros, about one entry in ten is 0), about frac
// of the variables observed.
func autoBipartite(rng *rand.Rand, a, b int, zeros bool, frac float64) *Problem {
	p := propRandomMN(rng, a+b, 0, zeros, frac)
	gen := func() float64 {
		if zeros && rng.IntN(10) == 0 {
			return 0
		}
		return math.Exp(rng.NormFloat64())
	}
	for i := range a {
		for j := a; j < a+b; j++ {
			p.Factors = append(p.Factors, propFactor(p.Card, []factor.Var{factor.Var(i), factor.Var(j)}, gen))
		}
	}
	return p
}

// TestCutsetAgainstEnumeration checks the cutset enumeration's marginals
// and ln Z against brute-force enumeration, on bipartite networks (the
// cutset one side) and on random networks with factors of 2 and 3
// variables (any cutset the greedy choice finds isolates the rest), a third
// of them with soft evidence.
func TestCutsetAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for k := range 24 {
		var p *Problem
		if k%2 == 0 {
			p = autoBipartite(rng, 3+rng.IntN(4), 3+rng.IntN(4), k%4 == 0, 0.2)
		} else {
			p = propRandomMN(rng, 9, 10, k%4 == 1, 0.2)
		}
		if k%3 == 0 {
			smpSoft(rng, p)
		}
		ex := propEnumerate(p)
		r, err := propReduce(p)
		if err != nil {
			if !math.IsInf(ex.logZ, -1) {
				t.Fatalf("case %d: %v, exact ln Z %v", k, err, ex.logZ)
			}
			continue
		}
		res, err := cutsetExact(r, Settings{})
		if math.IsInf(ex.logZ, -1) {
			if !errors.Is(err, ErrImpossible) {
				t.Fatalf("case %d: impossible evidence gave %v", k, err)
			}
			continue
		}
		if err != nil || res == nil {
			t.Fatalf("case %d: no answer: %v", k, err)
		}
		propCheckResult(t, p, res)
		if !(math.Abs(res.LogZ-ex.logZ) <= 1e-9*max(1, math.Abs(ex.logZ))) || res.LogZErr != 0 {
			t.Errorf("case %d: ln Z %v ± %v, exact %v", k, res.LogZ, res.LogZErr, ex.logZ)
		}
		for v := range p.Card {
			if !propWithin(ex, res, v, 1e-9) {
				t.Errorf("case %d variable %d: %v, exact %v", k, v, res.Marg[v], ex.marg[v])
			}
		}
	}
}

// TestAutoImpossible checks that Auto reports impossible evidence.
func TestAutoImpossible(t *testing.T) {
	eq := func(a, b factor.Var) *factor.Factor {
		f := factor.New([]factor.Var{a, b}, []int{2, 2})
		f.Vals[0], f.Vals[3] = 1, 1
		return f
	}
	neq := factor.New([]factor.Var{0, 2}, []int{2, 2})
	neq.Vals[1], neq.Vals[2] = 1, 1
	loop := &Problem{Card: []int{2, 2, 2}, Obs: []int{0, -1, -1}, Factors: []*factor.Factor{eq(0, 1), eq(1, 2), neq}}
	chain := &Problem{Card: []int{2, 2, 2}, Obs: []int{0, -1, 1}, Factors: []*factor.Factor{eq(0, 1), eq(1, 2)}}
	for _, p := range []*Problem{loop, chain} {
		if _, err := Auto(p, Settings{}); !errors.Is(err, ErrImpossible) {
			t.Errorf("err = %v, want ErrImpossible", err)
		}
	}
}

// TestAutoGrid runs Auto on 12×12 grids (no small cutset) whose memory is
// capped below the junction tree's, against IJGP at the induced width
// (exact): ln Z must lie within LogZErr and within the bounds, the mean
// Hellinger error be small and at least 90 % of the marginals lie within
// their error.
func TestAutoGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for k := range 3 {
		p := propGrid(rng, 12, 12, 0.5, 0.5+0.5*float64(k))
		for v := range p.Obs {
			if rng.Float64() < 0.15 {
				p.Obs[v] = rng.IntN(2)
			}
		}
		ex, err := IJGP(p, Settings{MaxMemory: 1 << 30})
		if err != nil || ex.LogZErr != 0 {
			t.Fatalf("no exact answer: %v", err)
		}
		res, err := Auto(p, Settings{Deadline: time.Now().Add(time.Second), MaxMemory: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		propCheckResult(t, p, res)
		if !(math.Abs(res.LogZ-ex.LogZ) <= res.LogZErr+1e-9) || !(ex.LogZ >= res.LogZLo-1e-9 && ex.LogZ <= res.LogZHi+1e-9) {
			t.Errorf("grid %d (%s): ln Z %v ± %v in [%v, %v], exact %v", k, res.Engine, res.LogZ, res.LogZErr, res.LogZLo, res.LogZHi, ex.LogZ)
		}
		h, n, in := 0.0, 0, 0
		for v, m := range res.Marg {
			if p.Obs[v] >= 0 {
				continue
			}
			h += propHellinger(m, ex.Marg[v])
			n++
			if math.Abs(m[0]-ex.Marg[v][0]) <= res.Err[v][0]+1e-9 {
				in++
			}
		}
		h /= float64(n)
		t.Logf("grid %d: %s i=%d Hellinger %.2e |Δln Z| %.2e (±%.2g) within error %d/%d", k, res.Engine, res.IBound, h, math.Abs(res.LogZ-ex.LogZ), res.LogZErr, in, n)
		if !(h <= 0.05) || float64(in) < 0.9*float64(n) {
			t.Errorf("grid %d: Hellinger %.3g, %d/%d within error", k, h, in, n)
		}
	}
}

// TestAutoAgainstEnumeration checks Auto's answer on small problems (exact
// there: cutset or elimination) against enumeration, soft evidence
// included.
func TestAutoAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	for k := range 30 {
		var p *Problem
		switch k % 3 {
		case 0:
			p = propRandomBN(rng, 10, 3, k%2 == 0, 0.2)
		case 1:
			p = propRandomMN(rng, 10, 12, k%2 == 0, 0.2)
		default:
			p = propGrid(rng, 3, 4, 0.5, 1)
		}
		if k%2 == 1 {
			smpSoft(rng, p)
		}
		ex := propEnumerate(p)
		res, err := Auto(p, Settings{})
		if math.IsInf(ex.logZ, -1) {
			if !errors.Is(err, ErrImpossible) {
				t.Fatalf("case %d: impossible evidence gave %v", k, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		propCheckResult(t, p, res)
		if !(math.Abs(res.LogZ-ex.logZ) <= res.LogZErr+1e-9*max(1, math.Abs(ex.logZ))) {
			t.Errorf("case %d (%s): ln Z %v ± %v, exact %v", k, res.Engine, res.LogZ, res.LogZErr, ex.logZ)
		}
		for v := range p.Card {
			if !propWithin(ex, res, v, 1e-9) {
				t.Errorf("case %d (%s) variable %d: %v ± %v, exact %v", k, res.Engine, v, res.Marg[v], res.Err[v], ex.marg[v])
			}
		}
	}
}
