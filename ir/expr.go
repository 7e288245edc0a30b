package ir

import "github.com/pbl-lang/pbl/grammar"

// Expr is an arithmetic expression of a hypothesis space ([Space]): of its
// parameters, of the columns of the data it is given, and of numbers. The
// set of node kinds is closed: [*Num], [*ParamRef], [*ColumnRef],
// [*Unary], [*Binary], [*Call]. Package hypothesis compiles them; nothing
// interprets an Expr per data row.
type Expr interface {
	Node
	expr()
}

// Num is a number.
type Num struct {
	Pos   Pos
	Value float64
}

// ParamRef names the space's Index-th parameter (Space.Params[Index]).
type ParamRef struct {
	Pos   Pos
	Name  string
	Index int
}

// ColumnRef names a column of the data: Space.Columns[Index].
type ColumnRef struct {
	Pos   Pos
	Name  string
	Index int
}

// Unary is -X.
type Unary struct {
	Pos Pos
	Op  Op // OpNeg
	X   Expr
}

// Binary is X op Y. Comparisons are 1 when they hold and 0 when not.
type Binary struct {
	Pos  Pos
	Op   Op
	X, Y Expr
}

// Call is a function applied to its arguments: exp(X), log(X), sqrt(X),
// sigmoid(X), abs(X), each of one argument.
type Call struct {
	Pos  Pos
	Fn   Func
	Args []Expr
}

// Op is an operator of an [Expr].
type Op int

const (
	OpAdd Op = iota // +
	OpSub           // -
	OpMul           // *
	OpDiv           // /
	OpPow           // ^ (right-associative)
	OpNeg           // unary -
	OpEq            // ==
	OpNe            // !=
	OpLt            // <
	OpLe            // <=
	OpGt            // >
	OpGe            // >=
)

var opText = [...]string{"+", "-", "*", "/", "^", "-", "==", "!=", "<", "<=", ">", ">="}

func (o Op) String() string {
	if int(o) < len(opText) {
		return opText[o]
	}
	return "?"
}

// Func is a function of an [Expr].
type Func int

const (
	FnExp     Func = iota // e^x
	FnLog                 // natural logarithm
	FnSqrt                // square root
	FnSigmoid             // 1 / (1 + e^-x)
	FnAbs                 // |x|
)

var funcText = [...]string{"exp", "log", "sqrt", "sigmoid", "abs"}

func (f Func) String() string {
	if int(f) < len(funcText) {
		return funcText[f]
	}
	return "?"
}

// LookupFunc returns the function called name.
func LookupFunc(name string) (Func, bool) {
	for i, s := range funcText {
		if s == name {
			return Func(i), true
		}
	}
	return 0, false
}

func (e *Num) Position() Pos       { return e.Pos }
func (e *ParamRef) Position() Pos  { return e.Pos }
func (e *ColumnRef) Position() Pos { return e.Pos }
func (e *Unary) Position() Pos     { return e.Pos }
func (e *Binary) Position() Pos    { return e.Pos }
func (e *Call) Position() Pos      { return e.Pos }
func (*Num) expr()                 {}
func (*ParamRef) expr()            {}
func (*ColumnRef) expr()           {}
func (*Unary) expr()               {}
func (*Binary) expr()              {}
func (*Call) expr()                {}

// MaxExprDepth is the deepest an expression may be (see
// [grammar.MaxExprDepth]): the parser refuses more levels of nesting, and
// lowering a longer chain of operators.
const MaxExprDepth = grammar.MaxExprDepth

// ExprDepth returns the depth of e: 1 for a number or a name, one more
// than its deepest operand for an operation. It does not recurse, so any
// expression may be measured.
func ExprDepth(e Expr) int {
	type item struct {
		e Expr
		d int
	}
	deepest := 0
	stack := []item{{e, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.d)
		switch e := it.e.(type) {
		case *Unary:
			stack = append(stack, item{e.X, it.d + 1})
		case *Binary:
			stack = append(stack, item{e.X, it.d + 1}, item{e.Y, it.d + 1})
		case *Call:
			for _, a := range e.Args {
				stack = append(stack, item{a, it.d + 1})
			}
		}
	}
	return deepest
}
