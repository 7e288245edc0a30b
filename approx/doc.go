// Package approx is pbl's approximate inference on discrete factor graphs:
// loopy belief propagation (lbp.go), iterative join-graph propagation on
// clusters bounded by an i-bound (ijgp.go), likelihood weighting and
// adaptive importance sampling for Bayesian networks (lw.go, is.go), Gibbs
// sampling with several chains and R-hat (gibbs.go), weighted mini-bucket
// bounds on the partition function (wmb.go), exact enumeration of a cutset
// that isolates the other variables (cutset.go), local search for MPE from
// beliefs (local.go), and [Auto] (auto.go), the combination the planner
// calls for marginals and ln Z when the exact junction tree does not fit:
// cutset, then weighted mini-buckets (exact when their i-bound reaches the
// width given the evidence), then IJGP, the better-known answer kept.
//
// It sits beside package factor, below infer: a [Problem] is a product of
// factors with evidence, and every algorithm returns a [Result] whose
// numbers each carry an error estimate, so that no approximate number
// reaches a user without one. Package infer wraps the algorithms as
// engines of its registry (--engine lbp, ijgp, is, lw, gibbs, wmb) and its
// planner chooses among them when exact inference does not fit.
//
// Every algorithm is deterministic given [Settings.Seed]: the same seed
// gives the same numbers whatever the number of cores (random streams are
// split by chain or by sample block, never by worker). Every algorithm
// stops at Settings.Deadline or when Settings.Cancel is closed and returns
// the best answer it has (with Result.Stopped set), and never returns NaN
// or a probability outside [0, 1].
package approx
