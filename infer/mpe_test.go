package infer

import (
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// bruteMax returns the maximum over the assignments of vars of
// Σ_{others} P(vars, others, e), and P(e), from the full joint. With every
// unobserved variable in vars it is the MPE value.
func bruteMax(m *ir.Model, vars []ir.VarID, ev []ir.Obs) (table map[string]float64, mx, pe float64) {
	joint, card := bruteJoint(m)
	table = map[string]float64{}
	key := make([]byte, len(vars))
	for a, p := range jointGiven(joint, card, ev) {
		pe += p
		for k, v := range vars {
			key[k] = byte(a[v])
		}
		table[string(key)] += p
	}
	for _, p := range table {
		mx = max(mx, p)
	}
	return table, mx, pe
}

func TestMPEAndMAPBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for net := 0; net < 60; net++ {
		spec := randomNet(rng, 3+rng.IntN(6), 4, 3, net%4 == 0)
		m := spec.build(t)
		n := len(spec.card)
		for k := 0; k < 8; k++ {
			perm := rng.Perm(n)
			ne := rng.IntN(min(3, n-1) + 1)
			var ev []ir.Obs
			for _, v := range perm[:ne] {
				ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(spec.card[v])})
			}
			var q ir.Query
			var vars []ir.VarID
			if k%2 == 0 {
				q = &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}
				for v := 0; v < n; v++ {
					if indexOfObs(ev, v) < 0 {
						vars = append(vars, ir.VarID(v))
					}
				}
			} else {
				nm := 1 + rng.IntN(min(3, n-ne))
				vars = ids(perm[ne : ne+nm]...)
				q = &ir.MAPQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: vars}
			}
			table, mx, pe := bruteMax(m, vars, ev)
			for _, e := range allEngines {
				r, err := Answer(m, q, e.opt)
				if pe == 0 {
					if err == nil {
						t.Fatalf("net %d %+v %s: no error for impossible evidence", net, q, e.name)
					}
					continue
				}
				if err != nil {
					t.Fatalf("net %d %+v %s: %v", net, q, e.name, err)
				}
				if len(r.(*Assignment).Assignment) != len(vars) {
					t.Fatalf("net %d %+v %s: assignment %v, want %d variables", net, q, e.name, r.(*Assignment).Assignment, len(vars))
				}
				key := make([]byte, len(vars))
				for i, o := range r.(*Assignment).Assignment {
					if o.Var != vars[i] {
						t.Fatalf("net %d %s: assignment %v, want variables %v", net, e.name, r.(*Assignment).Assignment, vars)
					}
					key[i] = byte(o.State)
				}
				if got := table[string(key)]; !equal(got, mx, 1e-12) {
					t.Errorf("net %d %+v %s: assignment %v has P %v, the maximum is %v", net, q, e.name, r.(*Assignment).Assignment, got, mx)
				}
				if !equal(r.(*Assignment).P, mx/pe, 1e-12) {
					t.Errorf("net %d %+v %s: P = %v, want %v", net, q, e.name, r.(*Assignment).P, mx/pe)
				}
			}
		}
	}
}

func indexOfObs(ev []ir.Obs, v int) int {
	for i, o := range ev {
		if int(o.Var) == v {
			return i
		}
	}
	return -1
}

func TestMPETies(t *testing.T) {
	// Two independent fair coins: every assignment ties; both engines
	// must pick the lowest states.
	m := roots(2, 0.5).build(t)
	for i, r := range answerEach(t, m, &ir.MPEQuery{}, allEngines) {
		if r.(*Assignment).Assignment[0].State != 0 || r.(*Assignment).Assignment[1].State != 0 || !equal(r.(*Assignment).P, 0.25, 1e-15) {
			t.Errorf("%s: MPE = %v, P %v; want all state 0, 0.25", allEngines[i].name, r.(*Assignment).Assignment, r.(*Assignment).P)
		}
	}
}

func TestMAPDiffersFromMPE(t *testing.T) {
	// The classic case where MAP over A is not MPE restricted to A:
	// A in {0,1}: P(A=0) = 0.4. B | A=0 is uniform over 4 states (0.1 each
	// jointly); B | A=1 puts 0.6·0.5 = 0.3 on state 0 and 0.3 on state 1.
	// MPE is (A=1, B=0) with 0.3; MAP(A) is A=1 with 0.6. Now flip so the
	// two disagree: P(A=0) = 0.6, B | A=0 uniform over 4 → 0.15 each;
	// B | A=1 = (0.5, 0.5, 0, 0) → 0.2 each. MPE picks A=1 (0.2 > 0.15),
	// MAP(A) picks A=0 (0.6 > 0.4).
	m := netSpec{card: []int{2, 4}, parents: [][]int{nil, {0}},
		cpt: [][]float64{{0.6, 0.4}, {0.25, 0.25, 0.25, 0.25, 0.5, 0.5, 0, 0}}}.build(t)
	for i, r := range answerEach(t, m, &ir.MPEQuery{}, allEngines) {
		if r.(*Assignment).Assignment[0].State != 1 || r.(*Assignment).Assignment[1].State != 0 || !equal(r.(*Assignment).P, 0.2, 1e-15) {
			t.Errorf("%s: MPE = %v, %v", allEngines[i].name, r.(*Assignment).Assignment, r.(*Assignment).P)
		}
	}
	for i, r := range answerEach(t, m, &ir.MAPQuery{Targets: ids(0)}, allEngines) {
		if r.(*Assignment).Assignment[0].State != 0 || !equal(r.(*Assignment).P, 0.6, 1e-15) {
			t.Errorf("%s: MAP(A) = %v, %v", allEngines[i].name, r.(*Assignment).Assignment, r.(*Assignment).P)
		}
	}
}
