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
// observed distribution) whose String is the formula — or a
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
// ErrPositivity error.
//
// Every error is an *[Error] whose Err is its kind, or a typed error
// matching a kind under errors.Is; no input makes the package panic.
package causal
