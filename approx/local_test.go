package approx

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// propLogValue is ln of the product of p's factors at the full assignment
// x, computed directly.
func propLogValue(p *Problem, x []int) float64 {
	s := 0.0
	for _, f := range append(append([]*factor.Factor(nil), p.Factors...), p.Likelihood...) {
		o := 0
		for k, v := range f.Vars {
			o += x[v] * f.Stride[k]
		}
		s += math.Log(f.Vals[o])
	}
	return s
}

// TestLocalSearchMPE checks local search against enumeration on random
// small networks (Bayesian with and without zeros, Markov, grids, with
// evidence): the assignment keeps the evidence, LogMax is its value, never
// above the maximum, and the maximum on at least 95 % of the networks
// (local search is a heuristic: 59 of 60 when written).
func TestLocalSearchMPE(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	found, tried := 0, 0
	for k := range 60 {
		var p *Problem
		switch k % 4 {
		case 0:
			p = propRandomBN(rng, 9, 3, false, 0.2)
		case 1:
			p = propRandomBN(rng, 9, 2, true, 0.2)
		case 2:
			p = propRandomMN(rng, 8, 8, false, 0.1)
		case 3:
			p = propGrid(rng, 3, 3, 0.5, 1.5)
		}
		ex := propEnumerate(p)
		if math.IsInf(ex.logZ, -1) {
			continue
		}
		res, err := LocalSearchMPE(p, Settings{Seed: uint64(k)})
		if err != nil {
			t.Fatalf("network %d: %v", k, err)
		}
		if res.Engine != "local" || len(res.Assign) != len(p.Card) {
			t.Fatalf("network %d: engine %q, %d states", k, res.Engine, len(res.Assign))
		}
		for v, o := range p.Obs {
			if o >= 0 && res.Assign[v] != o {
				t.Fatalf("network %d: variable %d = %d against the evidence %d", k, v, res.Assign[v], o)
			}
		}
		if got := propLogValue(p, res.Assign); !(math.Abs(got-res.LogMax) <= 1e-9) {
			t.Errorf("network %d: LogMax %v, the assignment's value %v", k, res.LogMax, got)
		}
		if !(res.LogMax <= ex.logMax+1e-9) {
			t.Errorf("network %d: LogMax %v above the maximum %v", k, res.LogMax, ex.logMax)
		}
		tried++
		if math.Abs(res.LogMax-ex.logMax) <= 1e-9 {
			found++
		} else {
			t.Logf("network %d: LogMax %v, the maximum %v", k, res.LogMax, ex.logMax)
		}
	}
	t.Logf("the MPE found on %d of %d networks", found, tried)
	if float64(found) < 0.95*float64(tried) {
		t.Errorf("the MPE found on %d of %d networks only", found, tried)
	}
}

// TestLocalSearchSettings checks the seed's determinism, Init as the
// starting point, a deadline (Stopped, an answer all the same) and evidence
// that a factor rules out (ErrImpossible).
func TestLocalSearchSettings(t *testing.T) {
	p := propGrid(rand.New(rand.NewPCG(9, 9)), 6, 6, 0.5, 1.5)
	a, err := LocalSearchMPE(p, Settings{Seed: 3, MaxIter: 50})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LocalSearchMPE(p, Settings{Seed: 3, MaxIter: 50, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different answers")
	}
	lbp, err := LBP(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := LocalSearchMPE(p, Settings{Seed: 3, Init: lbp.Marg, MaxIter: 50})
	if err != nil || !(c.LogMax > math.Inf(-1)) {
		t.Fatalf("from LBP's beliefs: %v, %v", err, c)
	}
	d, err := LocalSearchMPE(p, Settings{Deadline: time.Now().Add(30 * time.Millisecond)})
	if err != nil || !d.Stopped || !(d.LogMax > math.Inf(-1)) {
		t.Errorf("with a deadline: %v, stopped %v, LogMax %v", err, d.Stopped, d.LogMax)
	}
	eq := factor.New([]factor.Var{0, 1}, []int{2, 2})
	eq.Vals[0], eq.Vals[3] = 1, 1
	imp := &Problem{Card: []int{2, 2}, Obs: []int{0, 1}, Factors: []*factor.Factor{eq}}
	if _, err := LocalSearchMPE(imp, Settings{}); !errors.Is(err, ErrImpossible) {
		t.Errorf("impossible evidence: %v, want ErrImpossible", err)
	}
}
