// Package learn learns the numbers of a model from data: the CPTs of a
// Bayesian network whose structure is given (by counting, with or without
// priors), the normal densities of real-valued variables with discrete
// parents (a classifier's Gaussian features), linear Gaussian densities
// (real parents too: least squares per configuration of the discrete
// parents, from the rows that give the whole family, linear.go; method
// Bayes puts a normal-inverse-gamma prior on them, nig.go), and the
// structure and numbers of naive Bayes and TAN classifiers; with hidden variables and
// missing cells, by EM (which also learns normal and joint normal
// densities given discrete parents, hidden or not, and linear Gaussian
// densities, filling in missing real parents by their conditional
// normal: em.go, emreal.go, density.go, emlinear.go, emmissing.go) and gradient ascent (discrete networks only).
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
// commutatively ([Counts.Merge]): [Learn] parses and counts on every core,
// each worker counting the chunks of the file it parsed into Counts of its
// own, merged at the end ([Counts.AddReader]). The same shape runs as a
// map-reduce (an Apache Beam combiner) when the data outgrows one machine:
// Counts encode to bytes ([Counts.MarshalBinary]), EM's statistics are
// [EMStats] ([NewEMPlan]: E-step per shard, merge, M-step), and package
// mixture has those of k-means and Gaussian mixtures.
//
// # Missing values
//
// Counting is available-case: a row contributes to a family (a variable
// and its parents) unless the child or a parent is missing in it; its other
// families still use it. No row is thrown away whole. [Report] says how
// many (row, family) contributions were skipped and how many rows had a
// missing cell in some learned family. Available-case counting is unbiased
// when cells are missing completely at random, but throws away every
// family a missing cell touches, and cannot learn a variable that is never
// observed.
//
// # EM and gradient ascent
//
// The iterative methods, [EM] and [Gradient] (em.go, gradient.go), learn
// from every observed cell: a variable without a column is hidden, a
// missing cell is summed out. The data is read once into its distinct
// patterns of observed cells (EM streams instead, one pass over the file
// per E-step, when they would take more than 2M cells: emstream.go). They
// run on an [infer.Learner] (the junction tree unless
// [Options.Inference] gives another): compiled once, each iteration
// installs new numbers in it ([infer.Learner.Install]) and calibrates once
// per pattern ([infer.Learner.Expect]), giving the expected family counts
// and the log-likelihood. EM's M-step is the estimators
// below applied to expected counts (mle, or bayes for MAP); gradient ascent
// moves along Σ_d P(x, u | d)/θ(x | u), scaled per row, projected on the
// simplex, with a line search. The E-step's blocks of patterns are summed
// in a fixed order, so results do not depend on the number of cores.
// EM is one loop ([EMPlan.Run]) whatever the data's source ([EMSource]):
// the patterns in memory, a file read again per E-step, or shards whose
// statistics ([EMStats]) merge. [Report] gives the log-likelihood trace;
// EM's never decreases, and a decrease is reported as a bug
// ([ErrDecrease]). Where the junction tree does not fit
// [Options.MaxMemory] and [Options.Approximate] allows it, the E-step is
// approximate (loopy belief propagation, [infer.CompileApproxLearner]:
// estep.go), [Report.EStep] says so, the trace is approximate, and a
// decrease is not an error.
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
// The priors apply to every CPT, roots (a naive Bayes class prior) included,
// and to CPTs only: they do not apply to densities (see Gaussian features).
// A row whose denominator is 0 — a parent configuration never seen in the
// data, under mle (or a prior of 0) — gets the uniform distribution 1/k:
// the data says nothing about it, and a uniform row keeps the model a
// valid network that every writer and engine accepts.
//
// # Gaussian features
//
// A real-valued variable X with discrete parents U (a classifier's real
// feature: naive_bayes and tan make the class its parent) is learned as a
// normal density per parent configuration u. Its sufficient statistics are,
// per u, the number n of rows with X and U present, and the mean and the
// sum of squared deviations m2 of those values of X, kept relative to a
// shift (the first value seen) and updated with Welford's method (a batch
// without discrete parents or missing values: two passes over it); the
// statistics of disjoint parts of the data merge associatively with Chan,
// Golub and LeVeque's formula, like the counts. The shift keeps the
// variance's digits when the mean is large against the spread (1e6 plus
// noise of sd 0.01 matches a two-pass computation to 1e-13). The estimates
// are the maximum likelihood ones, whatever the method — Dirichlet and
// m-estimate priors are over counts and do not apply to densities:
//
//	mean_u = Σ x / n
//	sd_u   = sqrt(m2/n + ε),   ε = VarSmoothing · max over the learned real variables X' of var(X')
//
// where var(X') is the variance (divisor n) of all the non-missing values
// of X' in the data, whatever its parents. This is scikit-learn's
// GaussianNB (var_smoothing, default 1e-9, is Options.VarSmoothing), whose
// epsilon is var_smoothing times the largest variance of a feature over
// the whole training set: it keeps a configuration with one value, or
// with equal values, usable. Differences from GaussianNB: the maximum is
// over the real variables learned together (a learn statement naming some
// variables only takes the maximum over those), and a row with a missing
// value of X' still counts for var(X') when its class is missing. A
// configuration without values gets normal(0, 1), counted in the Report
// (Report.EmptyGaussians) and warned about by pbl learn; if every learned real
// variable is constant, ε is 0 and a configuration with zero variance is
// an error naming the variable and the configuration. A real-valued parent
// is an error: densities are given discrete parents only.
//
// # Models are values
//
// Learning never changes the model it is given: [Learn], [LearnTable],
// [LearnBatch] and [Estimate] return a new ir.Model (ir.Model.WithStates,
// ir.Model.WithDists) that shares what did not change. Any number of
// goroutines may learn from one model at once.
//
// # Methods
//
// [Methods] is the registry of learning methods: their names, options,
// defaults and help. Every front end (the learn statement, pbl learn, pbl
// classify --cv, the REPL's completion) names a method through it, and
// [ParseOptions] validates the options the same way for all of them:
// unknown names with a hint, values that are not finite and in range, an
// option given twice, and options that exclude each other (bayes takes
// alpha or ess, not both). A new learner adds its entry there.
//
// # Open variables
//
// A naive_bayes or tan declaration may name variables that no var
// declaration gives states: they are open, and take their states from the
// data in order of first appearance in the file. The data reader numbers
// them in its own lists (it never writes to the model), so indices are
// those of one reader of the whole file whatever the number of counting
// workers. Count tables therefore grow lazily: a family's table is sized
// by the largest state index seen so far in each of its variables, and
// re-laid out when a new state appears (rarely: once per new state per
// worker), so one pass over the data suffices. After the pass the states
// are settled in a new model (ir.Model.WithStates), whose variables are
// closed: ordinary enumerations, which a later read may not extend, and
// [Estimate] sizes every table to them. Data read in shards settles its
// states first, with a pass of its own per shard merged in shard order
// (data.ScanStates, data.MergeStates), and then counts against the
// settled model, so that every shard numbers states alike.
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
// families. Real-valued features are not part of the tree: they are
// Gaussian given the class alone, as in naive Bayes (a conditional mutual
// information between a real and a discrete feature would need a density
// estimate, and a Gaussian given the class and another feature multiplies
// the parameters).
//
// # Prediction
//
// [LogPosterior] scores one row of a batch under a learned classifier in
// log space: log P(c) + Σ_i log P(a_i | c, parents) + Σ_j log N(x_j;
// mean_c, sd_c), the last sum over the real features, with log N(x; μ, σ) =
// −log σ − log(2π)/2 − ((x − μ)/σ)²/2; it skips missing features (for TAN,
// a missing feature whose tree children are observed is summed out
// exactly, by passing messages up the tree) and normalises with a
// log-sum-exp. Without real features it equals the exact posterior of the
// infer package. [Predict] uses it for the class of a declared classifier,
// and also for a model with Gaussian features whose tables have a
// classifier's shape around the target (a learned classifier written to
// .pbl and read back, which has no naive_bayes declaration). Any other
// target is predicted by exact inference, which takes discrete evidence
// only: real-valued cells are then ignored ([IgnoredColumns] lists them,
// and pbl classify says so).
//
// # Time-indexed models: sequences
//
// [LearnSequences] learns a time-indexed model (ir.Time: var X[t], unrolled
// by the lowering into X[0..H]) from sequences ([Seq], as pbl.ReadSequences
// reads them), with its numbers tied across slices (sequence.go). Its
// distributions fall into groups: a template distribution P(X[t] | ...)
// is one group over every slice s ≥ first (first the largest lag of X's
// template parents), each initial slice s < first one of its own, each
// static variable one. EM's E-step unrolls the model to each sequence's
// length (ir.Unroll; one compiled junction tree per distinct length, its
// numbers installed at each iteration), calibrates it once per sequence
// (real values as likelihoods in slots over their densities' discrete
// parents), and adds every slice's family posterior into its group:
//
//	n̄_g(u, x) = Σ_sequences Σ_{slices s of g in the sequence} P(parents_s = u, X_s = x | sequence)
//
// A missing cell with no observed descendant (barren) is left out of the
// counts, as Baum–Welch leaves out a missing observation; a hidden
// variable is always counted. Sequences are calibrated in fixed blocks on
// every core and the blocks summed in order. The M-step normalises each
// table's counts (plus alpha for MAP) and takes each Gaussian's weighted
// moments about its current means (the variance at least
// SeqOptions.VarFloor); every slice of a group gets the same numbers. A
// hidden Markov model (one hidden chain, P(X[0]) and P(X[t] | X[t-1]),
// observed children of X[t] alone: one discrete one, or real ones; no
// static variable) takes package hmm's forward–backward as its E-step
// (seqhmm.go), whose statistics are the groups'.
//
// Sequences in shards learn by [SeqPlan] (seqplan.go), as [EMPlan] does
// for rows: a [SeqCensus] per shard (checks, steps, which variables are
// observed: the hidden ones), merged, makes the plan; each iteration's
// [SeqEStep.Add] per shard gives [SeqStats], sums over the sequences that
// merge by adding ([SeqStats.Merge], any order and partition to a few
// ulps, a sequence never split), and [SeqPlan.MStep] is LearnSequences's
// M-step. [SeqPlan.Run] is the one loop over a [SeqSource];
// LearnSequences is the plan on one shard in memory.
//
// # References
//
// The tests compare with independent implementations (reference_test.go):
// R's e1071::naiveBayes (laplace = 1) on mlbench's HouseVotes84, categorical
// with missing values, matched by learning the class with mle and the
// features with bayes(alpha = 1) — e1071 smooths the feature tables only,
// and leaves NAs out of training and prediction, as pbl does; and
// scikit-learn's GaussianNB (var_smoothing = 1e-9) on iris. The posteriors
// of every row agree to about 1e-15.
package learn
