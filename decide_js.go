//go:build js

package pbl

import (
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// answerDecision refuses decision questions (MEU, policy, EU) in the
// WebAssembly page, which leaves package decision out of its module
// (issue 30's size limit), as cause_js.go does for causal questions: the
// pbl command answers them.
func answerDecision(m *ir.Model, q *ir.DecisionQuery, opt AnswerOptions) (*report.Decision, error) {
	return nil, &ir.Error{Pos: q.Pos, Err: ir.ErrNotDecision, Msg: q.Text + ": decision questions are answered by the pbl command, not in the page"}
}

// RankVPI refuses in the WebAssembly page; see answerDecision.
func RankVPI(m *ir.Model, dec ir.VarID, q *ir.DecisionQuery, cands []ir.VarID) (float64, []VPI, error) {
	return 0, nil, &ir.Error{Pos: q.Pos, Err: ir.ErrNotDecision, Msg: "the value of information is answered by the pbl command, not in the page"}
}
