package approx_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/approx"
	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/internal/testrun"
)

// wmbProblemOf reads a UAI model and its evidence as a Problem.
func wmbProblemOf(t *testing.T, path, evid string) *approx.Problem {
	t.Helper()
	m, err := uai.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := uai.ReadEvidenceFile(evid, m)
	if err != nil {
		t.Fatal(err)
	}
	p := &approx.Problem{Card: make([]int, len(m.Vars)), Obs: make([]int, len(m.Vars))}
	for v, x := range m.Vars {
		p.Card[v] = len(x.States)
		p.Obs[v] = -1
	}
	for _, o := range ev {
		p.Obs[o.Var] = o.State
	}
	p.Factors = append([]*factor.Factor(nil), m.Factors()...)
	return p
}

// wmbCorpus returns ../shared/corpus/uai (or $PBL_CORPUS/uai), skipping
// the test when it is absent.
func wmbCorpus(t *testing.T) string {
	d := os.Getenv("PBL_CORPUS")
	if d == "" {
		d = filepath.Join("..", "..", "shared", "corpus")
	}
	d = filepath.Join(d, "uai")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("corpus not found at %s (set PBL_CORPUS): %v", d, err)
	}
	return d
}

// TestWMBCorpusPR: on the UAI 2014 instances, WMB's bounds contain the
// competition's ln P(e) (its .PR solution, log10 to 6 digits), with the
// i-bound that fits 1 MiB and (heavy runs) anytime with a deadline of 1 s;
// the gaps are logged (go test -v).
func TestWMBCorpusPR(t *testing.T) {
	dir := wmbCorpus(t)
	names, err := filepath.Glob(filepath.Join(dir, "*.uai.PR"))
	if err != nil || len(names) == 0 {
		t.Skipf("no .PR solutions in %s", dir)
	}
	light := map[string]bool{"Grids_12.uai": true, "Promedus_13.uai": true, "Promedus_24.uai": true}
	for _, pr := range names {
		path := pr[:len(pr)-len(".PR")]
		name := filepath.Base(path)
		if !testrun.Heavy() && !light[name] {
			continue // the light runs (-short, -race) take the small instances
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(pr)
			if err != nil {
				t.Fatal(err)
			}
			log10Z, err := uai.ReadPR(pr, src)
			if err != nil {
				t.Fatal(err)
			}
			truth := log10Z * math.Ln10
			// The solution has 6 significant digits.
			slack := 1e-5*math.Abs(truth) + 1e-6
			p := wmbProblemOf(t, path, path+".evid")
			runs := []approx.Settings{{MaxMemory: 1 << 20}}
			if testrun.Heavy() {
				runs = append(runs, approx.Settings{}) // anytime: its deadline is set below
			}
			for k, s := range runs {
				start := time.Now()
				if k == 1 {
					s.Deadline = start.Add(wmbCorpusTime)
				}
				res, err := approx.WMB(p, s)
				if errors.Is(err, approx.ErrNoAnswer) && k == 1 && time.Since(start) >= wmbCorpusTime {
					// A loaded machine: out of time before the first
					// bound, as the contract allows.
					t.Logf("anytime: no answer within %v", wmbCorpusTime)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if !(res.LogZLo <= truth+slack) || !(truth <= res.LogZHi+slack) {
					t.Errorf("ln Z = %v outside [%v, %v] (i-bound %d)", truth, res.LogZLo, res.LogZHi, res.IBound)
				}
				t.Logf("i-bound %2d: log10 Z %.4f in [%.4f, %.4f]: gaps %.4g below, %.4g above (%v)", res.IBound, log10Z,
					res.LogZLo/math.Ln10, res.LogZHi/math.Ln10, log10Z-res.LogZLo/math.Ln10, res.LogZHi/math.Ln10-log10Z, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// wmbCorpusTime is the deadline of each corpus instance's anytime run.
const wmbCorpusTime = time.Second
