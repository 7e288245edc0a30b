package decision

import (
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

var limidChecked, limidGlobal, limidBrute atomic.Int64

// TestSPUBrute: single policy updating ends at a strategy worth the MEU it
// reports that no change of one policy improves (every alternative policy
// of each decision enumerated, the others fixed); how often that local
// optimum is the global one is logged.
func TestSPUBrute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 3)
		if rapid.Bool().Draw(t, "unordered") {
			d.Order = nil // SPU needs no order
		}
		ls, err := d.SolveLIMID(Options{})
		if err != nil {
			t.Fatalf("SolveLIMID: %v", err)
		}
		if !ls.LocalOptimum || ls.Sweeps < 1 {
			t.Fatalf("LocalOptimum %v after %d sweeps", ls.LocalOptimum, ls.Sweeps)
		}
		pols := toBrute(ls.Policies)
		for _, p := range pols {
			if !slices.Equal(p.info, sortedCopy(d.Vars[p.dec].Parents)) {
				t.Fatalf("policy of %d over %v, not its parents", p.dec, p.info)
			}
		}
		own, _ := bruteEU(d, pols, nil, nil)
		if !(math.Abs(own-ls.MEU) <= tol) {
			t.Fatalf("SPU's strategy is worth %v, its MEU %v", own, ls.MEU)
		}
		for i := range pols {
			if configs(d, pols[i].info) > 8 {
				continue
			}
			alt := slices.Clone(pols)
			strategies(d, []int{pols[i].dec}, [][]int{pols[i].info}, func(ps []bpolicy) bool {
				alt[i] = ps[0]
				if u, _ := bruteEU(d, alt, nil, nil); u > ls.MEU+tol {
					t.Fatalf("changing the policy of %d to %v improves %v to %v", pols[i].dec, ps[0].choice, ls.MEU, u)
				}
				return true
			})
		}
		// A row is impossible exactly when its configuration has
		// probability zero under the strategy.
		for _, p := range ls.Policies {
			cfg := make([]int, len(p.Info))
			for k := range p.Choice {
				at := map[int]int{}
				for j, v := range p.Info {
					at[v] = cfg[j]
				}
				if pr := bruteProb(d, pols, at); p.Impossible[k] != (pr == 0) {
					t.Fatalf("policy of %d, row %v: impossible %v, probability %v", p.Decision, cfg, p.Impossible[k], pr)
				}
				for j := len(cfg) - 1; j >= 0; j-- {
					if cfg[j]++; cfg[j] < p.Cards[j] {
						break
					}
					cfg[j] = 0
				}
			}
		}
		limidChecked.Add(1)
		order, info := make([]int, len(pols)), make([][]int, len(pols))
		for i, p := range pols {
			order[i], info[i] = p.dec, p.info
		}
		if strategyCount(d, order, info, 1<<12) <= 1<<12 {
			best := math.Inf(-1)
			strategies(d, order, info, func(ps []bpolicy) bool {
				u, _ := bruteEU(d, ps, nil, nil)
				best = math.Max(best, u)
				return true
			})
			limidBrute.Add(1)
			if math.Abs(best-ls.MEU) <= tol {
				limidGlobal.Add(1)
			} else if ls.Exact {
				t.Fatalf("SPU says exact at %v, the best strategy is worth %v", ls.MEU, best)
			}
		}
	})
	t.Logf("SPU a local optimum on %d LIMIDs; the global one on %d of the %d whose strategies were enumerated",
		limidChecked.Load(), limidGlobal.Load(), limidBrute.Load())
	if limidChecked.Load() == 0 || limidBrute.Load() == 0 {
		t.Error("nothing checked by brute force")
	}
}

// TestSPUSoluble: a perfect-recall diagram with its no-forgetting
// information arcs made explicit is a soluble LIMID, which single policy
// updating in the reverse temporal order solves exactly (Lauritzen and
// Nilsson 2001): the same MEU as Solve.
func TestSPUSoluble(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 3)
		sol, err := d.Solve(Options{})
		if err != nil {
			t.Fatalf("Solve: %v", err)
		}
		e := *d
		e.Vars = slices.Clone(d.Vars)
		for i, dec := range d.Order {
			e.Vars[dec].Parents = bruteInfo(d, d.Order)[i]
		}
		ls, err := e.SolveLIMID(Options{})
		if err != nil {
			t.Fatalf("SolveLIMID: %v", err)
		}
		if !(math.Abs(ls.MEU-sol.MEU) <= tol) || !ls.Exact {
			t.Fatalf("SPU on the explicit diagram %v (exact %v), Solve %v", ls.MEU, ls.Exact, sol.MEU)
		}
		// EU given the whole information of a decision, where possible,
		// is the same under both optimal strategies.
		i := rapid.IntRange(0, len(d.Order)-1).Draw(t, "decision")
		dec, info := d.Order[i], bruteInfo(d, d.Order)[i]
		ev := map[int]int{}
		for _, v := range info {
			ev[v] = rapid.IntRange(0, d.Vars[v].Card-1).Draw(t, "state")
		}
		for s := range d.Vars[dec].Card {
			want, err := sol.EU(dec, s, ev)
			got, err2 := ls.EU(dec, s, ev)
			if errors.Is(err, ErrImpossible) && errors.Is(err2, ErrImpossible) {
				continue
			}
			if err != nil || err2 != nil || !(math.Abs(got-want) <= tol) {
				t.Fatalf("EU(%d=%d | %v): SPU %v, %v; Solve %v, %v", dec, s, ev, got, err2, want, err)
			}
		}
	})
}

// TestVPIBrute: the value of perfect information is the brute-force MEU
// with the arc added minus the one without, never negative.
func TestVPIBrute(t *testing.T) {
	var checked int
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 2)
		i := rapid.IntRange(0, len(d.Order)-1).Draw(t, "decision")
		dec := d.Order[i]
		x := rapid.IntRange(0, len(d.Vars)-1).Draw(t, "x")
		if d.Vars[x].Kind != Chance || x > dec { // x after dec in the generation order may be its descendant
			return
		}
		v, err := d.VPI(dec, x, Options{})
		if err != nil {
			t.Fatalf("VPI: %v", err)
		}
		if !(v >= -tol) {
			t.Fatalf("VPI %v < 0", v)
		}
		e := *d
		e.Vars = slices.Clone(d.Vars)
		if !slices.Contains(e.Vars[dec].Parents, x) {
			e.Vars[dec].Parents = append(slices.Clone(e.Vars[dec].Parents), x)
		}
		bestOf := func(d *Diagram) float64 {
			info := bruteInfo(d, d.Order)
			if strategyCount(d, d.Order, info, 1<<12) > 1<<12 {
				return math.NaN()
			}
			best := math.Inf(-1)
			strategies(d, d.Order, info, func(ps []bpolicy) bool {
				u, _ := bruteEU(d, ps, nil, nil)
				best = math.Max(best, u)
				return true
			})
			return best
		}
		with, without := bestOf(&e), bestOf(d)
		if math.IsNaN(with) || math.IsNaN(without) {
			return
		}
		if !(math.Abs(v-(with-without)) <= tol) {
			t.Fatalf("VPI %v, brute force %v - %v", v, with, without)
		}
		checked++
	})
	t.Logf("VPI checked by brute force on %d diagrams", checked)
	if checked == 0 {
		t.Error("nothing checked")
	}
}

// TestSPULocal: two decisions taken knowing nothing must agree; SPU from
// uniform policies settles on the worse agreement (U(0,0) = 1 against
// U(1,1) = 1.5: with D1 uniform, D2 = 0 is worth (1+0.9)/2 against
// (-1+1.5)/2), a local optimum that is not the global one.
func TestSPULocal(t *testing.T) {
	d := &Diagram{
		Vars: []Var{
			{Name: "D1", Kind: Decision, Card: 2},
			{Name: "D2", Kind: Decision, Card: 2},
		},
		Utilities: []Utility{{Name: "U", Parents: []int{0, 1}, Table: []float64{1, -1, 0.9, 1.5}}},
		Order:     []int{0, 1},
	}
	ls, err := d.SolveLIMID(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(ls.MEU-1) <= tol) || ls.Policy(0).Choice[0] != 0 || ls.Policy(1).Choice[0] != 0 || ls.Sweeps != 2 || ls.Exact {
		t.Errorf("SPU: MEU %v, D1 %v, D2 %v after %d sweeps; want 1, [0], [0] after 2, not exact", ls.MEU, ls.Policy(0).Choice, ls.Policy(1).Choice, ls.Sweeps)
	}
	// With D2 knowing D1 the diagram has perfect recall: 1.5.
	d.Vars[1].Parents = []int{0}
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(sol.MEU-1.5) <= tol) {
		t.Errorf("Solve: MEU %v, want 1.5", sol.MEU)
	}
}

// TestRankVPIMatches: RankVPI agrees with VPI on each candidate, sorted, and
// leaves out exactly the variables already known or not knowable.
func TestRankVPIMatches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 3)
		dec := d.Order[rapid.IntRange(0, len(d.Order)-1).Draw(t, "decision")]
		r, err := d.RankVPI(dec, Options{})
		if err != nil {
			t.Fatalf("RankVPI: %v", err)
		}
		for k, rv := range r {
			v, err := d.VPI(dec, rv.Var, Options{})
			if err != nil || !(math.Abs(v-rv.Value) <= tol) {
				t.Fatalf("RankVPI says %v for %d, VPI %v, %v", rv.Value, rv.Var, v, err)
			}
			if k > 0 && r[k-1].Value < rv.Value {
				t.Fatalf("not sorted: %v", r)
			}
		}
		// Every chance variable left out is known at dec or makes VPI fail.
		for x, v := range d.Vars {
			if v.Kind != Chance || slices.ContainsFunc(r, func(a Valued) bool { return a.Var == x }) {
				continue
			}
			if val, err := d.VPI(dec, x, Options{}); err == nil && val != 0 {
				t.Fatalf("%d left out, VPI %v", x, val)
			}
		}
	})
}

// bruteProb returns the probability that the variables of at (chance
// variables and decisions) take the given states, the decisions following
// pols, by enumeration in index order.
func bruteProb(d *Diagram, pols []bpolicy, at map[int]int) float64 {
	x := make([]int, len(d.Vars))
	var rec func(i int, p float64) float64
	rec = func(i int, p float64) float64 {
		if p == 0 || i == len(d.Vars) {
			return p
		}
		v := d.Vars[i]
		if v.Kind == Decision {
			for _, pol := range pols {
				if pol.dec == i {
					x[i] = pol.choose(d, x)
				}
			}
			if s, ok := at[i]; ok && s != x[i] {
				return 0
			}
			return rec(i+1, p)
		}
		row := 0
		for _, q := range v.Parents {
			row = row*d.Vars[q].Card + x[q]
		}
		sum := 0.0
		for s := range v.Card {
			if c, ok := at[i]; ok && c != s {
				continue
			}
			x[i] = s
			sum += rec(i+1, p*v.CPT[row*v.Card+s])
		}
		return sum
	}
	return rec(0, 1)
}
