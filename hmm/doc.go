// Package hmm is the numeric core of hidden Markov models, as package
// mixture is of clustering: sequences in, posteriors and fits out. It
// knows no model or data type of pbl and imports only the standard
// library and internal/par; the language's time-indexed models stand on
// it.
//
// # The model
//
// An [HMM] has K hidden states: the state at step 0 is drawn from Init,
// the state at step t+1 from row z_t of the K×K matrix Trans, and the
// observation at step t from the emission of state z_t, a [Categorical]
// (one of M symbols, a K×M table) or a [Gaussian] (D real values,
// independent normals given the state: a mean and a variance per state
// and value; D = 1 is the univariate Gaussian HMM). The emission kinds are
// sealed: [Emission] has unexported methods.
//
// A sequence is a [Seq]: symbols (Sym) or T×D values (X), whichever the
// emission reads. A missing observation (-1, NaN) is marginalised out: its
// emission density is 1 in every state; a Gaussian step may miss some of
// its D values and not others.
//
// Every function checks its HMM ([HMM.Validate]: shapes, distributions
// that are non-negative and sum to 1 within 1e-9, finite means, variances
// positive and normal) and its sequences, and returns an [*Error] whose
// Err is the kind (ErrShape, ErrProb, ErrVariance, ErrNotFinite,
// ErrObservation, ErrImpossible, ErrBadOption), tested with errors.Is; a
// result that would exceed [MaxBytes] is a [*TooLargeError], before it is
// allocated. No input makes it panic.
//
// # Inference
//
// The recursions are the textbook ones (Rabiner, "A tutorial on hidden
// Markov models", Proc. IEEE 77, 1989; Murphy, Machine Learning §17.4),
// scaled (engine.go):
//
//	b_t(k) = P(x_t | z_t = k) / max_k P(x_t | z_t = k)       (in log space, then exp)
//	α̂_0 ∝ π ∘ b_0,  α̂_t ∝ (α̂_{t-1} A) ∘ b_t,  c_t the normaliser
//	log P(x) = Σ_t (log c_t + log max_k P(x_t | k))
//	β̂_{T-1} = 1,  β̂_{t-1} ∝ A (b_t ∘ β̂_t),  scaled so that α̂_{t-1}·β̂_{t-1} = 1
//	P(z_t | x) = α̂_t ∘ β̂_t
//
// [HMM.Filter] gives P(z_t | x_0..x_t) at every step in memory constant in
// T, and a [Forward] (from [HMM.NewForward]) the same numbers for a
// sequence pushed a few steps at a time, as a stream; [HMM.LogLik] the
// log-likelihood; [HMM.Predict] P(z_{T-1+k} | x) by
// k products with A; [HMM.Smooth] every P(z_t | x), T×K numbers, working
// in O(TK) memory up to 64 MiB and by checkpointing beyond; and
// [HMM.SmoothEach] streams them, last step first, in O(K√T) memory: a
// forward pass keeps α̂ before each block of ⌈√T⌉ steps, and the backward
// pass recomputes each block's α̂ from its checkpoint. [HMM.Viterbi]
// maximises in log space (log 0 = -Inf, so zeros are exact), with
// back-pointers of one byte per state and step while K ≤ 256.
//
// A sequence that no hidden path explains (an observation of probability
// zero in every state reachable) is ErrImpossible, with the step at which
// the forward recursion found it.
//
// # Baum–Welch
//
// [HMM.EStep] returns the expected counts given the sequences ([Stats]:
// initial states, transitions Σ_t ξ_t = A ∘ Σ_t α̂_{t-1} ⊗ (b_t ∘ β̂_t /
// c_t), emissions) and the log-likelihood; [HMM.MStep] the parameters
// that maximise the expected complete-data log-likelihood, with symmetric
// Dirichlet pseudo-counts ([Prior]) and a floor on variances (1e-6 by
// default); [Fit] alternates them. The statistics merge by adding, so
// shards of sequences may be gathered apart and merged ([Stats.Merge]),
// in other processes too ([Stats.MarshalBinary]);
// a Gaussian's are about the current means, so that a variance is not
// the difference of two large sums. The E-step takes the sequences in
// fixed blocks of eight, each block's sums apart, added in block order:
// the statistics are the same bits on any number of workers.
//
// Fit records the trace, the log-likelihood (plus the priors'
// log-density, with pseudo-counts: it is then MAP-EM) of the start and
// after each M-step; EM never lowers it, and Fit checks so (a fall beyond
// 1e-9 relative is ErrNotMonotone, a defect of this package). It stops
// when an M-step gains less than Tol, or after MaxIter. Restart 0 is the
// start given; restart i ≥ 1 starts from [RandomStart] with PCG(Seed, i),
// so more restarts keep every restart of fewer; the fit with the highest
// last trace value is kept. A state that no sequence visits keeps its
// parameters.
//
// # References and tests
//
// Filtering, smoothing (plain and in blocks of every size), prediction,
// the Viterbi path and its log-probability, and the log-likelihood are
// tested against enumeration of every hidden path of small HMMs (K ≤ 3, T
// ≤ 8, missing values, zero probabilities) to 1e-9; one Baum–Welch
// iteration against expected counts by enumeration, and eight iterations
// against a numpy implementation (testdata/bw_numpy.py), each to 1e-9
// relative. bench/hmm_pome.py times one iteration beside pomegranate's on
// the same data (docs/performance.md).
package hmm
