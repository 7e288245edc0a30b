// Package dbn is the exact engine for sequences on a time-indexed model
// (var X[t]: ...): filtering, smoothing, prediction, the most probable
// assignment and the log-likelihood of a sequence of any length, without
// unrolling it. It reads the template of an [ir.Model] whose Time is set
// and knows nothing of files or commands: the pipeline is ir → dbn → pbl
// (root), whose pbl sequence command calls it.
//
// # The model
//
// The lowering unrolls a time-indexed model into slices X[0..H]; [Compile]
// reads three things from it: the static variables (declared without
// [t]: every variable not in a slice), the initial slices 0..Order-1,
// each with its own distributions, and slice Order, whose distributions
// (the template) every later slice shares. A discrete variable's
// distribution is its table (ir.Model.Table: every discrete kind); a
// real variable must be a leaf with a normal density given discrete
// parents only (ir.Gaussian without Real): its observed value is a
// likelihood over those parents, a missing one integrates to 1. A real
// variable with children (a linear Gaussian density) is ErrRealParent; a
// discrete variable with real parents (no table), a decision or a Markov
// network's potential is ErrNotTemporal.
//
// A sequence is a [Seq]: Steps[t][i] the value of the template variable
// [Net.Vars]()[i] at step t (a state's index, -1 missing; a real value,
// NaN missing), Static[j] that of [Net.Statics]()[j] — pbl.Sequence's
// layout. Any template variable may be observed at any step or not;
// posteriors are reported for the targets a call names (template
// variables at each step, or static variables: their posterior given the
// observations so far).
//
// # The algorithm
//
// The interface (frontier) algorithm (Murphy, "Dynamic Bayesian
// Networks: Representation, Inference and Learning", PhD thesis,
// Berkeley 2002, ch. 3.3): the interface I_t is the set of discrete
// static variables and the template variables at slices t-Order+1..t
// that have a child after slice t; it d-separates the past from the
// future. Each template variable has Order+1 local copies, one per slice
// of a step's window (slice s is copy s mod (Order+1)), so that every
// kind of step — the statics' prior, each initial slice, the template at
// each phase — is laid out once, at Compile, over the same local
// variables, the factors sharing the model's numbers. A step is one
// product with package factor's kernel:
//
//	J_t(I_t ∪ targets_t) = Σ_{the rest} α_{t-1}(I_{t-1}) · Π_V P(V[t] | pa) · Π evidence_t
//	α_t = Σ_{J_t \ I_t} J_t / c_t,   log p(e) = Σ_t log c_t  (+ the densities' scales)
//
// the evidence being a one-hot factor on an observed discrete variable,
// and on an observed real one the likelihood exp(l − max l) over its
// parents from ir.LogDensities (the scale kept in the log normaliser).
// Every step's product is at most [MaxEntries] entries (else a
// *TooLargeError from Compile). [Net.Filter] emits P(target_t |
// e_0..t) from J_t in memory constant in T; [Net.LogLik] sums log c_t;
// [Net.Predict] steps on without evidence. [Net.Smooth] runs the
// forward pass keeping α before each block of ⌈√T⌉ steps, then goes back
// block by block, recomputing the block's joints from its checkpoint,
// with β_{t-1}(I_{t-1}) = Σ Π P(V[t] | pa) · evidence_t · β_t(I_t)
// (normalised) and P(target_t | e) ∝ Σ J_t · β_t, emitting the last step
// first: memory O(√T) messages. [Net.Viterbi] is the same recursion with
// max for Σ, rescaled by the largest entry each step, with back-pointers
// (the index of the maximising configuration of the variables folded at
// each step, 4 bytes per entry of I_t), then a walk back that reads every
// step's assignment; it maximises over every unobserved discrete variable
// (template and static), integrating out unobserved real ones.
//
// # Plain HMMs
//
// A model that is a plain hidden Markov model — no static variables,
// order 1, one discrete chain X (X[0] without parents, X[t] given X[t-1]
// alone) never observed, every other template variable a child of X[t]
// alone with the same numbers at every slice, either one categorical
// variable or any number of normal densities — is converted to an
// hmm.HMM (hmm.Categorical or hmm.Gaussian emissions) and answered by
// package hmm, whose loops are faster (package hmm's smoothing takes
// O(K√T) memory; the sequence is copied into its layout, 8 bytes a
// step). Calls whose targets are not X alone, and Viterbi where the
// categorical observation is missing at some step (package hmm sums it
// out; this package maximises over it), take the interface algorithm.
// [Net.Fast] tells which.
//
// # Errors
//
// Errors are typed (errors.Is): ErrNotTemporal, ErrRealParent (an
// *ir.Error at the distribution), ErrSequence, ErrTarget (with a
// did-you-mean), ErrImpossible (an *ImpossibleError naming the first
// step whose observations cannot be explained; -1 for the statics'
// values), ErrTooLarge (*TooLargeError). No input makes it panic or
// return NaN.
//
// # Tests
//
// Every answer is checked to 1e-9 against enumeration of every joint
// assignment of the unrolled network computed from the numbers alone
// (random DBNs of one to three template variables, two or three states,
// orders 1 and 2, a static parent, zeros, missing observations; random
// HMMs, categorical and Gaussian, through package hmm and through the
// interface algorithm); Russell and Norvig's umbrella numbers; the
// memory of smoothing 10^6 steps.
package dbn
