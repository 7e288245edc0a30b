package structure

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// The kinds of error of this package, matched with errors.Is. An error
// about a place in a data file is an *ir.Error (file:line:col: message)
// that wraps its kind; the others carry their facts in a typed error
// ([EdgeError], [MaxParentsError], [UnknownNameError]) or wrap a kind with
// %w. No message names a command-line flag: cmd/pbl phrases the errors a
// user can cause with a flag in terms of that flag.
var (
	// ErrNoData: a data file with no header, no data rows, or a column
	// every cell of which is missing.
	ErrNoData = errors.New("no data")
	// ErrTooManyVars: a data file of more than MaxVars columns.
	ErrTooManyVars = errors.New("too many variables")
	// ErrNotDiscrete: a real-valued variable where a score needs a
	// discrete one.
	ErrNotDiscrete = errors.New("not a discrete variable")
	// ErrNoColumn: a variable of the model with no column in the data.
	ErrNoColumn = errors.New("no column for a variable")
	// ErrBadData: a data file that cannot be read (gzip or CSV syntax).
	ErrBadData = errors.New("unreadable data")
	// ErrTooLarge: an independence test whose contingency table has too
	// many cells.
	ErrTooLarge = errors.New("table too large")
	// ErrDifferentVariables: two networks compared over different
	// variables or states.
	ErrDifferentVariables = errors.New("different variables")
	// ErrInvalidArgument: an argument no call should pass (a count below
	// one, lengths that disagree, alpha outside (0, 1), an unknown start
	// kind, an ordering that is not a permutation).
	ErrInvalidArgument = errors.New("invalid argument")

	// The kinds of an [EdgeError].
	ErrNoSuchVariable       = errors.New("no such variable")
	ErrSelfLoop             = errors.New("self-loop")
	ErrDuplicateEdge        = errors.New("edge already present")
	ErrCycle                = errors.New("edge would close a cycle")
	ErrRequiredAndForbidden = errors.New("edge both required and forbidden")
	ErrAgainstOrder         = errors.New("required edge against the ordering")
	ErrForbiddenEdge        = errors.New("forbidden edge present")
)

// EdgeError is an error about one edge From -> To (variable indices; the
// message names them when the names are known). Its kind, one of
// ErrNoSuchVariable, ErrSelfLoop, ErrDuplicateEdge, ErrCycle,
// ErrRequiredAndForbidden, ErrAgainstOrder or ErrForbiddenEdge, is
// matched with errors.Is.
type EdgeError struct {
	From, To int
	Kind     error
	msg      string
}

func (e *EdgeError) Error() string { return e.msg }

// Unwrap returns the kind of the error.
func (e *EdgeError) Unwrap() error { return e.Kind }

func edgeErr(from, to int, kind error, format string, args ...any) *EdgeError {
	return &EdgeError{From: from, To: to, Kind: kind, msg: fmt.Sprintf(format, args...)}
}

// MaxParentsError is the refusal of a graph in which a variable has more
// parents than Options.MaxParents allows, because the starting graph or
// the required edges give it them.
type MaxParentsError struct {
	Var      string // the variable
	Parents  int    // its parents
	Limit    int    // Options.MaxParents
	Required bool   // the parents are required edges (else the starting graph's, with the required)
}

func (e *MaxParentsError) Error() string {
	if e.Required {
		return fmt.Sprintf("%s has %s, more than the limit of %s a variable may have", e.Var, ir.Plural(e.Parents, "required parent"), ir.Plural(e.Limit, "parent"))
	}
	return fmt.Sprintf("%s has %s in the starting graph (or required), more than the limit of %s a variable may have", e.Var, ir.Plural(e.Parents, "parent"), ir.Plural(e.Limit, "parent"))
}

// UnknownNameError is a name of a test, score or start that this package
// does not know.
type UnknownNameError struct {
	What string   // "test", "score" or "start"
	Name string   // the name given
	Want []string // the names known
}

func (e *UnknownNameError) Error() string {
	return fmt.Sprintf("unknown %s %q (want %s)", e.What, e.Name, orList(e.Want))
}

func orList(names []string) string {
	if len(names) == 2 {
		return names[0] + " or " + names[1]
	}
	return strings.Join(names, ", ")
}

// kindError is an error of a kind with its own message: errors.Is matches
// the kind, and the cause if there is one.
type kindError struct {
	msg   string
	kind  error
	cause error
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// errorf returns an error of kind with the message format makes of args.
func errorf(kind error, format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: kind}
}
