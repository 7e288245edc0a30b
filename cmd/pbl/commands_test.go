package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// TestPrintJSONError: a result that report.JSON refuses (a number that is
// not a probability, which would be a bug in an engine) is reported, and
// print's exit status is 1, not 0; nothing reaches stdout.
func TestPrintJSONError(t *testing.T) {
	b := ir.NewBuilder("b.pbl")
	b.AddVar(ir.Pos{File: "b.pbl"}, "X", ir.Enum, []string{"0", "1"}, 0)
	b.SetCPT(ir.Pos{File: "b.pbl"}, 0, nil, []float64{0.25, 0.75}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=1 | X=0)"}, Targets: []ir.VarID{0}, TargetStates: []int{1}}
	var out, errOut bytes.Buffer
	c := &cli{stdout: &out, stderr: &errOut, json: true}
	first := true
	if got := c.print(m, &pbl.Answer{Infer: &infer.Number{Header: infer.Header{Query: q}, P: math.NaN()}}, &first); got != exitError {
		t.Errorf("print: status %d, want %d", got, exitError)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "is not a probability") {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	if !c.reported {
		t.Errorf("the error was not recorded as reported")
	}
}

// TestWriteJSONError: writeJSON reports a value that cannot be marshalled,
// and marks the invocation as failed, which runCommand turns into exit 1.
func TestWriteJSONError(t *testing.T) {
	var out, errOut bytes.Buffer
	c := &cli{stdout: &out, stderr: &errOut, json: true}
	o := &report.Object{}
	o.Set("log_loss", report.Float(math.Inf(1)))
	c.writeJSON(o)
	if out.Len() != 0 || errOut.Len() == 0 || !c.reported {
		t.Errorf("stdout %q, stderr %q, reported %t", out.String(), errOut.String(), c.reported)
	}
}
