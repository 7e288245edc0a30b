package ir

// Node is anything with a source position.
type Node interface{ Position() Pos }

// Stmt is a statement of a model file. The set of statements is closed.
type Stmt interface {
	Node
	stmt()
}

// QueryStmt is `query Q`: answer Q and print the result.
type QueryStmt struct {
	Pos   Pos
	Query Query
}

func (s *QueryStmt) Position() Pos { return s.Pos }
func (*QueryStmt) stmt()           {}

// Obs is an observed state of a variable.
type Obs struct {
	Var   VarID
	State int
}

// RealObs is an observed value of a real-valued variable.
type RealObs struct {
	Var   VarID
	Value float64
}

// Query is a validated query, one type per kind of question:
// [*ProbQuery], [*MPEQuery], [*MAPQuery], [*IndepQuery], [*DensityQuery],
// [*MLQuery], [*MDLQuery], [*GibbsQuery], [*EntropyQuery], [*MIQuery], [*DecisionQuery], [*CausalQuery]. The
// set is closed (as go/ast's nodes): a consumer switches once on the type,
// with a default that panics; docs/design.md lists the consumers.
type Query interface {
	Node
	// Head returns what every query has: its position, text and the
	// variables it names.
	Head() *QueryHeader
	// Conds returns the query's conditions (evidence, real values,
	// do(...), likelihood evidence, free variables), or nil for the kinds
	// that have none (indep, and the queries about hypotheses given data
	// ML, MDL and Gibbs).
	Conds() *Conditions
	query()
}

// QueryHeader is what every query has.
type QueryHeader struct {
	Pos      Pos
	Text     string    // canonical text, e.g. "P(Campfire | Storm=true)"
	Bar      bool      // the query was written with a bar (|)
	Mentions []Mention // every variable named, in the order written, for messages
}

func (h *QueryHeader) Head() *QueryHeader { return h }
func (h *QueryHeader) Position() Pos      { return h.Pos }

// Conditions are what a query is asked given, in the order written.
type Conditions struct {
	Free     []VarID   // free conditioning variables (P only): one result row group per configuration
	Evidence []Obs     // observed variables
	Real     []RealObs // observed real-valued variables
	Do       []Obs     // interventions do(X=x): answered on m.WithDo(Do), with Do as evidence; or nil
	Soft     []SoftObs // likelihood evidence X~[l1, l2, ...]; or nil
	DoReal   []RealObs // do(X=2.5) on real-valued variables: X set to the value and cut from its parents; or nil
}

func (c *Conditions) Conds() *Conditions { return c }

// ProbQuery is P(...): a table P(X, Y | Z, e), one number P(X=x | e), the
// probability of evidence P(e) (a query written with states for every
// variable and no bar, P(A=a, B=b), is lowered with no targets and its
// observations in Evidence), or every unobserved variable's marginal,
// P(* | e) (Star). With Hyp set it is about hypotheses given data, and
// the other fields are unset.
type ProbQuery struct {
	QueryHeader
	Conditions
	// The query variables, in the order written; TargetStates[i] is the
	// state asked for, or -1 when Targets[i] is free; either all are free
	// or none is.
	Targets      []VarID
	TargetStates []int
	Star         bool
	Hyp          *HypQuery
}

// MPEQuery is MPE(e): the most probable assignment of all unobserved
// variables.
type MPEQuery struct {
	QueryHeader
	Conditions
}

// MAPQuery is MAP(X, Y | e): the most probable assignment of Targets. With
// Hyp set it is about hypotheses given data, and the other fields are
// unset.
type MAPQuery struct {
	QueryHeader
	Conditions
	Targets []VarID
	Hyp     *HypQuery
}

// IndepQuery is indep(A, B | C): is every variable of A d-separated from
// every variable of B given C?
type IndepQuery struct {
	QueryHeader
	A, B, C []VarID
}

// DensityQuery is density(x=1.3, y=-0.2 | e): the density of Values, in
// the order written.
type DensityQuery struct {
	QueryHeader
	Conditions
	Values []RealObs
}

// MLQuery is ML(H | D): the maximum likelihood hypothesis.
type MLQuery struct {
	QueryHeader
	Hyp *HypQuery
}

// MDLQuery is MDL(H | D): the minimum description length hypothesis.
type MDLQuery struct {
	QueryHeader
	Hyp *HypQuery
}

// GibbsQuery is Gibbs(H | D): a hypothesis drawn from the posterior.
type GibbsQuery struct {
	QueryHeader
	Hyp *HypQuery
}

// EntropyQuery is entropy(X, Y | e): the joint entropy of Vars given e,
// in bits.
type EntropyQuery struct {
	QueryHeader
	Conditions
	Vars []VarID
}

// MIQuery is MI(A, B | e): the mutual information of the groups A and B
// given e, in bits.
type MIQuery struct {
	QueryHeader
	Conditions
	A, B []VarID
}

func (*IndepQuery) Conds() *Conditions { return nil }
func (*MLQuery) Conds() *Conditions    { return nil }
func (*MDLQuery) Conds() *Conditions   { return nil }
func (*GibbsQuery) Conds() *Conditions { return nil }

func (*ProbQuery) query()    {}
func (*MPEQuery) query()     {}
func (*MAPQuery) query()     {}
func (*IndepQuery) query()   {}
func (*DensityQuery) query() {}
func (*MLQuery) query()      {}
func (*MDLQuery) query()     {}
func (*GibbsQuery) query()   {}
func (*EntropyQuery) query() {}
func (*MIQuery) query()      {}

// Mention is a variable named in a query, and where.
type Mention struct {
	Var VarID
	Pos Pos
}

// DefaultTolerance is the tolerance of an expect statement without within.
const DefaultTolerance = 1e-9

// ExpectStmt is `expect Q == V [within TOL]`: a regression check that
// prints nothing when it holds.
type ExpectStmt struct {
	Pos   Pos
	Query Query
	Want  Expected
	Tol   float64 // absolute tolerance on every number
}

func (s *ExpectStmt) Position() Pos { return s.Pos }
func (*ExpectStmt) stmt()           {}

// ExpectKind says which kind of value an expectation compares with.
type ExpectKind int

const (
	ExpectNumber ExpectKind = iota // P(X=x | e), P(e)
	ExpectVector                   // the rows of a table, or every marginal of P(*), in printed order
	ExpectAssign                   // MPE, MAP
	ExpectBool                     // indep
)

// Expected is the value an expectation compares with.
type Expected struct {
	Pos     Pos
	Kind    ExpectKind
	Text    string    // as written, for messages
	Numbers []float64 // ExpectNumber: one; ExpectVector: all
	Assign  []Obs     // ExpectAssign, in the order written
	Hyp     []Given   // ExpectAssign of a hypothesis query: each component's value, as written
	Bool    bool      // ExpectBool
}
