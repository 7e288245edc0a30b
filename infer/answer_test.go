package infer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// bruteTable answers a table query from the full joint.
func bruteTable(m *ir.Model, iq ir.Query) (rows []Row, omitted int) {
	q := flat(iq)
	joint, card := bruteJoint(m)
	keep := append(append([]ir.VarID(nil), q.Free...), q.Targets...)
	kc := make([]int, len(keep))
	for i, v := range keep {
		kc[i] = card[v]
	}
	f := ir.NewFactor(keep, kc)
	for a, p := range jointGiven(joint, card, q.Evidence) {
		f.Vals[offset(f, a)] += p
	}
	nt := 1
	for _, v := range q.Targets {
		nt *= card[v]
	}
	st := make([]int, len(keep))
	for g := 0; g*nt < len(f.Vals); g++ {
		sum := 0.0
		for _, x := range f.Vals[g*nt : (g+1)*nt] {
			sum += x
		}
		for t := 0; t < nt; t++ {
			f.Assignment(st, g*nt+t)
			match := true
			for i, s := range q.TargetStates {
				if s >= 0 && st[len(q.Free)+i] != s {
					match = false
				}
			}
			if !match {
				continue
			}
			if sum == 0 {
				omitted++
				continue
			}
			rows = append(rows, Row{Values: append([]int(nil), st[len(q.Free):]...), GivenValues: givenValues(st[:len(q.Free)]), P: f.Vals[g*nt+t] / sum})
		}
	}
	return rows, omitted
}

// TestEnginesAgree: on random Bayesian networks VE with either order
// agrees with enumeration to 1e-12, errors included, and enumeration's
// tables agree with the full joint to 1e-9; the only errors are impossible
// evidence.
func TestEnginesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	queries, errs := 0, 0
	for net := 0; net < raceFewer(60, 20); net++ {
		spec := randomNet(rng, 3+rng.IntN(7), 4, 3, net%3 == 0)
		m := spec.build(t)
		for k := 0; k < 15; k++ {
			q := randomQuery(rng, spec.card)
			ref, refErr := compareEngines(t, m, q, fmt.Sprintf("net %d", net), allEngines[1:]...)
			if refErr != nil {
				errs++
				if !strings.Contains(refErr.Error(), "impossible evidence") {
					t.Fatalf("net %d %v: %v", net, q, refErr)
				}
			}
			queries++
			if refErr == nil && flat(q).Form() == formTable {
				rows, om := bruteTable(m, q)
				if d := sameResult(ref, &Table{Rows: rows, Omitted: om}, 1e-9); d != "" {
					t.Fatalf("net %d query %+v: enum differs from brute force: %s", net, q, d)
				}
			}
		}
	}
	t.Logf("%d queries, %d with impossible evidence", queries, errs)
	if errs == 0 || errs > queries/2 {
		t.Errorf("%d of %d queries had impossible evidence; the generator is off", errs, queries)
	}
}

func TestTwoNode(t *testing.T) {
	// A -> B, P(A=s0) = 0.3, P(B=s0 | A=s0) = 0.9, P(B=s0 | A=s1) = 0.2.
	m := netSpec{
		card:    []int{2, 2},
		parents: [][]int{nil, {0}},
		cpt:     [][]float64{{0.3, 0.7}, {0.9, 0.1, 0.2, 0.8}},
	}.build(t)
	pb := 0.3*0.9 + 0.7*0.2 // P(B=s0) = 0.41
	tests := []struct {
		name string
		q    ir.Query
		want float64
	}{
		{"P(B=s0)", &ir.ProbQuery{Targets: ids(1), TargetStates: []int{0}}, pb},
		{"P(A=s0|B=s0)", &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 1, State: 0}}}, Targets: ids(0), TargetStates: []int{0}}, 0.27 / pb},
		{"P(A=s1|B=s1)", &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 1, State: 1}}}, Targets: ids(0), TargetStates: []int{1}}, 0.56 / 0.59},
		{"P(A=s0,B=s1)", &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 0}, {Var: 1, State: 1}}}}, 0.03},
		{"P()", &ir.ProbQuery{}, 1},
	}
	for _, tt := range tests {
		for i, r := range answerEach(t, m, tt.q, allEngines) {
			if !equal(probOf(r), tt.want, 1e-15) {
				t.Errorf("%s %s: got %v, want %v", tt.name, allEngines[i].name, probOf(r), tt.want)
			}
		}
	}
	// The table P(A | B): two given rows of two.
	r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Free: ids(1)}, Targets: ids(0), TargetStates: []int{-1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{[]int{0}, []int{0}, 0.27 / 0.41}, {[]int{1}, []int{0}, 0.14 / 0.41},
		{[]int{0}, []int{1}, 0.03 / 0.59}, {[]int{1}, []int{1}, 0.56 / 0.59},
	}
	if d := sameResult(r, &Table{Rows: want}, 1e-15); d != "" {
		t.Errorf("P(A | B): %s", d)
	}
}

func TestCancer(t *testing.T) {
	// Mitchell §6.2.1: P(cancer) = 0.008, P(+|cancer) = 0.98, P(+|¬cancer) = 0.03.
	m := netSpec{
		card:    []int{2, 2},
		parents: [][]int{nil, {0}},
		cpt:     [][]float64{{0.008, 0.992}, {0.98, 0.02, 0.03, 0.97}},
	}.build(t)
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 1, State: 0}}}, Targets: ids(0), TargetStates: []int{0}}
	// 0.00784 / (0.00784 + 0.02976) = 0.2085; the book's 0.0078/(0.0078+0.0298)
	// ≈ 0.2075 comes from rounding the numerators, and it prints .21.
	want := 0.00784 / (0.00784 + 0.02976)
	for i, r := range answerEach(t, m, q, allEngines) {
		if !equal(r.(*Number).P, want, 1e-15) || !equal(r.(*Number).P, 0.2085, 1e-4) {
			t.Errorf("%s: P(cancer | +) = %v, want %v", allEngines[i].name, r.(*Number).P, want)
		}
	}
	// MAP(cancer | +) is ¬cancer.
	r, err := Answer(m, &ir.MAPQuery{Conditions: ir.Conditions{Evidence: q.Evidence}, Targets: ids(0)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.(*Assignment).Assignment[0].State != 1 || !equal(r.(*Assignment).P, 1-want, 1e-15) {
		t.Errorf("MAP(cancer | +) = %v with P %v, want state 1 with %v", r.(*Assignment).Assignment, r.(*Assignment).P, 1-want)
	}
}

func TestQueryErrors(t *testing.T) {
	b := ir.NewBuilder("t.pbl")
	a, _ := b.AddVar(ir.Pos{}, "A", ir.Bool, nil, 0)
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Real, nil, 0)
	b.SetCPT(ir.Pos{}, a, nil, []float64{0.5, 0.5}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    ir.Query
		want string
	}{
		{&ir.ProbQuery{Targets: []ir.VarID{x}, TargetStates: []int{-1}}, "real-valued"},
		{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: a, State: 0}}}, Targets: []ir.VarID{a}, TargetStates: []int{-1}}, "named twice"},
		{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: a, State: 2}}}}, "out of range"},
	}
	for _, tt := range tests {
		_, err := Answer(m, tt.q, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tt.q, err, tt.want)
		}
	}
	// Real variables are ignored by P(*).
	r, err := Answer(m, &ir.ProbQuery{Star: true}, Options{})
	if err != nil || len(r.(*Marginals).Marginals) != 1 || r.(*Marginals).Marginals[0].Var != a {
		t.Errorf("P(*) = %+v, %v", r, err)
	}
}

func TestParseEngine(t *testing.T) {
	for _, e := range []string{Auto, Enum, VE, JT, Search} {
		got, err := ParseEngine(e)
		if err != nil || got != e {
			t.Errorf("ParseEngine(%q) = %v, %v", e, got, err)
		}
	}
	if _, err := ParseEngine("bp"); err == nil {
		t.Error("ParseEngine(bp): no error")
	}
	for _, h := range []Heuristic{MinFill, MinWeight} {
		got, err := ParseHeuristic(h.String())
		if err != nil || got != h {
			t.Errorf("ParseHeuristic(%q) = %v, %v", h.String(), got, err)
		}
	}
}

func ExampleAnswer() {
	// Mitchell's cancer test: P(cancer | +).
	b := ir.NewBuilder("cancer.pbl")
	c, _ := b.AddVar(ir.Pos{}, "Cancer", ir.Bool, nil, 0)
	t, _ := b.AddVar(ir.Pos{}, "Test", ir.Enum, []string{"pos", "neg"}, 0)
	b.SetCPT(ir.Pos{}, c, nil, []float64{0.008, 0.992}, nil)
	b.SetCPT(ir.Pos{}, t, []ir.VarID{c}, []float64{0.98, 0.02, 0.03, 0.97}, nil)
	m, err := b.Finish()
	if err != nil {
		panic(err)
	}
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: t, State: 0}}}, Targets: []ir.VarID{c}, TargetStates: []int{-1}}
	r, err := Answer(m, q, Options{})
	if err != nil {
		panic(err)
	}
	for _, row := range r.(*Table).Rows {
		fmt.Printf("P(Cancer=%s | Test=pos) = %.4f\n", m.Vars[c].States[row.Values[0]], row.P)
	}
	// Output:
	// P(Cancer=true | Test=pos) = 0.2085
	// P(Cancer=false | Test=pos) = 0.7915
}
