package decision

import (
	"math"
	"testing"
)

// The expected numbers of these tests are aGrUM's (pyAgrum's engine):
// its test suite of gum::ShaferShenoyLIMIDInference
// (testInferenceWithOilWildCater, testBugFromNeapolitan1 and 2) states
// them; the models are rebuilt here from the same tables (aGrUM fills a
// table with its first variable, the child, fastest; the tables below are
// transposed to this package's layout, the child last).

// TestAgrumOil: aGrUM's oil wildcatter gives the utility of testing and
// of not testing as 22.5 and 20 (its posteriorUtility of Testing), an
// expected reward of 32.5 and a test cost of -10 under the optimal
// strategy.
func TestAgrumOil(t *testing.T) {
	sol, err := oil().Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range []float64{22.5, 20} {
		got, err := sol.EU(1, s, nil)
		if err != nil || !(math.Abs(got-want) <= 1e-9) {
			t.Errorf("EU(Test=%d) = %v, %v; aGrUM %v", s, got, err, want)
		}
	}
}

// neapolitan is the car buyer of Neapolitan (Learning Bayesian Networks,
// 2004) as aGrUM's test suite builds it: DoTest ∈ {None, First, Both}
// costing 0, 9, 13; Condition ∈ {Good, Lemon} .8/.2; the two tests'
// results ∈ {NotDone, Positive, Negative}; Buy ∈ {No, Yes} knowing both
// results (and DoTest, by no-forgetting), worth 60 for a good car and
// -100 for a lemon.
func neapolitan() *Diagram {
	const (
		doTest = iota
		buy
		condition
		first
		second
	)
	ninth := 1.0 / 9
	return &Diagram{
		Vars: []Var{
			doTest:    {Name: "DoTest", Kind: Decision, Card: 3},
			buy:       {Name: "Buy", Kind: Decision, Card: 2, Parents: []int{first, second}},
			condition: {Name: "Condition", Kind: Chance, Card: 2, CPT: []float64{.8, .2}},
			first: {Name: "FirstTest", Kind: Chance, Card: 3, Parents: []int{doTest, condition}, CPT: []float64{
				1, 0, 0, 1, 0, 0, // None: Good, Lemon
				0, .9, .1, 0, .4, .6, // First
				0, .9, .1, 0, .4, .6, // Both
			}},
			second: {Name: "SecondTest", Kind: Chance, Card: 3, Parents: []int{doTest, condition, first}, CPT: []float64{
				// None and First: not done whatever the rest
				1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0,
				1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0,
				// Both: Good (first NotDone, Positive, Negative), Lemon (…)
				1, 0, 0, 0, 8 * ninth, ninth, 0, 1, 0,
				1, 0, 0, 0, 3 * ninth, 6 * ninth, 0, 4 * ninth, 5 * ninth,
			}},
		},
		Utilities: []Utility{
			{Name: "U", Parents: []int{doTest}, Table: []float64{0, -9, -13}},
			{Name: "V", Parents: []int{buy, condition}, Table: []float64{0, 0, 60, -100}},
		},
	}
}

// TestAgrumNeapolitan: aGrUM's MEU is 28 (buy untested: .8·60 - .2·100),
// and 40.6 given both tests done and positive (P(Good) = .96: .96·60 -
// .04·100 - 13).
func TestAgrumNeapolitan(t *testing.T) {
	d := neapolitan()
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(sol.MEU-28) <= 1e-9) {
		t.Errorf("MEU %v, aGrUM 28", sol.MEU)
	}
	got, err := sol.EU(1, 1, map[int]int{0: 2, 3: 1, 4: 1})
	if err != nil || !(math.Abs(got-40.6) <= 1e-9) {
		t.Errorf("EU(Buy=Yes | DoTest=Both, both positive) = %v, %v; aGrUM 40.6", got, err)
	}
	if c := sol.Policy(1).Choose([]int{2, 0, 0, 1, 1}); c != 1 {
		t.Errorf("Buy after two positive tests: %d, want 1 (Yes)", c)
	}
	ls, err := d.SolveLIMID(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(ls.MEU-28) <= 1e-9) {
		t.Errorf("SPU MEU %v, aGrUM 28", ls.MEU)
	}
}

// TestAgrumDefer: aGrUM's testUtilityForDeterministicDecision: a decision
// D taken knowing nothing, worth -0.1014 and -0.400 by state; knowing E =
// E1 (the arc E → D added), -0.1818 and -0.0818 (to 1e-4, as aGrUM checks
// them; exactly -2/11 and -0.9/11).
func TestAgrumDefer(t *testing.T) {
	const dd, e = 0, 2
	d := deferDiagram()
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range []float64{-0.1014, -0.4} {
		if got, err := sol.EU(dd, s, nil); err != nil || !(math.Abs(got-want) <= 1e-12) {
			t.Errorf("EU(D=%d) = %v, %v; aGrUM %v", s, got, err, want)
		}
	}
	d.Vars[dd].Parents = []int{e}
	if sol, err = d.Solve(Options{}); err != nil {
		t.Fatal(err)
	}
	for s, want := range []float64{-0.1818, -0.0818} {
		got, err := sol.EU(dd, s, map[int]int{e: 0})
		if err != nil || !(math.Abs(got-want) <= 1e-4) || !(math.Abs(got-[]float64{-2, -0.9}[s]/11) <= 1e-12) {
			t.Errorf("EU(D=%d | E=E1) = %v, %v; aGrUM %v", s, got, err, want)
		}
	}
}

// TestAgrumEvidence: aGrUM's answers with evidence, from the same test
// suite (agrumery/aGrUM, src/testunits/module_ID/
// ShaferShenoyLIMIDInferenceTestSuite.h): evidence on a chance variable
// is a finding, conditioning every answer, the decisions choosing
// knowing it; evidence on a decision sets it.
func TestAgrumEvidence(t *testing.T) {
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	// testInferenceWithOilWildCaterWithEvidenceOnChanceNode: Oil = wet
	// gives MEU 50 and the utilities of testing and not, 40 and 50 (aGrUM's
	// TestResult has no "none" state; that changes none of these numbers).
	d := oil()
	d.Findings = []Finding{{Var: 0, Weights: []float64{0, 1, 0}}}
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(sol.MEU, 50, 1e-9) {
		t.Errorf("MEU given Oil=wet: %v, aGrUM 50", sol.MEU)
	}
	for s, want := range []float64{40, 50} {
		if got, err := sol.EU(1, s, nil); err != nil || !near(got, want, 1e-9) {
			t.Errorf("EU(Test=%d) given Oil=wet: %v, %v; aGrUM %v", s, got, err, want)
		}
	}
	// testInferenceWithOilWildCaterWithEvidenceOnDecisionNode: Testing =
	// No gives MEU 20.
	if e, err := oil().Set(1, 1); err != nil {
		t.Fatal(err)
	} else if sol, err := e.Solve(Options{}); err != nil || !near(sol.MEU, 20, 1e-9) {
		t.Errorf("MEU with Test set to no: %v, %v; aGrUM 20", sol, err)
	}
	// testBugWithEvidence 1 to 4: c uniform, c1 = c, u(c, d) = 10, 21
	// (c0) and 100, 200 (c1): MEU 110.5; given c = c1, 200 (d: 100, 200);
	// with d set to 1, 110.5; with likelihood [.8, .2] on c1, 56.8 (d: 28,
	// 56.8).
	bug := func() *Diagram {
		return &Diagram{
			Vars: []Var{
				{Name: "c", Kind: Chance, Card: 2, CPT: []float64{.5, .5}},
				{Name: "c1", Kind: Chance, Card: 2, Parents: []int{0}, CPT: []float64{1, 0, 0, 1}},
				{Name: "d", Kind: Decision, Card: 2},
			},
			Utilities: []Utility{{Name: "u", Parents: []int{0, 2}, Table: []float64{10, 21, 100, 200}}},
		}
	}
	for _, c := range []struct {
		name     string
		findings []Finding
		set      int
		meu      float64
		eu       []float64
	}{
		{"no evidence", nil, -1, 110.5, []float64{55, 110.5}},
		{"c=1", []Finding{{Var: 0, Weights: []float64{0, 1}}}, -1, 200, []float64{100, 200}},
		{"d set to 1", nil, 1, 110.5, nil},
		{"c1~[.8, .2]", []Finding{{Var: 1, Weights: []float64{.8, .2}}}, -1, 56.8, []float64{28, 56.8}},
	} {
		d := bug()
		d.Findings = c.findings
		if c.set >= 0 {
			if d, err = d.Set(2, c.set); err != nil {
				t.Fatal(err)
			}
		}
		sol, err := d.Solve(Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !near(sol.MEU, c.meu, 1e-9) {
			t.Errorf("%s: MEU %v, aGrUM %v", c.name, sol.MEU, c.meu)
		}
		for s, want := range c.eu {
			if got, err := sol.EU(2, s, nil); err != nil || !near(got, want, 1e-9) {
				t.Errorf("%s: EU(d=%d) %v, %v; aGrUM %v", c.name, s, got, err, want)
			}
		}
		ls, err := d.SolveLIMID(Options{})
		if err != nil || !near(ls.MEU, c.meu, 1e-9) {
			t.Errorf("%s: SPU's MEU %v, %v; aGrUM %v", c.name, ls, err, c.meu)
		}
	}
}

// TestAgrumDeferEvidence: testUtilityForDeterministicDecision again, with
// the evidence E = E1 entered but no arc E → D: the utilities of D are
// the same as with the arc, -0.1818 and -0.0818 (to 1e-4; -2/11 and
// -0.9/11), evidence being a fact known when D is chosen.
func TestAgrumDeferEvidence(t *testing.T) {
	d := deferDiagram()
	d.Findings = []Finding{{Var: 2, Weights: []float64{1, 0, 0}}}
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range []float64{-0.1818, -0.0818} {
		got, err := sol.EU(0, s, nil)
		if err != nil || !(math.Abs(got-want) <= 1e-4) || !(math.Abs(got-[]float64{-2, -0.9}[s]/11) <= 1e-12) {
			t.Errorf("EU(D=%d) given E=E1: %v, %v; aGrUM %v", s, got, err, want)
		}
	}
}

// TestAgrumNeapolitanEvidence: testBugFromNeapolitan2: DoTest set to
// Both, both tests positive: MEU 40.6.
func TestAgrumNeapolitanEvidence(t *testing.T) {
	d, err := neapolitan().Set(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	d.Findings = []Finding{{Var: 3, Weights: []float64{0, 1, 0}}, {Var: 4, Weights: []float64{0, 1, 0}}}
	sol, err := d.Solve(Options{})
	if err != nil || !(math.Abs(sol.MEU-40.6) <= 1e-9) {
		t.Errorf("MEU given DoTest=Both and both tests positive: %v, %v; aGrUM 40.6", sol, err)
	}
}

// deferDiagram is aGrUM's diagram of testUtilityForDeterministicDecision:
// D (a decision knowing nothing), H, E, A, and the loss L(E, A, D).
func deferDiagram() *Diagram {
	const (
		dd = iota
		h
		e
		a
	)
	return &Diagram{
		Vars: []Var{
			dd: {Name: "D", Kind: Decision, Card: 2},
			h:  {Name: "H", Kind: Chance, Card: 2, CPT: []float64{.5, .5}},
			e:  {Name: "E", Kind: Chance, Card: 3, Parents: []int{h}, CPT: []float64{.9, .09, .01, .2, .09, .71}},
			a: {Name: "A", Kind: Chance, Card: 2, Parents: []int{h, e}, CPT: []float64{
				1, 0, .5, .5, 0, 1, // H1: E1, E2, E3
				0, 1, .5, .5, 1, 0, // H2
			}},
		},
		Utilities: []Utility{{Name: "L", Parents: []int{e, a, dd}, Table: []float64{
			0, -0.1, -1, 0, -0.01, 0, -0.01, 0, 0, -1, -0.1, 0,
		}}},
	}
}
