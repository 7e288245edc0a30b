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
	Query *Query
}

func (s *QueryStmt) Position() Pos { return s.Pos }
func (*QueryStmt) stmt()           {}

// QueryKind says what a query asks for.
type QueryKind int

const (
	Prob    QueryKind = iota // P(...)
	MPE                      // MPE(e): the most probable assignment of all unobserved variables
	MAP                      // MAP(X, Y | e): the most probable assignment of X, Y
	Indep                    // indep(A, B | C): d-separation
	Density                  // density(x=1.3, y=-0.2 | e): the density of real values
	ML                       // ML(H | D): the maximum likelihood hypothesis
	MDL                      // MDL(H | D): the minimum description length hypothesis
	Gibbs                    // Gibbs(H | D): a hypothesis drawn from the posterior
	Entropy                  // entropy(X, Y | e): the joint entropy of X, Y given e, in bits
	MI                       // MI(X, Y | e): the mutual information of X and Y given e, in bits
)

func (k QueryKind) String() string {
	switch k {
	case Prob:
		return "P"
	case MPE:
		return "MPE"
	case MAP:
		return "MAP"
	case Indep:
		return "indep"
	case Density:
		return "density"
	case ML:
		return "ML"
	case MDL:
		return "MDL"
	case Gibbs:
		return "Gibbs"
	case Entropy:
		return "entropy"
	case MI:
		return "MI"
	}
	return "?"
}

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

// Query is a validated query. Its meaning depends on Kind and on which
// fields are set; [Query.Form] names the cases.
type Query struct {
	Pos  Pos
	Kind QueryKind
	Text string // canonical text, e.g. "P(Campfire | Storm=true)"

	// Prob, MAP: the query variables, in the order written. For Prob,
	// TargetStates[i] is the state asked for, or -1 when Targets[i] is free;
	// either all are free or none is. For MAP every entry is -1.
	Targets      []VarID
	TargetStates []int
	Star         bool // P(* | e): every unobserved variable's marginal

	Free     []VarID   // free conditioning variables: one result row group per configuration
	Evidence []Obs     // observed variables, in the order written
	Real     []RealObs // observed real-valued variables (evidence), in the order written
	Do       []Obs     // interventions do(X=x), in the order written: answered on m.WithDo(Do), with Do as evidence; or nil
	Soft     []SoftObs // likelihood evidence X~[l1, l2, ...], in the order written; or nil

	// Density: the real values whose density is asked for, in the order
	// written (the conditions are Real and Evidence).
	Values []RealObs

	// Indep: is every variable of A d-separated from every variable of B given C?
	// MI: A and B are the two groups whose mutual information is asked
	// for (Targets is A then B, every TargetStates entry -1); C is unset.
	// Entropy: Targets are the variables, every TargetStates entry -1.
	A, B, C []VarID

	// Hyp is set for a query about hypotheses given data (Prob, MAP, ML,
	// MDL, Gibbs); the fields above are then unset.
	Hyp *HypQuery

	Bar      bool      // the query was written with a bar (|)
	Mentions []Mention // every variable named, in the order written, for messages
}

// Mention is a variable named in a query, and where.
type Mention struct {
	Var VarID
	Pos Pos
}

func (q *Query) Position() Pos { return q.Pos }

// Form classifies a Prob query.
type Form int

const (
	FormTable     Form = iota // P(X, Y | Z, e): a table (the default)
	FormNumber                // P(X=x | e): one number
	FormEvidence              // P(e): the probability of the evidence
	FormMarginals             // P(* | e): every unobserved variable's marginal
)

// Form returns the form of a Prob query. A query written with states for
// every variable and no bar, P(A=a, B=b), is lowered with no targets and
// its observations in Evidence: it is the probability of evidence.
func (q *Query) Form() Form {
	switch {
	case q.Star:
		return FormMarginals
	case len(q.Targets) == 0:
		return FormEvidence
	case q.TargetStates[0] >= 0 && len(q.Free) == 0:
		return FormNumber
	}
	return FormTable
}

// DefaultTolerance is the tolerance of an expect statement without within.
const DefaultTolerance = 1e-9

// ExpectStmt is `expect Q == V [within TOL]`: a regression check that
// prints nothing when it holds.
type ExpectStmt struct {
	Pos   Pos
	Query *Query
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
