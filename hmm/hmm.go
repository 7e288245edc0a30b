package hmm

import (
	"math"
	"strconv"
)

// HMM is a hidden Markov model with K hidden states: the state at step 0
// is drawn from Init, the state at step t+1 from row z_t of Trans, and the
// observation at each step from the emission distribution of its state.
// An HMM is a value: no function of this package writes to one it is
// given, and any number of goroutines may share one.
type HMM struct {
	K     int       // the number of hidden states, at least 1
	Init  []float64 // K: P(z_0 = k)
	Trans []float64 // K×K, row-major: Trans[i*K+j] = P(z_{t+1} = j | z_t = i)
	Emit  Emission  // *Categorical or *Gaussian
}

// Seq is one observed sequence. Which field holds it depends on the
// emission kind: Sym for a *Categorical emission, X for a *Gaussian one;
// the other is nil. A missing observation is marginalised out: it is -1
// in Sym, NaN in X (each of a step's D values may be missing on its own).
type Seq struct {
	Sym []int     // the symbol at each step, in [0, M), or -1 where missing
	X   []float64 // T×D values, row-major, finite or NaN where missing
}

// MaxBytes is the most memory any one result or working buffer whose size
// grows with a sequence's length may take (Smooth's posteriors, Viterbi's
// back-pointers); a larger one is a *TooLargeError, checked before it is
// allocated. SmoothEach needs memory in O(√T) only.
const MaxBytes int64 = 1 << 30

// probTol is how far from 1 the sum of a distribution may be.
const probTol = 1e-9

// Validate checks h: K ≥ 1, Init a distribution over K states, every row
// of Trans a distribution, and the emission's shape and numbers. The
// error is an *Error of kind ErrShape, ErrProb, ErrVariance or
// ErrNotFinite.
func (h *HMM) Validate() error {
	if h == nil {
		return errorf(ErrShape, "no model")
	}
	if h.K < 1 {
		return errorf(ErrShape, "%d hidden states: need at least 1", h.K)
	}
	k := h.K
	if len(h.Init) != k {
		return errorf(ErrShape, "initial distribution has %d entries for %d states", len(h.Init), k)
	}
	if err := checkDist(h.Init, "initial distribution"); err != nil {
		return err
	}
	if k > math.MaxInt32 || len(h.Trans) != k*k {
		return errorf(ErrShape, "transition matrix has %d entries for %d states (need %d×%d)", len(h.Trans), k, k, k)
	}
	for i := range k {
		if err := checkDist(h.Trans[i*k:(i+1)*k], "transition row "+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	if h.Emit == nil {
		return errorf(ErrShape, "no emission distribution")
	}
	return h.Emit.validate(k)
}

// checkDist checks that p is a probability distribution.
func checkDist(p []float64, what string) error {
	s := 0.0
	for i, v := range p {
		if !(v >= 0) || math.IsInf(v, 1) {
			return errorf(ErrProb, "%s: entry %d is %v", what, i, v)
		}
		s += v
	}
	if !(math.Abs(s-1) <= probTol) {
		return errorf(ErrProb, "%s sums to %v, not 1", what, s)
	}
	return nil
}

// Len returns the number of steps of s under h's emission kind, checking
// every observation: an *Error of kind ErrShape, ErrObservation or
// ErrNotFinite (Seq -1, Step the step concerned).
func (h *HMM) Len(s Seq) (int, error) {
	if h == nil || h.Emit == nil {
		return 0, errorf(ErrShape, "no emission distribution")
	}
	return h.Emit.seqLen(s)
}

// bytesOf returns n×size bytes, or math.MaxInt64 if that overflows.
func bytesOf(n, size int64) int64 {
	if n < 0 || size < 0 || (size != 0 && n > math.MaxInt64/size) {
		return math.MaxInt64
	}
	return n * size
}

// checkBytes returns a *TooLargeError if n×size bytes exceed MaxBytes.
func checkBytes(what string, n, size int64) error {
	if b := bytesOf(n, size); b > MaxBytes {
		return &TooLargeError{What: what, Bytes: b, Limit: MaxBytes}
	}
	return nil
}
