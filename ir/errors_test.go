package ir_test

import (
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
