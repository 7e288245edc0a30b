package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/ir"
)

// This file tests the limits (rows of an answer, VE's plan against the
// table and memory limits), the cost of large sparse models (stars,
// grids), the greedy elimination's incremental scores, and cancellation.

// slow returns the time bound for d: 3d, or 30d under the race detector.
func slow(d time.Duration) time.Duration {
	// The bounds catch the old behaviour (tens of seconds, gigabytes), not
	// a benchmark: a loaded two-core CI machine gets three times the time,
	// and the race detector ten times more.
	if raceEnabled {
		return 30 * d
	}
	return 3 * d
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// tooLarge returns err's *TooLargeError, failing the test unless it is
// one of kind what.
func tooLarge(t *testing.T, err error, what Oversize) *TooLargeError {
	t.Helper()
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.What != what {
		t.Fatalf("got %v, want a %v TooLargeError", err, what)
	}
	return tl
}

// TestMaxRows: a table answer of more rows than MaxRows is refused with
// their number before any engine runs, whatever the engine, and a raised
// limit lets it through.
func TestMaxRows(t *testing.T) {
	m := roots(24, 0.5).build(t)
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 1, Col: 1}}, Conditions: ir.Conditions{Free: ids(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22)}, Targets: ids(0), TargetStates: []int{-1}}
	for _, e := range everyEngine {
		var err error
		start := time.Now()
		bytes := allocated(func() { _, err = Answer(m, q, e.opt) })
		tl := tooLarge(t, err, OversizeRows)
		if tl.Size != 1<<23 || tl.Limit != DefaultMaxRows || len(tl.Vars) != 23 {
			t.Errorf("%s: %+v", e.name, tl)
		}
		if d := time.Since(start); d > slow(time.Second) || bytes > 1<<20 {
			t.Errorf("%s: refused after %v and %d bytes", e.name, d, bytes)
		}
	}
	// The refusal comes before any engine is built: no junction tree is
	// compiled for it.
	fresh := roots(24, 0.5).build(t)
	before := triangulations.Load()
	if _, err := Answer(fresh, q, jtOpt); triangulations.Load() != before {
		t.Errorf("a refused answer compiled a junction tree (%v)", err)
	}
	// Fixing a target counts one row per given configuration.
	q.TargetStates = []int{1}
	if _, err := Answer(m, q, Options{MaxRows: 1 << 21}); tooLarge(t, err, OversizeRows).Size != 1<<22 {
		t.Errorf("fixed target: %v", err)
	}
	q.Free = q.Free[:10]
	q.TargetStates = []int{-1}
	r, err := Answer(m, q, Options{Engine: VE, MaxRows: 1 << 11})
	if err != nil || len(r.(*Table).Rows) != 1<<11 {
		t.Errorf("2048 rows under a limit of 2048: %v", err)
	}
}

// TestMaxRowsAlarm: P(HISTORY | CVP and 15 more) on ALARM died with "out
// of memory" at 8.3 GB; it is refused at once with the number of rows.
func TestMaxRowsAlarm(t *testing.T) {
	m := readCorpus(t, "alarm")
	v := func(name string) ir.VarID {
		x, ok := m.Lookup(name)
		if !ok {
			t.Fatalf("alarm has no %s", name)
		}
		return x.ID
	}
	q := &ir.ProbQuery{Targets: []ir.VarID{v("HISTORY")}, TargetStates: []int{-1}}
	for _, name := range []string{"CVP", "PCWP", "HYPOVOLEMIA", "LVEDVOLUME", "LVFAILURE", "STROKEVOLUME", "ERRLOWOUTPUT", "HRBP", "HREKG", "ERRCAUTER", "HRSAT", "INSUFFANESTH", "ANAPHYLAXIS", "TPR", "EXPCO2", "KINKEDTUBE"} {
		q.Free = append(q.Free, v(name))
	}
	var err error
	start := time.Now()
	bytes := allocated(func() { _, err = Answer(m, q, Options{}) })
	tl := tooLarge(t, err, OversizeRows)
	if d := time.Since(start); d > slow(time.Second) || bytes > 1<<20 {
		t.Errorf("refused after %v and %d bytes", d, bytes)
	}
	t.Logf("%v", tl)
}

// star returns a root with n binary children, each with its own table.
func star(n int) netSpec {
	s := newSpec(n + 1)
	s.card[0], s.cpt[0] = 2, []float64{0.3, 0.7}
	for v := 1; v <= n; v++ {
		a, b := 0.1+0.8*float64(v*37%100)/100, 0.1+0.8*float64(v*53%100)/100
		s.card[v], s.parents[v], s.cpt[v] = 2, []int{0}, []float64{a, 1 - a, b, 1 - b}
	}
	return s
}

// TestStarScales: a star of 8,000 children took 34 s and 2 GB by default
// (the triangulation was quadratic, and worse on the root); every kind of
// query must now be quick, and agree with VE.
func TestStarScales(t *testing.T) {
	if !heavy() {
		t.Skip("heavy: runs without -short and -race")
	}
	m := star(8000).build(t)
	ev := []ir.Obs{{Var: 1, State: 0}, {Var: 7999, State: 1}}
	start := time.Now()
	r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(0), TargetStates: []int{-1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// It takes about 0.1 s (0.04 s for the pbl query command); the bound
	// leaves room for a loaded machine and still fails the quadratic
	// triangulation, which took 34 s.
	if d := time.Since(start); d > slow(10*time.Second) {
		t.Errorf("P(root | two children) took %v by default", d)
	}
	ref, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(0), TargetStates: []int{-1}}, Options{Engine: VE})
	if err != nil || !relEqual(r.(*Table).Rows[0].P, ref.(*Table).Rows[0].P, 1e-12) {
		t.Errorf("JT %v, VE %v, %v", r.(*Table).Rows, ref.(*Table).Rows, err)
	}
	// Every child observed: VE's root bucket holds 8,000 tables.
	var all []ir.Obs
	for v := 1; v <= 8000; v++ {
		all = append(all, ir.Obs{Var: ir.VarID(v), State: v % 2})
	}
	for _, q := range []ir.Query{
		&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true},
		&ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}},
		&ir.ProbQuery{Conditions: ir.Conditions{Evidence: all}, Targets: ids(0), TargetStates: []int{-1}},
	} {
		start := time.Now()
		a := agree(t, m, q, Options{}, Options{Engine: VE}, fmt.Sprintf("%+v", fmt.Sprintf("%T", q)))
		if d := time.Since(start); d > slow(10*time.Second) {
			t.Errorf("%v: took %v", fmt.Sprintf("%T", q), d)
		}
		_ = a
	}
}

// grid returns a k×k Bayesian network, each variable a child of its upper
// and left neighbours, with random tables.
func grid(k int) netSpec {
	rng := rand.New(rand.NewPCG(40, 40))
	s := newSpec(k * k)
	for r := range k {
		for c := range k {
			v := r*k + c
			s.card[v] = 2
			if r > 0 {
				s.parents[v] = append(s.parents[v], v-k)
			}
			if c > 0 {
				s.parents[v] = append(s.parents[v], v-1)
			}
			s.randomTable(rng, v, false)
		}
	}
	return s
}

// TestGridRefusedFast: a 40×40 grid was refused only after 75 s and 2.8
// GB (VE built its tables until one went over the limit); the refusal now
// comes from the plans, before any table is built. (Auto answers it
// approximately unless Options.Exact: approx_test.go.)
func TestGridRefusedFast(t *testing.T) {
	m := grid(40).build(t)
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 1}}}, Targets: ids(1599), TargetStates: []int{-1}}
	for _, e := range []testEngine{{"auto", Options{Exact: true}}, {"ve", Options{Engine: VE}}, {"jt", jtOpt}} {
		var err error
		start := time.Now()
		bytes := allocated(func() { _, err = Answer(m, q, e.opt) })
		var tl *TooLargeError
		if !errors.As(err, &tl) {
			t.Fatalf("%s: got %v, want a TooLargeError", e.name, err)
		}
		if d := time.Since(start); d > slow(2*time.Second) || bytes > 64<<20 {
			t.Errorf("%s: refused after %v and %d MB", e.name, d, bytes>>20)
		}
	}
}

// TestVEMemoryLimit: VE's plan is checked against MaxMemory before any
// table is allocated: a query whose tables need more is refused with the
// kind OversizeMemory, and answered under a larger limit.
func TestVEMemoryLimit(t *testing.T) {
	m := fanIn(16).build(t) // the child's family has 2^16 entries
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 15, State: 0}}}, Targets: ids(0), TargetStates: []int{-1}}
	_, err := Answer(m, q, Options{Engine: VE, MaxMemory: 100 << 10})
	if tl := tooLarge(t, err, OversizeMemory); tl.Limit != 100<<10 || !(tl.Size > 100<<10) {
		t.Errorf("%+v", tl)
	}
	if _, err := Answer(m, q, Options{Engine: VE, MaxMemory: 10 << 20}); err != nil {
		t.Error(err)
	}
	// MaxTable stops the order at the first table over it, naming it.
	_, err = Answer(m, q, Options{Engine: VE, MaxTable: 1 << 10})
	if tl := tooLarge(t, err, OversizeTable); len(tl.Vars) < 10 {
		t.Errorf("%+v", tl)
	}
}

// TestElimGraphCounters: the greedy elimination's incremental counters
// (degree, edges among the neighbours, Σ card, Σ card², Σ card·card over
// those edges) equal a recount from the adjacency before every
// elimination, on random graphs and every kind of score.
func TestElimGraphCounters(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for trial := range 60 {
		n := 5 + rng.IntN(60)
		card := make([]float64, n)
		tie := make([]uint64, n)
		for i := range card {
			card[i] = float64(1 + rng.IntN(4))
			tie[i] = uint64(i)
		}
		var edges [][2]int32
		for range rng.IntN(4 * n) {
			edges = append(edges, [2]int32{int32(rng.IntN(n)), int32(rng.IntN(n))})
		}
		for _, kind := range []scoreKind{scoreFill, scoreWeight, scoreWeightedFill} {
			g := newElimGraph(kind, trial%2 == 0, card, tie, edges)
			all := make([]int32, n)
			for i := range all {
				all[i] = int32(i)
			}
			g.run([][]int32{all}, func(x int32, nb []int32) bool {
				for v := range int32(n) {
					if g.alive[v] {
						if d := g.recount(v); d != "" {
							t.Fatalf("trial %d, kind %d, before eliminating %d: vertex %d: %s", trial, kind, x, v, d)
						}
					}
				}
				return true
			})
		}
	}
}

// recount compares v's counters with a recount from the adjacency.
func (g *elimGraph) recount(v int32) string {
	var nb []int32
	for _, a := range g.adj[v] {
		if g.alive[a] {
			nb = append(nb, a)
		}
	}
	tri, big, s1, s2, wtri := int64(0), int32(0), 0.0, 0.0, 0.0
	for i, a := range nb {
		if g.card[a] >= 2 {
			big++
		}
		s1 += g.card[a]
		s2 += g.card[a] * g.card[a]
		for _, b := range nb[i+1:] {
			if g.has(a, b) {
				tri++
				wtri += g.card[a] * g.card[b]
			}
		}
	}
	switch {
	case int(g.deg[v]) != len(nb):
		return fmt.Sprintf("degree %d, recount %d", g.deg[v], len(nb))
	case g.big[v] != big:
		return fmt.Sprintf("big %d, recount %d", g.big[v], big)
	case g.kind != scoreWeight && g.tri[v] != tri:
		return fmt.Sprintf("tri %d, recount %d", g.tri[v], tri)
	case g.kind == scoreWeightedFill && (g.s1[v] != s1 || g.s2[v] != s2 || g.wtri[v] != wtri):
		return fmt.Sprintf("weighted (%v %v %v), recount (%v %v %v)", g.s1[v], g.s2[v], g.wtri[v], s1, s2, wtri)
	}
	return ""
}

// TestEliminationTree: the clique tree built from the triangulation's
// elimination tree (used when the clique graph is too large for Kruskal)
// has the running-intersection property and gives the answers Kruskal's
// tree gives.
func TestEliminationTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	for trial := range 20 {
		spec := localNet(rng, 40, 3, 6)
		m := spec.build(t)
		kruskal, err := Compile(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		old := kruskalPairs
		kruskalPairs = -1
		p, err := plan(m, math.Inf(1), nil)
		elim, err2 := Compile(m, Options{})
		kruskalPairs = old
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		for v := range m.Vars {
			tops := 0
			for c, vs := range p.cliques {
				if !slices.Contains(vs, ir.VarID(v)) {
					continue
				}
				if pa := p.parent[c]; pa < 0 || !slices.Contains(p.cliques[pa], ir.VarID(v)) {
					tops++
				}
			}
			if tops != 1 {
				t.Fatalf("trial %d: variable %d's cliques form %d subtrees", trial, v, tops)
			}
		}
		q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: randomStates(rng, spec.card, 3)}, Star: true}
		a, errA := kruskal.Answer(q, Options{})
		b, errB := elim.Answer(q, Options{})
		if d := sameAnswer(a, errA, b, errB, 1e-12); d != "" {
			t.Fatalf("trial %d: %s", trial, d)
		}
	}
}

// complete returns a Markov network over n binary variables with a
// factor on every pair: one clique of 2^n entries, and VE tables of
// 2^(n-1).
func complete(t testing.TB, n int) *ir.Model {
	b := ir.NewBuilder("k.uai")
	for v := range n {
		b.AddVar(ir.Pos{File: "k.uai", Line: 1}, fmt.Sprintf("X%d", v), ir.Enum, []string{"0", "1"}, 0)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for a := range n {
		for c := a + 1; c < n; c++ {
			b.AddFactor(ir.Pos{File: "k.uai", Line: 2}, ids(a, c), []float64{1 + rng.Float64(), 1, 1, 1 + rng.Float64()})
		}
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCancel: closing Options.Cancel stops every engine within a fraction
// of a second with an error of kind ErrCanceled (VE eliminating, the
// junction tree compiling, enumeration), a closed channel stops it before
// it starts, and a canceled compilation is not cached.
func TestCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	n := 22 // about a second's work for each engine
	if raceEnabled {
		n = 18
	}
	big := complete(t, n)
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 1, Col: 1}}, Targets: ids(0), TargetStates: []int{-1}}
	for _, tc := range []struct {
		name string
		m    *ir.Model
		opt  Options
	}{
		{"ve", complete(t, n+1), Options{Engine: VE}},
		{"jt", big, Options{Engine: JT}},
		{"enum", complete(t, n+2), Options{Engine: Enum}},
	} {
		cancel := make(chan struct{})
		tc.opt.Cancel = cancel
		done := make(chan error, 1)
		go func() {
			_, err := Answer(tc.m, q, tc.opt)
			done <- err
		}()
		time.Sleep(100 * time.Millisecond)
		close(cancel)
		stop := time.Now()
		select {
		case err := <-done:
			if !errors.Is(err, ErrCanceled) {
				t.Errorf("%s: got %v, want ErrCanceled", tc.name, err)
			}
			// About 10 ms on an idle machine; the bound leaves room for
			// a loaded one.
			if d := time.Since(stop); d > slow(time.Second) {
				t.Errorf("%s: stopped %v after the cancellation", tc.name, d)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: not stopped 5 s after the cancellation", tc.name)
		}
		// Closed before the call: nothing is computed.
		start := time.Now()
		if _, err := Answer(tc.m, q, tc.opt); !errors.Is(err, ErrCanceled) || time.Since(start) > slow(time.Second) {
			t.Errorf("%s: a closed channel gave %v after %v", tc.name, err, time.Since(start))
		}
	}
	// The canceled compilation of big was not cached: without a
	// cancellation, the tree compiles and answers.
	if _, err := Answer(big, q, Options{Engine: JT}); err != nil {
		t.Errorf("after a canceled compilation: %v", err)
	}
}

// BenchmarkStar answers P(root | a child) by default on stars of 2,000,
// 8,000 and 20,000 children, compiling the junction tree each time (a new
// model), the cost that was quadratic.
func BenchmarkStar(b *testing.B) {
	for _, n := range []int{2000, 8000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := star(n)
			q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 1, State: 0}}}, Targets: ids(0), TargetStates: []int{-1}}
			for b.Loop() {
				b.StopTimer()
				m := s.build(b)
				b.StartTimer()
				if _, err := Answer(m, q, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
