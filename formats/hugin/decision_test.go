package hugin_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/hugin"
	"github.com/pbl-lang/pbl/formats/internal/decisiontest"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// TestReadInfluenceDiagram reads the oil wildcatter written by hand in
// HUGIN's NET language (testdata/oil.net, which cites the syntax it
// follows): its decisions, their information, its utilities in the order
// of their nodes, and the textbook's answers (package decisiontest).
func TestReadInfluenceDiagram(t *testing.T) {
	m, err := hugin.ReadFile("testdata/oil.net")
	if err != nil {
		t.Fatal(err)
	}
	var decisions []string
	for _, d := range m.Decisions() {
		decisions = append(decisions, m.Vars[d].Name)
	}
	if !slices.Equal(decisions, []string{"Drill", "Test"}) {
		t.Errorf("decisions %v, want [Drill Test]", decisions)
	}
	drill, _ := m.Lookup("Drill")
	var info []string
	for _, p := range m.Parents[drill.ID] {
		info = append(info, m.Vars[p].Name)
	}
	if !slices.Equal(info, []string{"Result", "Test"}) {
		t.Errorf("Drill is taken knowing %v, want [Result Test]", info)
	}
	if len(m.Utilities) != 2 || m.Utilities[0].Name != "TestCost" || m.Utilities[1].Name != "Payoff" {
		t.Fatalf("utilities %+v", m.Utilities)
	}
	if got := m.Utilities[1].Values; !slices.Equal(got, []float64{-70, 0, 50, 0, 200, 0}) {
		t.Errorf("Payoff(Oil, Drill) = %v", got)
	}
	decisiontest.Oil(t, m)
}

// TestDecisionRoundTrip: the examples' influence diagrams written as NET
// read back with the same decisions, information, utilities (bit for
// bit) and answers, the textbook's; and .pbl → .net → .pbl too.
func TestDecisionRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(*testing.T, *ir.Model)
	}{
		{"../../examples/oil.pbl", decisiontest.Oil},
		{"../../examples/treat.pbl", decisiontest.Treat},
		{"testdata/oil.net", decisiontest.Oil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := pbl.LoadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var net bytes.Buffer
			if err := hugin.Write(&net, m); err != nil {
				t.Fatal(err)
			}
			back, err := hugin.Read("back.net", net.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, net.String())
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

// TestWriteKeywordNames: a decision or utility named as a NET keyword
// (decision node would read "node" as the keyword) is refused by Write,
// which writes nothing; a chance node so named is written and read back.
func TestWriteKeywordNames(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"decision node: bool\nvar A: bool\nP(A) = 0.5\nutility U(A) = { true: 1  false: 0 }\n", `cannot write the decision "node"`},
		{"var A: bool\nP(A) = 0.5\nutility utility(A) = { true: 1  false: 0 }\n", `cannot write the utility "utility"`},
	} {
		m, err := pbl.Load("k.pbl", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := hugin.Write(&out, m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write = %v, want %s", err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("wrote %d bytes", out.Len())
		}
	}
	m, err := pbl.Load("k.pbl", []byte("var node: bool\nP(node) = 0.5\ndecision D: bool\nnode -> D\nutility U(D, node) = { true, true: 1  true, false: 0  false, true: 2  false, false: 3 }\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := hugin.Write(&out, m); err != nil {
		t.Fatal(err)
	}
	back, err := hugin.Read("k.net", out.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	sameDiagram(t, m, back)
}
