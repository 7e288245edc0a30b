package ir_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestInfoQueries checks the lowering of entropy(...) and MI(...): the
// targets, the groups of MI and the evidence, and each refusal at its
// column.
func TestInfoQueries(t *testing.T) {
	m := lowerSrc(t, `var A, B, C: bool
var x: real
A -> B
P(A) = 0.5
P(B | A) = { true: 0.9  false: 0.2 }
P(C) = 0.3
P(x | A) = { true: normal(0, 1)  false: normal(2, 1) }
`)
	ok := []struct {
		query        string
		mi           bool // MI, not entropy
		targets, a   []ir.VarID
		b            []ir.VarID
		evidence, re int
	}{
		{"entropy(A)", false, []ir.VarID{0}, nil, nil, 0, 0},
		{"entropy(A, B | C=true, x=1.5)", false, []ir.VarID{0, 1}, nil, nil, 1, 1},
		{"entropy({B, A})", false, []ir.VarID{1, 0}, nil, nil, 0, 0},
		{"MI(A, B | C=false)", true, []ir.VarID{0, 1}, []ir.VarID{0}, []ir.VarID{1}, 1, 0},
		{"MI({A, C}, B)", true, []ir.VarID{0, 2, 1}, []ir.VarID{0, 2}, []ir.VarID{1}, 0, 0},
	}
	for _, tc := range ok {
		g, err := parser.ParseQuery("q", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ir.LowerQuery(m, g)
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		var targets, a, b []ir.VarID
		mi := false
		switch q := q.(type) {
		case *ir.EntropyQuery:
			targets = q.Vars
		case *ir.MIQuery:
			targets, a, b, mi = slices.Concat(q.A, q.B), q.A, q.B, true
		}
		c := q.Conds()
		if mi != tc.mi || !slices.Equal(targets, tc.targets) || !slices.Equal(a, tc.a) || !slices.Equal(b, tc.b) ||
			len(c.Evidence) != tc.evidence || len(c.Real) != tc.re || q.Head().Text != tc.query {
			t.Errorf("%s: got %T targets %v A %v B %v evidence %v real %v text %q", tc.query, q, targets, a, b, c.Evidence, c.Real, q.Head().Text)
		}
	}
	bad := []struct {
		query string
		col   int // of the first error
	}{
		{"entropy()", 1},
		{"entropy(x)", 9},
		{"entropy(A=true)", 11},
		{"entropy(*)", 9},
		{"entropy(A | A=true)", 13},
		{"entropy(A, A)", 12},
		{"entropy(A | B)", 13},
		{"entropy(Nope)", 9},
		{"MI(A)", 1},
		{"MI(A, B, C)", 1},
		{"MI(A, A)", 7},
		{"MI({A, B}, {C, B})", 16},
		{"MI(A, x | B=true)", 7},
		{"MI(A, B | {C})", 11},
	}
	for _, tc := range bad {
		g, err := parser.ParseQuery("q", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ir.LowerQuery(m, g)
		var list ir.ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("%s: got %v, want an error list", tc.query, err)
			continue
		}
		if list[0].Pos.Col != tc.col {
			t.Errorf("%s: first error at column %d, want %d: %v", tc.query, list[0].Pos.Col, tc.col, err)
		}
	}
}
