package causal_test

import (
	"errors"
	"fmt"

	"github.com/pbl-lang/pbl/causal"
)

// The front-door example of smoking (X), tar (M) and cancer (Y) with an
// unobserved genotype confounding smoking and cancer, and the bow arc.
func Example() {
	g, err := causal.Build([]string{"X", "M", "Y"},
		[]causal.Edge{{From: "X", To: "M"}, {From: "M", To: "Y"}},
		[]causal.Edge{{From: "X", To: "Y"}})
	if err != nil {
		panic(err)
	}
	est, err := g.Identify(causal.Query{Y: []string{"Y"}, X: []string{"X"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(est.Method+":", est)

	bow, _ := causal.Build([]string{"X", "Y"}, []causal.Edge{{From: "X", To: "Y"}}, []causal.Edge{{From: "X", To: "Y"}})
	_, err = bow.Identify(causal.Query{Y: []string{"Y"}, X: []string{"X"}})
	fmt.Println(errors.Is(err, causal.ErrNotIdentifiable), err)

	napkin, _ := causal.Build([]string{"W1", "W2", "X", "Y"},
		[]causal.Edge{{From: "W1", To: "W2"}, {From: "W2", To: "X"}, {From: "X", To: "Y"}},
		[]causal.Edge{{From: "W1", To: "X"}, {From: "W1", To: "Y"}})
	est, _ = napkin.Identify(causal.Query{Y: []string{"Y"}, X: []string{"X"}})
	fmt.Println(est.Method+":", est)
	// Output:
	// front-door: Σ_{M} P(M | X) [Σ_{X'} P(Y | X', M) P(X')]
	// true P(Y | do(X)) is not identifiable: hedge F = {X, Y}, F' = {Y}
	// ID: [Σ_{W1} P(W1) P(X | W1, W2) P(Y | W1, W2, X)] / [Σ_{W1} P(W1) P(X | W1, W2)], for any W2
}
