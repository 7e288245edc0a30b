package approx

import (
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// Problem is a discrete model: the product of Factors over variables
// 0..len(Card)-1, with evidence. Algorithms do not modify it or its
// factors; any number of them may share one Problem.
type Problem struct {
	// Card[v] is the number of states of variable v; 0 for a variable
	// that takes no part (a real variable, or one left out).
	Card []int
	// Factors' product is the unnormalised joint distribution (for a
	// Bayesian network, the CPTs' product, normalised). They are not
	// restricted to the evidence: algorithms apply Obs themselves.
	Factors []*factor.Factor
	// Obs[v] is the observed state of v, or -1; len(Obs) == len(Card).
	Obs []int
	// Likelihood holds extra factors of evidence (soft evidence, the
	// likelihood of real-valued readings), multiplied in like Factors;
	// nil when there are none.
	Likelihood []*factor.Factor
	// BN describes a Bayesian network's structure, which the samplers
	// that draw in topological order need; nil for a Markov network.
	BN *Network
}

// Network is the structure of a Bayesian network among a Problem's
// factors.
type Network struct {
	// Order lists the variables of the problem in a topological order
	// (parents first).
	Order []factor.Var
	// CPT[v] is the index in Problem.Factors of v's conditional table
	// P(v | parents): a factor whose scope is v's parents and v, whose
	// entries sum to 1 over v for every configuration of the parents;
	// -1 for a variable that takes no part.
	CPT []int
}

// Settings bound and steer an algorithm. The zero value is usable: each
// algorithm documents its defaults.
type Settings struct {
	// Seed makes the samplers' numbers reproducible: the same seed, the
	// same numbers, on any number of cores.
	Seed uint64
	// Deadline, if not zero, is when the algorithm stops and returns its
	// best answer (with Result.Stopped). Anytime algorithms use the time
	// they are given; the others stop early when they converge.
	Deadline time.Time
	// Cancel, when closed, stops the algorithm as Deadline does.
	Cancel <-chan struct{}
	// Workers is how many goroutines an algorithm may run; 0 means 1.
	// It never changes the numbers.
	Workers int
	// MaxMemory bounds the memory an algorithm allocates for its tables,
	// in bytes (clusters, mini-buckets); 0 means no bound beyond the
	// algorithm's own default.
	MaxMemory int64

	// IBound is the largest number of variables in a cluster or
	// mini-bucket (ijgp, wmb); 0 means the algorithm's default (it grows
	// the bound while time remains).
	IBound int
	// Samples is the number of samples (is, lw) or sweeps per chain
	// (gibbs); 0 means until Deadline, or the algorithm's default when
	// there is no deadline.
	Samples int
	// Chains is Gibbs sampling's number of chains; 0 means 4.
	Chains int
	// Damping is belief propagation's damping in [0, 1): the weight of
	// the old message; 0 means the default 0.5, a negative value none.
	Damping float64
	// Tolerance is the largest change of a message (propagation) at
	// which an algorithm stops as converged; 0 means 1e-8.
	Tolerance float64
	// MaxIter bounds the iterations of propagation; 0 means 1000.
	MaxIter int
	// Init, if not nil, gives starting marginals (Init[v][s]), as LBP's
	// beliefs, for an adaptive importance sampler's first proposal or
	// a local search's starting point.
	Init [][]float64
}

// Result is an algorithm's answer.
type Result struct {
	// Marg[v][s] is the estimate of P(v = s | evidence) for every
	// variable with Card[v] > 0 (observed ones a point mass); nil for
	// the others. Each row sums to 1 and lies in [0, 1].
	Marg [][]float64
	// Err[v][s] is the estimated absolute error of Marg[v][s]: for the
	// samplers a ~95 % half-width (2.5 standard errors of the estimate,
	// or more: the exact value lies within it at least 95 % of the
	// time), or a residual or bound (propagation). Never NaN; +Inf when
	// the algorithm cannot say.
	Err [][]float64
	// LogZ estimates ln Z, Z the sum of the factors' product over the
	// assignments consistent with the evidence (for a Bayesian network,
	// ln P(e)); -Inf when the evidence is found impossible.
	LogZ float64
	// LogZErr is the estimated absolute error of LogZ (for the samplers
	// a ~95 % half-width, 2.5 standard errors of the log estimate; or
	// half the width of a bound).
	LogZErr float64
	// LogZLo and LogZHi bound ln Z where the method gives bounds
	// (wmb gives the upper one, and the lower where it can); -Inf and
	// +Inf where it does not.
	LogZLo, LogZHi float64
	// Engine names the algorithm ("lbp", "ijgp", "is", "lw", "gibbs",
	// "wmb", "local").
	Engine string
	// Iterations (propagation), samples (is, lw) or sweeps per chain
	// (gibbs) done.
	Iterations int
	// Converged reports whether propagation met its tolerance, or the
	// samplers' chains mixed (R-hat below 1.1).
	Converged bool
	// RHat is the largest potential scale reduction factor over the
	// marginals (gibbs), 0 otherwise.
	RHat float64
	// IBound is the i-bound the answer was computed with (ijgp, wmb).
	IBound int
	// Stopped reports that the algorithm stopped at the deadline or was
	// canceled, and returns its best answer so far.
	Stopped bool
	// Assign is the best assignment found (local search for MPE: one
	// state per variable, the evidence included; -1 for variables that
	// take no part), with its log value LogMax (ln of the factors'
	// product at Assign); nil for the other algorithms.
	Assign []int
	LogMax float64
}
