package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// searchOn runs the MPE search on m given ev with cfg, returning the
// assignment (by VarID, -1 for observed) and ln P(x, e); ok as searchMPE.
func searchOn(t testing.TB, m *ir.Model, ev []ir.Obs, cfg searchConfig) ([]int, float64, bool) {
	t.Helper()
	obs := make([]int, len(m.Vars))
	card := make([]int, len(m.Vars))
	for v := range obs {
		obs[v] = -1
		if m.Discrete(ir.VarID(v)) {
			card[v] = len(m.Vars[v].States)
		}
	}
	for _, o := range ev {
		obs[o.Var] = o.State
	}
	best, mx, ok, err := searchMPEWith(m, obs, card, factor.NewKernel(nil), ir.Pos{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return best, mx.Log(), ok
}

// searchConfigs force the search with small i-bounds (weak bounds, much
// backtracking), and let it choose.
var searchConfigs = []searchConfig{{ibound: 1}, {ibound: 4}, {ibound: 16}, {}}

// TestMPESearchBruteForce checks the search against the full joint on
// random networks, with zeros, evidence, and i-bounds that make it search:
// the assignment it returns must have the maximum's probability, and the
// value it returns must be that probability.
func TestMPESearchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	for net := range 80 {
		spec := randomNet(rng, 3+rng.IntN(7), 4, 3, net%2 == 0)
		m := spec.build(t)
		n := len(spec.card)
		for k := range 4 {
			var ev []ir.Obs
			for _, v := range rng.Perm(n)[:rng.IntN(min(3, n-1)+1)] {
				ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(spec.card[v])})
			}
			var vars []ir.VarID
			for v := range n {
				if indexOfObs(ev, v) < 0 {
					vars = append(vars, ir.VarID(v))
				}
			}
			table, mx, pe := bruteMax(m, vars, ev)
			for _, cfg := range searchConfigs {
				what := fmt.Sprintf("net %d set %d ibound %g", net, k, cfg.ibound)
				best, lnmax, ok := searchOn(t, m, ev, cfg)
				if pe == 0 {
					if ok {
						t.Errorf("%s: impossible evidence, but the search found %v", what, best)
					}
					continue
				}
				if !ok {
					t.Fatalf("%s: the search gave up", what)
				}
				checkMax(t, what, table, mx, vars, best, lnmax, 1e-12)
				for _, o := range ev {
					if best[o.Var] != -1 {
						t.Errorf("%s: observed %d given state %d", what, o.Var, best[o.Var])
					}
				}
			}
		}
	}
}

// checkMax checks a search's assignment best of vars (a state for every
// variable) against bruteMax's table and maximum mx, its probability to
// the relative tolerance tol, and its ln value lnmax to 1e-9.
func checkMax(t testing.TB, what string, table map[string]float64, mx float64, vars []ir.VarID, best []int, lnmax, tol float64) {
	t.Helper()
	key := make([]byte, len(vars))
	for i, v := range vars {
		key[i] = byte(best[v])
	}
	if got := table[string(key)]; !relEqual(got, mx, tol) {
		t.Errorf("%s: assignment %v has P %v, the maximum is %v", what, best, got, mx)
	}
	if !(math.Abs(lnmax-math.Log(mx)) <= 1e-9) {
		t.Errorf("%s: ln max = %v, want %v", what, lnmax, math.Log(mx))
	}
}

// autoAsEnum answers q with the default engine and by enumeration and
// checks that both refuse impossible evidence (the error's kind) or give
// the same ln P to 1e-9; it returns the two answers, or nils if the
// evidence is impossible. what begins the messages.
func autoAsEnum(t testing.TB, m *ir.Model, q ir.Query, what string) (got, want Result) {
	t.Helper()
	want, errW := Answer(m, q, Options{Engine: Enum})
	got, errG := Answer(m, q, Options{})
	if errors.Is(errW, ErrImpossible) {
		if !errors.Is(errG, ErrImpossible) {
			t.Errorf("%s: error %v, want the impossible-evidence kind", what, errG)
		}
		return nil, nil
	}
	if errW != nil || errG != nil {
		t.Fatalf("%s: %v, %v", what, errW, errG)
	}
	if !(math.Abs(got.(*Assignment).LogP-want.(*Assignment).LogP) <= 1e-9) {
		t.Errorf("%s: ln P %v, want %v", what, got.(*Assignment).LogP, want.(*Assignment).LogP)
	}
	return got, want
}

// TestMPESearchAnswer checks the answers of the Auto engine (the search on
// a model without a compiled tree) against enumeration, with the error of
// impossible evidence.
func TestMPESearchAnswer(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	for net := range 40 {
		spec := randomNet(rng, 3+rng.IntN(6), 3, 3, true)
		m := spec.build(t)
		for range 4 {
			ev := randomStates(rng, spec.card, rng.IntN(3))
			q := &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}
			got, want := autoAsEnum(t, m, q, fmt.Sprintf("net %d %v", net, ev))
			if got != nil && !equal(got.(*Assignment).P, want.(*Assignment).P, 1e-12) {
				t.Errorf("net %d %v: P %v, want %v", net, ev, got.(*Assignment).P, want.(*Assignment).P)
			}
		}
	}
}

// TestMPESearchTies: where assignments tie, the search takes the states in
// order, the lower first among equal bounds.
func TestMPESearchTies(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec netSpec
	}{
		{"coins", roots(3, 0.5)},
		{"chain", chainNet(6, 0.5)},
	} {
		m := tc.spec.build(t)
		for _, cfg := range searchConfigs {
			best, _, ok := searchOn(t, m, nil, cfg)
			if !ok {
				t.Fatalf("%s: gave up", tc.name)
			}
			for v, s := range best {
				if s != 0 {
					t.Errorf("%s ibound %g: %v, want every state 0", tc.name, cfg.ibound, best)
					break
				}
				_ = v
			}
		}
	}
}

// TestMPESearchZeros: determinism decides most of the assignment; the
// propagation of zeros must not lose the maximum, and impossible evidence
// is found by it.
func TestMPESearchZeros(t *testing.T) {
	// A → B → C with B = A and C = B deterministically, P(A=1) = 0.3.
	m := netSpec{card: []int{2, 2, 2}, parents: [][]int{nil, {0}, {1}},
		cpt: [][]float64{{0.7, 0.3}, {1, 0, 0, 1}, {1, 0, 0, 1}}}.build(t)
	best, lnmax, ok := searchOn(t, m, []ir.Obs{{Var: 2, State: 1}}, searchConfig{})
	if !ok || best[0] != 1 || best[1] != 1 || !(math.Abs(lnmax-math.Log(0.3)) <= 1e-12) {
		t.Errorf("C=1: %v, ln %v, ok %v; want A=B=1, ln 0.3", best, lnmax, ok)
	}
	q := &ir.MPEQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 0}, {Var: 2, State: 1}}}}
	if _, _, ok := searchOn(t, m, q.Evidence, searchConfig{}); ok {
		t.Errorf("A=0, C=1 is impossible, but the search found an assignment")
	}
	if _, err := Answer(m, q, Options{}); !errors.Is(err, ErrImpossible) {
		t.Errorf("A=0, C=1: error %v, want the impossible-evidence kind", err)
	}
}

// TestMPESearchCorpus compares the search with max-product on the junction
// tree on every corpus network, without evidence and with evidence sets of
// 5 variables drawn by forward sampling: the same ln P(x*, e) to 1e-9.
// Networks whose junction tree exceeds 2 GB (munin1) are compared with
// the tree where it fits and skipped otherwise.
func TestMPESearchCorpus(t *testing.T) {
	if !heavy() {
		t.Skip("corpus networks: slow (runs without -short and -race)")
	}
	dir := filepath.Join(corpus(t), "bif")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".gz"), ".bif")
		t.Run(name, func(t *testing.T) {
			m := readCorpus(t, name)
			opt := Options{Engine: JT, MaxMemory: 2 << 30}
			tree, err := Compile(m, opt)
			var tl *TooLargeError
			if errors.As(err, &tl) {
				t.Skipf("junction tree too large: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(16, uint64(len(name))))
			sets := 3
			if len(m.Vars) > 400 {
				sets = 2
			}
			for k := range sets {
				var ev []ir.Obs
				if k > 0 {
					ev = randomEvidence(rng, m, 5)
				}
				q := &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}
				want, err := tree.Answer(q, opt)
				if err != nil {
					t.Fatal(err)
				}
				pe := want.(*Assignment).LogP // ln P(x*|e); ln P(x*, e) = that + ln P(e)
				lpe, err := LogPE(m, ev, Options{Engine: VE})
				if err != nil {
					t.Fatal(err)
				}
				wantJoint := pe + lpe
				best, got, ok := searchOn(t, m, ev, searchConfig{})
				if !ok {
					t.Fatalf("set %d: the search gave up", k)
				}
				if !(math.Abs(got-wantJoint) <= 1e-9*max(1, math.Abs(wantJoint))) {
					t.Errorf("set %d: ln P(x*, e) = %.15g, the junction tree's is %.15g", k, got, wantJoint)
				}
				// The value is that of the assignment returned.
				if lp := logJointAt(m, ev, best); !(math.Abs(lp-got) <= 1e-9*max(1, math.Abs(got))) {
					t.Errorf("set %d: the assignment's ln P is %.15g, the search says %.15g", k, lp, got)
				}
			}
		})
	}
}

// logJointAt sums the logarithms of the model's table entries at the
// assignment best (by VarID) with the evidence ev: independent of the
// search's bookkeeping.
func logJointAt(m *ir.Model, ev []ir.Obs, best []int) float64 {
	x := append([]int(nil), best...)
	for _, o := range ev {
		x[o.Var] = o.State
	}
	s := 0.0
	for v := range m.Vars {
		f := m.Factor(ir.VarID(v))
		if f == nil {
			continue
		}
		o := 0
		for i, w := range f.Vars {
			o += x[w] * f.Stride[i]
		}
		s += math.Log(f.Vals[o])
	}
	return s
}

// BenchmarkMPESearch is the search on corpus networks (the model read
// once) with 5 observed variables; b.N runs cycle over 8 evidence sets.
// It is the MPE alone: the answer also computes P(e) (by VE).
func BenchmarkMPESearch(b *testing.B) {
	for _, name := range []string{"alarm", "pigs", "link", "munin1", "munin"} {
		b.Run(name, func(b *testing.B) {
			m := readCorpus(b, name)
			rng := rand.New(rand.NewPCG(16, 5))
			evs := make([][]ir.Obs, 8)
			for i := range evs {
				evs[i] = randomEvidence(rng, m, 5)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, ok := searchOn(b, m, evs[i%len(evs)], searchConfig{}); !ok {
					b.Fatal("the search gave up")
				}
			}
		})
	}
}

// TestMAPSearchBruteForce checks MAP by search (the other variables summed
// out, then the search) against the full joint on random networks, with
// i-bounds that make it search.
func TestMAPSearchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 7))
	for net := range 60 {
		spec := randomNet(rng, 3+rng.IntN(6), 4, 3, net%2 == 0)
		m := spec.build(t)
		n := len(spec.card)
		obs := make([]int, n)
		for v := range obs {
			obs[v] = -1
		}
		perm := rng.Perm(n)
		ne := rng.IntN(min(3, n-1) + 1)
		var ev []ir.Obs
		for _, v := range perm[:ne] {
			ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(spec.card[v])})
			obs[v] = ev[len(ev)-1].State
		}
		vars := ids(perm[ne : ne+1+rng.IntN(n-ne)]...)
		table, mx, pe := bruteMax(m, vars, ev)
		for _, cfg := range searchConfigs {
			what := fmt.Sprintf("net %d MAP %v | %v ibound %g", net, vars, ev, cfg.ibound)
			best, got, ok, err := searchMAP(m, obs, spec.card, vars, factor.NewKernel(nil), ir.Pos{}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if pe == 0 {
				if ok {
					t.Errorf("%s: impossible evidence, but the search found %v", what, best)
				}
				continue
			}
			if !ok {
				t.Fatalf("%s: gave up", what)
			}
			checkMax(t, what, table, mx, vars, best, got.Log(), 1e-9)
		}
		// And through Answer (Auto), against enumeration.
		q := &ir.MAPQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: vars}
		autoAsEnum(t, m, q, fmt.Sprintf("net %d MAP %v", net, vars))
	}
}

// TestMPESearchGivesUp: when the search runs out of nodes, Answer falls
// back on max-product elimination and the answers stay exact.
func TestMPESearchGivesUp(t *testing.T) {
	searchOverride = searchConfig{ibound: 1, nodes: 1}
	defer func() { searchOverride = searchConfig{} }()
	rng := rand.New(rand.NewPCG(16, 9))
	fell := 0
	for net := range 20 {
		spec := randomNet(rng, 4+rng.IntN(5), 3, 3, true)
		m := spec.build(t)
		if _, _, ok := searchOn(t, m, nil, searchOverride); ok {
			continue // solved by its first dive: nothing to fall back from
		}
		fell++
		ev := randomStates(rng, spec.card, 1)
		for _, q := range []ir.Query{
			&ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}},
			&ir.MAPQuery{Conditions: ir.Conditions{Evidence: nil}, Targets: ids(0, 1)},
		} {
			autoAsEnum(t, m, q, fmt.Sprintf("net %d %v", net, fmt.Sprintf("%T", q)))
		}
	}
	if fell == 0 {
		t.Fatal("the search never gave up: the test checks nothing")
	}
}

// TestMPESearchMarkov checks MPE and MAP by search on Markov networks
// (potentials above 1, zeros, no CPTs) against enumeration.
func TestMPESearchMarkov(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 11))
	for net := range 30 {
		m := randomMarkov(t, rng, 3+rng.IntN(6))
		card := cards(m)
		ev := randomStates(rng, card, rng.IntN(2))
		for _, q := range []ir.Query{
			&ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}},
			&ir.MAPQuery{Targets: ids(0)},
		} {
			if flat(q).Kind == kindMAP && indexOfObs(ev, 0) >= 0 {
				continue
			}
			autoAsEnum(t, m, q, fmt.Sprintf("net %d %v %v", net, fmt.Sprintf("%T", q), ev))
		}
	}
}

// The cache codes +Inf, the bound of a subproblem with none known, as 0 (a
// fresh table's entries), and decodes every bound back bit for bit.
func TestCacheCode(t *testing.T) {
	if infBits != math.Float64bits(math.Inf(1)) {
		t.Fatalf("infBits = %#x, want the bits of +Inf", uint64(infBits))
	}
	if c := cacheCode(math.Inf(1)); c != 0 {
		t.Errorf("cacheCode(+Inf) = %#x, want 0", c)
	}
	for _, u := range []float64{math.Inf(1), math.Inf(-1), 0, -1.5, 1e-300, -745.1} {
		if got := cacheBound(cacheCode(u)); math.Float64bits(got) != math.Float64bits(u) {
			t.Errorf("cacheBound(cacheCode(%g)) = %g", u, got)
		}
	}
}
