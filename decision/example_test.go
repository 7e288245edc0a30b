package decision_test

import (
	"fmt"

	"github.com/pbl-lang/pbl/decision"
)

// A medical test-and-treat diagram: Disease (present .1), a Test whose
// result is known before deciding to Treat, and the utility of treating
// or not by Disease.
func Example() {
	const (
		disease = iota
		test
		treat
	)
	d := &decision.Diagram{
		Vars: []decision.Var{
			disease: {Name: "Disease", Kind: decision.Chance, Card: 2, CPT: []float64{.1, .9}}, // present, absent
			test: {Name: "Test", Kind: decision.Chance, Card: 2, Parents: []int{disease}, CPT: []float64{
				.9, .1, // present: positive, negative
				.2, .8, // absent
			}},
			treat: {Name: "Treat", Kind: decision.Decision, Card: 2, Parents: []int{test}}, // yes, no
		},
		Utilities: []decision.Utility{{Name: "Cost", Parents: []int{treat, disease}, Table: []float64{
			80, -20, // treat: present, absent
			-100, 0, // no treatment
		}}},
	}
	sol, err := d.Solve(decision.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("MEU %.2f\n", sol.MEU)
	fmt.Println("Treat when positive, negative:", sol.Policy(treat).Choice) // 0 = yes
	eu, _ := sol.EU(treat, 0, map[int]int{test: 1})
	fmt.Printf("EU(Treat=yes | Test=negative) %.4f\n", eu)
	v, _ := d.VPI(treat, disease, decision.Options{})
	fmt.Printf("VPI(Disease) %.2f\n", v)
	// By hand: P(present, positive) = .09, P(absent, positive) = .18, so
	// after a positive test treating is worth .09·80 - .18·20 = 3.6
	// against -9; after a negative one (.01, .72) -13.6 against -1: the
	// MEU is 3.6 - 1 = 2.6, EU(yes | negative) = -13.6/.73; knowing the
	// disease, treat when present: .1·80 = 8, so VPI = 8 - 2.6.

	// Output:
	// MEU 2.60
	// Treat when positive, negative: [0 1]
	// EU(Treat=yes | Test=negative) -18.6301
	// VPI(Disease) 5.40
}
