package infer

import (
	"errors"

	"github.com/pbl-lang/pbl/ir"
)

// The kinds of error the engines return. Each comes back as the Err field
// of an *ir.Error (whose Msg is what the user reads), so that programs test
// for it with errors.Is or errors.As rather than by reading the message.
var (
	// ErrImpossible is the kind of error of a question that conditions on
	// evidence of probability 0.
	ErrImpossible = errors.New("impossible evidence: its probability is 0")

	// ErrUnderflow is the kind of error of a query for P(e) whose value is
	// possible but below the smallest normal float64; the message gives
	// ln P(e).
	ErrUnderflow = errors.New("the probability of the evidence underflows float64")

	// ErrRange is the kind of error of real-valued evidence whose
	// likelihoods favour a configuration of their densities' parents
	// that the discrete evidence makes less likely than e^−1000 by more
	// than float64 can hold beside the rest of the answer.
	ErrRange = errors.New("real-valued evidence beyond the range of float64")

	// ErrCanceled is the kind of error of a computation stopped through
	// [Options].Cancel.
	ErrCanceled = errors.New("inference canceled")
)

// UnderflowError is the kind of error of a query for P(e) whose value is
// possible but below the smallest normal float64. It carries the logarithms
// the answer would have had, and errors.Is(err, ErrUnderflow) holds for
// it.
type UnderflowError struct {
	LogP float64 // ln P(e), finite
	LogZ float64 // ln Σ_{x ⊨ e} Π φ(x), the partition function with the evidence (see Result.LogZ)
}

func (e *UnderflowError) Error() string { return ErrUnderflow.Error() }

// Is reports whether target is ErrUnderflow.
func (e *UnderflowError) Is(target error) bool { return target == ErrUnderflow }

// canceled returns the error of a computation canceled at pos.
func canceled(pos ir.Pos) error {
	return &ir.Error{Pos: pos, Msg: "inference canceled", Err: ErrCanceled}
}

// Oversize names what a [TooLargeError] refuses to build.
type Oversize int

const (
	OversizeTable  Oversize = iota // an intermediate table of variable elimination, in entries (Options.MaxTable)
	OversizeClique                 // the largest clique of a junction tree, in entries (Options.MaxTable)
	OversizeMemory                 // a whole junction tree, or the tables of variable elimination at their peak, in bytes (Options.MaxMemory)
	OversizeEnum                   // the assignments enumeration would visit ([MaxEnum])
	OversizeRows                   // the rows of a table answer (Options.MaxRows)
)

func (o Oversize) String() string {
	switch o {
	case OversizeTable:
		return "table"
	case OversizeClique:
		return "clique"
	case OversizeMemory:
		return "memory"
	case OversizeEnum:
		return "enumeration"
	case OversizeRows:
		return "rows"
	}
	return "?"
}

// TooLargeError is the kind of error (see [ir.Error]) of a refusal to
// allocate a table, a junction tree or an enumeration beyond the limits of
// [Options] or [MaxEnum], or to build a table answer of more rows than
// Options.MaxRows. Nothing has been allocated when it is returned.
type TooLargeError struct {
	What  Oversize
	Vars  []ir.VarID // the table's variables, the largest clique's, the unobserved variables enumerated, or the answer's given and target variables
	Size  float64    // entries, bytes, assignments or rows, exact below 2^53
	Limit int64      // the limit exceeded, in the same unit
	msg   string
}

// Error returns the message the user reads, which names the variables.
func (e *TooLargeError) Error() string { return e.msg }

// at returns e as a user error at pos.
func (e *TooLargeError) at(pos ir.Pos) *ir.Error {
	return &ir.Error{Pos: pos, Msg: e.msg, Err: e}
}

// at returns err, an *ir.Error or a kind of error, as a user error at pos,
// keeping its kind.
func at(pos ir.Pos, err error) *ir.Error {
	var e *ir.Error
	if errors.As(err, &e) {
		return &ir.Error{Pos: pos, Msg: e.Msg, Err: e.Err}
	}
	return &ir.Error{Pos: pos, Msg: err.Error(), Err: err}
}
