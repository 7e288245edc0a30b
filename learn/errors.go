package learn

import "fmt"

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
