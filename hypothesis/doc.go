// Package hypothesis evaluates hypothesis spaces (ir.Space): the Bayesian
// view of learning of Mitchell's chapter 6 (§6.2–6.8) made executable.
// Given a space — parameters on grids, a prior, and how each row of data
// is distributed under a hypothesis — and a data table, it computes for
// every hypothesis h the prior P(h), the likelihood P(D|h) and the
// posterior P(h|D), and from them h_MAP, h_ML, h_MDL, the Bayes optimal
// classification and Gibbs draws. A conjunctive concept space gets its
// version space with its boundaries S and G; a space with continuous
// parameters gets its ML hypothesis by least squares or by gradient
// ascent.
//
// # API
//
// Data: [NewData] reads rows of text cells (an inline table:
// [FromTable]), [ReadCSV] a CSV file, [FromColumns] numbers already in
// hand. A [Data] holds one float64 column per entry of [Columns]: numbers,
// 0/1 for a bernoulli-observed column, state indices for a concept's
// attributes and target.
//
// Grids: [Evaluate] returns a [Posterior]: Len, Hypothesis(i) (the
// parameters' values), LogPrior, LogLikelihood, LogPosterior,
// LogEvidence, Support, Top(k), MAP, ML, MDL (with its bits), Gibbs(r),
// and Predict, the Bayes optimal probability that a bernoulli-observed
// column is 1 for a new instance.
//
// Concepts: [EvaluateConcept] returns a [VersionSpace]: Total (973 for
// EnjoySport), Members, S, G, Predict (the share of the version space
// covering an instance), Gibbs, Format (⟨Sunny, Warm, ?, Strong, ?, ?⟩).
//
// Continuous parameters: [FitML] returns a [Fit] (least squares, or the
// sigmoid unit with its cross-entropy per iteration).
//
// Errors are ir.ErrorLists of *ir.Error positioned at the model's
// expression or the data's cell, whose kinds (ErrDomain, ErrPrior,
// ErrMissingColumn, …, in errors.go) errors.Is finds.
//
// # Hypotheses
//
// A space's hypotheses are the product of its parameters' grids,
// numbered with the last parameter fastest (hypothesis i has parameter k
// at index i / stride[k] % len(grid[k])). The prior weight is an
// expression of the parameters, normalised over the grid:
//
//	P(h) = w(h) / Σ_h' w(h')
//
// The log-likelihood is summed over observations and rows with every
// constant included — a log density for a normal observation:
//
//	ln P(D|h) = Σ_i −ln SD − ½ ln 2π − (d_i − MEAN_i)² / (2 SD²)
//	ln P(D|h) = Σ_i d_i ln P_i + (1 − d_i) ln(1 − P_i)          (bernoulli)
//
// and the posterior is normalised by log-sum-exp. A column at a time the
// normal's quadratic term is Σ z_i²/2 with z_i = (d_i − MEAN_i)/SD, never
// (d − MEAN)²/SD², so that it keeps its digits from SD = 1e-300 (SD²
// underflows) to data of 1e300 ((d − MEAN)² overflows). A log-likelihood
// below float64's range (|z| beyond ~1.9e154) is −Inf but not an
// impossibility: when every hypothesis the prior allows is so, Evaluate
// returns ErrRange, not ErrImpossible. At most MaxHypotheses
// (10^8) are enumerated, 8 bytes each (16 with a non-uniform prior).
//
// # Compilation
//
// Each expression is compiled once per evaluation and each node given a
// kind by what it reads: a constant (folded), the parameters only (a
// scalar per hypothesis), the columns only (a vector of n computed once
// per data set), or both (mixed: computed per hypothesis a column at a
// time, one loop over n per node into a per-goroutine buffer — never a
// type switch per row).
//
// A normal observation whose SD reads no column and whose MEAN is a sum
// Σ_j a_j(params)·b_j(columns) (sums and differences expanded, products
// distributed over sums up to 64 terms, division by an expression that is
// not mixed; terms with identical b_j merged) is evaluated from
// sufficient statistics, in O(J²) per hypothesis whatever n. To keep the
// digits of SSE, it is expanded around the least-squares coefficients a*
// (by the SVD B = U S Vᵀ of the n×J matrix of the b_j), with r = d − B a*
// and δ = a − a*:
//
//	SSE = Σ r² − 2 δ·(Bᵀr) + |S Vᵀ δ|²
//
// so that the grid's best point and its log-likelihood agree with the
// direct evaluation to rounding (tested to 1e-10 relative). The expansion
// is used only where it keeps the digits: SD in [2^-300, 2^300] and at
// least 1e5 times the rounding of the residuals at a* (about ε·|d|·√n),
// and a finite result; elsewhere the hypothesis is evaluated a row at a
// time, each residual d_i − Σ_j a_j b_ij computed in twice the working
// precision (Ogita, Rump and Oishi's Dot2, by FMA and TwoSum) and halved,
// so that neither SSE's cancellation nor the rounding of the mean's terms
// (a line through data of 1e24 under SD = 1) nor an overflow of d − MEAN
// (data of ±1e300) costs digits. A bernoulli
// probability of the parameters only counts ones and zeros; a
// bernoulli(sigmoid(Z)) takes ln P from Z, a column at a time, with one
// exponential per row but no logarithm:
//
//	Σ_i ln σ(∓z_i) = −Σ_i max(∓z_i, 0) − ln Π_i (1 + e^−|z_i|)
//
// (the product kept as Π − 1, which keeps the digits of tiny terms); any
// other observation is evaluated a column at a time.
//
// The fast paths only detect that a value left its domain (SD ≤ 0, P
// outside [0, 1], NaN or an infinite mean); the error is then found by
// evaluating that hypothesis row by row, positioned at the innermost
// expression that produced a NaN or infinity (log(-1)) or at the
// argument, naming the hypothesis and the row.
//
// # Runs
//
// The grid is evaluated a run at a time: consecutive hypotheses that
// differ in the last parameter only. A parameter-only quantity (the
// prior weight, a normal's SD, a coefficient a_j) is a scalar over the
// run when it does not read the last parameter and a vector when it
// does — computed once over the whole grid when it reads nothing else —
// and the log-likelihood is computed in vector passes over the run (one
// fused pass when a_J is the only vector, as for a line or a polynomial).
// The operations are those of one hypothesis at a time, in the same
// order, so the results are the same bit for bit; a run with a value out
// of its domain is evaluated again one hypothesis at a time, which
// positions the error. A uniform prior costs nothing per hypothesis.
//
// # Parallelism
//
// Hypotheses are evaluated in fixed chunks of 8192 (fewer, down to 16,
// when an observation is evaluated a column at a time) on GOMAXPROCS
// goroutines (internal/par); each chunk's argmaxes, support and sums are
// combined in chunk order, so results are the same bit for bit for any
// number of workers. The first error in grid order is reported; ctx is
// checked per chunk. The normalisers (the prior's and the evidence's) are
// computed on first use and apart, so ML and MAP cost one pass and the
// log prior of a uniform prior none; their sums skip the terms whose
// exponential underflows to 0 without calling Exp.
//
// # Concept spaces
//
// A conjunctive hypothesis has one constraint per attribute: a state, ?
// or ∅; every hypothesis with an ∅ is the one empty hypothesis, so a
// space has 1 + Π(|states|+1) semantically distinct hypotheses. With the
// uniform prior and the noise-free likelihood, P(h|D) = 1/|VS| for the
// members of the version space. Every member is at least as general as
// FIND-S's hypothesis (the empty one without positive examples), so only
// its generalisations are enumerated; S is that hypothesis; since the
// version space is convex, a member is in G when no minimal
// generalisation of it (a state made ?) is consistent.
//
// # Continuous parameters
//
// FitML fits a space whose parameters are all `in real` with one
// observation: normal(MEAN, SD) with MEAN linear in the parameters (h_ML
// minimises the sum of squared errors, §6.4) by QR, and SD's ML value
// sqrt(SSE/n) when it is a parameter; or bernoulli(sigmoid(LINEAR)), the
// sigmoid unit of §6.5, by batch gradient ascent with Mitchell's rule
//
//	w_k ← w_k + η Σ_i (d_i − h(x_i)) x_ik
//
// with η = 4/λ_max(XᵀX) by default (every step then raises the
// likelihood), reporting the cross-entropy per iteration. The least
// squares solution is refined from its residuals (computed, like
// ln P(D|h), in twice the working precision), so that it is the exact
// solution rounded at any scale. Where the
// maximum does not exist FitML returns ErrNotIdentifiable: residuals
// that are rounding noise (below 2^-40 of the data's magnitude) when SD
// is a parameter, and weights that separate the data (every row with
// d = 1 on the positive side of X w, every other on the negative) for
// the sigmoid unit, whose likelihood then rises toward 1 without a
// maximum; when the iteration limit stopped the ascent, also weights that
// separate all but rows on their boundary (|x·w| ≤ 2^-30 |x| |w|:
// quasi-complete separation, Albert and Anderson 1984).
package hypothesis
