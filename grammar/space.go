package grammar

// Space is a hypothesis space, `space H { ITEMS }`: parameters and the
// values they range over, a prior, and how each row of data is
// distributed given a hypothesis; or a conjunctive concept.
type Space struct {
	Pos   Position
	Name  *Name        `parser:"'space':Ident @@ '{':Punct"`
	Items []*SpaceItem `parser:"@@* '}':Punct"`
}

// SpaceItem is one item of a space.
type SpaceItem struct {
	Pos     Position
	Param   *ParamDecl `parser:"(  @@"`
	Concept *Concept   `parser:" | @@"`
	Observe *Observe   `parser:" | @@"`
	Prior   *Prior     `parser:" | @@ )"`
}

// ParamDecl is `w0, w1 in LO .. HI by STEP` (a grid), `k in {1, 2, 3}`
// (listed values) or `w in real` (continuous).
type ParamDecl struct {
	Pos    Position
	Names  []*Name  `parser:"@@ ( ',':Punct @@ )* 'in':Ident"`
	Real   bool     `parser:"(  @'real':Ident"`
	Values []string `parser:" | '{':Punct @Number ( ',':Punct @Number )* '}':Punct"`
	Lo     *string  `parser:" | @Number '..':Punct"`
	Hi     *string  `parser:"   @Number 'by':Ident"`
	Step   *string  `parser:"   @Number )"`
}

// Concept is `TARGET = STATE if conjunction(A1, A2, ...)`: Mitchell's
// conjunctive concepts over the discrete attributes A1, A2, ...,
// predicting TARGET = STATE.
type Concept struct {
	Pos    Position
	Target *Name   `parser:"@@ '=':Punct"`
	State  *Name   `parser:"@@ 'if':Ident 'conjunction':Ident '(':Punct"`
	Attrs  []*Name `parser:"@@ ( ',':Punct @@ )* ')':Punct"`
}

// Observe is `COLUMN ~ FAMILY(ARGS)`: how a row's COLUMN is distributed
// given a hypothesis, as normal(MEAN, SD) or bernoulli(P).
type Observe struct {
	Pos    Position
	Column *Name  `parser:"@@ '~':Punct"`
	Family string `parser:"@Ident '(':Punct"`
	Args   []*Arg `parser:"@@ ( ',':Punct @@ )* ')':Punct"`
}

// Arg is an argument of an observation's distribution: an expression,
// named or not (normal(w, sd = s), normal(w, var = v)).
type Arg struct {
	Pos   Position
	Named *ArgName `parser:"@@?"`
	Value *Expr    `parser:"@@"`
}

// Prior is `prior uniform` or `prior EXPR`, the unnormalised prior weight
// of a hypothesis as an expression of the parameters.
type Prior struct {
	Pos     Position
	Uniform bool  `parser:"'prior':Ident ( @'uniform':Ident"`
	Expr    *Expr `parser:"            | @@ )"`
}

// Expr is an arithmetic expression: a sum, or a comparison of two sums
// (1 when it holds, 0 when not). Operators bind as in mathematics: ^
// (right-associative) over unary -, over * and /, over + and -, over
// comparisons.
type Expr struct {
	Pos   Position
	Left  *Sum   `parser:"@@"`
	Op    string `parser:"( @( '==':Punct | '!=':Punct | '<=':Punct | '>=':Punct | '<':Punct | '>':Punct )"`
	Right *Sum   `parser:"  @@ )?"`
}

// Sum is a product followed by terms added or subtracted.
type Sum struct {
	Pos  Position
	Left *Product   `parser:"@@"`
	Tail []*SumTail `parser:"@@*"`
}

// SumTail is `+ PRODUCT`, `- PRODUCT`, or a negative number directly
// after an operand: `x-1` lexes as x and -1, and means x - 1, so the
// number's sign is the operator (with what binds tighter after it:
// `x-2*y` is x - (2*y)).
type SumTail struct {
	Pos    Position
	Op     string     `parser:"(  @( '+':Punct | '-':Punct )"`
	Right  *Product   `parser:"   @@"`
	Number *string    `parser:" | @Number"`
	Exp    *Unary     `parser:"   ( '^':Punct @@ )?"`
	Mul    []*MulTail `parser:"   @@* )"`
}

// Product is a unary expression followed by factors multiplied or divided.
type Product struct {
	Pos  Position
	Left *Unary     `parser:"@@"`
	Tail []*MulTail `parser:"@@*"`
}

// MulTail is `* UNARY` or `/ UNARY`.
type MulTail struct {
	Pos   Position
	Op    string `parser:"@( '*':Punct | '/':Punct )"`
	Right *Unary `parser:"@@"`
}

// Unary is `- UNARY` or a power.
type Unary struct {
	Pos   Position
	Neg   *Unary `parser:"(  '-':Punct @@"`
	Power *Power `parser:" | @@ )"`
}

// Power is a primary raised to an optional exponent, BASE ^ UNARY.
type Power struct {
	Pos  Position
	Base *Primary `parser:"@@"`
	Exp  *Unary   `parser:"( '^':Punct @@ )?"`
}

// Primary is a number, a function call, a name (a parameter or a data
// column) or a parenthesised expression.
type Primary struct {
	Pos    Position
	Number *string `parser:"(  @Number"`
	Call   *Call   `parser:" | @@"`
	Ident  string  `parser:" | @Ident"`
	Quoted string  `parser:" | @String"`
	Paren  *Expr   `parser:" | '(':Punct @@ ')':Punct )"`
}

// Call is FUNCTION(ARGS): exp, log, sqrt, sigmoid, abs.
type Call struct {
	Pos  Position
	Fn   string  `parser:"@Ident '(':Punct"`
	Args []*Expr `parser:"@@ ( ',':Punct @@ )* ')':Punct"`
}
