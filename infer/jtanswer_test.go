package infer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// jtAnswerQueries returns, for each of k possible evidence sets of three
// observed variables on m, the queries P(* | e), P(X | e), P(X = x | e) and
// P(e), X an unobserved variable, each kind in a list of its own.
func jtAnswerQueries(t testing.TB, m *ir.Model, rng *rand.Rand, k int) map[string][]ir.Query {
	qs := map[string][]ir.Query{}
	for len(qs["P(e)"]) < k {
		ev := randomStates(rng, cards(m), 3)
		if _, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, Options{Engine: VE}); err != nil {
			continue // impossible evidence: an error, which allocates
		}
		x := ir.VarID(rng.IntN(len(m.Vars)))
		for slices.ContainsFunc(ev, func(o ir.Obs) bool { return o.Var == x }) {
			x = ir.VarID(rng.IntN(len(m.Vars)))
		}
		qs["P(*|e)"] = append(qs["P(*|e)"], &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true})
		qs["P(X|e)"] = append(qs["P(X|e)"], &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{x}, TargetStates: []int{-1}})
		qs["P(X=x|e)"] = append(qs["P(X=x|e)"], &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{x}, TargetStates: []int{1}})
		qs["P(e)"] = append(qs["P(e)"], &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}})
	}
	return qs
}

// TestJTAnswerAllocs: a query on a compiled tree allocates its answer and
// nothing else, through JTree.Answer and through Answer with the JT engine
// (and Auto for P(* | e), which always takes the tree), on a Bayesian and
// a Markov network, on one core and on two (the parallel passes forced
// on). The answer is the Result, and for P(* | e) its list of marginals
// and one array holding them all, for P(X | e) its rows and one array
// holding their values.
func TestJTAnswerAllocs(t *testing.T) {
	defer func(n int) { parMinEntries = n }(parMinEntries)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(16, 16))
	nets := []struct {
		name string
		m    *ir.Model
	}{
		{"bayes", localNet(rng, 200, 3, 8).build(t)},
		{"markov", randomMarkov(t, rng, 12)},
	}
	want := map[string]float64{"P(*|e)": 3, "P(X|e)": 3, "P(X=x|e)": 1, "P(e)": 1}
	for _, net := range nets {
		m := net.m
		jt, err := Compile(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs := jtAnswerQueries(t, m, rng, 6)
		ways := []struct {
			name string
			ask  func(q ir.Query) (Result, error)
			only string // the one kind of query asked this way, or ""
		}{
			{"JTree.Answer", func(q ir.Query) (Result, error) { return jt.Answer(q, Options{}) }, ""},
			{"Answer JT", func(q ir.Query) (Result, error) { return Answer(m, q, Options{Engine: JT}) }, ""},
			{"Answer Auto", func(q ir.Query) (Result, error) { return Answer(m, q, Options{}) }, "P(*|e)"},
		}
		for _, cores := range []int{1, 2} {
			runtime.GOMAXPROCS(cores)
			parMinEntries = 1 << 62
			if cores > 1 {
				parMinEntries = 0
			}
			for _, way := range ways {
				for kind, n := range want {
					if way.only != "" && kind != way.only {
						continue
					}
					what := fmt.Sprintf("%s, %d cores, %s %s", net.name, cores, way.name, kind)
					list := qs[kind]
					for _, q := range list {
						// Every query answers (an error allocates), and
						// the workspaces exist.
						if _, err := way.ask(q); err != nil {
							t.Fatalf("%s: %v", what, err)
						}
					}
					i := 0
					got := testing.AllocsPerRun(40, func() {
						// Alternate evidence sets so that every run
						// recalibrates.
						way.ask(list[i%len(list)])
						i++
					})
					if got != n {
						t.Errorf("%s: %v allocations per query, want %v (the answer's)", what, got, n)
					}
				}
			}
		}
	}
}

// TestJTAnswerReuse: answers given by queries that reuse an answerer's
// buffers (one after another, and from several goroutines at once) do
// not share memory: each equals the answer of a fresh query asked alone.
func TestJTAnswerReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	m := localNet(rng, 60, 3, 6).build(t)
	jt := mustCompile(t, m)
	qs := jtAnswerQueries(t, m, rng, 4)
	var all []ir.Query
	for _, kind := range []string{"P(*|e)", "P(X|e)", "P(X=x|e)", "P(e)"} {
		all = append(all, qs[kind]...)
	}
	want := make([]string, len(all))
	for i, q := range all {
		r, err := Answer(m, q, Options{Engine: VE})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = resultText(r)
	}
	got := make([][]Result, 4)
	done := make(chan int)
	for g := range got {
		go func() {
			defer func() { done <- g }()
			for range 3 {
				for _, q := range all {
					r, err := jt.Answer(q, Options{})
					if err != nil {
						t.Error(err)
						return
					}
					got[g] = append(got[g], r)
				}
			}
		}()
	}
	for range got {
		<-done
	}
	for g, rs := range got {
		for i, r := range rs {
			if s, w := resultText(r), want[i%len(all)]; s != w {
				t.Errorf("goroutine %d, query %d: %s\nwant %s", g, i, s, w)
			}
		}
	}
}

// resultText renders the numbers of a probability answer to 9 digits.
func resultText(r Result) string {
	ps, _, shape := resultParts(r)
	return fmt.Sprintf("%T %v %.9f", r, shape, ps)
}

// BenchmarkJTAnswer measures a query through JTree.Answer on a compiled
// corpus network, for each kind of query, with five observed variables
// alternating between evidence sets; allocs/op is the answer's.
func BenchmarkJTAnswer(b *testing.B) {
	for _, name := range jtBenchNets {
		b.Run(name, func(b *testing.B) {
			jt := compiledCorpus(b, name)
			evs := benchEvidence(jt.m)
			x := ir.VarID(0)
			for slices.ContainsFunc(evs[0], func(o ir.Obs) bool { return o.Var == x }) {
				x++
			}
			kinds := []struct {
				name string
				q    func(ev []ir.Obs) ir.Query
			}{
				{"star", func(ev []ir.Obs) ir.Query { return &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true} }},
				{"X", func(ev []ir.Obs) ir.Query {
					return &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{x}, TargetStates: []int{-1}}
				}},
				{"e", func(ev []ir.Obs) ir.Query { return &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}} }},
			}
			for _, kind := range kinds {
				b.Run(kind.name, func(b *testing.B) {
					var qs []ir.Query
					for _, ev := range evs {
						if !slices.ContainsFunc(ev, func(o ir.Obs) bool { return o.Var == x }) {
							qs = append(qs, kind.q(ev))
						}
					}
					if _, err := jt.Answer(qs[0], Options{}); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					i := 0
					cpu := cpuTime()
					for b.Loop() {
						if _, err := jt.Answer(qs[i%len(qs)], Options{}); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}
