package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// The references of these tests are independent of the analysis: finite
// differences of P(y | e) answered by variable elimination on models whose
// entry is moved (its row co-varied as the analysis assumes), and the
// query answered again at each --reach value.

// covaried returns m with entry idx of v's table set to t, the row's
// other entries scaled in proportion to share 1 − t (equally when they
// are all 0).
func covaried(tb testing.TB, m *ir.Model, v ir.VarID, idx int, t float64) *ir.Model {
	tb.Helper()
	tab := m.Table(v)
	f := tab.Factor
	k := f.Card[len(f.Card)-1]
	vals := slices.Clone(f.Vals)
	r, x := idx/k, idx%k
	row := vals[r*k : (r+1)*k]
	rest := 0.0
	for y, th := range row {
		if y != x {
			rest += th
		}
	}
	for y := range row {
		switch {
		case y == x:
			row[y] = t
		case rest > 0:
			row[y] *= (1 - t) / rest
		default:
			row[y] = (1 - t) / float64(k-1)
		}
	}
	g := &ir.Factor{Vars: f.Vars, Card: f.Card, Stride: f.Stride, Vals: vals}
	mv, err := m.WithDists(&ir.CPT{Pos: tab.Pos, Child: v, Parents: slices.Clone(tab.Parents), Factor: g})
	if err != nil {
		tb.Fatal(err)
	}
	return mv
}

// queryAt returns P(y | e) on m with entry idx of v's table at t, by
// variable elimination; ok is false where the evidence is impossible.
func queryAt(tb testing.TB, m *ir.Model, q ir.Query, v ir.VarID, idx int, t float64) (float64, bool) {
	tb.Helper()
	res, err := Answer(covaried(tb, m, v, idx, t), q, Options{Engine: VE})
	if errors.Is(err, ErrImpossible) {
		return 0, false
	}
	if err != nil {
		tb.Fatal(err)
	}
	return res.(*Number).P, true
}

// finiteDiff returns the derivative of P(y | e) with respect to entry idx
// of v's table (now th) by central differences, or second-order one-sided
// differences within 2h of 0 or 1, extrapolated (Richardson) from steps h
// and h/2.
func finiteDiff(tb testing.TB, m *ir.Model, q ir.Query, v ir.VarID, idx int, th float64) float64 {
	at := func(t float64) float64 {
		p, ok := queryAt(tb, m, q, v, idx, t)
		if !ok {
			tb.Fatalf("impossible evidence at %s entry %d = %v", m.Vars[v].Name, idx, t)
		}
		return p
	}
	const h = 1e-4
	d := func(h float64) float64 {
		switch {
		case th >= 2*h && th <= 1-2*h:
			return (at(th+h) - at(th-h)) / (2 * h)
		case th < 2*h:
			return (-3*at(th) + 4*at(th+h) - at(th+2*h)) / (2 * h)
		default:
			return (3*at(th) - 4*at(th-h) + at(th-2*h)) / (2 * h)
		}
	}
	// Both formulas' errors start with an h² term, which this removes.
	return (4*d(h/2) - d(h)) / 3
}

// checkSensitivity checks Sensitivity of q on m against finite
// differences: every listed entry (at most max of them, chosen at random,
// when max > 0) and every entry of unlisted tables of at most all
// entries; and the reach values at threshold P.
func checkSensitivity(t *testing.T, rng *rand.Rand, m *ir.Model, q ir.Query, P float64, max int, what string) {
	t.Helper()
	params, p, err := Sensitivity(m, q, SensitivityOptions{Reach: &P})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ref, err := Answer(m, q, Options{Engine: VE})
	if err != nil {
		t.Fatal(err)
	}
	if !relEqual(p, ref.(*Number).P, 1e-12) {
		t.Errorf("%s: p = %v, want %v", what, p, ref.(*Number).P)
	}
	for i := 1; i < len(params); i++ {
		if !(math.Abs(params[i-1].Derivative) >= math.Abs(params[i].Derivative)) {
			t.Fatalf("%s: parameters %d and %d out of order", what, i-1, i)
		}
	}
	listed := map[[2]int]bool{}
	for _, prm := range params {
		f := m.Factor(prm.Var)
		k := f.Card[len(f.Card)-1]
		listed[[2]int{int(prm.Var), prm.Row*k + prm.State}] = true
		if prm.Value != f.Vals[prm.Row*k+prm.State] {
			t.Fatalf("%s: %s row %d state %d: value %v, the table has %v", what, m.Vars[prm.Var].Name, prm.Row, prm.State, prm.Value, f.Vals[prm.Row*k+prm.State])
		}
		for i, g := range prm.Given {
			if g.Var != m.Parents[prm.Var][i] || (prm.Row*k/f.Stride[i])%f.Card[i] != g.State {
				t.Fatalf("%s: %s row %d: given %v is not the row's", what, m.Vars[prm.Var].Name, prm.Row, prm.Given)
			}
		}
	}
	check := params
	t.Logf("%s: p = %v, %d parameters", what, p, len(params))
	if max > 0 && len(check) > max {
		check = slices.Clone(check)
		rng.Shuffle(len(check), func(i, j int) { check[i], check[j] = check[j], check[i] })
		check = check[:max]
	}
	for _, prm := range check {
		f := m.Factor(prm.Var)
		k := f.Card[len(f.Card)-1]
		idx := prm.Row*k + prm.State
		name := fmt.Sprintf("%s: d/dθ(%s=%d | row %d) (θ = %v)", what, m.Vars[prm.Var].Name, prm.State, prm.Row, prm.Value)
		fd := finiteDiff(t, m, q, prm.Var, idx, prm.Value)
		if !(math.Abs(prm.Derivative-fd) <= 1e-6*math.Abs(fd)+1e-9) {
			t.Errorf("%s = %v, finite differences %v", name, prm.Derivative, fd)
		}
		if prm.Reachable {
			got, ok := queryAt(t, m, q, prm.Var, idx, prm.Needed)
			if !ok || !(math.Abs(got-P) <= 1e-9) {
				t.Errorf("%s: at the needed value %v the query is %v (possible %v), want %v", name, prm.Needed, got, ok, P)
			}
			continue
		}
		// No value in [0, 1] reaches P: the query, monotone in θ, stays
		// on one side of P at both ends.
		p0, ok0 := queryAt(t, m, q, prm.Var, idx, 0)
		p1, ok1 := queryAt(t, m, q, prm.Var, idx, 1)
		if ok0 && ok1 && (p0-P)*(p1-P) < -1e-18 {
			t.Errorf("%s: no value reaches %v, but the query is %v at 0 and %v at 1", name, P, p0, p1)
		}
	}
	// Unlisted entries do not move the query.
	for v := range m.Vars {
		f := m.Factor(ir.VarID(v))
		if f == nil || f.Card[len(f.Card)-1] < 2 {
			continue
		}
		if max > 0 && rng.IntN(8) != 0 {
			continue
		}
		for idx, th := range f.Vals {
			if listed[[2]int{v, idx}] {
				continue
			}
			if fd := finiteDiff(t, m, q, ir.VarID(v), idx, th); !(math.Abs(fd) <= 1e-9) {
				t.Errorf("%s: %s entry %d (θ = %v) is not listed, but finite differences give %v", what, m.Vars[v].Name, idx, th, fd)
			}
		}
	}
}

// sensQuery returns P(X=s | ev) at q.pbl:1:1.
func sensQuery(y ir.VarID, s int, ev []ir.Obs) ir.Query {
	return &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 1, Col: 1}, Text: "P(...)", Bar: len(ev) > 0}, Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{y}, TargetStates: []int{s}}
}

func TestSensitivityRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 60 {
		zeros := i%2 == 1
		spec := randomNet(rng, 3+rng.IntN(5), 3, 3, zeros)
		m := spec.build(t)
		card := cards(m)
		perm := rng.Perm(len(card))
		y := ir.VarID(perm[0])
		ev := randomStates(rng, card, rng.IntN(min(3, len(card)-1)+1))
		ev = slices.DeleteFunc(ev, func(o ir.Obs) bool { return o.Var == y })
		q := sensQuery(y, rng.IntN(card[y]), ev)
		if _, err := Answer(m, q, Options{}); errors.Is(err, ErrImpossible) {
			continue
		}
		P := rng.Float64()
		checkSensitivity(t, rng, m, q, P, 0, fmt.Sprintf("net %d", i))
	}
}

// TestSensitivityChain checks a case by hand: in the chain A → B with
// P(A=a0) = θ, P(B=b0 | a0) = 0.9, P(B=b0 | a1) = 0.2, P(A=a0 | B=b0) =
// 0.9θ / (0.9θ + 0.2(1−θ)), whose derivative at θ is 0.18 / (0.2 + 0.7θ)².
func TestSensitivityChain(t *testing.T) {
	const th = 0.3
	m := netSpec{card: []int{2, 2}, parents: [][]int{nil, {0}}, cpt: [][]float64{{th, 1 - th}, {0.9, 0.1, 0.2, 0.8}}}.build(t)
	P := 0.5
	params, p, err := Sensitivity(m, sensQuery(0, 0, []ir.Obs{{Var: 1, State: 0}}), SensitivityOptions{Reach: &P})
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.9 * th / (0.9*th + 0.2*(1-th)); !relEqual(p, want, 1e-14) {
		t.Errorf("p = %v, want %v", p, want)
	}
	found := false
	for _, prm := range params {
		if prm.Var == 0 && prm.State == 0 {
			found = true
			want := 0.18 / math.Pow(0.2+0.7*th, 2)
			if !relEqual(prm.Derivative, want, 1e-12) {
				t.Errorf("derivative %v, want %v", prm.Derivative, want)
			}
			// 0.9t / (0.2 + 0.7t) = 0.5 at t = 0.1/0.55.
			if !prm.Reachable || !relEqual(prm.Needed, 0.1/0.55, 1e-12) {
				t.Errorf("needed %v (reachable %v), want %v", prm.Needed, prm.Reachable, 0.1/0.55)
			}
			if prm.Given != nil {
				t.Errorf("a root's entry has given %v", prm.Given)
			}
		}
	}
	if !found {
		t.Fatalf("P(A=a0) is not listed: %+v", params)
	}
}

func TestSensitivityCorpus(t *testing.T) {
	for _, name := range []string{"asia", "alarm"} {
		t.Run(name, func(t *testing.T) {
			m := readCorpus(t, name)
			rng := rand.New(rand.NewPCG(2, 2))
			for i := range 3 {
				ev := randomEvidence(rng, m, 1+i*2)
				var y ir.VarID
				for {
					y = ir.VarID(rng.IntN(len(m.Vars)))
					if !slices.ContainsFunc(ev, func(o ir.Obs) bool { return o.Var == y }) {
						break
					}
				}
				q := sensQuery(y, rng.IntN(len(m.Vars[y].States)), ev)
				max := 0
				if name == "alarm" {
					max = 200
				}
				checkSensitivity(t, rng, m, q, rng.Float64(), max, fmt.Sprintf("%s query %d", name, i))
			}
		})
	}
}

func TestSensitivityErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m := randomNet(rng, 4, 3, 2, false).build(t)
	table := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 1, Col: 1}}, Targets: []ir.VarID{0}, TargetStates: []int{-1}}
	if _, _, err := Sensitivity(m, table, SensitivityOptions{}); !errors.Is(err, ErrSensitivity) {
		t.Errorf("P(X0): got %v, want the kind ErrSensitivity", err)
	}
	mpe := &ir.MPEQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 1, Col: 1}}}
	if _, _, err := Sensitivity(m, mpe, SensitivityOptions{}); !errors.Is(err, ErrSensitivity) {
		t.Errorf("MPE(): got %v, want the kind ErrSensitivity", err)
	}
	mk := randomMarkov(t, rng, 4)
	if _, _, err := Sensitivity(mk, sensQuery(0, 0, nil), SensitivityOptions{}); !errors.Is(err, ErrSensitivity) {
		t.Errorf("Markov network: got %v, want the kind ErrSensitivity", err)
	}
	// X1 = s0 is impossible given X0 = s0.
	z := netSpec{card: []int{2, 2, 2}, parents: [][]int{nil, {0}, {1}}, cpt: [][]float64{{0.5, 0.5}, {0, 1, 0.5, 0.5}, {0.3, 0.7, 0.6, 0.4}}}.build(t)
	_, _, err := Sensitivity(z, sensQuery(2, 0, []ir.Obs{{Var: 0, State: 0}, {Var: 1, State: 0}}), SensitivityOptions{})
	if !errors.Is(err, ErrImpossible) {
		t.Errorf("impossible evidence: got %v, want the kind ErrImpossible", err)
	}
	bad := 1.5
	if _, _, err := Sensitivity(z, sensQuery(2, 0, nil), SensitivityOptions{Reach: &bad}); err == nil {
		t.Errorf("--reach 1.5: no error")
	}
}

// TestSensitivityNoBar checks that P(Y=y), lowered as the probability of
// the evidence Y=y, is analysed as P(Y=y | ).
func TestSensitivityNoBar(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := randomNet(rng, 5, 3, 2, true).build(t)
	pe := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 1, Col: 1}}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 4, State: 1}}}}
	if flat(pe).Form() != formEvidence {
		t.Fatalf("P(X4=s1) is not lowered as P(e)")
	}
	got, p, err := Sensitivity(m, pe, SensitivityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, wp, err := Sensitivity(m, sensQuery(4, 1, nil), SensitivityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p != wp || len(got) != len(want) {
		t.Fatalf("P(X4=s1): p = %v and %d parameters, want %v and %d", p, len(got), wp, len(want))
	}
	for i := range got {
		if got[i].Derivative != want[i].Derivative {
			t.Errorf("parameter %d: derivative %v, want %v", i, got[i].Derivative, want[i].Derivative)
		}
	}
}
