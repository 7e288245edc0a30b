package learn

import (
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// ModelError is an error about the model to learn rather than its data: a
// Markov network, a real-valued parent, a table too large to count into,
// what an iterative method cannot learn. The command line names the model
// file in front of it (the data file for other errors without a
// position); a learn statement's errors are positioned at the statement.
type ModelError struct{ Msg string }

func (e *ModelError) Error() string { return e.Msg }

func modelErrorf(format string, args ...any) error {
	return &ModelError{Msg: fmt.Sprintf(format, args...)}
}

// UnlearnedError is the refusal to classify with a model some of whose
// numbers are still to be learned (its Vars). Its kind is
// ir.ErrNoDistribution. cmd/pbl phrases it with its own commands and
// flags (pbl learn, --cv).
type UnlearnedError struct {
	Vars []ir.VarID // the variables with no numbers yet
	msg  string
}

func (e *UnlearnedError) Error() string { return e.msg }

// Unwrap returns ir.ErrNoDistribution.
func (e *UnlearnedError) Unwrap() error { return ir.ErrNoDistribution }
