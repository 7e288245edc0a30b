// Package mixture fits k-means clusterings and Gaussian mixture models to
// an n×d matrix of real numbers: the numeric core of pbl cluster. It
// behaves as scikit-learn's KMeans and GaussianMixture do, which is what
// users compare it with, and is deterministic given a seed whatever the
// number of workers.
//
// # Data and parallelism
//
// The data is a [Matrix]: n rows of d columns, row-major, every value
// finite. Every pass over the data (assigning rows to centres, the E-step,
// the M-step's sums) splits the rows into fixed blocks of blockRows rows.
// Workers (goroutines, [runtime.GOMAXPROCS] of them unless the options
// say otherwise) take blocks in any order, but each block's partial sums go
// to a slot of their own and are added in block order afterwards, so the
// results are the same bit for bit with 1 worker or 16.
//
// Randomness comes from math/rand/v2's PCG. Restart i (0-based) of a fit
// with seed s draws from PCG(s, i), so the restarts are independent and a
// fit with more restarts keeps every restart of a fit with fewer.
//
// # k-means
//
// [KMeans] runs Lloyd's algorithm from k-means++ seeds, the greedy variant
// scikit-learn uses: each new centre is the best, by the potential (the sum
// of squared distances to the nearest centre) it leaves, of 2+⌊ln k⌋
// candidates drawn with probability proportional to the squared distance to
// the nearest centre chosen so far. A Lloyd iteration assigns every row to
// its nearest centre and moves each centre to the mean of its rows. It stops
// when no row changes cluster, or when the squared centre movement summed
// over the centres is at most tol times the mean variance of the columns
// (scikit-learn's tolerance), or after MaxIter iterations. With tol 0 it
// stops only when the assignment is stable, after which an iteration would
// change nothing.
//
// A cluster left empty by an assignment is re-seeded as scikit-learn does:
// the empty clusters, in index order, take the rows farthest from their
// nearest centre (the farthest first; equal distances by row order), each
// row leaving the cluster it was assigned to. So the result is
// deterministic, and no cluster is empty while there are at least k rows.
//
// A restart whose Lloyd iterations converged (by either test, before
// MaxIter) is then refined by Hartigan's single-row moves: a row moves
// from cluster a to cluster b when that lowers the inertia, the centres
// being the means, which n_b/(n_b+1) |x-c_b|² < n_a/(n_a-1) |x-c_a|² says,
// until no move does. A Lloyd fixed point can still have such moves
// (a row near the boundary of a large cluster and a small one); a
// fixed point of these moves is also one of Lloyd's. So each restart ends
// at an inertia at most that of scikit-learn's restart from the same
// seeds, and often lower. Iterations counts the Lloyd iterations
// alone; Moves the refinement's moves. A restart stopped by MaxIter is not
// refined, so tol 0 with a small MaxIter times Lloyd iterations alone.
//
// The best restart, if it converged and tol > 0, then goes through
// merge-and-split moves, k-means's counterpart of split-and-merge EM
// below: merge clusters i and j into i (at their size-weighted mean) and
// split cluster c into j and c at c ± √(2λ₁/π) v₁ (λ₁, v₁ the top
// eigenpair of c's covariance: the mean offset of a Gaussian's halves),
// or put j on the row farthest from its centre. A move's gain is
// estimated as (2/π) n_c λ₁ (or that row's squared distance) less Ward's
// merge cost n_i n_j/(n_i+n_j) |c_i-c_j|²; the thirty best by that go
// through Lloyd and Hartigan's moves, and the first whose inertia is lower
// is kept and the next round starts from it, until no move of a round is
// lower or they have spent as many Lloyd iterations as the restarts (then
// Iterations and Moves are the last kept move's). The top eigenpair comes
// from the d×d scatter for up to 32 columns; for more, without it, in
// time and memory linear in the columns: from the n_c×n_c Gram matrix of
// the cluster's centred rows when it has at most 256 rows, else by
// subspace iteration on them (split-and-merge EM's split axis below
// likewise). On fresh.py's seed 3
// and 4 data sets (120 each) pbl's best of 30 was worse than
// scikit-learn's best of 10 on 1 and 0 fits, against 3 and 1 without the
// moves.
//
// The inertia is the sum over rows of the squared Euclidean distance to
// the nearest final centre. Of NInit restarts the one with the lowest
// inertia is kept (the first of equal ones).
//
// # Gaussian mixtures
//
// [FitGMM] runs EM (Shalev-Shwartz and Ben-David, Understanding Machine
// Learning §24.4.2, generalised from a shared spherical variance to the
// four covariance types). The E-step works in log space:
//
//	log p(x, j) = log w_j - d/2 log 2π + Σ_l log W_jll - |W_j (x - μ_j)|²/2
//	r_ij = exp(log p(x_i, j) - logsumexp_j' log p(x_i, j'))
//
// where W_j is the inverse of the Cholesky factor L_j of Σ_j (Σ_j = L_j
// L_jᵀ, so Σ_j⁻¹ = W_jᵀ W_j), lower triangular for full and tied
// covariances and diagonal for diag and spherical ones. The M-step sets
//
//	N_j = Σ_i r_ij + 10ε,  w_j = N_j / Σ N,  μ_j = Σ_i r_ij x_i / N_j
//	full:      Σ_j = Σ_i r_ij (x_i - μ_j)(x_i - μ_j)ᵀ / N_j + reg I
//	diag:      σ²_jl = Σ_i r_ij (x_il - μ_jl)² / N_j + reg
//	spherical: σ²_j = the mean over l of diag's σ²_jl
//	tied:      Σ = Σ_j Σ_i r_ij (x_i - μ_j)(x_i - μ_j)ᵀ / Σ N + reg I
//
// with reg the covariance floor RegCovar (1e-6 by default), as
// scikit-learn's _estimate_gaussian_parameters does (it computes diag and
// tied from uncentred moments; centring gives the same numbers up to
// rounding, with less cancellation). Each Σ_j is factorised with
// gonum's mat.Cholesky; one that is not positive definite fails the fit
// with [ErrIllDefinedCovariance].
//
// The mean log-likelihood of the parameters before each M-step is the
// trace (scikit-learn's lower bound); EM stops when it changes by less than
// tol, or after MaxIter iterations (tol 0 always runs MaxIter). The
// reported LogLikelihood is that of the final parameters, one E-step after
// the last M-step, as scikit-learn's score. The trace never decreases (up
// to rounding): it is tested. Of NInit restarts the one whose last trace
// value is the highest is kept, as scikit-learn does.
//
// But first the three restarts with the highest last trace values (the
// first of equal ones) continue from where they stopped until the trace
// changes by less than tol/1000, within the same MaxIter iterations in
// all. EM converges linearly, slowly where components overlap, so tol
// stops it short of its local maximum, by more than 1e-4 of mean
// log-likelihood on such data, and restarts stopped short may be ranked
// wrongly. With the continuation pbl's best of 30 was worse than
// scikit-learn's best of 10 (both at tol 1e-3) on 23 of 960 fits of
// testdata/fresh.py's data sets (240 sets, four covariance types), against
// 109 without; those 23 were other local maxima that scikit-learn's 10
// happened to find, which no continuation reaches. Iterations and
// Trace include the kept restart's continuation; Converged says whether it
// met tol itself before MaxIter. With tol 0 every restart runs MaxIter
// iterations and none continues.
//
// # Split and merge
//
// A local maximum where two components share one cluster while one
// covers two is left by no continuation, so the kept restart then goes
// through split-and-merge EM (Ueda, Nakano, Ghahramani and Hinton, "SMEM
// algorithm for mixture models", Neural Computation 12, 2000), when k ≥ 3
// and tol > 0. With r_·j the responsibilities of component j at the kept
// parameters, a pair i, j is ranked by r_·i·r_·j / (|r_·i| |r_·j|) and a
// component c by the paper's local Kullback-Leibler divergence Σ_n f_n
// log(f_n / N(x_n; μ_c, Σ_c)), f_n = r_nc / Σ_m r_mc; candidate moves
// (merge i, j; split c) are ordered by the sum of the two ranks (ties by
// the pair's). A move merges i and j into i (weights added, means and
// covariances averaged by weight) and splits c into j and c at μ_c ± a,
// a = ½√λ₁ v₁ the half principal axis of c's responsibility-weighted
// scatter, each with half its weight and its covariance less a aᵀ (for
// diag and spherical at least a quarter of each variance; tied
// covariances are left as they are). Partial EM then runs on the three
// (each row keeps the responsibility the kept parameters give the three
// together and shares it by their densities; the other columns stay
// fixed) until it changes by less
// than tol, at most 20 iterations, then EM on all to tol, and to tol/1000
// if within 10 tol of the kept restart. The first of the twenty best
// moves whose final log-likelihood is higher is kept, and the next round
// starts from it; the rounds stop when none of the twenty is, or when
// they have spent as many EM iterations as the restarts did (a move found
// better still finishes, to tol/1000 within MaxIter).
//
// A second series of rounds, with half that budget, tries two spike
// moves before the twenty: merge one of the two best pairs and put the
// freed component alone on the row of lowest likelihood (weight 1/n,
// mean the row, covariance the floor reg; not for tied covariances),
// then EM on all. A Gaussian at the floor has a density of (2π reg)^(-d/2)
// at its row, so such a component, which EM keeps once it is there,
// raises the likelihood by far more than most splits: these are the
// optima scikit-learn's best of 10 found where pbl's restarts had not
// (its k-means initialisation, a centre alone on an outlier, reaches
// them now and then). Spikes come in a second series because taking one
// first can lead the greedy rounds to a worse optimum.
//
// The fit kept never has a lower log-likelihood than without (tested).
// Iterations and Trace are then those of the last kept move's EM (not
// its partial EM), Converged whether it met tol. On fresh.py's seed 3 and
// 4 data sets, held out (120 each, full, diag and spherical, pbl seed 1),
// pbl's best of 30 was worse than scikit-learn's best of 10 on 1 and 0 of
// 360 fits, against 5 and 6 with five split-and-merge candidates within a
// third of the restarts' iterations and no spikes, for about a quarter
// more time.
//
// # Initialisation
//
// scikit-learn's GaussianMixture has init_params 'kmeans' (its default: a
// whole k-means run, k-means++ seeded, n_init 1, whose labels give the
// first responsibilities) and 'k-means++' (the k-means++ seeds alone: each
// seed row is the whole of its component, so the first means are the seeds
// and the first covariances reg I, and the first E-step assigns every row,
// almost surely wholly, to the nearest seed). [InitKMeans] and
// [InitKMeansPP] are those two, [InitRandom] is 'random' (uniform random
// responsibilities, normalised per row), and [InitGiven] starts from given
// parameters. InitKMeans is the default, as in scikit-learn. One
// difference: after k-means++ seeding scikit-learn leaves the first weights
// at 1/n each, not summing to 1 (which shifts only its first lower bound);
// here they are 1/k.
//
// # Model selection
//
// BIC and AIC are scikit-learn's: with n rows, mean log-likelihood ℓ and p
// free parameters, BIC = -2nℓ + p ln n and AIC = -2nℓ + 2p, where p = k-1
// weights + kd means + the covariances' kd(d+1)/2 (full), kd (diag), k
// (spherical) or d(d+1)/2 (tied). [SelectK] fits every k in a range and
// keeps the lowest BIC.
//
// # Degenerate data
//
// Fewer rows than clusters is an error ([ErrTooFewRows]). Duplicate rows, a
// constant column, or fewer distinct rows than clusters are fitted: k-means
// then has clusters of identical rows (and inertia 0 if every row is a
// centre), and the covariance floor keeps every Gaussian proper. No
// result holds a NaN.
//
// # Scale
//
// k-means is equivariant under translation and scaling: data whose values
// exceed 2^400 (about 2.6e120) in magnitude, or whose spread (the largest
// distance of a value from its column's mean) is below 2^-400, is
// clustered as its columns centred and scaled by powers of two to about
// 1, where squared distances neither overflow nor underflow, and the
// centres are mapped back; other data is used as it is, bit for bit. So
// data near 1e-200, subnormal data, or data near 1e300 gets the clusters
// the same data at about 1 gets. The inertia is then outside float64's
// range: Inertia holds it rounded (0, subnormal or +Inf) and LogInertia
// its natural log; the squared distances within the clusters are added
// up scaled wherever the inertia is below 2^-900, so its digits are kept.
//
// A Gaussian mixture is not scale-equivariant, since reg-covar is an
// absolute floor. A variance below float64's normal range (about
// 2.2e-308), where it has lost digits, is [ErrUnderflow]: a column whose
// values differ from their mean by less than 2^-511 while reg-covar is
// below that range, or a covariance computed so. A covariance that
// overflows float64 is [ErrOverflow].
package mixture
