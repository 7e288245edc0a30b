package pbl_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pbl-lang/pbl"
)

// campfire is Mitchell's network of Fig. 6.3, cut to three variables.
const campfire = `
var Storm, BusTourGroup, Campfire: bool
Storm, BusTourGroup -> Campfire
P(Storm) = 0.3
P(BusTourGroup) = 0.5
P(Campfire | Storm, BusTourGroup) = {
    true,  true:  0.4
    true,  false: 0.1
    false, true:  0.8
    false, false: 0.2
}
`

// Load reads a model from text (LoadFile reads a file, in any format pbl
// reads, choosing by its extension).
func ExampleLoad() {
	m, err := pbl.Load("campfire.pbl", []byte(campfire))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range m.Vars {
		var parents []string
		for _, p := range m.Parents[v.ID] {
			parents = append(parents, m.Vars[p].Name)
		}
		fmt.Println(v.Name, v.States, "parents", parents)
	}
	// Output:
	// Storm [true false] parents []
	// BusTourGroup [true false] parents []
	// Campfire [true false] parents [Storm BusTourGroup]
}

// Ask answers a query written as in a model file; Prob reads one number.
func ExampleAsk() {
	m, _ := pbl.Load("campfire.pbl", []byte(campfire))
	a, err := pbl.Ask(m, "P(Campfire=true | Storm=true, BusTourGroup=true)")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := a.Prob()
	fmt.Printf("%.2f\n", p)
	// Evidence: the probability of an observation.
	a, _ = pbl.Ask(m, "P(Campfire=true)")
	p, _ = a.Prob()
	fmt.Printf("%.3f\n", p)
	// Output:
	// 0.40
	// 0.425
}

// A table answer lists its rows by state names, given configurations
// first.
func ExampleAnswer_Rows() {
	m, _ := pbl.Load("campfire.pbl", []byte(campfire))
	a, _ := pbl.Ask(m, "P(Campfire | Storm)")
	for _, r := range a.Rows() {
		fmt.Printf("P(%v | %v) = %.3f\n", r.States[0], r.Given[0], r.P)
	}
	// Output:
	// P(Campfire=true | Storm=true) = 0.250
	// P(Campfire=false | Storm=true) = 0.750
	// P(Campfire=true | Storm=false) = 0.500
	// P(Campfire=false | Storm=false) = 0.500
}

// Prob picks one row of a table by naming its states, in any order. A
// state the table does not hold is an error of kind ErrNotInAnswer.
func ExampleAnswer_Prob() {
	m, _ := pbl.Load("campfire.pbl", []byte(campfire))
	a, _ := pbl.Ask(m, "P(Campfire | Storm)")
	p, err := a.Prob("Storm=false", "Campfire=true")
	fmt.Printf("%.2f %v\n", p, err)
	_, err = a.Prob("Campfire=maybe", "Storm=false")
	fmt.Println(errors.Is(err, pbl.ErrNotInAnswer), err)
	// Output:
	// 0.50 <nil>
	// true not in the answer: Campfire has no state "maybe" (states bool)
}

// MPE and MAP answers name the most probable states.
func ExampleAnswer_Assignment() {
	m, _ := pbl.Load("campfire.pbl", []byte(campfire))
	a, _ := pbl.Ask(m, "MPE(Campfire=true)")
	p, _ := a.Prob()
	fmt.Println(a.Assignment(), fmt.Sprintf("%.2f", p))
	a, _ = pbl.Ask(m, "MAP(Storm | Campfire=true)")
	fmt.Println(a.Assignment())
	// Output:
	// [Storm=false BusTourGroup=true] 0.66
	// [Storm=false]
}

// P(* | e) gives every unobserved variable's posterior.
func ExampleAnswer_Marginals() {
	m, _ := pbl.Load("campfire.pbl", []byte(campfire))
	a, _ := pbl.Ask(m, "P(* | Campfire=true)")
	for _, mg := range a.Marginals() {
		fmt.Printf("%s: %s %.3f, %s %.3f\n", mg.Var, mg.States[0], mg.P[0], mg.States[1], mg.P[1])
	}
	// Output:
	// Storm: true 0.176, false 0.824
	// BusTourGroup: true 0.800, false 0.200
}

// LearnCSV learns a model's numbers from a CSV file whose header names
// its variables; the model file may give the structure alone.
func ExampleLearnCSV() {
	dir, _ := os.MkdirTemp("", "pbl")
	defer os.RemoveAll(dir)
	csv := filepath.Join(dir, "days.csv")
	os.WriteFile(csv, []byte("Storm,Campfire\ntrue,false\ntrue,false\ntrue,true\nfalse,true\n"), 0o644)

	m, _ := pbl.Load("days.pbl", []byte("var Storm, Campfire: bool\nStorm -> Campfire\n"))
	m, err := pbl.LearnCSV(m, csv, "mle")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := pbl.Ask(m, "P(Campfire=true | Storm=true)")
	p, _ := a.Prob()
	fmt.Printf("%.4f\n", p)
	// Output: 0.3333
}

// Write writes a model in any format pbl writes, chosen by a file
// extension.
func ExampleWrite() {
	m, _ := pbl.Load("rain.pbl", []byte("var Rain: bool\nP(Rain) = 0.2\n"))
	if err := pbl.Write(os.Stdout, m, ".bif"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// network unknown {
	// }
	// variable Rain {
	//   type discrete [ 2 ] { true, false };
	// }
	// probability ( Rain ) {
	//   table 0.2, 0.8;
	// }
}

// An answer about hypotheses given data lists them by their components'
// names: here the states of H given one positive test, Mitchell §6.2.1
// (P(cancer | +) = .008·.98 / (.008·.98 + .992·.03) ≈ .21).
func ExampleAnswer_Hypotheses() {
	m, _ := pbl.Load("cancer.pbl", []byte(`
var H: {cancer, no_cancer}
var Test: {"+", "-"}
P(H) = [0.008, 0.992]
P(Test | H) = { cancer: [0.98, 0.02]  no_cancer: [0.03, 0.97] }
data D = {
    Test
    "+"
}
`))
	a, err := pbl.Ask(m, "P(H | D)")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range a.Hypotheses() {
		fmt.Printf("%s=%v: P(h) %.3f, P(D|h) %.2f, P(h|D) %.4f\n", a.HypothesisNames()[0], h.Values[0], h.Prior, h.Likelihood, h.P)
	}
	a, _ = pbl.Ask(m, "MAP(H | D)")
	fmt.Println(a.Hypotheses()[0].Values)
	// Output:
	// H=no_cancer: P(h) 0.992, P(D|h) 0.03, P(h|D) 0.7915
	// H=cancer: P(h) 0.008, P(D|h) 0.98, P(h|D) 0.2085
	// [no_cancer]
}
