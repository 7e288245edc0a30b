package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// veAndJT are the engines the junction tree tests compare with
// enumeration.
var veAndJT = []testEngine{{"ve", Options{Engine: VE}}, {"jt", jtOpt}}

// TestJTRandomBayes: on random Bayesian networks JT agrees with
// enumeration and VE to 1e-12 on P(*|e), P(X|e), P(X,Y|Z,e), P(x|e), P(e)
// and MPE, and gives the same impossible-evidence errors.
func TestJTRandomBayes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	queries, errs := 0, 0
	for net := 0; net < 60; net++ {
		spec := randomNet(rng, 3+rng.IntN(7), 4, 3, net%3 == 0)
		m := spec.build(t)
		for k := 0; k < 12; k++ {
			q := randomQuery(rng, spec.card)
			if k%4 == 3 {
				q = &ir.MPEQuery{QueryHeader: ir.QueryHeader{Pos: flat(q).Pos}, Conditions: ir.Conditions{Evidence: flat(q).Evidence}}
			}
			if _, err := compareEngines(t, m, q, fmt.Sprintf("net %d", net), veAndJT...); err != nil {
				errs++
			}
			queries++
		}
	}
	t.Logf("%d queries, %d with impossible evidence", queries, errs)
	if errs == 0 {
		t.Error("no query had impossible evidence; the error path is untested")
	}
}

// TestJTRandomMarkov: the same on Markov networks (potentials with zeros,
// variables in no factor, disconnected components).
func TestJTRandomMarkov(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for net := 0; net < 60; net++ {
		m := randomMarkov(t, rng, 3+rng.IntN(6))
		for k := 0; k < 8; k++ {
			q := randomQuery(rng, cards(m))
			if k%4 == 3 {
				q = &ir.MPEQuery{QueryHeader: ir.QueryHeader{Pos: flat(q).Pos}, Conditions: ir.Conditions{Evidence: flat(q).Evidence}}
			}
			compareEngines(t, m, q, fmt.Sprintf("markov net %d", net), veAndJT...)
		}
	}
}

// TestJTMPEBrute: JT's MPE assignment has the maximal joint probability.
func TestJTMPEBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for net := 0; net < 40; net++ {
		spec := randomNet(rng, 3+rng.IntN(6), 3, 3, false)
		m := spec.build(t)
		joint, card := bruteJoint(m)
		var ev []ir.Obs
		for _, v := range rng.Perm(len(card))[:rng.IntN(3)] {
			ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
		}
		r, err := Answer(m, &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}, jtOpt)
		if err != nil {
			t.Fatal(err)
		}
		mx, pe, got := 0.0, 0.0, 0.0
		for a, p := range jointGiven(joint, card, ev) {
			pe += p
			mx = math.Max(mx, p)
			if consistent(a, r.(*Assignment).Assignment) {
				got = p
			}
		}
		if !equal(got, mx, 1e-12) || !equal(r.(*Assignment).P, mx/pe, 1e-12) {
			t.Fatalf("net %d: JT MPE %v has p %v (reported %v), max %v", net, r.(*Assignment).Assignment, got/pe, r.(*Assignment).P, mx/pe)
		}
	}
}

// TestJTLargerNets: on networks too large for enumeration, JT agrees with
// VE on every marginal and on P(e).
func TestJTLargerNets(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for trial := 0; trial < 4; trial++ {
		spec := localNet(rng, 150, 3, 8)
		m := spec.build(t)
		ev := randomStates(rng, spec.card, 10)
		agree(t, m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, Options{Engine: VE}, jtOpt, fmt.Sprintf("trial %d", trial))
		agree(t, m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{Engine: VE}, jtOpt, fmt.Sprintf("trial %d: P(e)", trial))
	}
}

// TestJTUnderflow: on the 2000-variable chain of TestUnderflowChain (which
// checks JT with the other engines) with no evidence at all, every marginal
// is (0.5, 0.5): the long path of cliques does not overflow on the way
// out; and a root with 2000 observed children gets VE's posterior.
func TestJTUnderflow(t *testing.T) {
	const n = 2000
	m := chainNet(n, 0.9).build(t)
	r, err := Answer(m, &ir.ProbQuery{Star: true}, jtOpt)
	if err != nil {
		t.Fatal(err)
	}
	for _, mg := range r.(*Marginals).Marginals {
		if !equal(mg.P[0], 0.5, 1e-12) || !equal(mg.P[1], 0.5, 1e-12) {
			t.Fatalf("marginal of X%d = %v", mg.Var, mg.P)
		}
	}
	// A star: one root with 2000 observed children, all messages into the
	// same clique (the collect pass rescales the clique table).
	s := newSpec(n + 1)
	s.card[0], s.cpt[0] = 2, []float64{0.5, 0.5}
	var ev []ir.Obs
	for v := 1; v <= n; v++ {
		s.card[v], s.parents[v], s.cpt[v] = 2, []int{0}, []float64{0.6, 0.4, 0.5, 0.5}
		ev = append(ev, ir.Obs{Var: ir.VarID(v), State: 0})
	}
	agree(t, s.build(t), &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(0), TargetStates: []int{-1}}, Options{Engine: VE}, jtOpt, "star")
}

// TestJTLimits: a tree over MaxTable or MaxMemory is refused before it is
// allocated, naming the largest clique.
func TestJTLimits(t *testing.T) {
	// Ten roots and a child of all of them: one clique of 2^11 entries.
	const n = 11
	m := fanIn(n).build(t)
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 2, Col: 1}}, Star: true}
	_, err := Answer(m, q, Options{Engine: JT, MaxTable: 1000})
	if err == nil || !strings.Contains(err.Error(), "q.pbl:2:1: junction tree needs a clique over 11 variables") ||
		!strings.Contains(err.Error(), "2048 entries") || !strings.Contains(err.Error(), "X0, X1") {
		t.Errorf("got %v, want a clique-size error", err)
	}
	_, err = Answer(m, q, Options{Engine: JT, MaxMemory: 10000})
	if err == nil || !strings.Contains(err.Error(), "of memory") || !strings.Contains(err.Error(), "more than the limit of 9.8 KiB") {
		t.Errorf("got %v, want a memory error", err)
	}
	// Auto falls back to VE, which needs smaller tables here.
	r, err := Answer(m, q, Options{MaxTable: 1024})
	if err != nil || len(r.(*Marginals).Marginals) != n {
		t.Errorf("auto with MaxTable 1024: %v, %v", r, err)
	}
	if _, err := Answer(m, q, Options{Engine: JT, MaxTable: 2048}); err != nil {
		t.Errorf("with MaxTable 2048: %v", err)
	}
}

// TestJTCompileOnce: Answer reuses one compiled tree per model, and an
// explicit JTree answers like Answer does.
func TestJTCompileOnce(t *testing.T) {
	m := randomNet(rand.New(rand.NewPCG(9, 9)), 8, 3, 3, false).build(t)
	t1, err1 := cachedCompile(m, jtOpt)
	t2, err2 := cachedCompile(m, jtOpt)
	if err1 != nil || err2 != nil || t1 != t2 {
		t.Fatalf("cachedCompile: %p %v, %p %v", t1, err1, t2, err2)
	}
	jt := mustCompile(t, m)
	for _, ev := range [][]ir.Obs{nil, {{Var: 7, State: 1}}, {{Var: 7, State: 1}}, {{Var: 2, State: 0}, {Var: 5, State: 1}}} {
		for _, q := range []ir.Query{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}} {
			a, errA := Answer(m, q, Options{Engine: VE})
			b, errB := jt.Answer(q, Options{})
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if d := sameResult(a, b, 1e-12); d != "" {
				t.Fatalf("evidence %v, %v: %s", ev, fmt.Sprintf("%T", q), d)
			}
		}
	}
}

// TestExplain: the description names the heuristic, the width and the
// largest clique.
func TestExplain(t *testing.T) {
	m := netSpec{card: []int{2, 3, 2}, parents: [][]int{nil, {0}, {0, 1}},
		cpt: [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5, 0.1, 0.1, 0.8}, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}}}.build(t)
	s, err := Explain(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"triangulation: min-fill", "induced width: 2", "cliques: 1", "largest clique: 3 variables (X0, X1, X2), 12 entries", "total clique-table size: 12 entries"} {
		if !strings.Contains(s, want) {
			t.Errorf("Explain lacks %q:\n%s", want, s)
		}
	}
	s, _ = Explain(m, Options{MaxTable: 10})
	if !strings.Contains(s, "refused: junction tree needs a clique") {
		t.Errorf("Explain with MaxTable 10 does not say it is refused:\n%s", s)
	}
	jt, _ := Compile(m, Options{})
	if jt.Explain() != strings.Replace(s, "  refused: "+s[strings.Index(s, "refused: ")+9:], "", 1) {
		t.Errorf("JTree.Explain:\n%s\nExplain:\n%s", jt.Explain(), s)
	}
}

// TestTriangulationHeuristics: every heuristic gives a valid junction tree
// (the running-intersection property holds), and the chosen one has the
// smallest total.
func TestTriangulationHeuristics(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for trial := 0; trial < 20; trial++ {
		m := localNet(rng, 40, 3, 6).build(t)
		mg := moralGraph(m)
		best, _, _ := bestTriangulation(m, math.Inf(1), nil)
		for _, h := range []jtHeuristic{jtMinFill, jtMinWeight, jtWeightedMinFill} {
			for _, seed := range jtSeeds {
				tr, _ := triangulate(h, seed, mg, newBound(math.Inf(1)), math.Inf(1), nil)
				if tr.total < best.total {
					t.Errorf("%s has total %v < chosen %v", tr, tr.total, best.total)
				}
			}
		}
		p, err := plan(m, math.Inf(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Running intersection: the cliques containing each variable form
		// a connected subtree, i.e. exactly one of them has a parent that
		// lacks the variable.
		for v := range m.Vars {
			tops := 0
			for c, vs := range p.cliques {
				if factor.IndexOf(vs, ir.VarID(v)) < 0 {
					continue
				}
				if pa := p.parent[c]; pa < 0 || factor.IndexOf(p.cliques[pa], ir.VarID(v)) < 0 {
					tops++
				}
			}
			if tops != 1 {
				t.Fatalf("trial %d: variable %d's cliques form %d subtrees", trial, v, tops)
			}
		}
	}
}

// TestJTConcurrent: one compiled tree answers queries from several
// goroutines (each takes its own workspace).
func TestJTConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	spec := localNet(rng, 60, 3, 6)
	m := spec.build(t)
	var qs []ir.Query
	var want []Result
	for range 8 {
		q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: randomStates(rng, spec.card, 4)}, Star: true}
		r, err := Answer(m, q, Options{Engine: VE})
		if err != nil {
			t.Fatal(err)
		}
		qs, want = append(qs, q), append(want, r)
	}
	done := make(chan string)
	for g := range 4 {
		go func() {
			for k := range 20 {
				i := (g + k) % len(qs)
				r, err := Answer(m, qs[i], jtOpt)
				if err != nil {
					done <- err.Error()
					return
				}
				if d := sameResult(want[i], r, 1e-12); d != "" {
					done <- d
					return
				}
			}
			done <- ""
		}()
	}
	for range 4 {
		if d := <-done; d != "" {
			t.Error(d)
		}
	}
}
