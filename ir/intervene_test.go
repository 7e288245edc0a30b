package ir_test

import (
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestInterventionLowering: do(X=x) and X~[...] lower into Do and Soft,
// their canonical text reads back as the same query, and a session's
// evidence combines with them (or conflicts, at the variable).
func TestInterventionLowering(t *testing.T) {
	m := lower(t, "var A, B, C: bool\nvar D: {x, y, z}\nA -> B -> C\nA -> D\n")
	a, _ := m.Lookup("A")
	b, _ := m.Lookup("B")
	d, _ := m.Lookup("D")
	for _, tc := range []struct {
		query, text string
		do          []ir.Obs
		soft        []ir.SoftObs
		evidence    bool // P(e), the probability of evidence (P(...) only)
	}{
		{"P(C|do(B=true))", "P(C | do(B=true))", []ir.Obs{{Var: b.ID, State: 0}}, nil, false},
		{"P(C | do(B = false), D~[1, 0.5, 2e-1], A=true)", "P(C | do(B=false), D~[1, 0.5, 2e-1], A=true)",
			[]ir.Obs{{Var: b.ID, State: 1}}, []ir.SoftObs{{Var: d.ID, Lambda: []float64{1, 0.5, 0.2}}}, false},
		{"P(C=true, do(A=true))", "P(C=true, do(A=true))", []ir.Obs{{Var: a.ID, State: 0}}, nil, true},
		{"P(D~[0, 1, 0])", "P(D~[0, 1, 0])", nil, []ir.SoftObs{{Var: d.ID, Lambda: []float64{0, 1, 0}}}, true},
		{"P(C | B=true, do(B=true))", "P(C | B=true, do(B=true))", []ir.Obs{{Var: b.ID, State: 0}}, nil, false},
		{"MPE(do(A=false), D~[1, 1, 3])", "MPE(do(A=false), D~[1, 1, 3])", []ir.Obs{{Var: a.ID, State: 1}}, []ir.SoftObs{{Var: d.ID, Lambda: []float64{1, 1, 3}}}, false},
		{"P(C | \"do\"=true)", "", nil, nil, false}, // no variable named do: an error below
	} {
		g, err := parser.ParseQuery("q", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ir.LowerQuery(m, g)
		if tc.text == "" {
			if err == nil {
				t.Errorf("%s: no error", tc.query)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		c := q.Conds()
		if q.Head().Text != tc.text {
			t.Errorf("%s: text %q, want %q", tc.query, q.Head().Text, tc.text)
		}
		if !slices.Equal(c.Do, tc.do) || len(c.Soft) != len(tc.soft) {
			t.Errorf("%s: do %v, soft %v; want %v, %v", tc.query, c.Do, c.Soft, tc.do, tc.soft)
		}
		for i, s := range tc.soft {
			if c.Soft[i].Var != s.Var || !slices.Equal(c.Soft[i].Lambda, s.Lambda) {
				t.Errorf("%s: soft %v, want %v", tc.query, c.Soft, tc.soft)
			}
		}
		if p, ok := q.(*ir.ProbQuery); ok && (len(p.Targets) == 0) != tc.evidence {
			t.Errorf("%s: targets %v: the probability of evidence is %t", tc.query, p.Targets, tc.evidence)
		}
		g2, err := parser.ParseQuery("q", q.Head().Text)
		if err != nil {
			t.Fatal(err)
		}
		if q2, err := ir.LowerQuery(m, g2); err != nil || q2.Head().Text != q.Head().Text || !slices.Equal(q2.Conds().Do, c.Do) || len(q2.Conds().Soft) != len(c.Soft) {
			t.Errorf("%s: read back as %+v, %v", q.Head().Text, q2, err)
		}
	}

	// A session's evidence.
	for _, tc := range []struct{ query, text, err string }{
		{"P(C | do(B=true))", "P(C | do(B=true), A=true)", ""},
		{"P(C | do(A=true))", "P(C | do(A=true))", ""},
		{"P(C | do(A=false))", "", `1:10: A is set to false by do\(\.\.\.\) here but observed as A=true`},
		{"P(C | A~[0.5, 1])", "", `1:7: A is observed as A=true in this session`},
	} {
		g, err := parser.ParseQuery("q", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ir.LowerQuery(m, g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ir.WithEvidence(m, q, []ir.Obs{{Var: a.ID, State: 0}})
		switch {
		case tc.err != "":
			if err == nil || !matches(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.query, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.query, err)
		case got.Head().Text != tc.text:
			t.Errorf("%s: text %q, want %q", tc.query, got.Head().Text, tc.text)
		}
	}
}

// TestWithDo: the surgery gives the variable a point mass and no parents,
// keeps its children's tables, and leaves the model as it was.
func TestWithDo(t *testing.T) {
	m := lower(t, "var A, B, C: bool\nA -> B -> C\nP(A) = 0.3\nP(B | A) = { true: 0.9  false: 0.2 }\nP(C | B) = { true: 0.7  false: 0.1 }\n")
	b, _ := m.Lookup("B")
	m2, err := m.WithDo([]ir.Obs{{Var: b.ID, State: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Parents[b.ID]) != 0 || !slices.Equal(m2.Factor(b.ID).Vals, []float64{0, 1}) {
		t.Errorf("B after do(B=false): parents %v, table %v", m2.Parents[b.ID], m2.Factor(b.ID).Vals)
	}
	c, _ := m.Lookup("C")
	if m2.Factor(c.ID) != m.Factor(c.ID) || len(m.Parents[b.ID]) != 1 || len(m.Factor(b.ID).Vals) != 4 {
		t.Error("the surgery changed more than B, or changed the model")
	}
}
