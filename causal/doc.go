// Package causal is the core of causal identification with unobserved
// confounders (issue 34): graphs in, estimands and their values out. It
// knows no model of pbl and imports only the standard library; the
// language (latent variables, bidirected edges, observed distributions)
// will stand on it, and pbl will pass it the observed distribution P(V)
// computed from a model or counted from data.
//
// # Graphs
//
// An [ADMG] (acyclic directed mixed graph) has observed variables, by
// index and name, directed edges (A -> B: A causes B) and bidirected
// edges (A <-> B: an unobserved confounder of A and B). [Build] checks
// names and acyclicity (a *[CycleError]); [Project] is the latent
// projection of a DAG with latent variables onto its observed ones. Sets
// of variables are bit sets ([Set]), so a graph has at most [MaxVars]
// variables (observed and latent together for Project).
//
// # Identification
//
// [ADMG.Identify] answers P(Y | do(X), Z): an [Estimand] — a tree of
// expressions ([Expr]: sums, products, ratios and terms P(A | B) of the
// observed distribution) whose String is the formula and whose Tree is
// the same expression as plain data for JSON ([Node]) — or a
// *[NotIdentifiableError] carrying the [Hedge] (two C-forests) that
// proves no formula exists. It prefers the backdoor adjustment (a minimal
// set of [ADMG.AdjustmentSets]) and then the front-door formula when they
// apply, and otherwise runs the ID algorithm of Shpitser and Pearl (2006),
// or IDC when Z is not empty: C-components (districts, Tian), ancestral
// sets and the seven lines of the recursion. Both are complete: a failure
// is a proof of non-identifiability.
//
// # Evaluation
//
// [Estimand.Eval] evaluates an estimand for given values of X, Y and Z
// on a [Joint]: a dense table of the observed distribution over every
// variable of the graph, in index order, row-major, with given
// cardinalities — the simplest honest interface; the caller computes it
// from a Bayesian network over the observed variables or counts it from
// data. A denominator that is zero where its numerator matters is an
// ErrPositivity error. An ID estimand may refer to a variable outside the
// query that ID intervened on because it does not affect Y (the napkin's
// W2); any value gives the same effect, the formula says "for any W2",
// and Eval uses state 0. Eval sums by enumeration, as the formula reads:
// its cost is the product of the summed variables' cardinalities at each
// level of nesting.
//
// # Counterfactuals
//
// An [SCM] is a structural model: exogenous variables with independent
// tables and endogenous variables that are deterministic functions of
// their parents ([NewSCM] checks shapes, ranges and acyclicity).
// [SCM.Counterfactual] answers P(query | evidence) where every [Event]
// holds in its own world — the factual one or one under an intervention
// — and all worlds share the exogenous states: abduction (weighting the
// exogenous states by the evidence), action and prediction, by
// enumerating the exogenous states (at most 2^24 of them). [SCM.Necessity],
// [SCM.Sufficiency] and [SCM.NecessityAndSufficiency] are the
// probabilities of causation (Pearl 2009, ch. 9). A model whose mechanisms
// are not deterministic has no SCM: its counterfactuals are not
// determined.
//
// Every error is an *[Error] whose Err is its kind, or a typed error
// matching a kind under errors.Is; no input makes the package panic.
package causal
