package ir_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// diagramHead declares a small influence diagram's variables.
const diagramHead = `var Disease: {present, absent}
var Test: {positive, negative}
decision Treat: {yes, no}
P(Disease) = [0.1, 0.9]
P(Test | Disease) = {
    present: [0.9, 0.1]
    absent:  [0.2, 0.8]
}
`

const goodUtility = `utility Cost(Treat, Disease) = {
    yes, present: 80   yes, absent: -20
    no, present: -100  no, absent: 0
}
`

// TestDecisionErrors checks the positioned errors, and their kinds, of
// influence diagrams that are not valid.
func TestDecisionErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		kind error // nil: any kind
		line int
		col  int
	}{
		{"row missing", diagramHead + "Test -> Treat\nutility Cost(Treat, Disease) = {\n    yes, present: 80\n    yes, absent: -20\n    no, present: -100\n}\n", ir.ErrUtilityRow, 10, 1},
		{"utility as a parent", diagramHead + goodUtility + "var Z: bool\nCost -> Z\n", ir.ErrUtilityChild, 14, 1},
		{"utility in a table", diagramHead + goodUtility + "var Z: bool\nP(Z | Cost) = {\n    1: 0.5\n}\n", ir.ErrUtilityChild, 14, 7},
		{"utility of a utility", diagramHead + goodUtility + "utility V(Cost) = {\n    1: 2\n}\n", ir.ErrUtilityChild, 13, 11},
		{"decision with a distribution", diagramHead + goodUtility + "P(Treat) = [0.5, 0.5]\n", ir.ErrDecisionDist, 13, 1},
		{"cycle", diagramHead + goodUtility + "Treat -> Test\nTest -> Treat\n", nil, 0, 0},
		{"information cycle", `decision A: bool
decision B: bool
A -> B
B -> A
utility U(A) = { true: 1  false: 0 }
`, ir.ErrCycle, 0, 0},
		{"two numbers", diagramHead + "utility Cost(Treat) = {\n    yes: [1, 2]\n    no: 0\n}\n", nil, 10, 10},
		{"a row twice", diagramHead + "utility Cost(Treat) = {\n    yes: 1\n    yes: 2\n    no: 0\n}\n", nil, 11, 5},
		{"real decision", "decision D: real\n", nil, 1, 13},
		{"name taken", diagramHead + "utility Test(Treat) = {\n    yes: 1\n    no: 0\n}\n", nil, 9, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.Parse("d.pbl", []byte(tt.src))
			if err != nil {
				t.Fatalf("does not parse: %v", err)
			}
			_, err = ir.Lower(f)
			if err == nil {
				t.Fatal("no error")
			}
			var e *ir.Error
			if !errors.As(err, &e) {
				t.Fatalf("%v: not an *ir.Error", err)
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("%v: not of kind %v", err, tt.kind)
			}
			if tt.line > 0 && (e.Pos.Line != tt.line || e.Pos.Col != tt.col) {
				t.Errorf("%v: at %d:%d, want %d:%d", err, e.Pos.Line, e.Pos.Col, tt.line, tt.col)
			}
		})
	}
}

// TestDecisionModel checks what the model keeps of a valid diagram: the
// decision marked, its information parents, the utility's table.
func TestDecisionModel(t *testing.T) {
	f, err := parser.Parse("d.pbl", []byte(diagramHead+"Test -> Treat\n"+goodUtility))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	treat, _ := m.Lookup("Treat")
	test, _ := m.Lookup("Test")
	if !treat.Decision || test.Decision {
		t.Errorf("decisions %v", m.Decisions())
	}
	if ps := m.Parents[treat.ID]; len(ps) != 1 || ps[0] != test.ID {
		t.Errorf("Treat's parents %v", ps)
	}
	if len(m.Utilities) != 1 {
		t.Fatalf("utilities %v", m.Utilities)
	}
	want := []float64{80, -20, -100, 0}
	for i, x := range m.Utilities[0].Values {
		if x != want[i] {
			t.Errorf("Cost = %v, want %v", m.Utilities[0].Values, want)
			break
		}
	}
}

// TestDecisionQueryErrors checks the refusals of decision queries that
// do not fit the model.
func TestDecisionQueryErrors(t *testing.T) {
	f, err := parser.Parse("d.pbl", []byte(diagramHead+"Test -> Treat\n"+goodUtility))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ir.Lower(mustParse(t, diagramHead)) // no utility: not a diagram
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		m    *ir.Model
		text string
		kind error
	}{
		{plain, "MEU()", ir.ErrNotDecision},
		{m, "policy(Test)", ir.ErrNotDecision},
		{m, "EU(Disease=present)", ir.ErrNotDecision},
		{m, "EU(Treat)", nil},
		{m, "policy(Treat=yes)", nil},
		{m, "MEU(Treat)", nil},
		{m, "MEU(| Treat~[0.5, 0.5])", nil},       // a decision is set, not observed
		{m, "policy(Treat | do(Treat=yes))", nil}, // Treat twice
		{m, "EU(Treat=yes | Treat=no)", nil},      // Treat twice
	}
	// Evidence, likelihood evidence and do() are conditions of every
	// decision query (the root's decide.go gives them meaning).
	for _, text := range []string{"MEU(| Disease=present)", "policy(Treat | Disease~[0.3, 0.7])", "EU(Treat=yes | do(Test=positive))", "MEU(| Treat=no)"} {
		g, err := parser.ParseQuery("q", text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if _, err := ir.LowerQuery(m, g); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
	for _, tt := range tests {
		g, err := parser.ParseQuery("q", tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.text, err)
		}
		_, err = ir.LowerQuery(tt.m, g)
		var e *ir.Error
		switch {
		case !errors.As(err, &e):
			t.Errorf("%s: %v, not an *ir.Error", tt.text, err)
		case tt.kind != nil && !errors.Is(err, tt.kind):
			t.Errorf("%s: %v, not of kind %v", tt.text, err, tt.kind)
		}
	}
}

func mustParse(t *testing.T, src string) *grammar.File {
	t.Helper()
	f, err := parser.Parse("d.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
