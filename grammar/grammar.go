package grammar

import "strconv"

// File is a whole .pbl source file: a sequence of statements.
type File struct {
	Pos   Position
	Stmts []Stmt `parser:"@@*"`

	// Lazy is set in a tree made by parser.ParseLean: the file's variable
	// declarations and distributions, which are then not in Stmts, kept by
	// position only. (Untagged: participle ignores it.)
	Lazy *LazyStmts

	// Indexed is set by package parser when a name of the file carries a
	// time index (X[t], X[t-1], X[3]): the file declares or names a
	// time-indexed model, which the lowering unrolls. (Untagged.)
	Indexed bool
}

// Stmt is a top-level statement. The set is closed; see [Parser] for the
// union.
type Stmt interface{ stmt() }

// Import is `import "other.pbl"`.
type Import struct {
	Pos  Position
	Path string `parser:"'import':Ident @String"`
}

// VarDecl is `var A, B: TYPE`.
type VarDecl struct {
	Pos   Position
	Names []*Name `parser:"'var':Ident @@ ( ',':Punct @@ )*"`
	Type  *Type   `parser:"':':Punct @@"`
}

// Type is a variable's domain: bool, real, a set of named states, or an
// integer range lo..hi.
type Type struct {
	Pos    Position
	Bool   bool    `parser:"(  @'bool':Ident"`
	Real   bool    `parser:" | @'real':Ident"`
	States []*Name `parser:" | '{':Punct @@ ( ',':Punct @@ )* '}':Punct"`
	Lo     *string `parser:" | @Number '..':Punct"`
	Hi     *string `parser:"   @Number )"`
}

// Name is a variable or state name: an identifier, a quoted string, or an
// integer (for integer-like states), with a time index after a
// time-indexed variable's name (Weather[t], Weather[t-1], Weather[3]).
type Name struct {
	Pos    Position
	Ident  string `parser:"(  @Ident"`
	Quoted string `parser:" | @String"`
	Number string `parser:" | @Number )"`
	Index  *Index `parser:"@@?"`
}

// Text returns the name as the user means it, with its index in its
// canonical form: Weather[t-1], Weather[3].
func (n *Name) Text() string {
	if n.Index != nil {
		return n.Base() + "[" + n.Index.Text() + "]"
	}
	return n.Base()
}

// Base returns the name without its index.
func (n *Name) Base() string {
	switch {
	case n.Ident != "":
		return n.Ident
	case n.Number != "":
		return n.Number
	}
	return n.Quoted
}

// Index is the time index after a variable's name: a slice of the
// two-slice template, t or t-k (Var "t", Lag "-k"), or a fixed slice, 3
// (Slice "3"). The syntax takes any identifier and a signed lag (t+1
// parses), so that the lowering can say what is wrong with it.
type Index struct {
	Pos   Position
	Slice string `parser:"'[':Punct ( @Number"`
	Var   string `parser:"  | @Ident"`
	Lag   string `parser:"    ( @Number | @( '-':Punct | '+':Punct ) @Number )? ) ']':Punct"`
}

// Text returns the index as written between its brackets, canonically:
// "t", "t-1", "3".
func (x *Index) Text() string {
	if x.Var == "" {
		if n, err := strconv.Atoi(x.Slice); err == nil && n >= 0 {
			return strconv.Itoa(n) // 03 is slice 3
		}
		return x.Slice
	}
	return x.Var + x.Lag
}

// Edges is a chain of edge lists, `A, B -> C -> D, E`: every name of one
// list is a parent of every name of the next; or a bidirected edge list,
// `A <-> B, C` (Lists holds A's list alone and Bidirected the other):
// every name of one side shares an unobserved confounder with every name
// of the other.
type Edges struct {
	Pos        Position
	Lists      []*NameList `parser:"@@ ( ( '->':Punct @@ )+"`
	Bidirected *NameList   `parser:"   | '<->':Punct @@ )"`
}

// NameList is a comma-separated list of names.
type NameList struct {
	Pos   Position
	Names []*Name `parser:"@@ ( ',':Punct @@ )*"`
}

// Dist is a distribution `P(X | A, B) = BODY` (a CPT, or a real variable's
// normal densities), optionally `= normalize BODY` for rows given as counts
// or weights, or the joint normal density of several real variables,
// `P(X, Y | A) = BODY`.
type Dist struct {
	Pos       Position
	Child     *Name   `parser:"'P':Ident '(':Punct @@"`
	More      []*Name `parser:"( ',':Punct @@ )*"`
	Parents   []*Name `parser:"( '|':Punct @@ ( ',':Punct @@ )* )? ')':Punct '=':Punct"`
	Normalize bool    `parser:"@'normalize':Ident?"`
	Body      *Body   `parser:"@@"`
}

// Body is the right-hand side of a Dist: one number (bool shorthand for
// P(X=true)), a vector of probabilities in state order, rows named by
// parent states, or a compact table: noisy_or(...) or noisy_max(...), a
// lookup { ... } of the child's state by the parents' states, or a
// logical formula of the parents (A and not B).
type Body struct {
	Pos    Position
	Value  *Value  `parser:"(  @@"`
	Rows   []*Row  `parser:" | '{':Punct @@* '}':Punct"`
	Noisy  *Noisy  `parser:" | @@"`
	Lookup *Lookup `parser:" | @@"`
	Logic  *Logic  `parser:" | @@ )"`
	EndPos Position
}

// Noisy is noisy_or(PARENT: LINK, ..., leak: LINK) or
// noisy_max(PARENT: LINK, ..., leak: LINK): one link per parent, and an
// optional leak (the entry named by the bare word leak).
type Noisy struct {
	Pos   Position
	Kind  string  `parser:"@( 'noisy_or':Ident | 'noisy_max':Ident ) '(':Punct"`
	Links []*Link `parser:"@@ ( ',':Punct @@ )* ')':Punct"`
}

// Link is `PARENT: VALUE` in a noisy table, the effect of the parent's
// active state (true), or `PARENT: { state: VALUE ... }`, the effect of
// each active state; VALUE is a probability (noisy_or) or a distribution
// of the child (noisy_max).
type Link struct {
	Pos   Position
	Name  *Name  `parser:"@@ ':':Punct"`
	Value *Value `parser:"(  @@"`
	Rows  []*Row `parser:" | '{':Punct @@* '}':Punct )"`
}

// Lookup is `lookup { a1, b1: s  ...  else: s }`: a deterministic table
// giving the child's state for each configuration of the parents, with an
// optional default row.
type Lookup struct {
	Pos   Position
	Cases []*Case `parser:"'lookup':Ident '{':Punct @@* '}':Punct"`
}

// Case is one row of a lookup: the parents' states (or else), then the
// child's state, optionally followed by a comma or semicolon.
type Case struct {
	Pos    Position
	Else   bool    `parser:"(  @'else':Ident"`
	States []*Name `parser:" | @@ ( ',':Punct @@ )* ) ':':Punct"`
	State  *Name   `parser:"@@ ( ',':Punct | ';':Punct )?"`
}

// Logic is a deterministic bool child written as a logical formula of its
// parents: terms joined by or, which bind looser than and, which bind
// looser than not.
type Logic struct {
	Pos   Position
	Terms []*Conj `parser:"@@ ( 'or':Ident @@ )*"`
}

// Conj is literals joined by and.
type Conj struct {
	Pos      Position
	Literals []*Literal `parser:"@@ ( 'and':Ident @@ )*"`
}

// Literal is `not LITERAL`, a parenthesised formula, a bool parent (true
// when the parent is), `A = s` (A is in state s), or `A == B`, `A != B`
// (two parents are, or are not, in states of the same name; when no
// parent is named B, A is, or is not, in state B).
type Literal struct {
	Pos   Position
	Not   *Literal `parser:"(  'not':Ident @@"`
	Paren *Logic   `parser:" | '(':Punct @@ ')':Punct"`
	Var   *Name    `parser:" | @@"`
	Op    string   `parser:"   ( @( '=':Punct | '==':Punct | '!=':Punct )"`
	Right *Name    `parser:"     @@ )? )"`
}

// Value is a number, a vector, a normal density normal(MEAN, SD) for a
// real-valued variable, or logistic(...) / softmax(...) for a discrete
// variable with real-valued parents.
type Value struct {
	Pos     Position
	Number  *string  `parser:"(  @Number"`
	Vector  []string `parser:" | '[':Punct @Number ( ',':Punct @Number )* ']':Punct"`
	Normal  *Normal  `parser:" | @@"`
	Softmax *Softmax `parser:" | @@ )"`
}

// Softmax is the distribution of a discrete variable given real-valued
// parents: logistic(A) for a child of two states, A the log-odds of its
// first state (true for a bool), or softmax(A1, ..., Ak) for a child of
// k states, P(state i) ∝ exp(Ai). Each argument is affine in the real
// parents (the IR checks it), as a linear Gaussian density's mean is.
type Softmax struct {
	Pos  Position
	Fn   string  `parser:"@( 'logistic':Ident | 'softmax':Ident ) '(':Punct"`
	Args []*Expr `parser:"@@ ( ',':Punct @@ )* ')':Punct"`
}

// Normal is a normal density: normal(MEAN, SD) for one variable, with
// that mean and standard deviation; normal([MEANS], COV) for several, COV
// being their covariance matrix [[...], ...], its diagonal [v1, v2, ...]
// (independent variables), or one variance v (the same for each,
// independent). The spread may be named, to say which it is:
// normal(0, sd = 2), normal(0, var = 4), normal([0, 1], cov = [[...]]).
//
// The mean of one variable may be an expression, affine in the real
// parents: normal(1.5 + 2 * X, 0.3) (a linear Gaussian density). A mean
// that is a number or a list is Mean; anything else is Linear (the IR
// checks that it is affine).
type Normal struct {
	Pos    Position
	Mean   *Array   `parser:"'normal':Ident '(':Punct ( @@ (?= ',':Punct )"`
	Linear *Expr    `parser:"                          | @@ ) ',':Punct"`
	Named  *ArgName `parser:"@@?"`
	Spread *Array   `parser:"@@ ')':Punct"`
}

// ArgName is `NAME =` before an argument that is named: sd, var or cov
// in normal(0, sd = 2) (the IR checks the name).
type ArgName struct {
	Pos  Position
	Name string `parser:"@Ident '=':Punct"`
}

// Array is a number, or a bracketed list of arrays: 1.5, [1, 2],
// [[1, 0], [0, 1]].
type Array struct {
	Pos    Position
	Number *string  `parser:"(  @Number"`
	Items  []*Array `parser:" | '[':Punct @@ ( ',':Punct @@ )* ']':Punct )"`
}

// Mixture is `mixture C of X, Y [(NAME = VALUE, ...)]`: the real variables
// X, Y have a joint normal density given the discrete variable C (one
// component per state of C), whose numbers are to be learned. Options:
// covariance = full|diag|spherical|tied, variance = V (known and shared:
// only the means are learned).
type Mixture struct {
	Pos       Position
	Component *Name     `parser:"'mixture':Ident @@ 'of':Ident"`
	Vars      []*Name   `parser:"@@ ( ',':Punct @@ )*"`
	Options   []*Option `parser:"( '(':Punct ( @@ ( ',':Punct @@ )* )? ')':Punct )?"`
}

// Row is one row of a CPT: the parents' states, then the child's
// distribution, optionally followed by a comma or semicolon.
type Row struct {
	Pos    Position
	States []*Name `parser:"@@ ( ',':Punct @@ )* ':':Punct"`
	Value  *Value  `parser:"@@ ( ',':Punct | ';':Punct )?"`
}

// Decision is `decision D: TYPE`: a decision variable of an influence
// diagram, whose state is chosen. Its parents (edges into it) are what is
// known when it is taken; it has no distribution.
type Decision struct {
	Pos  Position
	Name *Name `parser:"'decision':Ident @@"`
	Type *Type `parser:"':':Punct @@"`
}

// Utility is `utility U(A, B) = { a1, b1: 80  a1, b2: -20 ... }`: a
// utility table over its parents, one number per configuration, written
// as the rows of a CPT are. A utility is not a variable: it has no
// states and no children; the total utility is the sum of the tables.
type Utility struct {
	Pos     Position
	Name    *Name   `parser:"'utility':Ident @@ '(':Punct"`
	Parents []*Name `parser:"@@ ( ',':Punct @@ )* ')':Punct '=':Punct"`
	Rows    []*Row  `parser:"'{':Punct @@* '}':Punct"`
}

// Latent is `latent U, V: TYPE`: variables that are not observed, with or
// without a distribution (an unobserved confounder, or an exogenous
// variable of a structural model). Without a type (`latent U`), Type is
// nil and the variables are bool.
type Latent struct {
	Pos   Position
	Names []*Name `parser:"'latent':Ident @@ ( ',':Punct @@ )*"`
	Type  *Type   `parser:"( ':':Punct @@ )?"`
}

// Observed is `observed "obs.bif"` (a Bayesian network over exactly the
// observed variables) or `observed data "obs.csv"` (the empirical joint of
// the observed columns): where the distribution of the observed variables
// comes from when the latent part of a causal model has no tables.
type Observed struct {
	Pos  Position
	Data bool   `parser:"'observed':Ident @'data':Ident?"`
	Path string `parser:"@String"`
}

// QueryStmt is `query Q`.
type QueryStmt struct {
	Pos   Position
	Query *Query `parser:"'query':Ident @@"`
}

// Query is KEYWORD(TERMS | TERMS), e.g. P(Campfire | Storm=true),
// MPE(Thunder=true), indep(A, B | C), and the decision queries MEU(),
// policy(D), EU(D=d | A=a), and the causal queries identify(Y | do(X)),
// adjust(X, Y) and CF(Y=y | do(X=x), e).
type Query struct {
	Pos     Position
	Kind    string  `parser:"@( 'P':Ident | 'MPE':Ident | 'MAP':Ident | 'ML':Ident | 'MDL':Ident | 'Gibbs':Ident | 'indep':Ident | 'density':Ident | 'entropy':Ident | 'MI':Ident | 'MEU':Ident | 'policy':Ident | 'EU':Ident | 'identify':Ident | 'adjust':Ident | 'CF':Ident ) '(':Punct"`
	Targets []*Term `parser:"( @@ ( ',':Punct @@ )* )?"`
	Bar     bool    `parser:"( @'|':Punct"`
	Given   []*Term `parser:"  @@ ( ',':Punct @@ )* )? ')':Punct"`
	EndPos  Position
}

// Term is one item of a query: `*`, a group `{A, B}` (for indep), an
// intervention `do(X=x)` (Do is the term inside the parentheses), or a
// name with an optional state, `X` or `X=x`, or with likelihood evidence,
// `X~[0.8, 0.2]` (Soft holds the numbers as names, for their positions;
// the IR checks that they are numbers).
type Term struct {
	Pos   Position
	Star  bool    `parser:"(  @'*':Punct"`
	Group []*Name `parser:" | '{':Punct @@ ( ',':Punct @@ )* '}':Punct"`
	Do    *Term   `parser:" | 'do':Ident '(':Punct @@ ')':Punct"`
	Name  *Name   `parser:" | @@"`
	State *Name   `parser:"   ( '=':Punct @@"`
	Soft  []*Name `parser:"   | '~':Punct '[':Punct @@ ( ',':Punct @@ )* ']':Punct )? )"`
}

// Expect is `expect QUERY == VALUE [within TOL]`: a regression check
// that prints nothing when it holds. Within is TOL, or nil.
type Expect struct {
	Pos    Position
	Query  *Query       `parser:"'expect':Ident @@ '==':Punct"`
	Value  *ExpectValue `parser:"@@"`
	Within *Tolerance   `parser:"( 'within':Ident @@ )?"`
}

// Tolerance is an expectation's tolerance: a number as written.
type Tolerance struct {
	Pos   Position
	Value string `parser:"@Number"`
}

// ExpectValue is what an expectation compares with: a number, a vector
// (the rows of a table, in order), an assignment {X: x, ...} (MPE, MAP)
// or true/false (indep).
type ExpectValue struct {
	Pos    Position
	Number *string    `parser:"(  @Number"`
	Vector []string   `parser:" | '[':Punct @Number ( ',':Punct @Number )* ']':Punct"`
	Assign []*Binding `parser:" | '{':Punct @@ ( ',':Punct @@ )* '}':Punct"`
	Bool   *string    `parser:" | @( 'true':Ident | 'false':Ident ) )"`
}

// Binding is `X: x` in an expected assignment.
type Binding struct {
	Pos   Position
	Name  *Name `parser:"@@ ':':Punct"`
	State *Name `parser:"@@"`
}

// Classifier is `naive_bayes C given A1, A2, ...` or `tan C given ...`: the
// structure of a naive Bayes or tree-augmented naive Bayes classifier,
// whose parameters are learned from data. Undeclared variables take their
// states from the data.
type Classifier struct {
	Pos      Position
	Kind     string  `parser:"@( 'naive_bayes':Ident | 'tan':Ident )"`
	Class    *Name   `parser:"@@ 'given':Ident"`
	Features []*Name `parser:"@@ ( ',':Punct @@ )*"`
}

// Learn is `learn [X, Y] from DATA [with METHOD [(NAME = VALUE, ...)]]`:
// learn the CPTs of X, Y (default: every variable) from DATA, a CSV file
// (a quoted path) or an inline data table (its name).
type Learn struct {
	Pos     Position
	Vars    []*Name   `parser:"'learn':Ident ( (?! 'from':Ident ) @@ ( ',':Punct @@ )* )?"`
	File    *string   `parser:"'from':Ident ( @String"`
	Table   *Name     `parser:"            | @@ )"`
	Method  *string   `parser:"( 'with':Ident @Ident"`
	Options []*Option `parser:"  ( '(':Punct ( @@ ( ',':Punct @@ )* )? ')':Punct )? )?"`
}

// Option is `NAME = NUMBER` or `NAME = WORD` (init = random) in a learn
// statement's method.
type Option struct {
	Pos   Position
	Name  string `parser:"@Ident '=':Punct"`
	Value string `parser:"@( Number | Ident )"`
}

// Data is a named data set: a CSV file, `data D = "points.csv"`, or an
// inline table, a header of column names, then rows of cells (states or
// numbers), `?` for a missing cell. Newlines are not significant: each
// row has as many cells as the header.
type Data struct {
	Pos    Position
	Name   *Name    `parser:"'data':Ident @@ '=':Punct"`
	File   *string  `parser:"(  @String"`
	Header []*Name  `parser:" | '{':Punct @@ ( ',':Punct @@ )*"`
	Rows   []*Cells `parser:"    @@* '}':Punct )"`
}

// Cells is one row of a data table.
type Cells struct {
	Pos   Position
	Cells []*Cell `parser:"@@ ( ',':Punct @@ )*"`
}

// Cell is a state, or `?` for a missing value.
type Cell struct {
	Pos     Position
	Missing bool  `parser:"(  @'?':Punct"`
	State   *Name `parser:" | @@ )"`
}

func (*Import) stmt()     {}
func (*Classifier) stmt() {}
func (*Learn) stmt()      {}
func (*Mixture) stmt()    {}
func (*Data) stmt()       {}
func (*Space) stmt()      {}
func (*Expect) stmt()     {}
func (*VarDecl) stmt()    {}
func (*Edges) stmt()      {}
func (*Dist) stmt()       {}
func (*Decision) stmt()   {}
func (*Utility) stmt()    {}
func (*Latent) stmt()     {}
func (*Observed) stmt()   {}
func (*QueryStmt) stmt()  {}
