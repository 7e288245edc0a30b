package uai

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// TestWriteInfluenceDiagram: UAI describes Bayesian and Markov networks,
// not influence diagrams, so Write refuses one, with an error of kind
// ir.ErrInfluenceDiagram at the decision and one at the utility, and
// writes nothing (before, it said the decision "has no CPT" and was
// silent about the utility).
func TestWriteInfluenceDiagram(t *testing.T) {
	var out bytes.Buffer
	err := Write(&out, formattest.InfluenceDiagram())
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("got %v, want two errors", err)
	}
	for i, line := range []int{3, 5} {
		if e := list[i]; !errors.Is(e, ir.ErrInfluenceDiagram) || e.Pos.Line != line {
			t.Errorf("error %v (kind %v), want one of kind ir.ErrInfluenceDiagram at line %d", e, e.Err, line)
		}
	}
	if out.Len() != 0 {
		t.Errorf("wrote %d bytes", out.Len())
	}
}
