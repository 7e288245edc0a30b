// Package decisiontest checks the answers of influence diagrams read from
// the exchange formats against textbook numbers: the oil wildcatter
// (Raiffa 1968, with Shenoy's numbers, as in examples/oil.pbl) and the
// test-and-treat diagram of examples/treat.pbl, each worked by hand in the
// example's comments. It imports package pbl, so only the formats'
// external test packages (package hugin_test, ...) may import it.
package decisiontest

import (
	"math"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
)

// Number checks that query (MEU() or EU(...)) has the answer want on m,
// within 1e-9; NaN fails.
func Number(t *testing.T, m *ir.Model, query string, want float64) {
	t.Helper()
	a, err := pbl.Ask(m, query)
	if err != nil {
		t.Errorf("%s: %v", query, err)
		return
	}
	if a.Decision == nil {
		t.Errorf("%s: not an answer about decisions", query)
		return
	}
	if got := a.Decision.Value; !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("%s = %v, want %v", query, got, want)
	}
}

// Policy checks that policy(d) on m chooses want[k] for the configuration
// of d's information whose states, joined by ",", are k; configurations
// not in want are not checked.
func Policy(t *testing.T, m *ir.Model, d string, want map[string]string) {
	t.Helper()
	q := "policy(" + ir.Quote(d) + ")"
	a, err := pbl.Ask(m, q)
	if err != nil {
		t.Errorf("%s: %v", q, err)
		return
	}
	if a.Decision == nil || len(a.Decision.Policies) != 1 {
		t.Errorf("%s: not a policy", q)
		return
	}
	seen := 0
	for _, r := range a.Decision.Policies[0].Rows {
		k := ""
		for i, s := range r.Given {
			if i > 0 {
				k += ","
			}
			k += s
		}
		if w, ok := want[k]; ok {
			seen++
			if r.Choice != w {
				t.Errorf("%s at (%s) = %s, want %s", q, k, r.Choice, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%s: %d of the %d configurations checked are in the answer", q, seen, len(want))
	}
}

// Oil checks m, the oil wildcatter of examples/oil.pbl (chance variables
// Oil and Result, decisions Test and Drill, utilities of the test's cost
// and the drilling's payoff), against the textbook: MEU 22.5 (Raiffa;
// Shenoy 1992; Jensen and Nielsen), 20 without the test (drilling is
// worth .5·-70 + .3·50 + .2·200), 77.5 for drilling after a closed
// structure (21/.24 - 10), and the optimal policy: test, then drill unless
// the structure is diffuse.
func Oil(t *testing.T, m *ir.Model) {
	t.Helper()
	Number(t, m, "MEU()", 22.5)
	Number(t, m, "EU(Test=no)", 20)
	Number(t, m, "EU(Test=yes)", 22.5)
	Number(t, m, "EU(Drill=yes | Test=yes, Result=closed)", 77.5)
	Policy(t, m, "Test", map[string]string{"": "yes"})
	Policy(t, m, "Drill", map[string]string{"yes,closed": "yes", "yes,open": "yes", "yes,diffuse": "no"})
}

// Treat checks m, the test-and-treat diagram of examples/treat.pbl,
// against its numbers by hand: P(positive) = .27, P(present | positive)
// = 1/3, so treating after a positive test is worth 80/3 - 40/3 = 40/3;
// after a negative one not treating is worth -.01·100/.73; MEU = 2.6.
func Treat(t *testing.T, m *ir.Model) {
	t.Helper()
	Number(t, m, "MEU()", 2.6)
	Number(t, m, "EU(Treat=yes | Test=positive)", 40.0/3)
	Number(t, m, "EU(Treat=no | Test=negative)", -1/0.73)
	Policy(t, m, "Treat", map[string]string{"positive": "yes", "negative": "no"})
}
