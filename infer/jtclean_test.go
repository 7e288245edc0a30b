package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// TestJTCleanIdentical: a calibration that copies the no-evidence collect
// messages of the subtrees without evidence (jtclean.go) gives every
// marginal and ln P(e) bit for bit as one that computes them, on
// Bayesian and Markov networks, on one core and on two, and skips some
// cliques (the test would otherwise prove nothing).
func TestJTCleanIdentical(t *testing.T) {
	defer func(n int) { parMinEntries = n }(parMinEntries)
	rng := rand.New(rand.NewPCG(18, 18))
	nets := []struct {
		name string
		m    *ir.Model
	}{
		{"bayes", localNet(rng, 120, 3, 6).build(t)},
		{"bayes-zeros", randomNet(rng, 40, 3, 3, true).build(t)},
		{"markov", randomMarkov(t, rng, 12)},
	}
	for _, net := range nets {
		for _, par := range []int{1 << 62, 0} {
			parMinEntries = par
			what := fmt.Sprintf("%s (parallel from %d entries)", net.name, par)
			m := net.m
			skip, full := mustCompile(t, m), mustCompile(t, m)
			ds, df := allMarginals(m), allMarginals(m)
			none := obsRow(len(m.Vars), nil)
			skip.Marginals(none, ds) // the no-evidence collect is made
			full.Marginals(none, df)
			clear(full.clean.use) // full never copies a message
			skipped := 0
			for range 30 {
				obs := obsRow(len(m.Vars), randomStates(rng, cards(m), 1+rng.IntN(3)))
				ls, es := skip.Marginals(obs, ds)
				lf, ef := full.Marginals(obs, df)
				if (es == nil) != (ef == nil) {
					t.Fatalf("%s, evidence %v: errors %v and %v", what, obs, es, ef)
				}
				w := skip.get()
				for _, s := range w.skip {
					if s {
						skipped++
					}
				}
				skip.put(w)
				if es != nil {
					continue
				}
				if math.Float64bits(ls) != math.Float64bits(lf) {
					t.Errorf("%s, evidence %v: ln P(e) %v, without copies %v", what, obs, ls, lf)
				}
				for v := range ds {
					for s := range ds[v] {
						if math.Float64bits(ds[v][s]) != math.Float64bits(df[v][s]) {
							t.Fatalf("%s, evidence %v: P(%d=%d | e) = %v, without copies %v", what, obs, v, s, ds[v][s], df[v][s])
						}
					}
				}
			}
			if skipped == 0 {
				t.Errorf("%s: no clique was skipped", what)
			}
		}
	}
}

// TestJTCleanTables: a calibration that multiplies the kept no-evidence
// collect tables of the skipped cliques (jtclean.go) gives every clique
// table, marginal and ln P(e) bit for bit as one on a tree whose memory
// limit leaves no room for them (which computes those tables again), on
// random Bayesian networks with zeros, a Markov network and corpus
// networks, with possible and impossible evidence, on one core and on
// two, and with room for half the tables; some skipped cliques must have
// used a ready kept table, and a perturbed
// kept table must show in the answers (the test would otherwise prove
// nothing).
func TestJTCleanTables(t *testing.T) {
	defer func(n int) { parMinEntries = n }(parMinEntries)
	rng := rand.New(rand.NewPCG(19, 19))
	type net struct {
		name string
		m    *ir.Model
	}
	nets := []net{
		{"bayes", localNet(rng, 120, 3, 6).build(t)},
		{"bayes-zeros", randomNet(rng, 40, 3, 3, true).build(t)},
		{"markov", randomMarkov(t, rng, 12)},
	}
	if heavy() && corpusPresent() {
		for _, name := range []string{"alarm", "hepar2", "win95pts", "pathfinder", "andes", "pigs"} {
			nets = append(nets, net{name, readCorpus(t, name)})
		}
	}
	impossible := 0
	for _, n := range nets {
		m := n.m
		for _, par := range []int{1 << 62, 0} {
			parMinEntries = par
			what := fmt.Sprintf("%s (parallel from %d entries)", n.name, par)
			kept := mustCompile(t, m)
			bare, err := Compile(m, Options{MaxMemory: kept.memory})
			if err != nil {
				t.Fatalf("%s: at its own memory as the limit: %v", what, err)
			}
			cleanCalibration(t, kept, obsRow(len(m.Vars), nil))
			cleanCalibration(t, bare, obsRow(len(m.Vars), nil))
			if bare.clean.total != 0 {
				t.Fatalf("%s: a tree at its memory limit keeps %d entries of collect tables", what, bare.clean.total)
			}
			if kept.clean.total == 0 {
				t.Fatalf("%s: no collect table is kept", what)
			}
			// A limit with room for half the tables keeps some.
			half := int64(kept.clean.total) * 8 / 2
			part, err := Compile(m, Options{MaxMemory: kept.memory + half})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			cleanCalibration(t, part, obsRow(len(m.Vars), nil))
			if n := int64(part.clean.total) * 8; n == 0 || n > half {
				t.Fatalf("%s: %d bytes of collect tables kept under a limit leaving %d", what, n, half)
			}
			var evs [][]int
			used := 0
			for trial := range 12 {
				var ev []ir.Obs
				if m.IsBayesNet() && trial%3 != 2 {
					ev = randomEvidence(rng, m, 1+rng.IntN(5))
				} else {
					// Evidence of any probability, possibly 0.
					ev = randomStates(rng, cards(m), 1+rng.IntN(3))
				}
				obs := obsRow(len(m.Vars), ev)
				ck, skip := cleanCalibration(t, kept, obs)
				cb, _ := cleanCalibration(t, bare, obs)
				cp, _ := cleanCalibration(t, part, obs)
				if d := ck.diff(cb); d != "" {
					t.Fatalf("%s, evidence %v: with the kept tables %s, without", what, ev, d)
				}
				if d := cp.diff(cb); d != "" {
					t.Fatalf("%s, evidence %v: with half the kept tables %s, without", what, ev, d)
				}
				if ck.err != nil {
					impossible++
				}
				u := 0
				for c, s := range skip {
					if s && kept.clean.kept[c].Load() == keptReady {
						u++
					}
				}
				if u > 0 {
					evs = append(evs, obs)
				}
				used += u
			}
			if used == 0 {
				t.Fatalf("%s: no skipped clique used a kept table", what)
			}
			if bare.clean.pot != nil {
				t.Fatalf("%s: a tree at its memory limit allocated %d entries of collect tables", what, len(bare.clean.pot))
			}
			t.Logf("%s: %d of %d entries kept, %d skipped cliques used them", what, kept.clean.total, len(kept.init), used)
			// A kept table off by a relative 2^-20 in every other
			// entry changes some answer.
			want := make([]jtCleanRun, len(evs))
			for i, obs := range evs {
				want[i], _ = cleanCalibration(t, kept, obs)
			}
			for i := 0; i < len(kept.clean.pot); i += 2 {
				kept.clean.pot[i] *= 1 + 0x1p-20
			}
			caught := false
			for i, obs := range evs {
				got, _ := cleanCalibration(t, kept, obs)
				caught = caught || got.diff(want[i]) != ""
			}
			if !caught {
				t.Errorf("%s: perturbed kept tables gave the same answers", what)
			}
		}
	}
	if impossible == 0 {
		t.Error("no evidence of probability 0 was tried")
	}
}

// jtCleanRun is what a calibration gives: every clique table, P(e) before
// the constant, whether digits were lost, and Marginals' answers.
type jtCleanRun struct {
	pot   []float64
	z     float64
	exp   int
	lost  bool
	marg  [][]float64
	logPE float64
	err   error
}

// diff describes the first difference between r and s, or returns "".
func (r jtCleanRun) diff(s jtCleanRun) string {
	switch {
	case math.Float64bits(r.z) != math.Float64bits(s.z) || r.exp != s.exp:
		return fmt.Sprintf("P(e) is %v·2^%d, %v·2^%d", r.z, r.exp, s.z, s.exp)
	case r.lost != s.lost:
		return fmt.Sprintf("lost digits %v, %v", r.lost, s.lost)
	case (r.err == nil) != (s.err == nil):
		return fmt.Sprintf("Marginals' error %v, %v", r.err, s.err)
	case math.Float64bits(r.logPE) != math.Float64bits(s.logPE):
		return fmt.Sprintf("ln P(e) %v, %v", r.logPE, s.logPE)
	}
	if d := sameBits(r.pot, s.pot); d != "" {
		return "clique tables differ (" + d + ")"
	}
	for v := range r.marg {
		if d := sameBits(r.marg[v], s.marg[v]); d != "" {
			return fmt.Sprintf("marginal of variable %d differs (%s)", v, d)
		}
	}
	return ""
}

// cleanCalibration calibrates jt afresh for obs (the first calibration of
// a tree makes its collect without evidence), and returns what it gives
// and which cliques skipped their collect.
func cleanCalibration(t *testing.T, jt *JTree, obs []int) (jtCleanRun, []bool) {
	t.Helper()
	w := jt.get()
	w.state = jtEmpty
	if err := jt.ensure(factor.NewKernel(nil), ir.Pos{}, w, obs, jtCalibrated); err != nil {
		t.Fatal(err)
	}
	r := jtCleanRun{pot: slices.Clone(w.pot), z: w.z, exp: w.exp, lost: w.lost}
	skip := slices.Clone(w.skip)
	w.state = jtEmpty
	jt.put(w)
	r.marg = allMarginals(jt.m)
	r.logPE, r.err = jt.Marginals(obs, r.marg)
	if r.err != nil && !errors.Is(r.err, ErrImpossible) {
		t.Fatal(r.err)
	}
	return r, skip
}

// TestJTCleanTablesLazy: a tree asked about one evidence set keeps no
// collect table; the second evidence set fills them; and four goroutines
// filling and reading them at once on a fresh tree get every marginal and
// ln P(e) bit for bit as a tree that keeps none (run with -race).
func TestJTCleanTablesLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	m := localNet(rng, 150, 3, 6).build(t)
	evs := make([][]int, 16)
	for i := range evs {
		evs[i] = obsRow(len(m.Vars), randomEvidence(rng, m, 1+rng.IntN(3)))
	}
	jt := mustCompile(t, m)
	bare, err := Compile(m, Options{MaxMemory: jt.memory})
	if err != nil {
		t.Fatal(err)
	}
	jt.Marginals(evs[0], allMarginals(m))
	if jt.clean.total == 0 || jt.clean.pot != nil {
		t.Fatalf("after one evidence set: %d entries to keep, %d allocated; want some to keep, none allocated", jt.clean.total, len(jt.clean.pot))
	}
	jt.Marginals(evs[1], allMarginals(m))
	if len(jt.clean.pot) != jt.clean.total {
		t.Fatalf("after two evidence sets: %d entries allocated, want %d", len(jt.clean.pot), jt.clean.total)
	}

	jt = mustCompile(t, m)
	want := make([][][]float64, len(evs))
	wantLP := make([]float64, len(evs))
	for i, obs := range evs {
		want[i] = allMarginals(m)
		if wantLP[i], err = bare.Marginals(obs, want[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(evs))
	for g := range 4 {
		wg.Go(func() {
			dst := allMarginals(m)
			for r := range 2 * len(evs) {
				i := (r + 5*g) % len(evs)
				lp, err := jt.Marginals(evs[i], dst)
				if err != nil {
					errs <- err.Error()
					return
				}
				if math.Float64bits(lp) != math.Float64bits(wantLP[i]) {
					errs <- fmt.Sprintf("evidence %d: ln P(e) %v, want %v", i, lp, wantLP[i])
					return
				}
				for v := range dst {
					if d := sameBits(dst[v], want[i][v]); d != "" {
						errs <- fmt.Sprintf("evidence %d: marginal of variable %d differs: %s", i, v, d)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	ready := 0
	for c := range jt.clean.kept {
		if jt.clean.kept[c].Load() == keptReady {
			ready++
		}
	}
	if ready == 0 {
		t.Error("no collect table was kept")
	}
}
