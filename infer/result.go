package infer

import "github.com/pbl-lang/pbl/ir"

// Result is the answer to a query. The set of results is closed: it is one
// of [*Table], [*Number], [*Evidence], [*Assignment], [*Marginals],
// [*Independence], [*Density] and [*Bits], each with the common [Header].
// A consumer switches on the type once (report, the root package's run.go
// and named.go, the REPL's bars, cmd/pbl's UAI tasks: docs/design.md lists
// them), with a default that panics: a new kind of result is one new type
// here and one case in each of those switches (repl's TestEveryResultKind
// fails until it has them).
type Result interface {
	// Head returns the part every result shares.
	Head() *Header
	result()
}

// Header is what every result has: the query it answers, and how exact
// its numbers are.
type Header struct {
	Query ir.Query

	// Exact reports whether the numbers are exact (up to floating-point
	// rounding). Every engine pbl has today is exact.
	Exact bool
	// ErrorEstimate holds, for an inexact result, an estimate of the
	// absolute error of each of its numbers, in the order the result
	// prints them (a table's rows, the marginals' states, the one number
	// of the others); nil when Exact.
	ErrorEstimate []float64
}

// Head returns h.
func (h *Header) Head() *Header { return h }

// Table answers P(X, Y | Z, e), and P(X=x | Z, e) with free given
// variables Z: one row per configuration of the given and target
// variables.
type Table struct {
	Header
	Vars    []ir.VarID // the target variables
	Given   []ir.VarID // the free conditioning variables (the query's Free), or nil
	Rows    []Row      // given configurations row-major (first given slowest), targets fastest
	Omitted int        // rows left out because their given configuration is impossible under e
}

// Number answers P(X=x | e): one probability.
type Number struct {
	Header
	Vars []ir.VarID // the target variables
	P    float64    // P(x | e), in [0, 1]
	LogP float64    // ln P, finite even where P would underflow
}

// Evidence answers P(e), the probability of the evidence.
type Evidence struct {
	Header
	P    float64 // P(e), in [0, 1]
	LogP float64 // ln P(e), finite even where P would underflow; −Inf when it is 0
	LogZ float64 // ln Σ_{x ⊨ e} Π φ(x), the partition function with the evidence (for a Bayesian network, ln P(e)); finite even where it under- or overflows float64, −Inf when it is 0
}

// Assignment answers MPE(e) and MAP(X, Y | e): the most probable
// assignment and its probability.
type Assignment struct {
	Header
	Assignment []ir.Obs // MPE: every unobserved variable in VarID order; MAP: the MAP variables in query order
	P          float64  // P(assignment | e), in [0, 1]
	LogP       float64  // ln P, finite even where P would underflow
}

// Marginals answers P(* | e): every unobserved discrete variable's
// marginal.
type Marginals struct {
	Header
	Marginals []Marginal // in VarID order
}

// Independence answers indep(A, B | C).
type Independence struct {
	Header
	Independent bool // A and B are d-separated given C
}

// Density answers density(x=1.3 | e).
type Density struct {
	Header
	Density    float64 // the density of the values given the conditions (0 where it underflows)
	LogDensity float64 // its natural log, finite where the density under- or overflows; −Inf when it is 0
}

// Bits answers entropy(X, Y | e) and MI(X, Y | e).
type Bits struct {
	Header
	Bits float64 // the entropy or mutual information given e, in bits (≥ 0)
}

func (*Table) result()        {}
func (*Number) result()       {}
func (*Evidence) result()     {}
func (*Assignment) result()   {}
func (*Marginals) result()    {}
func (*Independence) result() {}
func (*Density) result()      {}
func (*Bits) result()         {}

// exact returns the header of an exact answer to q: every engine pbl has
// today is exact.
func exact(q *query) Header { return Header{Query: q.orig, Exact: true} }
