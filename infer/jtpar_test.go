package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// calibrated returns every marginal of m's tree given ev, P(e) and the
// calibrated clique tables, computed with GOMAXPROCS set to procs.
func calibrated(t *testing.T, jt *JTree, ev []ir.Obs, procs int) ([]Marginal, float64, []float64) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	// Calibrate afresh (the workspace would keep an earlier calibration
	// for the same evidence), then answer from that calibration.
	w := jt.get()
	w.state = jtEmpty
	obs := obsRow(len(jt.m.Vars), ev)
	if err := jt.ensure(factor.NewKernel(nil), ir.Pos{}, w, obs, jtCalibrated); err != nil {
		t.Fatal(err)
	}
	pot := append([]float64(nil), w.pot...)
	jt.put(w)
	var ms []Marginal
	lp := math.Inf(-1)
	if r, err := jt.Answer(&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, Options{}); err == nil {
		ms, lp = r.(*Marginals).Marginals, 0 // possible evidence
	} else if !errors.Is(err, ErrImpossible) {
		t.Fatal(err)
	}
	return ms, lp, pot
}

// sameBits reports the first difference in the bits of a and b.
func sameBits(a, b []float64) string {
	if len(a) != len(b) {
		return fmt.Sprintf("lengths %d and %d", len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return fmt.Sprintf("entry %d: %v and %v", i, a[i], b[i])
		}
	}
	return ""
}

// TestJTParallelIdentical: a calibration on two cores gives the same bits
// as on one — every clique table, every marginal and P(e) — on corpus
// networks and random networks with impossible evidence, with the
// parallel passes forced on small trees too.
func TestJTParallelIdentical(t *testing.T) {
	defer func(n int) { parMinEntries = n }(parMinEntries)
	parMinEntries = 0
	type net struct {
		name string
		m    *ir.Model
	}
	var nets []net
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 6 {
		nets = append(nets, net{fmt.Sprintf("random %d", i), localNet(rng, 80, 3, 6).build(t)})
	}
	if heavy() {
		for _, name := range []string{"alarm", "pathfinder", "andes", "pigs", "munin", "link"} {
			if corpusPresent() {
				nets = append(nets, net{name, readCorpus(t, name)})
			}
		}
	}
	for _, n := range nets {
		jt := mustCompile(t, n.m)
		for trial := range 3 {
			var ev []ir.Obs
			if trial < 2 {
				ev = randomEvidence(rng, n.m, 5)
			} else {
				// Evidence of any probability, possibly 0.
				ev = randomStates(rng, cards(n.m), 5)
			}
			m1, lp1, pot1 := calibrated(t, jt, ev, 1)
			m2, lp2, pot2 := calibrated(t, jt, ev, 2)
			if math.Float64bits(lp1) != math.Float64bits(lp2) {
				t.Errorf("%s, evidence %v: ln P(e) %v on one core, %v on two", n.name, ev, lp1, lp2)
			}
			if d := sameBits(pot1, pot2); d != "" {
				t.Errorf("%s, evidence %v: clique tables differ: %s", n.name, ev, d)
			}
			for i := range m1 {
				if d := sameBits(m1[i].P, m2[i].P); d != "" {
					t.Errorf("%s, evidence %v: marginal of %s differs: %s", n.name, ev, n.m.Vars[m1[i].Var].Name, d)
				}
			}
		}
	}
}

// corpusPresent reports whether the corpus is where corpus looks for it.
func corpusPresent() bool {
	d := os.Getenv("PBL_CORPUS")
	if d == "" {
		d = "../../shared/corpus"
	}
	_, err := os.Stat(filepath.Join(d, "bif"))
	return err == nil
}
