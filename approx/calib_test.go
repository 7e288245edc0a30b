package approx

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/internal/testrun"
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
	type tally struct {
		in, all, inInexact, allInexact, zIn, zAll, vague int
		errSum                                           float64
	}
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
		{"ijgp 8KiB", IJGP, Settings{MaxMemory: 8 << 10}},
		{"ijgp(2) 8KiB", IJGP, Settings{IBound: 2, MaxMemory: 8 << 10}},
	}
	// On the medium networks the algorithms run with their memory
	// capped below the junction tree's.
	medium := []struct {
		name string
		alg  func(*Problem, Settings) (*Result, error)
		s    Settings
	}{
		{"M lbp 16KiB", LBP, Settings{MaxMemory: 16 << 10}},
		{"M ijgp 16KiB", IJGP, Settings{MaxMemory: 16 << 10}},
		{"M ijgp 32KiB", IJGP, Settings{MaxMemory: 32 << 10}},
		{"M ijgp(3) 16KiB", IJGP, Settings{IBound: 3, MaxMemory: 16 << 10}},
	}
	tallies := make([]tally, len(configs)+len(medium))
	rng := rand.New(rand.NewPCG(29, 29))
	problems := 0
	run := func(tl *tally, name string, p *Problem, ex propExact, res *Result, err error) {
		if errors.Is(err, ErrImpossible) {
			t.Fatalf("%s: ErrImpossible on possible evidence", name)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for v, m := range ex.marg {
			if m == nil || p.Obs[v] >= 0 {
				continue
			}
			ok := propWithin(ex, res, v, 1e-9)
			if !ok && testing.Verbose() {
				d := 0.0
				for i := range m {
					d = max(d, math.Abs(m[i]-res.Marg[v][i]))
				}
				t.Logf("%s: variable %d off by %.3g, Err %.3g (bound %d, %d sweeps, converged %v)", name, v, d, res.Err[v][0], res.IBound, res.Iterations, res.Converged)
			}
			inexact := res.Err[v][0] > 0
			tl.all++
			if ok {
				tl.in++
			}
			if inexact {
				if res.Err[v][0] >= 0.5 {
					tl.vague++
				} else {
					tl.errSum += res.Err[v][0]
				}
				tl.allInexact++
				if ok {
					tl.inInexact++
				}
			}
		}
		tl.zAll++
		if math.Abs(res.LogZ-ex.logZ) <= res.LogZErr+1e-9 {
			tl.zIn++
		} else if testing.Verbose() {
			t.Logf("%s: ln Z off by %.3g, LogZErr %.3g (bound %d, %d sweeps, converged %v)", name, math.Abs(res.LogZ-ex.logZ), res.LogZErr, res.IBound, res.Iterations, res.Converged)
		}
	}
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
			run(&tallies[c], cfg.name, p, ex, res, err)
		}
	}
	// The medium networks (grids of 7×7 and 8×7, random Markov networks
	// of 30 variables with zeros, Bayesian networks of 40): too large to
	// enumerate, their exact answers are IJGP's at the induced width (a
	// junction tree, checked against enumeration in
	// TestAgainstEnumeration).
	medN := 48
	if !testrun.Heavy() {
		medN = 0 // -short, -race: the small networks only
	}
	for k, problems := 0, 0; problems < medN; k++ {
		var p *Problem
		frac := 0.1 + 0.2*rng.Float64()
		switch k % 3 {
		case 0:
			p = propGrid(rng, 7+rng.IntN(2), 7, 0.5, 0.5+rng.Float64())
			for v := range p.Obs {
				if rng.Float64() < frac {
					p.Obs[v] = rng.IntN(2)
				}
			}
		case 1:
			p = propRandomMN(rng, 30, 24+rng.IntN(6), true, frac/2)
		case 2:
			p = propRandomBN(rng, 40, 3, k%2 == 0, frac)
		}
		exr, err := IJGP(p, Settings{MaxMemory: 1 << 30})
		if errors.Is(err, ErrImpossible) {
			continue
		}
		if err != nil || !(exr.LogZErr == 0) {
			t.Fatalf("medium network %d: not exact (%v)", k, err)
		}
		problems++
		ex := propExact{marg: exr.Marg, logZ: exr.LogZ}
		for c, cfg := range medium {
			res, err := cfg.alg(p, cfg.s)
			run(&tallies[len(configs)+c], cfg.name, p, ex, res, err)
		}
	}
	rate := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	names := make([]string, 0, len(tallies))
	for _, c := range configs {
		names = append(names, c.name)
	}
	for _, c := range medium {
		names = append(names, c.name)
	}
	for c, name := range names {
		tl := tallies[c]
		msg := fmt.Sprintf("%-16s marginals within error %d/%d (%.1f %%), inexact ones %d/%d (%.1f %%; %d with Err ≥ 0.5, mean Err of the others %.2g); ln Z %d/%d (%.1f %%)",
			name, tl.in, tl.all, 100*rate(tl.in, tl.all), tl.inInexact, tl.allInexact, 100*rate(tl.inInexact, tl.allInexact),
			tl.vague, tl.errSum/float64(max(1, tl.allInexact-tl.vague)), tl.zIn, tl.zAll, 100*rate(tl.zIn, tl.zAll))
		t.Log(msg)
		if tl.all == 0 && c >= len(configs) {
			continue // the medium networks, not run
		}
		if tl.all < 200 || rate(tl.in, tl.all) < 0.95 || rate(tl.inInexact, tl.allInexact) < 0.95 || rate(tl.zIn, tl.zAll) < 0.95 {
			t.Errorf("calibration below 95 %%: %s", msg)
		}
	}
}
