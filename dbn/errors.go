package dbn

import (
	"errors"
	"fmt"
	"strconv"
)

// The kinds of error, tested with errors.Is.
var (
	// ErrNotTemporal is the kind of error of a model Compile cannot run:
	// no time-indexed variables, a variable without a distribution, a
	// distribution without a table (a softmax, a joint normal), a Markov
	// network's potentials, or a decision.
	ErrNotTemporal = errors.New("not a time-indexed model the sequence engine runs")

	// ErrRealParent is the kind of error of a real-valued variable with
	// children: a linear Gaussian density, which this engine does not
	// handle (real variables are leaves with discrete parents here).
	ErrRealParent = errors.New("a real-valued variable with children")

	// ErrSequence is the kind of error of a sequence that does not fit
	// the model: a step of the wrong width, a state out of range, an
	// infinite value.
	ErrSequence = errors.New("a sequence that does not fit the model")

	// ErrTarget is the kind of error of a target that is not a variable
	// of the model, or is real-valued where a state is needed.
	ErrTarget = errors.New("not a target the engine can report")

	// ErrImpossible is the kind of error of observations of probability
	// zero; the error is an *ImpossibleError naming the step.
	ErrImpossible = errors.New("observations have probability zero")

	// ErrTooLarge is the kind of a *TooLargeError.
	ErrTooLarge = errors.New("too large")
)

// ImpossibleError is an ErrImpossible: the observations up to Step have
// probability zero, those before it not (Step -1: the static variables'
// values alone).
type ImpossibleError struct {
	Step int
}

func (e *ImpossibleError) Error() string {
	if e.Step < 0 {
		return "the static variables' values have probability zero"
	}
	return "the observations up to step " + strconv.Itoa(e.Step) + " have probability zero"
}

// Is makes errors.Is(err, ErrImpossible) true.
func (e *ImpossibleError) Is(target error) bool { return target == ErrImpossible }

// TooLargeError is an ErrTooLarge: what would have been computed or
// allocated, its size and the limit, found before allocating.
type TooLargeError struct {
	What  string // "the joint of one step", "Viterbi's back-pointers"...
	Size  int64  // entries or bytes, as Unit says (math.MaxInt64 if that overflows)
	Limit int64
	Unit  string // "entries" or "bytes"
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s would take %d %s, more than the limit of %d", e.What, e.Size, e.Unit, e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }
