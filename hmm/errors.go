package hmm

import (
	"errors"
	"fmt"
)

// The kinds of error, as the Err of an *Error; test them with errors.Is.
var (
	ErrShape       = errors.New("wrong shape")                        // a length that disagrees with K, M or D
	ErrProb        = errors.New("not a probability distribution")     // negative, not finite, or not summing to 1
	ErrVariance    = errors.New("variance not positive and finite")   // a Gaussian variance ≤ 0, NaN or infinite
	ErrNotFinite   = errors.New("a value is not finite")              // a mean, or an observation that is ±Inf
	ErrObservation = errors.New("observation out of range")           // a symbol outside [-1, M)
	ErrImpossible  = errors.New("observations have probability zero") // no hidden path explains the sequence
	ErrBadOption   = errors.New("bad option")                         // an option out of its range
	ErrTooLarge    = errors.New("too large")                          // see TooLargeError
	ErrNotMonotone = errors.New("log-likelihood decreased")           // a defect of this package, never of the data
)

// Error is an error caused by a model's numbers, a sequence or an option.
type Error struct {
	Err  error  // the kind: one of the Err variables above
	Seq  int    // the 0-based index of the sequence concerned, or -1
	Step int    // the 0-based step concerned, or -1
	Msg  string // lower-case, no trailing period
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind of error.
func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error of the given kind about no sequence.
func errorf(kind error, format string, args ...any) *Error {
	return &Error{Err: kind, Seq: -1, Step: -1, Msg: fmt.Sprintf(format, args...)}
}

// seqErrorf returns an *Error of the given kind about step t of sequence
// seq (either may be -1).
func seqErrorf(kind error, seq, t int, format string, args ...any) *Error {
	return &Error{Err: kind, Seq: seq, Step: t, Msg: fmt.Sprintf(format, args...)}
}

// TooLargeError is the error of a computation whose memory would exceed
// its limit; it is checked before anything is allocated. It matches
// ErrTooLarge under errors.Is.
type TooLargeError struct {
	What  string // what would have been allocated
	Bytes int64  // the bytes it needs (math.MaxInt64 if that overflows)
	Limit int64  // the limit
}

// Error returns the message.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s needs %d bytes, more than the limit of %d", e.What, e.Bytes, e.Limit)
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }
