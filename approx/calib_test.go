package approx

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCalibration measures how often the exact answer lies within the
// reported error: over random small networks (Bayesian with and without
// deterministic zeros, Markov with zeros, grids; 10–30 % of the variables
// observed), each unobserved variable's marginal is a query, met when
// every state's exact probability is within Err of the estimate (plus
// 1e-9 for rounding). Each algorithm runs with its defaults (on networks
// this small IJGP reaches the induced width, so the default answers are
// mostly exact) and with an i-bound too small to be exact (IJGP(2), (3);
// LBP with IJGP(3) as its reference), where the error estimate is the
// heuristic of IJGP's documentation. The rates are logged; each must be
// at least 95 % over the inexact answers alone (Err > 0) as well as over
// all, and ln Z's too.
func TestCalibration(t *testing.T) {
	type tally struct{ in, all, inInexact, allInexact, zIn, zAll int }
	configs := []struct {
		name string
		alg  func(*Problem, Settings) (*Result, error)
		s    Settings
	}{
		{"lbp default", LBP, Settings{}},
		{"ijgp default", IJGP, Settings{}},
		{"lbp ref ijgp(3)", LBP, Settings{IBound: 3}},
		{"ijgp(2)", IJGP, Settings{IBound: 2}},
		{"ijgp(3)", IJGP, Settings{IBound: 3}},
	}
	tallies := make([]tally, len(configs))
	rng := rand.New(rand.NewPCG(29, 29))
	problems := 0
	for k := 0; problems < 120; k++ {
		var p *Problem
		frac := 0.1 + 0.2*rng.Float64()
		switch k % 4 {
		case 0:
			p = propRandomBN(rng, 10+rng.IntN(5), 3, false, frac)
		case 1:
			p = propRandomBN(rng, 10+rng.IntN(5), 3, true, frac)
		case 2:
			p = propRandomMN(rng, 9+rng.IntN(4), 10+rng.IntN(6), true, frac/2)
		case 3:
			p = propGrid(rng, 3+rng.IntN(2), 4, 0.5, 0.5+rng.Float64())
			for v := range p.Obs {
				if rng.Float64() < frac {
					p.Obs[v] = rng.IntN(2)
				}
			}
		}
		ex := propEnumerate(p)
		if math.IsInf(ex.logZ, -1) {
			continue
		}
		problems++
		for c, cfg := range configs {
			res, err := cfg.alg(p, cfg.s)
			if errors.Is(err, ErrImpossible) {
				t.Fatalf("%s: ErrImpossible on possible evidence", cfg.name)
			}
			if err != nil {
				t.Fatalf("%s: %v", cfg.name, err)
			}
			tl := &tallies[c]
			for v, m := range ex.marg {
				if m == nil || p.Obs[v] >= 0 {
					continue
				}
				ok := propWithin(ex, res, v, 1e-9)
				inexact := res.Err[v][0] > 0
				tl.all++
				if ok {
					tl.in++
				}
				if inexact {
					tl.allInexact++
					if ok {
						tl.inInexact++
					}
				}
			}
			tl.zAll++
			if math.Abs(res.LogZ-ex.logZ) <= res.LogZErr+1e-9 {
				tl.zIn++
			}
		}
	}
	rate := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	for c, cfg := range configs {
		tl := tallies[c]
		msg := fmt.Sprintf("%-16s marginals within error %d/%d (%.1f %%), inexact ones %d/%d (%.1f %%); ln Z %d/%d (%.1f %%)",
			cfg.name, tl.in, tl.all, 100*rate(tl.in, tl.all), tl.inInexact, tl.allInexact, 100*rate(tl.inInexact, tl.allInexact),
			tl.zIn, tl.zAll, 100*rate(tl.zIn, tl.zAll))
		t.Log(msg)
		if tl.all < 200 || rate(tl.in, tl.all) < 0.95 || rate(tl.inInexact, tl.allInexact) < 0.95 || rate(tl.zIn, tl.zAll) < 0.95 {
			t.Errorf("calibration below 95 %%: %s", msg)
		}
	}
}
