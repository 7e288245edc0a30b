package pbl_test

import (
	"errors"
	"math"
	"testing"

	"github.com/pbl-lang/pbl"
)

// sureStorm has P(Storm) = 1, so P(Campfire | Storm) leaves out the rows
// given Storm=false.
const sureStorm = `
var Storm, Campfire: bool
Storm -> Campfire
P(Storm) = 1
P(Campfire | Storm) = { true: 0.25  false: 0.5 }
`

func TestAnswerProb(t *testing.T) {
	m, err := pbl.Load("sure.pbl", []byte(sureStorm))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query  string
		states []string
		want   float64 // -1: an ErrNotInAnswer
	}{
		{"P(Campfire | Storm)", []string{"Campfire=true", "Storm=true"}, 0.25},
		{"P(Campfire | Storm)", []string{" Storm = true ", "Campfire=false"}, 0.75},
		{"P(Campfire | Storm=true)", []string{"Campfire=false"}, 0.75},
		{"P(Campfire, Storm)", []string{"Storm=true", "Campfire=true"}, 0.25},
		{"P(Campfire=true)", nil, 0.25},
		{"P(Campfire=true, Storm=true)", nil, 0.25},
		{"MPE(Storm=true)", nil, 0.75},
		{"MAP(Campfire)", nil, 0.75},
		{"P(Campfire | Storm)", []string{"Campfire=true", "Storm=false"}, -1}, // impossible given row: omitted
		{"P(Campfire | Storm)", []string{"Campfire=true"}, -1},                // Storm not named
		{"P(Campfire | Storm)", nil, -1},                                      // a table needs states
		{"P(Campfire | Storm)", []string{"Campfire=true", "Campfire=false"}, -1},
		{"P(Campfire | Storm)", []string{"Campfire=true", "Storm=true", "Rain=true"}, -1},
		{"P(Campfire | Storm)", []string{"Campfire", "Storm=true"}, -1},
		{"P(Campfire=true)", []string{"Campfire=true"}, -1}, // one number: no states
		{"indep(Campfire, Storm)", nil, -1},
		{"P(* | Storm=true)", nil, -1},
	}
	for _, tt := range tests {
		a, err := pbl.Ask(m, tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		got, err := a.Prob(tt.states...)
		if tt.want < 0 {
			if !errors.Is(err, pbl.ErrNotInAnswer) {
				t.Errorf("%s Prob(%q) = %v, %v; want an ErrNotInAnswer", tt.query, tt.states, got, err)
			}
			continue
		}
		if err != nil || !(math.Abs(got-tt.want) <= 1e-12) {
			t.Errorf("%s Prob(%q) = %v, %v; want %v", tt.query, tt.states, got, err, tt.want)
		}
	}
}

// Each accessor answers its own form and gives nil for the others.
func TestAnswerForms(t *testing.T) {
	m, err := pbl.Load("sure.pbl", []byte(sureStorm))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query                  string
		rows, assign, marginal int
	}{
		{"P(Campfire | Storm)", 2, 0, 0}, // the Storm=false rows are left out
		{"P(Campfire, Storm)", 4, 0, 0},
		{"P(Campfire=true)", 0, 0, 0},
		{"MPE()", 0, 2, 0},
		{"MAP(Campfire | Storm=true)", 0, 1, 0},
		{"P(* | Storm=true)", 0, 0, 1},
	}
	for _, tt := range tests {
		a, err := pbl.Ask(m, tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if got := []int{len(a.Rows()), len(a.Assignment()), len(a.Marginals())}; got[0] != tt.rows || got[1] != tt.assign || got[2] != tt.marginal {
			t.Errorf("%s: %d rows, %d assigned, %d marginals; want %d, %d, %d", tt.query, got[0], got[1], got[2], tt.rows, tt.assign, tt.marginal)
		}
	}
	a, _ := pbl.Ask(m, "MPE()")
	if got := a.Assignment(); got[0] != (pbl.State{Var: "Storm", Value: "true"}) || got[1].String() != "Campfire=false" {
		t.Errorf("MPE() = %v", got)
	}
	a, _ = pbl.Ask(m, "P(* | Storm=true)")
	if mg := a.Marginals()[0]; mg.Var != "Campfire" || len(mg.States) != 2 || !(math.Abs(mg.P[0]-0.25) <= 1e-12) {
		t.Errorf("P(* | Storm=true) = %+v", mg)
	}
	if _, err := pbl.Ask(m, "P(Rain)"); err == nil {
		t.Error("Ask of an unknown variable: no error")
	}
}
