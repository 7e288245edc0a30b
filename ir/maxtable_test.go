package ir_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestLowerMaxTable: LowerOptions.MaxTable refuses a distribution whose
// table has more entries, written out or compact, at the distribution,
// and lets one of as many entries through; 0 leaves MaxTableSize/4.
func TestLowerMaxTable(t *testing.T) {
	const vars = "var A, B, C: bool\nvar D: {x, y, z}\n"
	tests := []struct {
		name, dist string
		max        int
		ok         bool
	}{
		{"written, at the limit", "P(C | A, B) = { true, true: 0.1  true, false: 0.2  false, true: 0.3  false, false: 0.4 }", 8, true},
		{"written, over", "P(C | A, B) = { true, true: 0.1  true, false: 0.2  false, true: 0.3  false, false: 0.4 }", 7, false},
		{"noisy-OR, over", "P(C | A, B) = noisy_or(A: 0.5, B: 0.5)", 4, false},
		{"formula, over", "P(C | A, B) = A and B", 7, false},
		{"lookup, over", "P(D | A, B) = lookup { else: x }", 11, false},
		{"lookup, at the limit", "P(D | A, B) = lookup { else: x }", 12, true},
		{"no limit", "P(D | A, B) = lookup { else: x }", 0, true},
	}
	for _, tt := range tests {
		f, err := parser.Parse("test.pbl", []byte(vars+tt.dist+"\n"))
		if err != nil {
			t.Fatalf("%s: parse: %v", tt.name, err)
		}
		_, err = ir.LowerWith(ir.LowerOptions{MaxTable: tt.max}, f)
		var list ir.ErrorList
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v, want no error", tt.name, err)
		case !tt.ok && (!errors.As(err, &list) || len(list) != 1 || list[0].Pos.Line != 3):
			t.Errorf("%s: %v, want one error, at the distribution (line 3)", tt.name, err)
		}
	}
}
