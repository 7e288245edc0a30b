package learn_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// symptomsModel is the latent-class model of examples/data/symptoms.csv.
const symptomsModel = `var Condition: {flu, cold, allergy}
var Fever, Cough, Sneezing, ItchyEyes, Fatigue: {yes, no}
Condition -> Fever, Cough, Sneezing, ItchyEyes, Fatigue
`

// fishModel is a network with a mixture, of examples/data/fish.csv.
const fishModel = `var Lake: {north, south}
var Species: {s1, s2, s3}
var Colour: {silver, dark}
var length, weight: real
Lake -> Species
Species -> Colour
mixture Species of length, weight (covariance = full)
`

// subBatch returns rows lo to hi of b, sharing its storage.
func subBatch(b *data.Batch, lo, hi int) *data.Batch {
	out := &data.Batch{N: hi - lo, Cols: make([][]int32, len(b.Cols)), Reals: make([][]float64, len(b.Reals)), Lines: b.Lines[lo:hi], Vars: b.Vars}
	for j, c := range b.Cols {
		if c != nil {
			out.Cols[j] = c[lo:hi]
		}
	}
	for j, r := range b.Reals {
		if r != nil {
			out.Reals[j] = r[lo:hi]
		}
	}
	return out
}

// randomParts cuts n rows into parts ranges at random places (some
// possibly empty).
func randomParts(n, parts int, rng *rand.Rand) [][2]int {
	cuts := make([]int, 0, parts+1)
	cuts = append(cuts, 0)
	for range parts - 1 {
		cuts = append(cuts, rng.IntN(n+1))
	}
	cuts = append(cuts, n)
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	out := make([][2]int, 0, parts)
	for i := 1; i < len(cuts); i++ {
		out = append(out, [2]int{cuts[i-1], cuts[i]})
	}
	return out
}

// numbers lists every number of m's distributions, in VarID order.
func numbers(m *ir.Model) []float64 {
	var out []float64
	seen := map[ir.Dist]bool{}
	for v := range m.Vars {
		d := m.Dist(ir.VarID(v))
		if d == nil || seen[d] {
			continue
		}
		seen[d] = true
		switch d := d.(type) {
		case *ir.Gaussian:
			out = append(append(out, d.Mean...), d.SD...)
		case *ir.MultiNormal:
			for u := range d.Mean {
				out = append(append(out, d.Mean[u]...), d.Cov[u]...)
			}
		default:
			out = append(out, m.Factor(ir.VarID(v)).Vals...)
		}
	}
	return out
}

// TestEMPlanMatchesLocal: EM run as E-step statistics per shard, merged
// in a random order and grouping, then the M-step, gives the local
// learner's trace and parameters (to 1e-12), whatever the partition of the
// rows, for a hidden discrete variable, missing cells, MAP, and a mixture
// inside a network (joint normal densities started by k-means).
func TestEMPlanMatchesLocal(t *testing.T) {
	tests := []struct {
		name, src, csv string
		opt            learn.Options
	}{
		{"latent-class", symptomsModel, "../examples/data/symptoms.csv", learn.Options{Method: learn.EM, Seed: 22, MaxIter: 6}},
		{"latent-class-map", symptomsModel, "../examples/data/symptoms.csv", learn.Options{Method: learn.EM, Seed: 3, MaxIter: 4, Alpha: 1}},
		{"mixture-network", fishModel, "../examples/data/fish.csv", learn.Options{Method: learn.EM, Seed: 1, MaxIter: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, tc.src)
			f, err := os.Open(tc.csv)
			if err != nil {
				t.Fatal(err)
			}
			all, err := data.ReadAll(tc.csv, f, m, data.Options{})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			m = m.WithStates(all.States)
			want, rep, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
				return data.Open(tc.csv, m, data.Options{})
			}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := learn.NewEMPlan(m, all.Vars, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 5))
			for _, parts := range []int{1, 3, 8} {
				params, err := plan.Start(0, all)
				if err != nil {
					t.Fatal(err)
				}
				var trace []float64
				for it := 0; it <= tc.opt.MaxIter; it++ {
					es, err := plan.EStep(params)
					if err != nil {
						t.Fatal(err)
					}
					var stats []*learn.EMStats
					for _, r := range randomParts(all.N, parts, rng) {
						st := es.NewStats()
						if err := es.Add(st, subBatch(all, r[0], r[1])); err != nil {
							t.Fatal(err)
						}
						stats = append(stats, st)
					}
					st := mergeRandomly(stats, rng, (*learn.EMStats).Merge)
					if st.Rows != int64(all.N) {
						t.Fatalf("%d parts: %d rows, want %d", parts, st.Rows, all.N)
					}
					trace = append(trace, st.LogLik)
					if it == tc.opt.MaxIter {
						break
					}
					if params, err = plan.MStep(params, st); err != nil {
						t.Fatal(err)
					}
				}
				if len(trace) != len(rep.Trace) {
					t.Fatalf("%d parts: trace of %d values, local %d", parts, len(trace), len(rep.Trace))
				}
				for i, ll := range trace {
					if !(math.Abs(ll-rep.Trace[i]) <= 1e-12*math.Abs(rep.Trace[i])) {
						t.Errorf("%d parts: log-likelihood %d is %v, local %v", parts, i, ll, rep.Trace[i])
					}
				}
				got, exp := numbers(params), numbers(want)
				if len(got) != len(exp) {
					t.Fatalf("%d parts: %d numbers, local %d", parts, len(got), len(exp))
				}
				for i := range got {
					if !(math.Abs(got[i]-exp[i]) <= 1e-12*math.Max(1, math.Abs(exp[i]))) {
						t.Errorf("%d parts: number %d is %v, local %v", parts, i, got[i], exp[i])
					}
				}
			}
		})
	}
}

// ExampleEMPlan shows one EM iteration over two shards.
func ExampleEMPlan() {
	files, err := pbl.Parse("m.pbl", []byte("var H: {a, b}\nvar X, Y: {yes, no}\nH -> X, Y\n"))
	if err != nil {
		panic(err)
	}
	m, err := ir.Lower(files...)
	if err != nil {
		panic(err)
	}
	shard := func(csv string) *data.Batch {
		b, err := data.ReadAll("shard.csv", strings.NewReader(csv), m, data.Options{})
		if err != nil {
			panic(err)
		}
		return b
	}
	s1, s2 := shard("X,Y\nyes,yes\nno,no\n"), shard("X,Y\nyes,no\nyes,yes\n")
	plan, err := learn.NewEMPlan(m, s1.Vars, learn.Options{Method: learn.EM, Seed: 1})
	if err != nil {
		panic(err)
	}
	params, _ := plan.Start(0, nil) // H is hidden: random tables
	es, _ := plan.EStep(params)
	a, b := es.NewStats(), es.NewStats()
	es.Add(a, s1) // on one machine
	es.Add(b, s2) // on another
	a.Merge(b)
	next, _ := plan.MStep(params, a)
	fmt.Println(a.Rows, next.Factor(0).Card)
	// Output: 4 [2]
}

// TestEMStreamsLikeInMemory: EM over data with more distinct rows than it
// holds (a limit of a few cells here) streams the file once per E-step,
// and learns what EM in memory learns: the same trace, starts, stopping
// and parameters, to rounding; with restarts, MAP, open variables (their
// states settled by a first pass) and a mixture inside a network.
func TestEMStreamsLikeInMemory(t *testing.T) {
	tests := []struct {
		name, src string
		csv       func(t *testing.T) []byte
		opt       learn.Options
	}{
		{"latent-class", symptomsModel, fileCSV("../examples/data/symptoms.csv"), learn.Options{Method: learn.EM, Seed: 22, Restarts: 3, Tol: 1e-8, MaxIter: 200}},
		{"latent-class-map", symptomsModel, fileCSV("../examples/data/symptoms.csv"), learn.Options{Method: learn.EM, Seed: 5, ESS: 3, MaxIter: 20}},
		{"open-missing", "naive_bayes C given A, B\nvar D: {d1, d2}\nC -> D\n",
			func(*testing.T) []byte { return randomCSV(rand.New(rand.NewPCG(3, 3)), 3000) }, learn.Options{Method: learn.EM, MaxIter: 10}},
		{"mixture-network", fishModel, fileCSV("../examples/data/fish.csv"), learn.Options{Method: learn.EM, Seed: 1, MaxIter: 8, Restarts: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, tc.src)
			src := tc.csv(t)
			open := func(m *ir.Model) (*data.Reader, error) {
				return data.NewReader("d.csv", bytes.NewReader(src), m, data.Options{})
			}
			want, wrep, err := learn.Learn(m, open, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if wrep.Patterns == 0 {
				t.Fatal("EM in memory reports no patterns")
			}
			restore := learn.SetMaxPatternCells(10)
			got, rep, err := learn.Learn(m, open, tc.opt)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			if rep.Patterns != 0 {
				t.Errorf("streaming EM reports %d patterns: it did not stream", rep.Patterns)
			}
			if rep.Rows != wrep.Rows || rep.Iterations != wrep.Iterations || rep.Converged != wrep.Converged || rep.Best != wrep.Best || rep.Init != wrep.Init || fmt.Sprint(rep.Hidden) != fmt.Sprint(wrep.Hidden) {
				t.Errorf("streaming: rows %d, %d iterations, converged %v, best %d, init %v, hidden %v; in memory: %d, %d, %v, %d, %v, %v",
					rep.Rows, rep.Iterations, rep.Converged, rep.Best, rep.Init, rep.Hidden, wrep.Rows, wrep.Iterations, wrep.Converged, wrep.Best, wrep.Init, wrep.Hidden)
			}
			if len(rep.Trace) != len(wrep.Trace) {
				t.Fatalf("trace of %d values, in memory %d", len(rep.Trace), len(wrep.Trace))
			}
			for i := range rep.Trace {
				if !(math.Abs(rep.Trace[i]-wrep.Trace[i]) <= 1e-10*math.Abs(wrep.Trace[i])) {
					t.Errorf("log-likelihood %d: %v, in memory %v", i, rep.Trace[i], wrep.Trace[i])
				}
			}
			g, w := numbers(got), numbers(want)
			if len(g) != len(w) {
				t.Fatalf("%d numbers, in memory %d", len(g), len(w))
			}
			for i := range g {
				if !(math.Abs(g[i]-w[i]) <= 1e-9*math.Max(1, math.Abs(w[i]))) {
					t.Errorf("number %d: %v, in memory %v", i, g[i], w[i])
				}
			}
		})
	}
}

// fileCSV returns a function that reads the file at path.
func fileCSV(path string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}
