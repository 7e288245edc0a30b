package ir_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestExtend: declarations lowered onto a built model extend a copy of it
// (the model itself is unchanged), are checked against what it declares,
// and the statements of the extension are lowered against the result.
func TestExtend(t *testing.T) {
	base := lower(t, `var A: {a1, a2}
var B: bool
A -> B
P(A) = [0.3, 0.7]
naive_bayes C given F
`)
	snapshot := func(m *ir.Model) string {
		var b strings.Builder
		for v, x := range m.Vars {
			b.WriteString(x.Name + strings.Join(x.States, ",") + " ")
			if f := m.Factor(ir.VarID(v)); f != nil {
				b.WriteString("table ")
			}
		}
		return b.String()
	}
	before := snapshot(base)
	for _, tc := range []struct {
		name, src string
		err       string // a regexp, or "" for none
		check     func(t *testing.T, m *ir.Model)
	}{
		{name: "a table for a variable of the structure", src: "P(B | A) = { a1: 0.1  a2: 0.9 }\nquery P(B | A=a1)\n",
			check: func(t *testing.T, m *ir.Model) {
				b, _ := m.Lookup("B")
				if m.Factor(b.ID) == nil || len(m.Stmts) != 1 {
					t.Errorf("B's table %v, statements %v", m.Factor(b.ID), m.Stmts)
				}
			}},
		{name: "a new variable, its edge and table", src: "var D: bool\nB -> D\nP(D | B) = { true: 0.5  false: 0.5 }\n",
			check: func(t *testing.T, m *ir.Model) {
				d, _ := m.Lookup("D")
				b, _ := m.Lookup("B")
				if ps := m.Parents[d.ID]; len(ps) != 1 || ps[0] != b.ID || m.Factor(d.ID) == nil {
					t.Errorf("D's parents %v", ps)
				}
			}},
		{name: "another edge into a structure keeps the first", src: "var E: bool\nE -> B\n",
			check: func(t *testing.T, m *ir.Model) {
				b, _ := m.Lookup("B")
				if ps := m.Parents[b.ID]; len(ps) != 2 {
					t.Errorf("B's parents %v, want A and E", ps)
				}
			}},
		{name: "an inline table gives the classifier's open variables states", src: "data t = { C, F\n c1, f1\n c2, f2 }\n",
			check: func(t *testing.T, m *ir.Model) {
				f, _ := m.Lookup("F")
				if strings.Join(f.States, ",") != "f1,f2" {
					t.Errorf("F's states %v", f.States)
				}
			}},
		{name: "a second table", src: "P(A) = [0.5, 0.5]\n", err: `x.pbl:1:1: second distribution for "A" \(first at m.pbl:4:1\)`},
		{name: "a redeclared variable", src: "var A: bool\n", err: `x.pbl:1:5: "A" redeclared \(first declared at m.pbl:1:5\)`},
		{name: "a table without its declared parent", src: "P(B) = 0.5\n", err: `edge A -> B is declared, but P\(B \| ...\) does not list A`},
		{name: "a cycle", src: "var E: bool\nB -> E -> B\n", err: `cycle: `},
		{name: "a second classifier", src: "tan X given Y\n", err: `a second classifier declaration`},
		{name: "a query of an unknown state", src: "query P(B | A=a3)\n", err: `unknown state "a3" of "A"`},
	} {
		f, err := parser.Parse("x.pbl", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m, err := ir.Extend(base, ir.LowerOptions{}, f)
		switch {
		case tc.err != "" && (err == nil || !regexp.MustCompile(tc.err).MatchString(err.Error())):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "":
			tc.check(t, m)
		}
		if after := snapshot(base); after != before {
			t.Fatalf("%s: the base model changed: %s, was %s", tc.name, after, before)
		}
	}
}
