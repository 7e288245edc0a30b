//go:build js

package infer

import (
	"github.com/pbl-lang/pbl/ir"
)

// answerHybrid refuses, in the WebAssembly page, a query on a model where
// a discrete variable has a real parent: the page leaves likelihood
// weighting on hybrid networks (hybridlw.go, approx.HybridSample) out of
// its module, for issue 30's size limit; the pbl command answers it. The
// exact engines' refusal is the same as elsewhere.
func answerHybrid(m *ir.Model, q *query, opt Options) (Result, error) {
	if opt.Engine != hybridEngine {
		return nil, hybridRefusal(q.Pos, m, "")
	}
	child, _, _ := discreteChildOfReal(m)
	return nil, &ir.Error{Pos: q.Pos, Err: ErrDiscreteChildOfReal, Msg: ir.Quote(m.Vars[child].Name) + " is discrete and has a real-valued parent: likelihood weighting on such a model is answered by the pbl command, not in the page"}
}
