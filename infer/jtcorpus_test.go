package infer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/ir"
)

// corpus returns the corpus directory ($PBL_CORPUS or ../../shared/corpus),
// skipping the test or benchmark when it is absent.
func corpus(tb testing.TB) string {
	d := os.Getenv("PBL_CORPUS")
	if d == "" {
		d = "../../shared/corpus"
	}
	if _, err := os.Stat(filepath.Join(d, "bif")); err != nil {
		tb.Skipf("corpus not found at %s (set PBL_CORPUS): %v", d, err)
	}
	return d
}

// readCorpus reads bif/<name>.bif or bif/<name>.bif.gz.
func readCorpus(tb testing.TB, name string) *ir.Model {
	tb.Helper()
	dir := filepath.Join(corpus(tb), "bif")
	path := filepath.Join(dir, name+".bif")
	if _, err := os.Stat(path); err != nil {
		path += ".gz"
	}
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("%s not in the corpus", name)
	}
	m, err := bif.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// randomEvidence observes k random variables at states drawn by forward
// sampling, so that the evidence is possible.
func randomEvidence(rng *rand.Rand, m *ir.Model, k int) []ir.Obs {
	state := make([]int, len(m.Vars))
	done := make([]bool, len(m.Vars))
	var sample func(v ir.VarID) int
	sample = func(v ir.VarID) int {
		if done[v] {
			return state[v]
		}
		f := m.Factor(v)
		off := 0
		for i, p := range m.Parents[v] {
			off += sample(p) * f.Stride[i]
		}
		n := len(m.Vars[v].States)
		u := rng.Float64()
		s := 0
		for ; s < n-1; s++ {
			u -= f.Vals[off+s]
			if u < 0 {
				break
			}
		}
		state[v], done[v] = s, true
		return s
	}
	var ev []ir.Obs
	for _, i := range rng.Perm(len(m.Vars))[:k] {
		ev = append(ev, ir.Obs{Var: ir.VarID(i), State: sample(ir.VarID(i))})
	}
	return ev
}

// compiledCorpus reads a corpus network and compiles it, skipping the
// benchmark when the network is absent or over the default limits.
func compiledCorpus(b *testing.B, name string) *JTree {
	jt, err := Compile(readCorpus(b, name), Options{})
	if err != nil {
		b.Skip(err)
	}
	return jt
}

// benchEvidence returns the evidence sets the JT benchmarks alternate
// between: eight sets of five variables of m, the same on every run.
func benchEvidence(m *ir.Model) [][]ir.Obs {
	rng := rand.New(rand.NewPCG(5, 5))
	evs := make([][]ir.Obs, 8)
	for i := range evs {
		evs[i] = randomEvidence(rng, m, 5)
	}
	return evs
}

// TestJTCorpus: on the corpus networks where VE is quick, the junction
// tree's marginals agree with VE's to 1e-6 (the corpus rows are rounded and
// VE drops barren nodes) for random evidence, and so does P(e), relatively.
// VE answers one variable at a time, so only a sample of variables is
// compared on the larger networks.
func TestJTCorpus(t *testing.T) {
	corpus(t)
	nets := []struct {
		name string
		vars int // variables compared per evidence set
	}{
		{"alarm", 37}, {"hepar2", 30}, {"win95pts", 30}, {"insurance", 27}, {"hailfinder", 30},
		{"pathfinder", 10}, {"andes", 10}, {"water", 10}, {"mildew", 5}, {"pigs", 5},
	}
	if !heavy() {
		nets = nets[:3]
	}
	start := time.Now()
	for _, nt := range nets {
		t.Run(nt.name, func(t *testing.T) {
			if time.Since(start) > 20*time.Second {
				t.Skip("time budget spent")
			}
			m := readCorpus(t, nt.name)
			jt := mustCompile(t, m)
			rng := rand.New(rand.NewPCG(11, 11))
			for trial := 0; trial < 2; trial++ {
				ev := randomEvidence(rng, m, 5)
				star, err := jt.Answer(&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				pe, err := jt.Answer(&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				vpe, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{Engine: VE})
				if err != nil {
					t.Fatal(err)
				}
				if !equal(pe.(*Evidence).P, vpe.(*Evidence).P, 1e-6) || !equal(pe.(*Evidence).LogP, vpe.(*Evidence).LogP, 1e-6) {
					t.Errorf("P(e): JT %v, VE %v", pe.(*Evidence).P, vpe.(*Evidence).P)
				}
				for _, i := range rng.Perm(len(star.(*Marginals).Marginals))[:min(nt.vars, len(star.(*Marginals).Marginals))] {
					mg := star.(*Marginals).Marginals[i]
					r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{mg.Var}, TargetStates: []int{-1}}, Options{Engine: VE})
					if err != nil {
						t.Fatal(err)
					}
					for s, row := range r.(*Table).Rows {
						if !equal(mg.P[s], row.P, 1e-6) {
							t.Fatalf("evidence %v: P(%s=%s | e): JT %v, VE %v", ev, m.Vars[mg.Var].Name, m.Vars[mg.Var].States[s], mg.P[s], row.P)
						}
					}
				}
			}
		})
	}
}

// jtBenchNets are the networks of libDAI's published timings.
var jtBenchNets = []string{"alarm", "hepar2", "win95pts", "pathfinder", "andes", "pigs", "munin", "link"}

// BenchmarkJTCompile compiles corpus networks (triangulation with every
// heuristic, clique tree, tables and index maps).
func BenchmarkJTCompile(b *testing.B) {
	for _, name := range jtBenchNets {
		b.Run(name, func(b *testing.B) {
			m := readCorpus(b, name)
			if _, err := Compile(m, Options{}); err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				if _, err := Compile(m, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJTQuery measures one evidence update (five observed variables)
// plus every marginal, on a compiled tree, single-threaded; ns/entry is the
// time per clique-table entry.
func BenchmarkJTQuery(b *testing.B) {
	for _, name := range jtBenchNets {
		b.Run(name, func(b *testing.B) {
			jt := compiledCorpus(b, name)
			evs := benchEvidence(jt.m)
			// The workspace, allocated by the first query, and the
			// collect tables a tree keeps from its second evidence set
			// on (jtclean.go): every set once, the first timed
			// iteration's not last (it would find its answer
			// calibrated already).
			for _, ev := range evs {
				if _, err := jt.Answer(&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			cpu := cpuTime()
			for b.Loop() {
				// Alternate evidence sets so that every iteration
				// recalibrates.
				if _, err := jt.Answer(&ir.ProbQuery{Conditions: ir.Conditions{Evidence: evs[i%len(evs)]}, Star: true}, Options{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(jt.init)), "ns/entry")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime returns the process's CPU time (user and system) in
// nanoseconds: on a machine shared with other work, the time a
// single-threaded benchmark spent computing, which the wall clock does not
// give.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestJTCorpusExplain logs the chosen triangulation of each corpus network
// (run with -v to see it).
func TestJTCorpusExplain(t *testing.T) {
	corpus(t)
	if !heavy() {
		t.Skip("short")
	}
	for _, name := range []string{"alarm", "hepar2", "win95pts", "pathfinder", "andes", "water", "mildew", "barley", "diabetes", "pigs", "munin1", "munin", "link"} {
		m := readCorpus(t, name)
		s, err := Explain(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		line := func(key string) string {
			i := strings.Index(s, key)
			return strings.TrimSpace(strings.SplitN(s[i+len(key):], "\n", 2)[0])
		}
		t.Logf("%-10s %-45s width %-3s cliques %-4s total %s", name, line("triangulation:"), line("induced width:"), line("cliques:"), line("total clique-table size:"))
	}
}
