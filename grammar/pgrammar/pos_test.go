package pgrammar_test

import (
	"testing"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/grammar/pgrammar"
)

// TestPositionsFilled checks that participle fills the tree's positions
// (of pbl's own Position type) and tolerances, which the differential
// tests of package parser rely on.
func TestPositionsFilled(t *testing.T) {
	src := "var A: bool\n  expect P(A) == 0.5 within 1e-3\n"
	f, err := pgrammar.Parser().ParseString("x.pbl", src)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := f.Stmts[1].(*grammar.Expect)
	if !ok {
		t.Fatalf("second statement is %T", f.Stmts[1])
	}
	want := grammar.Position{Filename: "x.pbl", Offset: 14, Line: 2, Column: 3}
	if e.Pos != want {
		t.Errorf("expect at %v, want %v", e.Pos, want)
	}
	if e.Within == nil || e.Within.Value != "1e-3" || e.Within.Pos.Column != 29 {
		t.Errorf("within = %+v, want 1e-3 at column 29", e.Within)
	}
}

// TestLexError checks that a lexical error reaches participle's caller
// positioned.
func TestLexError(t *testing.T) {
	_, err := pgrammar.Parser().ParseString("x.pbl", "var A: bool\n @")
	if err == nil {
		t.Fatal("no error")
	}
	if got, want := err.Error(), "x.pbl:2:2: unexpected character '@'"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
