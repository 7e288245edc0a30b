package infer_test

import (
	"fmt"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

func ExampleSensitivity() {
	m := rainModel() // P(Rain) = 0.2, P(Wet | Rain) = 0.9, P(Wet | not Rain) = 0.1
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Rain=true | Wet=true)", Bar: true}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 1, State: 0}}}, Targets: []ir.VarID{0}, TargetStates: []int{0}}
	half := 0.5
	params, p, err := infer.Sensitivity(m, q, infer.SensitivityOptions{Reach: &half})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s = %.4f\n", q.Text, p)
	for _, prm := range params {
		name := func(o ir.Obs) string { return m.Vars[o.Var].Name + "=" + m.Vars[o.Var].States[o.State] }
		entry := "P(" + name(ir.Obs{Var: prm.Var, State: prm.State})
		for i, g := range prm.Given {
			sep := ", "
			if i == 0 {
				sep = " | "
			}
			entry += sep + name(g)
		}
		fmt.Printf("%s) = %.1f: derivative %+.4f, %.4f to reach 0.5\n", entry, prm.Value, prm.Derivative, prm.Needed)
	}
	// Output:
	// P(Rain=true | Wet=true) = 0.6923
	// P(Wet=true | Rain=false) = 0.1: derivative -2.1302, 0.2250 to reach 0.5
	// P(Wet=false | Rain=false) = 0.9: derivative +2.1302, 0.7750 to reach 0.5
	// P(Rain=true) = 0.2: derivative +1.3314, 0.1000 to reach 0.5
	// P(Rain=false) = 0.8: derivative -1.3314, 0.9000 to reach 0.5
	// P(Wet=true | Rain=true) = 0.9: derivative +0.2367, 0.4000 to reach 0.5
	// P(Wet=false | Rain=true) = 0.1: derivative -0.2367, 0.6000 to reach 0.5
}
