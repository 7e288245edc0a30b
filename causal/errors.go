package causal

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of error, as the Err of an *Error; test them with errors.Is.
var (
	ErrUnknownVariable = errors.New("unknown variable")                     // a name the graph does not have
	ErrDuplicate       = errors.New("duplicate variable")                   // a name given twice, or empty
	ErrSelfLoop        = errors.New("edge from a variable to itself")       // X -> X or X <-> X
	ErrCycle           = errors.New("directed cycle")                       // see CycleError
	ErrTooLarge        = errors.New("too large")                            // more than MaxVars variables, or a table too big
	ErrQuery           = errors.New("bad causal query")                     // empty Y, overlapping Y, X, Z
	ErrShape           = errors.New("wrong shape")                          // a joint table whose size disagrees with its cardinalities
	ErrProb            = errors.New("not a probability distribution")       // negative, not finite, or not summing to 1
	ErrValue           = errors.New("value out of range")                   // a state outside its variable's cardinality
	ErrPositivity      = errors.New("conditioning event has probability 0") // a denominator of the estimand is zero
	ErrNotIdentifiable = errors.New("causal effect not identifiable")       // see NotIdentifiableError
)

// Error is an error about a graph, a query or a table.
type Error struct {
	Err error  // the kind: one of the Err variables above
	Msg string // lower-case, no trailing period
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind of error.
func (e *Error) Unwrap() error { return e.Err }

func errorf(kind error, format string, args ...any) *Error {
	return &Error{Err: kind, Msg: fmt.Sprintf(format, args...)}
}

// CycleError is a directed cycle among the directed edges of a graph. It
// matches ErrCycle under errors.Is.
type CycleError struct {
	Cycle []string // the variables of the cycle in order; the last has an edge to the first
}

// Error returns the message.
func (e *CycleError) Error() string {
	return "directed cycle: " + strings.Join(e.Cycle, " -> ") + " -> " + e.Cycle[0]
}

// Is reports whether target is ErrCycle.
func (e *CycleError) Is(target error) bool { return target == ErrCycle }

// Hedge is the proof that a causal effect P(Y | do(X)) is not
// identifiable (Shpitser and Pearl 2006, definition 5 and theorem 4): two
// R-rooted C-forests F' ⊂ F with the same root set R ⊆ An(Y) in the graph
// without the edges into X, F meeting X and F' not. A C-forest is an edge
// subgraph: its variables are joined by bidirected edges and reach R by
// directed ones inside it. For a conditional query P(Y | do(X), Z) the
// hedge is that of P(Y ∪ Z' | do(X ∪ Z”)), with Z' ∪ Z” = Z (IDC moves
// the Z” that do not matter into the intervention), and proves that
// query not identifiable (Shpitser and Pearl 2006b).
type Hedge struct {
	F      []string // the larger C-forest's variables
	FPrime []string // the smaller C-forest's variables, F' ⊂ F, disjoint from X
	Roots  []string // the common root set R: F' ∩ An(Y) without the edges into X
	Y, X   []string // the effect P(Y | do(X)) the hedge is for
}

// String returns the hedge as "F = {…}, F' = {…}".
func (h Hedge) String() string {
	return "F = {" + strings.Join(h.F, ", ") + "}, F' = {" + strings.Join(h.FPrime, ", ") + "}"
}

// NotIdentifiableError is the answer to a query whose effect cannot be
// computed from the observed distribution; it carries the hedge that
// proves it. It matches ErrNotIdentifiable under errors.Is.
type NotIdentifiableError struct {
	Query string // the query, as P(y | do(x), z)
	Hedge Hedge
}

// Error returns the message.
func (e *NotIdentifiableError) Error() string {
	return e.Query + " is not identifiable: hedge " + e.Hedge.String()
}

// Is reports whether target is ErrNotIdentifiable.
func (e *NotIdentifiableError) Is(target error) bool { return target == ErrNotIdentifiable }
