package ir_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestWithEvidence: session evidence is added to each query form, its
// canonical text says so, and conflicts are refused at the variable.
func TestWithEvidence(t *testing.T) {
	m := lower(t, "var A, B, C: bool\nvar D: {x, y}\nA -> B -> C\nA -> D\n")
	a, _ := m.Lookup("A")
	d, _ := m.Lookup("D")
	ev := []ir.Obs{{Var: a.ID, State: 0}, {Var: d.ID, State: 1}}
	for _, tc := range []struct{ query, text, err string }{
		{"P(B)", "P(B | A=true, D=y)", ""},
		{"P(B | C=false)", "P(B | C=false, A=true, D=y)", ""},
		{"P(B | C)", "P(B | C, A=true, D=y)", ""},
		{"P(B=true)", "P(B=true | A=true, D=y)", ""},
		{"P(B=true, C=false)", "P(B=true, C=false | A=true, D=y)", ""},
		{"P(* | C=true)", "P(* | C=true, A=true, D=y)", ""},
		{"P(*)", "P(* | A=true, D=y)", ""},
		{"MPE()", "MPE(A=true, D=y)", ""},
		{"MPE(C=true)", "MPE(C=true, A=true, D=y)", ""},
		{"MAP(B, C)", "MAP(B, C | A=true, D=y)", ""},
		{"indep(B, C)", "indep(B, C | A, D)", ""},
		{"indep(B, C | A)", "indep(B, C | A, D)", ""},
		{"P(B | A=true, D=y)", "P(B | A=true, D=y)", ""},
		{"P(A)", "", `1:3: "?A"? is observed as A=true in this session \(:unobserve A first\)`},
		{"P(B | D)", "", `1:7: "?D"? is observed as D=y`},
		{"P(B | A=false)", "", `1:7: A is given A=false here but observed as A=true`},
		{"P(A=true)", "", `1:3: A is observed`},
		{"MAP(D | B=true)", "", `1:5: D is observed`},
		{"indep(A, C)", "", `1:7: A is observed`},
	} {
		g, err := parser.ParseQuery("q", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ir.LowerQuery(m, g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ir.WithEvidence(m, q, ev)
		if tc.err != "" {
			if err == nil || !matches(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.query, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if got.Head().Text != tc.text {
			t.Errorf("%s: text %q, want %q", tc.query, got.Head().Text, tc.text)
		}
		// The query lowered from its new text is the same query.
		g2, err := parser.ParseQuery("q", got.Head().Text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ir.LowerQuery(m, g2)
		if err != nil {
			t.Fatalf("%s: %v", got.Head().Text, err)
		}
		if shape(got) != shape(want) {
			t.Errorf("%s: %s, want %s", tc.query, shape(got), shape(want))
		}
		if q.Head().Text != tc.query && !strings.HasPrefix(tc.query, "P(B | A=true") {
			t.Errorf("%s: the query was changed to %q", tc.query, q.Head().Text)
		}
	}
}

// shape is what TestWithEvidence compares of a query and the query lowered
// from its text: its kind, its form, and how many variables each part
// names.
func shape(q ir.Query) string {
	c := q.Conds()
	if c == nil {
		c = &ir.Conditions{}
	}
	s := fmt.Sprintf("%T evidence %d free %d", q, len(c.Evidence), len(c.Free))
	switch q := q.(type) {
	case *ir.ProbQuery:
		s += fmt.Sprintf(" targets %d star %t", len(q.Targets), q.Star)
		if len(q.TargetStates) > 0 {
			s += fmt.Sprintf(" states given %t", q.TargetStates[0] >= 0)
		}
	case *ir.MAPQuery:
		s += fmt.Sprintf(" targets %d", len(q.Targets))
	case *ir.IndepQuery:
		s += fmt.Sprintf(" C %d", len(q.C))
	}
	return s
}

func matches(s, pattern string) bool {
	ok, _ := regexp.MatchString(pattern, s)
	return ok
}

// TestWithRealEvidence: a session's values of real variables are added to
// each query form, and conflicts are refused at the variable.
func TestWithRealEvidence(t *testing.T) {
	m := lower(t, "var C: {a, b}\nvar x, y: real\nP(C) = [0.5, 0.5]\nP(x | C) = { a: normal(0, 1)  b: normal(1, 1) }\nP(y | C) = { a: normal(0, 1)  b: normal(1, 1) }\n")
	x, _ := m.Lookup("x")
	ev := []ir.RealObs{{Var: x.ID, Value: 1.5}}
	for _, tc := range []struct{ query, text, err string }{
		{"P(C)", "P(C | x=1.5)", ""},
		{"P(C | y=2)", "P(C | y=2, x=1.5)", ""},
		{"P(C=a)", "P(C=a | x=1.5)", ""},
		{"MPE()", "MPE(x=1.5)", ""},
		{"MAP(C | y=0)", "MAP(C | y=0, x=1.5)", ""},
		{"density(y=1)", "density(y=1 | x=1.5)", ""},
		{"P(C | x=1.5)", "P(C | x=1.5)", ""},
		{"P(C | x=2)", "", `1:7: x is given x=2 here but observed as x=1.5`},
		{"density(x=1)", "", `1:9: x is observed as x=1.5 in this session`},
	} {
		g, err := parser.ParseQuery("q", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ir.LowerQuery(m, g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ir.WithRealEvidence(m, q, ev)
		if tc.err != "" {
			if err == nil || !matches(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.query, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if got.Head().Text != tc.text || len(got.Conds().Real) == 0 {
			t.Errorf("%s: text %q (real %v), want %q", tc.query, got.Head().Text, got.Conds().Real, tc.text)
		}
	}
}
