package infer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// planOf returns the VE plan the Auto engine would make for q's joint on
// m, and the Auto engine's choice (nil for a query it does not plan).
func planOf(t testing.TB, m *ir.Model, q ir.Query, opt Options) (*vePlan, *queryPlan) {
	t.Helper()
	a := &answerer{m: m, q: flat(q), opt: opt, k: factor.NewKernel(nil)}
	if err := a.validate(); err != nil {
		t.Fatalf("%s: %v", flat(q).Text, err)
	}
	a.k = factor.NewKernel(nil)
	keep, _ := a.planKeep()
	p, err := a.newVE(a.obs).plan(keep, nil)
	if err != nil {
		t.Fatalf("%s: %v", flat(q).Text, err)
	}
	if !a.planned() {
		return p, nil
	}
	qp, err := a.decide()
	if err != nil {
		t.Fatalf("%s: %v", flat(q).Text, err)
	}
	return p, qp
}

// chain builds A -> B -> C and C2 -> D with the given tables (each row
// A's, then B's given A, ...), two states each.
func chainModel(t *testing.T, dZero bool) *ir.Model {
	t.Helper()
	s := newSpec(5)
	for v := range s.card {
		s.card[v] = 2
	}
	s.parents[1] = []int{0}
	s.parents[2] = []int{1}
	s.parents[4] = []int{3}
	s.cpt[0] = []float64{0.3, 0.7}
	s.cpt[1] = []float64{0.9, 0.1, 0.2, 0.8}
	s.cpt[2] = []float64{0.6, 0.4, 0.25, 0.75}
	s.cpt[3] = []float64{0.5, 0.5}
	s.cpt[4] = []float64{0.4, 0.6, 0.1, 0.9}
	if dZero {
		// X4 = s1 is impossible whatever X3.
		s.cpt[4] = []float64{1, 0, 1, 0}
	}
	return s.build(t)
}

// TestPlanSeparate checks what the planner leaves out and that the answers
// stay those of enumeration, evidence of probability 0 included.
func TestPlanSeparate(t *testing.T) {
	obs := func(v, s int) ir.Obs { return ir.Obs{Var: ir.VarID(v), State: s} }
	tests := []struct {
		name       string
		dZero      bool
		q          ir.Query
		vars, dsep int // variables left and left out as d-separated
		impossible bool
	}{
		// P(X2 | X1): X0 is d-separated from X2 given X1; X3, X4 are barren.
		{"chain", false, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X2 | X1=s0)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{obs(1, 0)}}, Targets: ids(2), TargetStates: []int{-1}}, 1, 1, false},
		// The evidence on X4 is relevant but d-separated from X2: its
		// component {X3} is left out (its constant is positive).
		{"other component", false, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X2 | X4=s1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{obs(4, 1)}}, Targets: ids(2), TargetStates: []int{-1}}, 3, 1, false},
		// The same with P(X4 = s1) = 0: the component stays, and the
		// evidence is impossible.
		{"zero component", true, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X2 | X4=s1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{obs(4, 1)}}, Targets: ids(2), TargetStates: []int{-1}}, 4, 0, true},
		{"zero number", true, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X2=s0 | X1=s1, X4=s1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{obs(1, 1), obs(4, 1)}}, Targets: ids(2), TargetStates: []int{0}}, 2, 1, true},
		// P(e) needs every component.
		{"evidence", false, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X1=s0, X4=s1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{obs(1, 0), obs(4, 1)}}}, 2, 0, false},
		{"zero evidence", true, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X1=s0, X4=s1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{obs(1, 0), obs(4, 1)}}}, 2, 0, false},
	}
	for _, tt := range tests {
		m := chainModel(t, tt.dZero)
		p, _ := planOf(t, m, tt.q, Options{})
		if p.nvars != tt.vars || p.dsep != tt.dsep {
			t.Errorf("%s: %d variables left, %d d-separated; want %d and %d", tt.name, p.nvars, p.dsep, tt.vars, tt.dsep)
		}
		ref, refErr := Answer(m, tt.q, Options{Engine: Enum})
		if tt.impossible != errors.Is(refErr, ErrImpossible) {
			t.Fatalf("%s: enumeration: %v", tt.name, refErr)
		}
		for _, opt := range []Options{{}, {Engine: VE}, {Engine: VE, Order: MinWeight}, {Engine: JT}} {
			r, err := Answer(m, tt.q, opt)
			if d := sameAnswer(ref, refErr, r, err, 1e-12); d != "" {
				t.Errorf("%s: %v/%v differs from enumeration: %s", tt.name, opt.Engine, opt.Order, d)
			}
		}
	}
}

// TestPlanRandom checks the planned answers (Auto, and VE with each order
// and the best) against enumeration on random networks with zeros and
// much evidence, so that many components are d-separated and many
// evidence sets are impossible. It fails if the planner never leaves a
// component out (the test would then check nothing of separate).
func TestPlanRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	engines := []testEngine{
		{"auto", Options{}},
		{"ve-best", Options{Engine: VE}},
		{"ve-weighted", Options{Engine: VE, Order: WeightedMinFill}},
		{"auto-batch", Options{Queries: 1000}},
	}
	trials := 400
	if testing.Short() {
		trials = 80
	}
	separated, impossible := 0, 0
	for trial := range trials {
		spec := randomNet(rng, 3+rng.IntN(9), 3, 2, trial%2 == 0)
		m := spec.build(t)
		for range 6 {
			q := randomQuery(rng, spec.card).(*ir.ProbQuery)
			// More evidence than randomQuery draws: evidence separates.
			for _, v := range rng.Perm(len(spec.card)) {
				if rng.IntN(3) > 0 || slices.Contains(flat(q).Targets, ir.VarID(v)) || slices.Contains(flat(q).Free, ir.VarID(v)) ||
					slices.ContainsFunc(flat(q).Evidence, func(o ir.Obs) bool { return o.Var == ir.VarID(v) }) {
					continue
				}
				q.Evidence = append(q.Evidence, ir.Obs{Var: ir.VarID(v), State: rng.IntN(spec.card[v])})
			}
			q.Text = fmt.Sprintf("trial %d", trial)
			_, err := compareEngines(t, m, q, flat(q).Text, engines...)
			if errors.Is(err, ErrImpossible) {
				impossible++
			}
			if flat(q).Kind == kindProb && !flat(q).Star && len(flat(q).Targets) > 0 {
				if p, _ := planOf(t, m, q, Options{}); p.dsep > 0 {
					separated++
				}
			}
		}
	}
	if separated == 0 || impossible == 0 {
		t.Errorf("%d queries left a component out, %d had impossible evidence: the test checks too little", separated, impossible)
	}
}

// TestPlanOrders checks that BestOrder keeps the cheapest of the orders
// it tries, and that an explicit order is the only one tried.
func TestPlanOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	for trial := range 40 {
		spec := localNet(rng, 40, 3, 8)
		m := spec.build(t)
		q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X0)"}, Targets: ids(0), TargetStates: []int{-1}}
		best, _ := planOf(t, m, q, Options{})
		for _, tr := range best.tried {
			if tr.err == nil && tr.cost < best.cost {
				t.Fatalf("trial %d: kept %s at %g, but %s costs %g", trial, best.order, best.cost, tr.h, tr.cost)
			}
		}
		for _, h := range heuristics {
			p, _ := planOf(t, m, q, Options{Order: h})
			if len(p.tried) != 1 || p.order != h {
				t.Fatalf("trial %d: order %s tried %v", trial, h, p.tried)
			}
			if p.cost < best.cost && slices.ContainsFunc(best.tried, func(c orderCost) bool { return c.h == h }) {
				t.Fatalf("trial %d: %s costs %g alone, %g in the best", trial, h, p.cost, best.cost)
			}
		}
	}
}

// corpusNets lists the corpus's BIF networks by name, skipping when the
// corpus is absent.
func corpusNets(tb testing.TB) []string {
	matches, _ := filepath.Glob(filepath.Join(corpus(tb), "bif", "*.bif*"))
	var names []string
	for _, p := range matches {
		names = append(names, strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".gz"), ".bif"))
	}
	return names
}

// planQueries returns single queries on m with k observed variables
// drawn by forward sampling (possible evidence): P(e), P(X | e), P(X, Y |
// e) and P(X = x | e); with zero, the evidence also sets a family to a
// configuration of probability 0, when m has one.
func planQueries(rng *rand.Rand, m *ir.Model, k int, zero bool) []ir.Query {
	ev := randomEvidence(rng, m, min(k, len(m.Vars)-4))
	if zero {
		z := zeroFamily(m)
		if z == nil {
			return nil
		}
		ev = slices.DeleteFunc(ev, func(o ir.Obs) bool {
			return slices.ContainsFunc(z, func(p ir.Obs) bool { return p.Var == o.Var })
		})
		ev = append(ev, z...)
	}
	var free []ir.VarID
	for v := range m.Vars {
		if !slices.ContainsFunc(ev, func(o ir.Obs) bool { return o.Var == ir.VarID(v) }) {
			free = append(free, ir.VarID(v))
		}
	}
	x := free[rng.IntN(len(free))]
	y := free[rng.IntN(len(free))]
	for y == x {
		y = free[rng.IntN(len(free))]
	}
	qs := []ir.Query{
		&ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(e)"}, Conditions: ir.Conditions{Evidence: ev}},
		&ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X | e)"}, Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{x}, TargetStates: []int{-1}},
		&ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X, Y | e)"}, Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{x, y}, TargetStates: []int{-1, -1}},
		&ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=x | e)"}, Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{x}, TargetStates: []int{0}},
	}
	return qs
}

// zeroFamily returns the observations of the first family of m, in
// VarID order, with a configuration of probability 0 (a zero entry of its
// CPT), or nil if there is none.
func zeroFamily(m *ir.Model) []ir.Obs {
	for v := range m.Vars {
		f := m.Factor(ir.VarID(v))
		if f == nil {
			continue
		}
		if i := slices.Index(f.Vals, 0); i >= 0 {
			st := f.Assignment(make([]int, len(f.Vars)), i)
			obs := make([]ir.Obs, len(f.Vars))
			for j, w := range f.Vars {
				obs[j] = ir.Obs{Var: w, State: st[j]}
			}
			return obs
		}
	}
	return nil
}

// TestPlanCorpus checks the default engine against VE with a fixed order
// and against the junction tree (where it fits in 1 GiB) on every corpus
// network, with possible and impossible evidence, to 1e-9.
func TestPlanCorpus(t *testing.T) {
	names := corpusNets(t)
	if !heavy() {
		names = slices.DeleteFunc(names, func(n string) bool { return n != "alarm" && n != "pathfinder" && n != "munin1" })
	}
	for _, name := range names {
		m := readCorpus(t, name)
		rng := rand.New(rand.NewPCG(16, uint64(len(name))))
		jt := Options{Engine: JT, MaxMemory: 1 << 30}
		_, jtErr := Compile(m, jt)
		for _, zero := range []bool{false, true} {
			for _, q := range planQueries(rng, m, 5, zero) {
				what := fmt.Sprintf("%s %s (zero %v)", name, flat(q).Text, zero)
				auto, autoErr := Answer(m, q, Options{})
				if zero && !errors.Is(autoErr, ErrImpossible) && flat(q).Form() != formEvidence {
					t.Errorf("%s: %v, want impossible evidence", what, autoErr)
				}
				if zero && flat(q).Form() == formEvidence && (autoErr != nil || auto.(*Evidence).P != 0) {
					t.Errorf("%s: P(e) = %v, %v; want 0", what, auto, autoErr)
				}
				refs := []Options{{Engine: VE, Order: MinWeight}}
				if jtErr == nil {
					refs = append(refs, jt)
				}
				for _, opt := range refs {
					r, err := Answer(m, q, opt)
					if d := sameAnswer(r, err, auto, autoErr, 1e-9); d != "" {
						t.Errorf("%s: default and %v/%v differ: %s", what, opt.Engine, opt.Order, d)
					}
				}
			}
		}
	}
}

// TestPlanChoice checks the engine the planner chooses where the choice is
// clear: variable elimination for single queries on munin1 (whose tree
// has 188 M entries); on alarm, whose tree is small, the tree for P(e)
// once it is compiled (one collect pass over 1,020 entries against 24
// tables to restrict and eliminate) or for a large batch.
func TestPlanChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	m := readCorpus(t, "munin1")
	for _, q := range planQueries(rng, m, 5, false) {
		if _, qp := planOf(t, m, q, Options{}); qp.engine != kindVE {
			t.Errorf("munin1 %s: %v (%s), want VE", flat(q).Text, qp.engine, qp.why)
		}
	}
	m = readCorpus(t, "alarm")
	q := planQueries(rng, m, 5, false)[0]
	if _, qp := planOf(t, m, q, Options{}); qp.engine != kindVE {
		t.Errorf("alarm %s, no tree: %v (%s), want VE", flat(q).Text, qp.engine, qp.why)
	}
	if _, qp := planOf(t, m, q, Options{Queries: 1000}); qp.engine != kindJT {
		t.Errorf("alarm, a batch of %s: %v (%s), want JT", flat(q).Text, qp.engine, qp.why)
	}
	if _, err := Answer(m, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(*)"}, Star: true}, Options{}); err != nil {
		t.Fatal(err)
	}
	// A tree compiled by an earlier query changes nothing: the choice,
	// and so the answer's last digits, never depend on what ran before.
	if _, qp := planOf(t, m, q, Options{}); qp.engine != kindVE {
		t.Errorf("alarm %s, tree compiled: %v (%s), want VE as before", flat(q).Text, qp.engine, qp.why)
	}
}

// BenchmarkPlan times one query, compiled tree not cached, by the default
// engine and by each engine chosen by hand, on corpus networks with 5
// observed variables: P(e) and P(X | e).
//
//	go test -run '^$' -bench 'Plan/' -benchtime 5x ./infer
func BenchmarkPlan(b *testing.B) {
	for _, name := range []string{"alarm", "hepar2", "win95pts", "andes", "pigs", "pathfinder", "munin", "link", "munin1"} {
		m := readCorpus(b, name)
		rng := rand.New(rand.NewPCG(16, 4))
		qs := planQueries(rng, m, 5, false)[:2]
		for i, q := range qs {
			for _, e := range []struct {
				name string
				opt  Options
			}{{"auto", Options{}}, {"ve", Options{Engine: VE}}, {"jt", Options{Engine: JT, MaxMemory: 2 << 30}}} {
				b.Run(fmt.Sprintf("%s/%s/%s", name, []string{"pe", "posterior"}[i], e.name), func(b *testing.B) {
					b.ReportAllocs()
					for range b.N {
						clearTreeCache()
						if _, err := Answer(m, q, e.opt); err != nil {
							b.Skip(err)
						}
					}
					clearTreeCache()
				})
			}
		}
	}
}

// clearTreeCache forgets every compiled tree.
func clearTreeCache() {
	jtCache.Lock()
	jtCache.entries = nil
	jtCache.Unlock()
}

// TestPlanCalibration prints, for corpus networks, the planner's
// estimates beside the measured times, from which the constants of the
// time model (veNsPerEntry, jtCompileNsPerEntry, jtCalibNsPerEntry) are
// read. It runs only with PBL_PLAN_CALIBRATE=1 (it times, and asserts
// nothing):
//
//	PBL_PLAN_CALIBRATE=1 go test -run TestPlanCalibration -v ./infer
func TestPlanCalibration(t *testing.T) {
	if os.Getenv("PBL_PLAN_CALIBRATE") == "" {
		t.Skip("set PBL_PLAN_CALIBRATE=1 to print the planner's estimates beside measured times")
	}
	best := func(f func()) float64 {
		d := time.Duration(1 << 62)
		for range 3 {
			t0 := time.Now()
			f()
			d = min(d, time.Since(t0))
		}
		return float64(d.Nanoseconds())
	}
	for _, name := range corpusNets(t) {
		m := readCorpus(t, name)
		rng := rand.New(rand.NewPCG(16, 5))
		var entries float64
		var tree *JTree
		planNs := best(func() {
			p, err := plan(m, cliqueLimit(Options{}), factor.NewKernel(nil))
			if err == nil {
				entries = p.entries
			}
		})
		compileNs := 0.0
		if entries < 40e6 {
			compileNs = best(func() { tree, _ = Compile(m, Options{}) })
		}
		t.Logf("%-12s tree %11.0f entries, plan %8.2f ms, compile %8.2f ms (%5.1f ns/entry)", name, entries, planNs/1e6, compileNs/1e6, compileNs/entries)
		// Two evidence sets, answered in turn: a tree's workspace keeps
		// the last calibration.
		qs := planQueries(rng, m, 5, false)[:2]
		other := planQueries(rng, m, 5, false)[:2]
		for i, q := range qs {
			p, _ := planOf(t, m, q, Options{})
			veNs := best(func() { _, _ = Answer(m, q, Options{Engine: VE}) })
			line := fmt.Sprintf("  %-10s VE cost %10.0f in %4d steps, %8.3f ms (%5.1f ns/entry)", flat(q).Text, p.cost, len(p.steps)+len(p.fs), veNs/1e6, veNs/p.cost)
			if tree != nil {
				calNs := best(func() {
					_, _ = tree.Answer(other[i], Options{})
					_, _ = tree.Answer(q, Options{})
				}) / 2
				line += fmt.Sprintf("; JT calibration %8.3f ms (%5.1f ns/entry)", calNs/1e6, calNs/entries)
			}
			t.Log(line)
		}
	}
}
