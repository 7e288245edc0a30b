package ir_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestBuildDecision: the test-and-treat diagram built with the Builder's
// decision methods is the model its source lowers to (decisions, parents,
// utilities).
func TestBuildDecision(t *testing.T) {
	f, err := parser.Parse("d.pbl", []byte(diagramHead+"Test -> Treat\n"+goodUtility))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ir.Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	b := ir.NewBuilder("d.net")
	at := ir.Pos{File: "d.net", Line: 1, Col: 1}
	disease, _ := b.AddVar(at, "Disease", ir.Enum, []string{"present", "absent"}, 0)
	test, _ := b.AddVar(at, "Test", ir.Enum, []string{"positive", "negative"}, 0)
	treat, ok := b.AddDecision(at, "Treat", ir.Enum, []string{"yes", "no"}, 0)
	if !ok {
		t.Fatal(b.Errs)
	}
	b.SetCPT(at, disease, nil, []float64{0.1, 0.9}, nil)
	b.SetCPT(at, test, []ir.VarID{disease}, []float64{0.9, 0.1, 0.2, 0.8}, nil)
	b.SetInformation(at, treat, []ir.VarID{test})
	b.AddUtility(at, "Cost", []ir.VarID{treat, disease}, []float64{80, -20, -100, 0})
	got, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Vars {
		if got.Vars[i].Decision != v.Decision || !reflect.DeepEqual(got.Parents[i], want.Parents[i]) {
			t.Errorf("variable %s: decision %v, parents %v; want %v, %v", v.Name, got.Vars[i].Decision, got.Parents[i], v.Decision, want.Parents[i])
		}
	}
	if len(got.Utilities) != 1 || got.Utilities[0].Name != "Cost" ||
		!reflect.DeepEqual(got.Utilities[0].Parents, want.Utilities[0].Parents) || !reflect.DeepEqual(got.Utilities[0].Values, want.Utilities[0].Values) {
		t.Errorf("utilities %+v, want %+v", got.Utilities, want.Utilities)
	}
}

// TestBuildDecisionErrors: the Builder refuses what the language refuses,
// with positioned errors: a distribution for a decision (of kind
// ErrDecisionDist), a real-valued decision or information parent, a
// utility named as a variable or another utility, without parents, with a
// parent twice or real-valued, with a number that is not finite, and a
// cycle through an information arc.
func TestBuildDecisionErrors(t *testing.T) {
	at := ir.Pos{File: "d.net", Line: 3, Col: 5}
	tests := []struct {
		name  string
		build func(b *ir.Builder, a, r, d ir.VarID)
		kind  error
		msg   string
	}{
		{"decision's distribution", func(b *ir.Builder, a, r, d ir.VarID) { b.SetCPT(at, d, nil, []float64{0.5, 0.5}, nil) }, ir.ErrDecisionDist, `"D" is a decision`},
		{"decision's density", func(b *ir.Builder, a, r, d ir.VarID) { b.SetGaussian(at, d, nil, []float64{0}, []float64{1}) }, ir.ErrDecisionDist, `"D" is a decision`},
		{"real decision", func(b *ir.Builder, a, r, d ir.VarID) { b.AddDecision(at, "E", ir.Real, nil, 0) }, nil, `decision "E" is real-valued`},
		{"real information", func(b *ir.Builder, a, r, d ir.VarID) { b.SetInformation(at, d, []ir.VarID{r}) }, nil, `"R", an information parent of decision "D", is real-valued`},
		{"information twice", func(b *ir.Builder, a, r, d ir.VarID) { b.SetInformation(at, d, []ir.VarID{a, a}) }, nil, `listed twice`},
		{"own information", func(b *ir.Builder, a, r, d ir.VarID) { b.SetInformation(at, d, []ir.VarID{d}) }, nil, `its own information parent`},
		{"cycle", func(b *ir.Builder, a, r, d ir.VarID) {
			b.SetInformation(at, d, []ir.VarID{a})
			b.SetCPT(at, a, []ir.VarID{d}, []float64{0.5, 0.5, 0.5, 0.5}, nil)
		}, ir.ErrCycle, `cycle`},
		{"utility named as a variable", func(b *ir.Builder, a, r, d ir.VarID) { b.AddUtility(at, "A", []ir.VarID{a}, []float64{1, 2}) }, nil, `has the name of a variable`},
		{"variable named as a utility", func(b *ir.Builder, a, r, d ir.VarID) {
			b.AddUtility(at, "U", []ir.VarID{a}, []float64{1, 2})
			b.AddVar(at, "U", ir.Bool, nil, 0)
		}, nil, `"U" redeclared (first declared as a utility`},
		{"second utility", func(b *ir.Builder, a, r, d ir.VarID) {
			b.AddUtility(at, "U", []ir.VarID{a}, []float64{1, 2})
			b.AddUtility(at, "U", []ir.VarID{d}, []float64{1, 2})
		}, nil, `second utility "U"`},
		{"no parents", func(b *ir.Builder, a, r, d ir.VarID) { b.AddUtility(at, "U", nil, []float64{1}) }, nil, `has no parents`},
		{"parent twice", func(b *ir.Builder, a, r, d ir.VarID) { b.AddUtility(at, "U", []ir.VarID{a, a}, []float64{1, 2, 3, 4}) }, nil, `listed twice`},
		{"real parent", func(b *ir.Builder, a, r, d ir.VarID) { b.AddUtility(at, "U", []ir.VarID{r}, []float64{1}) }, nil, `"R" is real-valued`},
		{"infinite", func(b *ir.Builder, a, r, d ir.VarID) { b.AddUtility(at, "U", []ir.VarID{a}, []float64{1, math.Inf(1)}) }, nil, `utility "U" is +Inf for false`},
		{"NaN", func(b *ir.Builder, a, r, d ir.VarID) { b.AddUtility(at, "U", []ir.VarID{a}, []float64{math.NaN(), 1}) }, nil, `utility "U" is NaN for true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ir.NewBuilder("d.net")
			a, _ := b.AddVar(ir.Pos{File: "d.net", Line: 1, Col: 1}, "A", ir.Bool, nil, 0)
			r, _ := b.AddVar(ir.Pos{File: "d.net", Line: 1, Col: 1}, "R", ir.Real, nil, 0)
			d, _ := b.AddDecision(ir.Pos{File: "d.net", Line: 2, Col: 1}, "D", ir.Bool, nil, 0)
			b.SetGaussian(at, r, nil, []float64{0}, []float64{1})
			tt.build(b, a, r, d)
			if tt.name != "cycle" {
				b.SetCPT(at, a, nil, []float64{0.5, 0.5}, nil)
			}
			_, err := b.Finish()
			var list ir.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("got %v, want an error list", err)
			}
			e := list[0]
			if !strings.Contains(e.Msg, tt.msg) || !e.Pos.IsValid() {
				t.Errorf("got %v, want %q, positioned", err, tt.msg)
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("got %v, not of kind %v", err, tt.kind)
			}
		})
	}
}
