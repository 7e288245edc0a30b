//go:build js

package pbl

import (
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// answerCausal refuses causal questions in the WebAssembly page, which
// leaves package causal out of its module (issue 30's size limit): the
// pbl command answers them.
func answerCausal(m *ir.Model, q *ir.CausalQuery, regularOnly bool) (*report.Causal, error) {
	return nil, &ir.Error{Pos: q.Pos, Err: ir.ErrNotCausal, Msg: q.Text + ": causal questions are answered by the pbl command, not in the page"}
}
