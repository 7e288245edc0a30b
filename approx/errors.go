package approx

import "errors"

// ErrImpossible is the error of an algorithm that finds the evidence
// impossible: every sample has weight 0, or propagation drives every state
// of a variable to 0. Package infer reports it as infer.ErrImpossible.
var ErrImpossible = errors.New("approx: the evidence is impossible")

// ErrNoAnswer is the error of an algorithm stopped (Settings.Deadline or
// Cancel) before it had any answer to return.
var ErrNoAnswer = errors.New("approx: stopped before any answer")
