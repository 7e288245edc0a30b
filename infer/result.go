package infer

import "github.com/pbl-lang/pbl/ir"

// Result is the answer to a query. The set of results is closed: it is one
// of [*Table], [*Number], [*Evidence], [*Assignment], [*Marginals],
// [*Independence], [*Density], [*Bits] and [*Normals], each with the
// common [Header].
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

// Header is what every result has: the query it answers, how exact its
// numbers are, and which engine gave them and why.
type Header struct {
	Query ir.Query

	// Exact reports whether the numbers are exact (up to floating-point
	// rounding): false when an approximate engine answered (see
	// docs/approximate.md).
	Exact bool
	// ErrorEstimate holds, for an inexact result, an estimate of the
	// absolute error of each of its numbers, in the order the result
	// prints them (a table's rows, the marginals' states, the one number
	// of the others: P of a Number, an Evidence or an Assignment, a
	// Bits' bits); nil when Exact. An entry is a standard error
	// (samplers) or a residual or bound (propagation), propagated
	// through the normalisations the answer made; +Inf where the engine
	// cannot say.
	ErrorEstimate []float64
	// Engine names the approximate engine that answered (a registered
	// engine's name: "is", "ijgp", ...); "" for an exact answer.
	Engine string
	// Why says why the Auto engine answered approximately (the exact
	// plan's needs against the limits), or that the caller chose the
	// engine; nil for an exact answer.
	Why *Why
	// Stopped reports that the approximate engine was stopped (the time
	// limit, or Options.Cancel) and the numbers are its best so far.
	Stopped bool
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

	// For an inexact answer (Header.Exact false): the estimated absolute
	// error of LogP, and bounds on ln P(e) where the engine gives them
	// (weighted mini-buckets), −Inf and +Inf (or LogPHi 0) where it does
	// not. All three are 0 for an exact answer.
	LogPErr        float64
	LogPLo, LogPHi float64

	// For an inexact answer: the estimated absolute error of LogZ and
	// bounds on it (−Inf and +Inf where the engine gives none); all three
	// 0 for an exact answer. On a Bayesian network they are LogP's (but
	// for LogPHi's cap at 0); on a Markov network LogP's error adds that
	// of the partition function.
	LogZErr        float64
	LogZLo, LogZHi float64
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

// Normals answers P(X, Y | e) for real-valued X, Y: their posterior, a
// normal distribution, or a mixture of normals with one component per
// configuration of the discrete parents of the real variables that the
// query reaches (clg.go), those of weight 0 left out.
//
// With Moments, the posterior is neither (a model where a discrete
// variable has a real parent, hybrid.go): its one component holds the
// posterior means and covariance that an approximate engine estimated,
// not a normal's; the errors (Header.ErrorEstimate) are, per variable,
// its mean's and its standard deviation's.
type Normals struct {
	Header
	Vars       []ir.VarID        // the target variables
	Components []NormalComponent // the weights sum to 1; one, of weight 1 and no Given, for a normal
	Moments    bool              // the component is the posterior's moments, not its shape
}

// NormalComponent is one normal of a [Normals] posterior.
type NormalComponent struct {
	Weight float64   // its probability given the evidence, in [0, 1]
	Given  []ir.Obs  // the configuration of discrete variables it is the posterior given; nil for a single normal
	Mean   []float64 // the means of Normals.Vars
	Cov    []float64 // their covariance, len(Vars)² row-major
}

// Mean returns the posterior mean of the variables.
func (r *Normals) Mean() []float64 {
	mean := make([]float64, len(r.Vars))
	for _, c := range r.Components {
		for i, x := range c.Mean {
			mean[i] += c.Weight * x
		}
	}
	return mean
}

// Cov returns the posterior covariance of the variables, row-major: the
// mixture's, Σ w (Cov + (μ−m)(μ−m)ᵀ) with m the mean.
func (r *Normals) Cov() []float64 {
	n := len(r.Vars)
	mean := r.Mean()
	cov := make([]float64, n*n)
	for _, c := range r.Components {
		for i := range n {
			for j := range n {
				cov[i*n+j] += c.Weight * (c.Cov[i*n+j] + (c.Mean[i]-mean[i])*(c.Mean[j]-mean[j]))
			}
		}
	}
	return cov
}

func (*Table) result()        {}
func (*Number) result()       {}
func (*Evidence) result()     {}
func (*Assignment) result()   {}
func (*Marginals) result()    {}
func (*Independence) result() {}
func (*Density) result()      {}
func (*Bits) result()         {}
func (*Normals) result()      {}

// exact returns the header of an exact answer to q. An approximate answer
// is marked by its answerer (answer.go's approximate).
func exact(q *query) Header { return Header{Query: q.orig, Exact: true} }
