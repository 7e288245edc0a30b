package decision

import (
	"errors"
	"fmt"
)

// The kinds of error, as the Err of an *Error; test them with errors.Is.
var (
	ErrShape      = errors.New("wrong shape")                         // a cardinality, a parent index or a table length that does not fit
	ErrCPT        = errors.New("not a conditional probability table") // an entry negative or not finite, or a row not summing to 1
	ErrUtility    = errors.New("utility not finite")                  // a utility entry NaN or infinite
	ErrCycle      = errors.New("cycle")                               // the arcs (information arcs included) form a directed cycle
	ErrOrder      = errors.New("decision order contradicts the arcs") // a later decision is an ancestor of an earlier one, or the order is not a permutation of the decisions
	ErrNoOrder    = errors.New("decisions not totally ordered")       // Solve needs a temporal order: none given and the arcs do not imply one
	ErrEvidence   = errors.New("bad evidence")                        // evidence on a variable outside a decision's information, or a state out of range
	ErrImpossible = errors.New("evidence has probability zero")       // under the optimal strategy
	ErrTooLarge   = errors.New("too large")                           // see TooLargeError
)

// Error is an error caused by a diagram, its numbers or a question asked
// of it.
type Error struct {
	Err  error  // the kind: one of the Err variables above
	Node string // the name of the variable or utility concerned, or ""
	Msg  string // lower-case, no trailing period
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind of error.
func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error of the given kind about node (which may be "").
func errorf(kind error, node string, format string, args ...any) *Error {
	return &Error{Err: kind, Node: node, Msg: fmt.Sprintf(format, args...)}
}

// TooLargeError is the error of a table whose number of entries would
// exceed the limit (Options.MaxEntries); it is checked before the table is
// allocated. It matches ErrTooLarge under errors.Is.
type TooLargeError struct {
	What    string // what would have been allocated
	Entries int64  // the entries it needs (math.MaxInt64 if that overflows)
	Limit   int64  // the limit
}

// Error returns the message.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s needs %d entries, more than the limit of %d", e.What, e.Entries, e.Limit)
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }
