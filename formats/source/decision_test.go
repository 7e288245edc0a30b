package source_test

import (
	"testing"

	"github.com/pbl-lang/pbl"
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
