package pbl_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
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

// cancerTest is Mitchell §6.2.1 as a hypothesis space: the states of H
// given two positive tests.
const cancerTest = `
var H: {cancer, no_cancer}
var Test: {"+", "-"}
P(H) = [0.008, 0.992]
P(Test | H) = { cancer: [0.98, 0.02]  no_cancer: [0.03, 0.97] }
data D = {
    Test
    "+"
    "+"
}
space G {
    w in 0 .. 1 by 0.5
    y ~ normal(w * x, 1)
}
data E = {
    x, y
    1, 1
}
`

// TestAnswerHypotheses reads answers about hypotheses by name, against
// the posterior by hand: P(cancer | +, +) = .008·.98² / (.008·.98² +
// .992·.03²) ≈ .896 (two positive tests overturn the prior); on the grid w ∈ {0, .5, 1} with one point y = 1 at x = 1,
// P(D | w) ∝ exp(-(1 - w)²/2), uniform prior.
func TestAnswerHypotheses(t *testing.T) {
	m, err := pbl.Load("cancer.pbl", []byte(cancerTest))
	if err != nil {
		t.Fatal(err)
	}
	pc := 0.008 * 0.98 * 0.98 / (0.008*0.98*0.98 + 0.992*0.03*0.03)
	lik := func(w float64) float64 { return math.Exp(-(1-w)*(1-w)/2) / math.Sqrt(2*math.Pi) }
	z := lik(0) + lik(0.5) + lik(1)
	type hyp struct {
		values           []any
		prior, lik, post float64
	}
	tests := []struct {
		query string
		want  []hyp
	}{
		{"P(H | D)", []hyp{{[]any{"cancer"}, 0.008, 0.98 * 0.98, pc}, {[]any{"no_cancer"}, 0.992, 0.03 * 0.03, 1 - pc}}},
		{"MAP(H | D)", []hyp{{[]any{"cancer"}, 0.008, 0.98 * 0.98, pc}}},
		{"ML(H | D)", []hyp{{[]any{"cancer"}, 0.008, 0.98 * 0.98, pc}}},
		{"P(G | E)", []hyp{{[]any{1.0}, 1.0 / 3, lik(1), lik(1) / z}, {[]any{0.5}, 1.0 / 3, lik(0.5), lik(0.5) / z}, {[]any{0.0}, 1.0 / 3, lik(0), lik(0) / z}}},
	}
	for _, tt := range tests {
		a, err := pbl.Ask(m, tt.query)
		if err != nil {
			t.Errorf("%s: %v", tt.query, err)
			continue
		}
		got := a.Hypotheses()
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d hypotheses %+v, want %d", tt.query, len(got), got, len(tt.want))
			continue
		}
		names := a.HypothesisNames()
		for i, h := range got {
			w := tt.want[i]
			if len(h.Values) != len(w.values) || len(names) != len(w.values) {
				t.Errorf("%s: hypothesis %d: %v of %v, want %v", tt.query, i, h.Values, names, w.values)
				continue
			}
			for j := range w.values {
				if h.Values[j] != w.values[j] {
					t.Errorf("%s: hypothesis %d: %s = %v, want %v", tt.query, i, names[j], h.Values[j], w.values[j])
				}
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"prior", h.Prior, w.prior}, {"likelihood", h.Likelihood, w.lik}, {"posterior", h.P, w.post}, {"ln prior", h.LogPrior, math.Log(w.prior)}, {"ln likelihood", h.LogLikelihood, math.Log(w.lik)}} {
				if !(math.Abs(c.got-c.want) <= 1e-12*math.Max(1, math.Abs(c.want))) {
					t.Errorf("%s: hypothesis %d (%v): %s %v, want %v", tt.query, i, h.Values, c.what, c.got, c.want)
				}
			}
		}
		if _, err := a.Prob(); !errors.Is(err, pbl.ErrNotInAnswer) {
			t.Errorf("%s: Prob() = %v, want an ErrNotInAnswer", tt.query, err)
		}
	}
	// Any other answer has no hypotheses.
	a, err := pbl.Ask(m, "P(H)")
	if err != nil {
		t.Fatal(err)
	}
	if h, n := a.Hypotheses(), a.HypothesisNames(); h != nil || n != nil {
		t.Errorf("P(H): hypotheses %v %v, want none", n, h)
	}
}

// TestLearnCSVErrors: LearnCSV's errors name what is wrong, and where
// when there is a place: the method (no position of a model file: the
// error says it is LearnCSV's argument), the CSV file, a cell.
func TestLearnCSVErrors(t *testing.T) {
	m, err := pbl.Load("days.pbl", []byte("var Storm, Campfire: bool\nStorm -> Campfire\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("Storm,Campfire\ntrue,maybe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, method string
		want         string
		is           error
	}{
		{bad, "mlee", `pbl.LearnCSV: unknown learning method "mlee" (did you mean "mle"?)`, nil},
		{filepath.Join(dir, "none.csv"), "mle", "no such file", os.ErrNotExist},
		{bad, "mle", bad + `:2:6: unknown state "maybe" for Campfire`, nil},
	}
	for _, tt := range tests {
		_, err := pbl.LearnCSV(m, tt.path, tt.method)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LearnCSV(%s, %s) = %v, want %q", filepath.Base(tt.path), tt.method, err, tt.want)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("LearnCSV(%s, %s) = %v, not of kind %v", filepath.Base(tt.path), tt.method, err, tt.is)
		}
	}
}
