package decision

import (
	"errors"
	"math"
	"testing"
)

// TestValidateErrors: each defect of a diagram is refused with its kind,
// naming the node concerned, before anything is solved.
func TestValidateErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(d *Diagram)
		kind error
		node string
	}{
		{"card", func(d *Diagram) { d.Vars[0].Card = 0 }, ErrShape, "Oil"},
		{"parent out of range", func(d *Diagram) { d.Vars[2].Parents = []int{0, 9} }, ErrShape, "Result"},
		{"parent twice", func(d *Diagram) { d.Vars[3].Parents = []int{1, 1} }, ErrShape, "Drill"},
		{"own parent", func(d *Diagram) { d.Vars[3].Parents = []int{3} }, ErrCycle, "Drill"},
		{"cycle", func(d *Diagram) { d.Vars[1].Parents = []int{3} }, ErrCycle, "Test"},
		{"cpt length", func(d *Diagram) { d.Vars[0].CPT = []float64{.5, .5} }, ErrShape, "Oil"},
		{"cpt row sum", func(d *Diagram) { d.Vars[0].CPT = []float64{.5, .3, .3} }, ErrCPT, "Oil"},
		{"cpt negative", func(d *Diagram) { d.Vars[0].CPT = []float64{1.2, -.2, 0} }, ErrCPT, "Oil"},
		{"cpt NaN", func(d *Diagram) { d.Vars[0].CPT = []float64{math.NaN(), .5, .5} }, ErrCPT, "Oil"},
		{"decision with a table", func(d *Diagram) { d.Vars[1].CPT = []float64{.5, .5} }, ErrShape, "Test"},
		{"utility parent missing", func(d *Diagram) { d.Utilities[0].Parents = []int{7} }, ErrShape, "TestCost"},
		{"utility length", func(d *Diagram) { d.Utilities[1].Table = d.Utilities[1].Table[:5] }, ErrShape, "Payoff"},
		{"utility infinite", func(d *Diagram) { d.Utilities[0].Table[0] = math.Inf(-1) }, ErrUtility, "TestCost"},
		{"order against the arcs", func(d *Diagram) { d.Order = []int{3, 1} }, ErrOrder, "Test"},
		{"order not the decisions", func(d *Diagram) { d.Order = []int{1} }, ErrOrder, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := oil()
			c.edit(d)
			for _, f := range []func() error{
				d.Validate,
				func() error { _, err := d.Solve(Options{}); return err },
				func() error { _, err := d.SolveLIMID(Options{}); return err },
			} {
				err := f()
				var e *Error
				if !errors.Is(err, c.kind) || !errors.As(err, &e) || e.Node != c.node {
					t.Fatalf("got %v (%#v), want kind %v about %q", err, err, c.kind, c.node)
				}
			}
		})
	}
}

// TestNoOrder: without an order Solve needs the arcs to order the
// decisions; SPU does not.
func TestNoOrder(t *testing.T) {
	d := oil()
	d.Vars[3].Parents = []int{2} // Drill no longer knows Test directly …
	d.Vars[2].Parents = []int{0} // … nor does Result depend on it
	d.Vars[2].CPT = d.Vars[2].CPT[:12]
	for r := range 3 {
		copy(d.Vars[2].CPT[r*4:], []float64{.1 + .2*float64(r), .3, .6 - .2*float64(r), 0})
	}
	if _, err := d.Solve(Options{}); !errors.Is(err, ErrNoOrder) {
		t.Fatalf("Solve: %v, want ErrNoOrder", err)
	}
	if _, err := d.SolveLIMID(Options{}); err != nil {
		t.Fatalf("SolveLIMID: %v", err)
	}
	d.Order = []int{1, 3}
	if _, err := d.Solve(Options{}); err != nil {
		t.Fatalf("Solve with an order: %v", err)
	}
}

// TestTooLarge: a table beyond the limit is refused before allocation.
func TestTooLarge(t *testing.T) {
	d := oil()
	for _, f := range []func() error{
		func() error { _, err := d.Solve(Options{MaxEntries: 4}); return err },
		func() error { _, err := d.SolveLIMID(Options{MaxEntries: 4}); return err },
		func() error { _, err := d.VPI(3, 0, Options{MaxEntries: 4}); return err },
	} {
		err := f()
		var e *TooLargeError
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || !(e.Entries > e.Limit) {
			t.Fatalf("got %v, want a *TooLargeError", err)
		}
	}
	// A cardinality whose product overflows is refused too.
	big := &Diagram{}
	for range 5 {
		big.Vars = append(big.Vars, Var{Name: "X", Kind: Decision, Card: MaxCard})
	}
	big.Utilities = []Utility{{Name: "U", Parents: []int{0, 1, 2, 3, 4}}}
	if err := big.Validate(); !errors.Is(err, ErrShape) {
		t.Fatalf("overflowing utility: %v, want ErrShape", err)
	}
}

// TestEUErrors: EU refuses evidence outside the decision's information, a
// state out of range, and evidence of probability zero.
func TestEUErrors(t *testing.T) {
	sol, err := oil().Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dec, state int
		ev         map[int]int
		kind       error
	}{
		{3, 0, map[int]int{0: 1}, ErrEvidence},         // Oil is not known at Drill
		{1, 0, map[int]int{2: 0}, ErrEvidence},         // nor Result at Test
		{3, 2, nil, ErrEvidence},                       // Drill has two states
		{0, 0, nil, ErrEvidence},                       // Oil is not a decision
		{3, 0, map[int]int{2: 9}, ErrEvidence},         // no such state
		{3, 0, map[int]int{1: 0, 2: 3}, ErrImpossible}, // tested, yet no result
	} {
		if _, err := sol.EU(c.dec, c.state, c.ev); !errors.Is(err, c.kind) {
			t.Errorf("EU(%d=%d | %v): %v, want %v", c.dec, c.state, c.ev, err, c.kind)
		}
	}
}

// TestChooseBadInput: Choose refuses an assignment too short or out of
// range with -1 rather than panicking.
func TestChooseBadInput(t *testing.T) {
	sol, err := oil().Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := sol.Policy(3) // Drill, over Test and Result
	for _, full := range [][]int{nil, {0, 0}, {0, 2, 0, 0}, {0, 0, -1, 0}, {0, 0, 4, 0}} {
		if c := p.Choose(full); c != -1 {
			t.Errorf("Choose(%v) = %d, want -1", full, c)
		}
	}
	if sol.Policy(0) != nil || sol.Policy(99) != nil {
		t.Error("a policy for a chance variable or no variable")
	}
}
