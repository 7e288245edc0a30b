// Package learn learns the numbers of a model from data: the CPTs of a
// Bayesian network whose structure is given (by counting, with or without
// priors), and the structure and CPTs of naive Bayes and TAN classifiers.
//
// # Sufficient statistics
//
// Every learner here works from counts. For each learned variable X with
// parents U1, ..., Uk, a [Counts] holds a flat table over (U1, ..., Uk, X)
// laid out exactly like X's CPT: row-major, the child fastest, one row per
// configuration of the parents,
//
//	n[u1, ..., uk, x] = number of rows with U1=u1, ..., Uk=uk, X=x
//
// Counts of disjoint parts of the data add, so they merge associatively and
// commutatively ([Counts.Merge]): [Learn] reads the file on one goroutine
// and hands batches to one counting worker per core, each with its own
// Counts, and merges them at the end. The same shape runs as a map-reduce
// (an Apache Beam combiner) when the data outgrows one machine.
//
// # Missing values
//
// Counting is available-case: a row contributes to a family (a variable
// and its parents) unless the child or a parent is missing in it; its other
// families still use it. No row is thrown away whole. [Report] says how
// many (row, family) contributions were skipped and how many rows had a
// missing cell in some learned family. Available-case counting is unbiased
// when cells are missing completely at random; EM (a later learner) is the
// answer otherwise.
//
// # Estimators
//
// For a row of a CPT (one configuration u of the parents) with counts
// n_1, ..., n_k over the child's k states and n = Σ n_j:
//
//	mle        P(x_j | u) = n_j / n
//	bayes      P(x_j | u) = (n_j + α) / (n + kα)              Dirichlet(α, ..., α); Laplace is α = 1
//	bayes/ess  P(x_j | u) = (n_j + N'/(qk)) / (n + N'/q)       BDeu with equivalent sample size N', q parent configurations
//	mestimate  P(x_j | u) = (n_j + m/k) / (n + m)             Mitchell's m-estimate with p = 1/k
//
// The priors apply to every CPT, roots (a naive Bayes class prior) included.
// A row whose denominator is 0 — a parent configuration never seen in the
// data, under mle (or a prior of 0) — gets the uniform distribution 1/k:
// the data says nothing about it, and a uniform row keeps the model a
// valid network that every writer and engine accepts.
//
// # Open variables
//
// A naive_bayes or tan declaration may name variables that no var
// declaration gives states: they are open, and take their states from the
// data in order of first appearance (the data reader appends them). Count
// tables therefore grow lazily: a family's table is sized by the largest
// state index seen so far in each of its variables, and re-laid out when a
// new state appears (rarely: once per new state per worker), so one pass
// over the data suffices. [Estimate] sizes every table to the final number
// of states, and then marks the variables of every learned family closed
// (Open = false): they are ordinary enumerations from then on, and a later
// read that meets a new state of theirs is an error.
//
// # TAN
//
// A tree-augmented naive Bayes classifier (Friedman, Geiger and Goldszmidt,
// 1997) gives each feature A_i the class C and at most one other feature as
// parents. The tree is the maximum spanning tree (Prim's algorithm, ties to
// the lower feature index) of the complete graph over the features whose
// edge weights are the empirical conditional mutual informations
//
//	I(A_i; A_j | C) = Σ p(a_i, a_j, c) log( p(a_i, a_j, c) p(c) / (p(a_i, c) p(a_j, c)) )
//
// each computed from the rows in which A_i, A_j and C are all present. The
// tree is rooted at the first feature listed in the declaration, and edges
// point away from the root; each non-root feature's parents are (C, its
// tree parent), in that order. Learning the structure takes one pass over
// the data counting every triple (C, A_i, A_j); a second pass counts the
// families.
//
// # Prediction
//
// [LogPosterior] scores one row of a batch under a learned classifier in
// log space: log P(c) + Σ_i log P(a_i | c, parents), skipping missing
// features (for TAN, a missing feature whose tree children are observed is
// summed out exactly, by passing messages up the tree), normalised with a
// log-sum-exp. It equals the exact posterior of the infer package.
package learn
