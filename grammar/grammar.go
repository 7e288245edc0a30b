package grammar

import "github.com/alecthomas/participle/v2/lexer"

// File is a whole .pbl source file: a sequence of statements.
type File struct {
	Pos   lexer.Position
	Stmts []Stmt `parser:"@@*"`
}

// Stmt is a top-level statement. The set is closed; see [Parser] for the
// union.
type Stmt interface{ stmt() }

// Import is `import "other.pbl"`.
type Import struct {
	Pos  lexer.Position
	Path string `parser:"'import':Ident @String"`
}

// VarDecl is `var A, B: TYPE`.
type VarDecl struct {
	Pos   lexer.Position
	Names []*Name `parser:"'var':Ident @@ ( ',':Punct @@ )*"`
	Type  *Type   `parser:"':':Punct @@"`
}

// Type is a variable's domain: bool, real, a set of named states, or an
// integer range lo..hi.
type Type struct {
	Pos    lexer.Position
	Bool   bool    `parser:"(  @'bool':Ident"`
	Real   bool    `parser:" | @'real':Ident"`
	States []*Name `parser:" | '{':Punct @@ ( ',':Punct @@ )* '}':Punct"`
	Lo     *string `parser:" | @Number '..':Punct"`
	Hi     *string `parser:"   @Number )"`
}

// Name is a variable or state name: an identifier, a quoted string, or an
// integer (for integer-like states).
type Name struct {
	Pos    lexer.Position
	Ident  string `parser:"(  @Ident"`
	Quoted string `parser:" | @String"`
	Number string `parser:" | @Number )"`
}

// Text returns the name as the user means it.
func (n *Name) Text() string {
	switch {
	case n.Ident != "":
		return n.Ident
	case n.Number != "":
		return n.Number
	}
	return n.Quoted
}

// Edges is a chain of edge lists, `A, B -> C -> D, E`: every name of one
// list is a parent of every name of the next.
type Edges struct {
	Pos   lexer.Position
	Lists []*NameList `parser:"@@ ( '->':Punct @@ )+"`
}

// NameList is a comma-separated list of names.
type NameList struct {
	Pos   lexer.Position
	Names []*Name `parser:"@@ ( ',':Punct @@ )*"`
}

// Dist is a CPT definition `P(X | A, B) = BODY`, optionally `= normalize BODY`
// for rows given as counts or weights.
type Dist struct {
	Pos       lexer.Position
	Child     *Name   `parser:"'P':Ident '(':Punct @@"`
	Parents   []*Name `parser:"( '|':Punct @@ ( ',':Punct @@ )* )? ')':Punct '=':Punct"`
	Normalize bool    `parser:"@'normalize':Ident?"`
	Body      *Body   `parser:"@@"`
}

// Body is the right-hand side of a Dist: one number (bool shorthand for
// P(X=true)), a vector of probabilities in state order, or rows named by
// parent states.
type Body struct {
	Pos    lexer.Position
	Value  *Value `parser:"(  @@"`
	Rows   []*Row `parser:" | '{':Punct @@* '}':Punct )"`
	EndPos lexer.Position
}

// Value is a number or a vector.
type Value struct {
	Pos    lexer.Position
	Number *string  `parser:"(  @Number"`
	Vector []string `parser:" | '[':Punct @Number ( ',':Punct @Number )* ']':Punct )"`
}

// Row is one row of a CPT: the parents' states, then the child's
// distribution, optionally followed by a comma or semicolon.
type Row struct {
	Pos    lexer.Position
	States []*Name `parser:"@@ ( ',':Punct @@ )* ':':Punct"`
	Value  *Value  `parser:"@@ ( ',':Punct | ';':Punct )?"`
}

// QueryStmt is `query Q`.
type QueryStmt struct {
	Pos   lexer.Position
	Query *Query `parser:"'query':Ident @@"`
}

// Query is KEYWORD(TERMS | TERMS), e.g. P(Campfire | Storm=true),
// MPE(Thunder=true), indep(A, B | C).
type Query struct {
	Pos     lexer.Position
	Kind    string  `parser:"@( 'P':Ident | 'MPE':Ident | 'MAP':Ident | 'ML':Ident | 'MDL':Ident | 'indep':Ident | 'density':Ident ) '(':Punct"`
	Targets []*Term `parser:"( @@ ( ',':Punct @@ )* )?"`
	Bar     bool    `parser:"( @'|':Punct"`
	Given   []*Term `parser:"  @@ ( ',':Punct @@ )* )? ')':Punct"`
	EndPos  lexer.Position
}

// Term is one item of a query: `*`, a group `{A, B}` (for indep), or a
// name with an optional state, `X` or `X=x`.
type Term struct {
	Pos   lexer.Position
	Star  bool    `parser:"(  @'*':Punct"`
	Group []*Name `parser:" | '{':Punct @@ ( ',':Punct @@ )* '}':Punct"`
	Name  *Name   `parser:" | @@"`
	State *Name   `parser:"   ( '=':Punct @@ )? )"`
}

// Expect is `expect QUERY == VALUE [within TOL]`: a regression check
// that prints nothing when it holds.
type Expect struct {
	Pos    lexer.Position
	Query  *Query       `parser:"'expect':Ident @@ '==':Punct"`
	Value  *ExpectValue `parser:"@@"`
	Within *string      `parser:"( 'within':Ident @Number )?"`
}

// ExpectValue is what an expectation compares with: a number, a vector
// (the rows of a table, in order), an assignment {X: x, ...} (MPE, MAP)
// or true/false (indep).
type ExpectValue struct {
	Pos    lexer.Position
	Number *string    `parser:"(  @Number"`
	Vector []string   `parser:" | '[':Punct @Number ( ',':Punct @Number )* ']':Punct"`
	Assign []*Binding `parser:" | '{':Punct @@ ( ',':Punct @@ )* '}':Punct"`
	Bool   *string    `parser:" | @( 'true':Ident | 'false':Ident ) )"`
}

// Binding is `X: x` in an expected assignment.
type Binding struct {
	Pos   lexer.Position
	Name  *Name `parser:"@@ ':':Punct"`
	State *Name `parser:"@@"`
}

func (*Import) stmt()    {}
func (*Expect) stmt()    {}
func (*VarDecl) stmt()   {}
func (*Edges) stmt()     {}
func (*Dist) stmt()      {}
func (*QueryStmt) stmt() {}
