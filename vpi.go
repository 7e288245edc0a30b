package pbl

import (
	"errors"

	"github.com/pbl-lang/pbl/ir"
)

// ErrNoRecall is the kind of error of a value of information asked of a
// diagram without perfect recall (a LIMID), whose single policy updating
// finds local optima only: a difference of two of them is no value.
var ErrNoRecall = errors.New("the decisions lack perfect recall")

// VPI is the expected value of perfect information about a chance
// variable at a decision.
type VPI struct {
	Var   ir.VarID
	Value float64
}
