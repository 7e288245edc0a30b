package ir_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestErrors checks the lowering and validation errors annotated in
// testdata/errors.pbl. Every chunk must parse; every error of a chunk must
// be expected, and every expectation met.
func TestErrors(t *testing.T) {
	const filename = "testdata/errors.pbl"
	for _, chunk := range chunkedfile.Read(filename, t) {
		f, err := parser.Parse(filename, []byte(chunk.Source))
		if err != nil {
			t.Errorf("chunk at line %d does not parse: %v", chunk.Line, err)
			continue
		}
		m, err := ir.Lower(f)
		if err == nil {
			if m == nil {
				t.Errorf("chunk at line %d: Lower returned neither a model nor an error", chunk.Line)
			}
		} else {
			if m != nil {
				t.Errorf("chunk at line %d: Lower returned both a model and an error", chunk.Line)
			}
			var list ir.ErrorList
			if !errors.As(err, &list) {
				t.Errorf("chunk at line %d: error is a %T, not an ir.ErrorList: %v", chunk.Line, err, err)
			}
			for i, e := range list {
				if e.Pos.File != filename || e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Errorf("error with a bad position %q: %v", e.Pos, e)
				}
				if i > 0 && e.Pos.Before(list[i-1].Pos) {
					t.Errorf("errors not sorted: %v before %v", list[i-1], e)
				}
				chunk.GotError(e.Pos.Line, e.Msg)
			}
		}
		chunk.Done()
	}
}
