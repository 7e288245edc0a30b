package approx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/internal/testrun"
)

// smpCoverage counts how often the exact answer lies within a result's
// reported error.
type smpCoverage struct {
	in, n       int // numbers (marginal entries) within their error, and all
	zin, zn     int // ln Z within LogZErr, and all
	worst       float64
	sumErr, sum float64 // Σ reported error, Σ |actual error|
}

// add checks r against the exact marginals (and ln Z when logZ is finite
// and r estimates it); it returns an error for a NaN or a number outside
// [0, 1].
func (c *smpCoverage) add(p *Problem, r *Result, exact [][]float64, logZ float64) error {
	for v, row := range exact {
		if row == nil || p.Obs[v] >= 0 {
			continue
		}
		sum := 0.0
		for s, want := range row {
			got, e := r.Marg[v][s], r.Err[v][s]
			if !(got >= 0 && got <= 1) || math.IsNaN(e) || !(e >= 0) {
				return fmt.Errorf("P(v%d=%d) = %v ± %v", v, s, got, e)
			}
			sum += got
			d := math.Abs(got - want)
			c.n++
			if d <= e {
				c.in++
			}
			c.worst = max(c.worst, d)
			c.sumErr += e
			c.sum += d
		}
		if !(math.Abs(sum-1) <= 1e-9) {
			return fmt.Errorf("marginal of v%d sums to %v", v, sum)
		}
	}
	if !math.IsInf(logZ, 0) && !math.IsInf(r.LogZErr, 1) {
		c.zn++
		if math.Abs(r.LogZ-logZ) <= r.LogZErr {
			c.zin++
		}
	}
	return nil
}

func (c *smpCoverage) rate() float64  { return float64(c.in) / float64(max(1, c.n)) }
func (c *smpCoverage) zrate() float64 { return float64(c.zin) / float64(max(1, c.zn)) }

// smpCalibQuery is a random query for the calibration tests: a small
// network with evidence and deterministic zeros and its exact answer.
type smpCalibQuery struct {
	p     *Problem
	marg  [][]float64
	logZ  float64
	label string
}

// smpCalibQueries returns nq random queries: Bayesian networks when bn,
// Markov networks otherwise.
func smpCalibQueries(seed uint64, nq int, bn bool) []smpCalibQuery {
	rng := rand.New(rand.NewPCG(seed, 99))
	var qs []smpCalibQuery
	for len(qs) < nq {
		n := 4 + rng.IntN(5)
		var p *Problem
		if bn {
			p = smpRandBN(rng, n, 3, 0.15)
		} else {
			p = smpRandMN(rng, n, n+rng.IntN(n), 0.1)
		}
		if rng.IntN(3) == 0 {
			smpSoft(rng, p)
		}
		if !smpObserve(rng, p, rng.IntN(n/2+1)) {
			continue
		}
		ex := propEnumerate(p)
		if math.IsInf(ex.logZ, -1) {
			continue
		}
		qs = append(qs, smpCalibQuery{p, ex.marg, ex.logZ, fmt.Sprintf("query %d", len(qs))})
	}
	return qs
}

// TestSamplersCalibration checks that each sampler's reported errors are honest
// ~95 % half-widths: over random queries on small networks with evidence
// and deterministic zeros, the exact marginal lies within the reported
// error at least 95 % of the time (per number).
func TestSamplersCalibration(t *testing.T) {
	nq := 240 // the lead's acceptance asks for at least 200
	if !testrun.Heavy() {
		nq = 60 // -short and -race: fewer queries, the same bar
	}
	type algo struct {
		name string
		run  func(*Problem, Settings) (*Result, error)
		bn   bool // Bayesian networks only
		set  Settings
	}
	algos := []algo{
		{"lw", LikelihoodWeighting, true, Settings{Samples: 2000}},
		{"is", Importance, true, Settings{Samples: 2000}},
		{"gibbs", Gibbs, false, Settings{Samples: 400}},
	}
	bnq := smpCalibQueries(1, nq, true)
	mnq := smpCalibQueries(2, nq, false)
	for _, a := range algos {
		t.Run(a.name, func(t *testing.T) {
			var cov smpCoverage
			qs := bnq
			if !a.bn {
				qs = append(append([]smpCalibQuery(nil), bnq[:nq/2]...), mnq[:nq/2]...)
			}
			for i, q := range qs {
				s := a.set
				s.Seed = uint64(i)
				r, err := a.run(q.p, s)
				if err != nil {
					t.Fatalf("%s: %v", q.label, err)
				}
				if err := cov.add(q.p, r, q.marg, q.logZ); err != nil {
					t.Fatalf("%s: %v", q.label, err)
				}
			}
			t.Logf("%s: %d queries, %d numbers: %.1f%% within the reported error (mean error %.4f, mean reported %.4f, worst %.4f); ln Z within LogZErr %.1f%% of %d",
				a.name, len(qs), cov.n, 100*cov.rate(), cov.sum/float64(cov.n), cov.sumErr/float64(cov.n), cov.worst, 100*cov.zrate(), cov.zn)
			if !(cov.rate() >= 0.95) {
				t.Errorf("%s: only %.1f%% of the numbers within their reported error, want ≥ 95%%", a.name, 100*cov.rate())
			}
			if cov.zn > 0 && !(cov.zrate() >= 0.95) {
				t.Errorf("%s: ln Z within LogZErr only %.1f%% of the time, want ≥ 95%%", a.name, 100*cov.zrate())
			}
		})
	}
}
