package decision

import (
	"errors"
	"math"
	"testing"
)

// oil is the oil wildcatter (Raiffa 1968, Decision Analysis, ch. 1), with
// the numbers of Shenoy, Valuation-based systems for Bayesian decision
// analysis, Operations Research 40(3), 1992, also used by Jensen and
// Nielsen, Bayesian Networks and Decision Graphs, and pyAgrum's
// tutorial: Oil ∈ {dry, wet, soaking} with prior .5, .3, .2; a seismic
// test costing 10; the test's result ∈ {closed, open, diffuse} given Oil
// (dry .1 .3 .6, wet .3 .4 .3, soaking .5 .4 .1), and a fourth state
// "none" when there is no test; drilling pays -70, 50, 200 by Oil, not
// drilling 0.
//
// By hand: without the test drilling is worth .5·-70+.3·50+.2·200 = 20.
// With it, P·payoff of drilling is 21 after closed, 11.5 after open and
// -12.5 after diffuse, so drill unless diffuse: 21+11.5-10 = 22.5, the
// textbook MEU, with the policy test, then drill unless diffuse.
func oil() *Diagram {
	const (
		oilV = iota
		test
		result
		drill
	)
	return &Diagram{
		Vars: []Var{
			oilV: {Name: "Oil", Kind: Chance, Card: 3, CPT: []float64{.5, .3, .2}},
			test: {Name: "Test", Kind: Decision, Card: 2}, // yes, no
			result: {Name: "Result", Kind: Chance, Card: 4, Parents: []int{oilV, test}, CPT: []float64{
				// closed open diffuse none
				.1, .3, .6, 0, // dry, test
				0, 0, 0, 1, // dry, no test
				.3, .4, .3, 0, // wet, test
				0, 0, 0, 1, // wet, no test
				.5, .4, .1, 0, // soaking, test
				0, 0, 0, 1, // soaking, no test
			}},
			drill: {Name: "Drill", Kind: Decision, Card: 2, Parents: []int{test, result}}, // yes, no
		},
		Utilities: []Utility{
			{Name: "TestCost", Parents: []int{test}, Table: []float64{-10, 0}},
			{Name: "Payoff", Parents: []int{drill, oilV}, Table: []float64{-70, 50, 200, 0, 0, 0}},
		},
	}
}

func TestOilWildcatter(t *testing.T) {
	d := oil()
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(sol.MEU-22.5) <= 1e-9) {
		t.Errorf("MEU = %v, want 22.5", sol.MEU)
	}
	if got := sol.Policy(1).Choice; len(got) != 1 || got[0] != 0 {
		t.Errorf("Test policy = %v, want [0] (test)", got)
	}
	// Drill's information: Test, Result; after a test drill (0) unless
	// diffuse; without one the result is "none", where drilling (20)
	// beats not (0). Rows of impossible configurations are not checked.
	pd := sol.Policy(3)
	for _, c := range []struct{ test, result, want int }{
		{0, 0, 0}, {0, 1, 0}, {0, 2, 1}, {1, 3, 0},
	} {
		full := []int{0, c.test, c.result, 0}
		if got := pd.Choose(full); got != c.want {
			t.Errorf("Drill(test=%d, result=%d) = %d, want %d", c.test, c.result, got, c.want)
		}
	}
	for _, c := range []struct {
		dec, state int
		ev         map[int]int
		want       float64
	}{
		{1, 0, nil, 22.5}, // test
		{1, 1, nil, 20},   // no test: drill, 20
		{3, 0, map[int]int{1: 0, 2: 0}, 21/.24 - 10}, // drill after closed
		{3, 1, map[int]int{1: 0, 2: 2}, -10},         // not drilling after diffuse
		{3, 0, map[int]int{1: 0, 2: 2}, -12.5/.41 - 10},
		{3, 0, map[int]int{1: 1}, 20}, // no test, drill
		{3, 0, map[int]int{1: 0}, 21 + 11.5 - 12.5 - 10},
	} {
		got, err := sol.EU(c.dec, c.state, c.ev)
		if err != nil {
			t.Errorf("EU(%d=%d | %v): %v", c.dec, c.state, c.ev, err)
			continue
		}
		if !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("EU(%d=%d | %v) = %v, want %v", c.dec, c.state, c.ev, got, c.want)
		}
	}
	// Perfect information about Oil at Drill: drill only when not dry,
	// .3·50+.2·200 = 55 without testing, so 55 - 22.5.
	v, err := d.VPI(3, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(v-(55-22.5)) <= 1e-9) {
		t.Errorf("VPI(Oil at Drill) = %v, want 32.5", v)
	}
	// SPU on the same diagram (Drill knowing Test and Result is already
	// all there is to remember) finds the same strategy.
	ls, err := d.SolveLIMID(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(ls.MEU-22.5) <= 1e-9) {
		t.Errorf("SPU MEU = %v, want 22.5", ls.MEU)
	}
	if eu, err := ls.EU(1, 1, nil); err != nil || !(math.Abs(eu-20) <= 1e-9) {
		t.Errorf("SPU's EU(no test) = %v, %v; want 20", eu, err)
	}
}

// TestRankVPI: at Drill only Oil can still be learnt (Result is known,
// Test decided), worth 32.5; at Test, Oil is worth 55 - 22.5 too, and
// Result is a descendant of Test, so not a candidate.
func TestRankVPI(t *testing.T) {
	d := oil()
	for _, dec := range []int{1, 3} {
		r, err := d.RankVPI(dec, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r) != 1 || r[0].Var != 0 || !(math.Abs(r[0].Value-32.5) <= 1e-9) {
			t.Errorf("RankVPI(%d) = %v, want [{0 32.5}]", dec, r)
		}
	}
	if _, err := d.RankVPI(0, Options{}); !errors.Is(err, ErrShape) {
		t.Errorf("RankVPI of a chance variable: %v", err)
	}
}

// TestNoDecisions: a diagram without decisions has as MEU its expected
// utility, by both solvers.
func TestNoDecisions(t *testing.T) {
	d := &Diagram{
		Vars:      []Var{{Name: "X", Kind: Chance, Card: 3, CPT: []float64{.2, .3, .5}}},
		Utilities: []Utility{{Name: "U", Parents: []int{0}, Table: []float64{10, -4, 2}}},
	}
	const want = 2 - 1.2 + 1
	sol, err := d.Solve(Options{})
	if err != nil || !(math.Abs(sol.MEU-want) <= 1e-12) {
		t.Errorf("Solve: %v, %v; want %v", sol, err, want)
	}
	ls, err := d.SolveLIMID(Options{})
	if err != nil || !(math.Abs(ls.MEU-want) <= 1e-12) || !ls.Exact {
		t.Errorf("SolveLIMID: %v, %v; want %v", ls, err, want)
	}
}
