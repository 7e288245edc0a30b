package ir_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestLowerMaxEntries: LowerOptions.MaxEntries refuses the distribution
// whose table, written out or compact, would bring the tables' entries
// over it, at that distribution, and lets them reach it; 0 leaves only
// MaxTableSize/4.
func TestLowerMaxEntries(t *testing.T) {
	const vars = "var A, B, C: bool\nvar D: {x, y, z}\n"
	tests := []struct {
		name, dists string // from line 3
		max         int
		errLine     int // of the one error, or 0
	}{
		{"written, at the limit", "P(C | A, B) = { true, true: 0.1  true, false: 0.2  false, true: 0.3  false, false: 0.4 }", 8, 0},
		{"written, over", "P(C | A, B) = { true, true: 0.1  true, false: 0.2  false, true: 0.3  false, false: 0.4 }", 7, 3},
		{"noisy-OR, over", "P(C | A, B) = noisy_or(A: 0.5, B: 0.5)", 4, 3},
		{"formula, over", "P(C | A, B) = A and B", 7, 3},
		{"lookup, over", "P(D | A, B) = lookup { else: x }", 11, 3},
		{"lookup, at the limit", "P(D | A, B) = lookup { else: x }", 12, 0},
		{"together, at the limit", "P(D | A, B) = lookup { else: x }\nP(C | A) = A\nP(A) = 0.5\nP(B) = 0.5", 20, 0},
		{"together, over", "P(D | A, B) = lookup { else: x }\nP(C | A) = A\nP(A) = 0.5\nP(B) = 0.5", 19, 6},
		{"second over", "P(C | A, B) = A and B\nP(D | A, B) = lookup { else: x }", 19, 4},
		{"no limit", "P(D | A, B) = lookup { else: x }\nP(C | A, B) = A and B", 0, 0},
	}
	for _, tt := range tests {
		f, err := parser.Parse("test.pbl", []byte(vars+tt.dists+"\n"))
		if err != nil {
			t.Fatalf("%s: parse: %v", tt.name, err)
		}
		_, err = ir.LowerWith(ir.LowerOptions{MaxEntries: tt.max}, f)
		var list ir.ErrorList
		switch {
		case tt.errLine == 0 && err != nil:
			t.Errorf("%s: %v, want no error", tt.name, err)
		case tt.errLine != 0 && (!errors.As(err, &list) || len(list) != 1 || list[0].Pos.Line != tt.errLine):
			t.Errorf("%s: %v, want one error, on line %d", tt.name, err, tt.errLine)
		}
	}
}
