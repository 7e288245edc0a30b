package ir_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/loc"
	"github.com/pbl-lang/pbl/parser"
)

// TestErrors checks the lowering and validation errors annotated in
// testdata/errors.pbl. Every chunk must parse; every error of a chunk must
// be expected, and every expectation met.
func TestErrors(t *testing.T) {
	const filename = "testdata/errors.pbl"
	chunkedfile.Check(t, filename, func(chunk *chunkedfile.Chunk) error {
		f, err := parser.Parse(filename, []byte(chunk.Source))
		if err != nil {
			t.Errorf("chunk at line %d does not parse: %v", chunk.Line, err)
			return nil
		}
		m, err := ir.Lower(f)
		if err == nil && m == nil {
			t.Errorf("chunk at line %d: Lower returned neither a model nor an error", chunk.Line)
		}
		if err != nil && m != nil {
			t.Errorf("chunk at line %d: Lower returned both a model and an error", chunk.Line)
		}
		return err
	})
}

// TestErrorAliases: ir's error types are package loc's, not copies, so a
// syntax error (a loc.ErrorList from the parser) and a lowering error
// (an ir.ErrorList) are matched by either name, with their kinds.
func TestErrorAliases(t *testing.T) {
	_, err := parser.Parse("m.pbl", []byte("var Rain: {"))
	var e *ir.Error
	if !errors.As(err, &e) || e.Pos.Line != 1 {
		t.Errorf("errors.As(%v, *ir.Error) = %v, want the parser's error at line 1", err, e)
	}
	if !errors.Is(err, parser.ErrIncomplete) {
		t.Errorf("errors.Is(%v, parser.ErrIncomplete) = false", err)
	}
	f, err := parser.Parse("m.pbl", []byte("var Rain: {yes, no}\nP(Rain) = [0.3, 0.7]\nquery P(Snow)\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ir.Lower(f)
	var list loc.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos != (loc.Pos{File: "m.pbl", Line: 3, Col: 9}) {
		t.Errorf("errors.As(%v, loc.ErrorList) = %v, want one error at m.pbl:3:9", err, list)
	}
	if !ir.Located(err) || !loc.Located(err) {
		t.Errorf("Located(%v) = false", err)
	}
}
