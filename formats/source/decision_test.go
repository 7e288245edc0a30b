package source_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/formats/internal/decisiontest"
	"github.com/pbl-lang/pbl/ir"
)

// TestWriteDecisions: influence diagrams are written with their decisions
// (`decision D: ...`, their information as edges) and utility tables, and
// read back with the same answers, which are the textbook's (package
// decisiontest): before, Write wrote decisions as chance variables and
// dropped the utilities.
func TestWriteDecisions(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(*testing.T, *ir.Model)
		wants []string
	}{
		{"../../examples/oil.pbl", decisiontest.Oil, []string{
			"decision Test: {yes, no}\n",
			"decision Drill: {yes, no}\n",
			"Test, Result -> Drill\n",
			"utility TestCost(Test) = {\n    yes: -10\n    no:  0\n}\n",
			"utility Payoff(Drill, Oil) = {\n    yes, dry:     -70\n",
		}},
		{"../../examples/treat.pbl", decisiontest.Treat, []string{
			"var Disease: {present, absent}\nvar Test: {positive, negative}\ndecision Treat: {yes, no}\n",
			"Test -> Treat\n",
			"utility Cost(Treat, Disease) = {\n",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := pbl.LoadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			back, text := writeRead(t, m, "")
			wantText(t, text, tc.wants...)
			if d := sameModel(m, back); d != "" {
				t.Errorf("%s\n%s", d, text)
			}
			if len(back.Decisions()) != len(m.Decisions()) || len(back.Utilities) != len(m.Utilities) {
				t.Errorf("read back %d decisions and %d utilities, want %d and %d\n%s", len(back.Decisions()), len(back.Utilities), len(m.Decisions()), len(m.Utilities), text)
			}
			tc.check(t, back)
		})
	}
}

// TestWriteDecisionNames: decisions break the runs of variables that share
// a declaration, names that need quotes are quoted (a decision's, a
// utility's, a state's), and the text, in pbl fmt's layout, reads back to
// the same decisions, information and utilities bit for bit.
func TestWriteDecisionNames(t *testing.T) {
	m, back, text := writeBack(t, `var A, B: bool
decision "my choice": bool
var C: bool
decision E: {go, "stay here"}
A -> "my choice"
"my choice", C -> E
P(A) = 0.5
P(B | A) = { true: 0.3  false: 0.6 }
P(C | "my choice") = { true: 0.9  false: 0.2 }
utility "the cost"(E, "my choice") = {
    go, true: 1.5  go, false: -2
    "stay here", true: 0  "stay here", false: 1e-3
}
utility U(B) = { true: 3  false: -3 }
`)
	wantText(t, text,
		"var A, B: bool\ndecision \"my choice\": bool\nvar C: bool\ndecision E: {go, \"stay here\"}\n",
		"A -> \"my choice\"\n\"my choice\", C -> E\n",
		"utility \"the cost\"(E, \"my choice\") = {\n    go,          true:  1.5\n",
		"    \"stay here\", false: 0.001\n",
		"utility U(B) = {\n    true:  3\n    false: -3\n}\n")
	if out, err := format.Source("w.pbl", []byte(text)); err != nil || !bytes.Equal(out, []byte(text)) {
		t.Errorf("the text is not in pbl fmt's layout (%v):\n%s", err, out)
	}
	for i, v := range m.Vars {
		if back.Vars[i].Decision != v.Decision || !slices.Equal(back.Parents[i], m.Parents[i]) {
			t.Errorf("%s: decision %v, parents %v; want %v, %v", v.Name, back.Vars[i].Decision, back.Parents[i], v.Decision, m.Parents[i])
		}
	}
	if len(back.Utilities) != len(m.Utilities) {
		t.Fatalf("%d utilities, want %d", len(back.Utilities), len(m.Utilities))
	}
	for i, u := range m.Utilities {
		if b := back.Utilities[i]; b.Name != u.Name || !slices.Equal(b.Parents, u.Parents) || !slices.Equal(b.Values, u.Values) {
			t.Errorf("utility %+v, want %+v", b, u)
		}
	}
}
