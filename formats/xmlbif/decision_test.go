package xmlbif_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/internal/decisiontest"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/formats/xmlbif"
	"github.com/pbl-lang/pbl/ir"
)

// TestReadInfluenceDiagram reads the oil wildcatter written by hand in
// aGrUM's influence-diagram dialect (testdata/oil.xml, which cites what it
// follows): decisions, their information, utilities in the order of their
// VARIABLEs, and the textbook's answers (package decisiontest).
func TestReadInfluenceDiagram(t *testing.T) {
	m, err := xmlbif.ReadFile("testdata/oil.xml")
	if err != nil {
		t.Fatal(err)
	}
	var decisions []string
	for _, d := range m.Decisions() {
		decisions = append(decisions, m.Vars[d].Name)
	}
	if !slices.Equal(decisions, []string{"Test", "Drill"}) {
		t.Errorf("decisions %v, want [Test Drill]", decisions)
	}
	test, _ := m.Lookup("Test")
	if len(m.Parents[test.ID]) != 0 {
		t.Errorf("Test is taken knowing %v, want nothing", m.Parents[test.ID])
	}
	if len(m.Utilities) != 2 || m.Utilities[0].Name != "TestCost" || m.Utilities[1].Name != "Payoff" {
		t.Fatalf("utilities %+v", m.Utilities)
	}
	if got := m.Utilities[1].Values; !slices.Equal(got, []float64{-70, 0, 50, 0, 200, 0}) {
		t.Errorf("Payoff(Oil, Drill) = %v", got)
	}
	decisiontest.Oil(t, m)
}

// TestDecisionRoundTrip: influence diagrams written as XMLBIF read back
// with the same decisions, information, utilities (bit for bit) and the
// textbook's answers; and .pbl → .xml → .pbl too.
func TestDecisionRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(*testing.T, *ir.Model)
	}{
		{"../../examples/oil.pbl", decisiontest.Oil},
		{"../../examples/treat.pbl", decisiontest.Treat},
		{"testdata/oil.xml", decisiontest.Oil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := pbl.LoadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var xml bytes.Buffer
			if err := xmlbif.Write(&xml, m); err != nil {
				t.Fatal(err)
			}
			back, err := xmlbif.Read("back.xml", xml.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, xml.String())
			}
			sameDiagram(t, m, back)
			tc.check(t, back)
			var src bytes.Buffer
			if err := source.Write(&src, back, ""); err != nil {
				t.Fatal(err)
			}
			again, err := pbl.Load("back.pbl", src.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, src.String())
			}
			sameDiagram(t, m, again)
			tc.check(t, again)
		})
	}
}

// sameDiagram checks that b has a's decisions, parents and utilities,
// the utilities bit for bit.
func sameDiagram(t *testing.T, a, b *ir.Model) {
	t.Helper()
	if len(a.Vars) != len(b.Vars) || len(a.Utilities) != len(b.Utilities) {
		t.Fatalf("%d variables and %d utilities, want %d and %d", len(b.Vars), len(b.Utilities), len(a.Vars), len(a.Utilities))
	}
	for i, v := range a.Vars {
		if w := b.Vars[i]; w.Name != v.Name || w.Decision != v.Decision || !slices.Equal(a.Parents[i], b.Parents[i]) {
			t.Errorf("variable %s (decision %v, parents %v), want %s (%v, %v)", w.Name, w.Decision, b.Parents[i], v.Name, v.Decision, a.Parents[i])
		}
	}
	for i, u := range a.Utilities {
		w := b.Utilities[i]
		if w.Name != u.Name || !slices.Equal(w.Parents, u.Parents) || len(w.Values) != len(u.Values) {
			t.Errorf("utility %s%v, want %s%v", w.Name, w.Parents, u.Name, u.Parents)
			continue
		}
		for j, x := range u.Values {
			if math.Float64bits(x) != math.Float64bits(w.Values[j]) {
				t.Errorf("utility %s: value %d is %v, want %v", u.Name, j, w.Values[j], x)
			}
		}
	}
}
