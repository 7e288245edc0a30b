package hmm

import "math"

// filterChunk is the number of steps whose emissions Filter computes at
// once: its memory, O(K·filterChunk), does not grow with the sequence.
const filterChunk = 256

// prepare validates h and s and returns s's length.
func (h *HMM) prepare(s Seq) (int, error) {
	if err := h.Validate(); err != nil {
		return 0, err
	}
	return h.Len(s)
}

// Filter runs the forward recursion over s, calling fn(t, p) at each step
// t with p the filtered distribution P(z_t | x_0..x_t), and returns the
// log-likelihood log P(x_0..x_{T-1}). p is valid only during the call. Its
// memory is constant in the sequence's length. A step that no hidden path
// explains stops it with an *Error of kind ErrImpossible (Step that step).
func (h *HMM) Filter(s Seq, fn func(t int, p []float64)) (float64, error) {
	T, err := h.prepare(s)
	if err != nil {
		return 0, err
	}
	w := newWork(h.K, min(T, filterChunk), 0)
	return newEngine(h).forward(s, T, w, fn)
}

// LogLik returns log P(x_0..x_{T-1}), the observations' log-likelihood
// with the hidden states summed out (0 for an empty sequence), in memory
// constant in the sequence's length. Observations that no hidden path
// explains give -Inf and an *Error of kind ErrImpossible.
func (h *HMM) LogLik(s Seq) (float64, error) { return h.Filter(s, nil) }

// Predict returns P(z_{T-1+k} | x_0..x_{T-1}), the distribution of the
// hidden state k steps after the last of s's T steps (k = 0 is the
// filtered distribution at the last step). For an empty sequence it is the
// distribution at step k−1, so k must then be at least 1. The distribution
// of the observation at that step is this mixture of the states'
// emissions.
func (h *HMM) Predict(s Seq, k int) ([]float64, error) {
	T, err := h.prepare(s)
	if err != nil {
		return nil, err
	}
	if k < 0 || (T == 0 && k == 0) {
		return nil, errorf(ErrBadOption, "cannot predict %d steps after %d observations", k, T)
	}
	p := make([]float64, h.K)
	if T == 0 {
		copy(p, h.Init)
		k--
	} else if _, err := h.Filter(s, func(t int, a []float64) { copy(p, a) }); err != nil {
		return nil, err
	}
	return h.propagate(p, k), nil
}

// propagate returns p A^k, normalised at every step against rounding.
func (h *HMM) propagate(p []float64, k int) []float64 {
	n := h.K
	q := make([]float64, n)
	for range k {
		clear(q)
		for i, pi := range p {
			for j, a := range h.Trans[i*n : (i+1)*n] {
				q[j] += pi * a
			}
		}
		s := 0.0
		for _, v := range q {
			s += v
		}
		normalise(q, s)
		p, q = q, p
	}
	return p
}

// Posterior is the smoothed distribution of every step's hidden state.
type Posterior struct {
	T, K   int
	Prob   []float64 // T×K, row-major: Prob[t*K+k] = P(z_t = k | x_0..x_{T-1})
	LogLik float64   // log P(x_0..x_{T-1})
}

// At returns the distribution of the hidden state at step t (a slice of
// Prob).
func (p *Posterior) At(t int) []float64 { return p.Prob[t*p.K : (t+1)*p.K] }

// Smooth returns the smoothed distributions P(z_t | x_0..x_{T-1}) of every
// step by forward–backward. The T×K result must fit in MaxBytes (else a
// *TooLargeError, before allocating it); the working memory beside it is
// O(TK) while that is at most 64 MiB, and O(K√T) by checkpointing beyond
// (the forward recursion then runs twice). Observations that no hidden
// path explains are an *Error of kind ErrImpossible.
func (h *HMM) Smooth(s Seq) (*Posterior, error) {
	T, err := h.prepare(s)
	if err != nil {
		return nil, err
	}
	if err := checkBytes("the smoothed distributions", int64(T), int64(h.K)*8); err != nil {
		return nil, err
	}
	out := &Posterior{T: T, K: h.K, Prob: make([]float64, T*h.K)}
	out.LogLik, err = h.smoothSize(s, T, blockSize(h.K, T), func(t int, g []float64) {
		copy(out.Prob[t*h.K:], g)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SmoothEach runs forward–backward over s by checkpointing, calling fn(t,
// p) with p = P(z_t | x_0..x_{T-1}) for t from T−1 down to 0 (the last
// step first), and returns the log-likelihood. p is valid only during the
// call. Its memory is O(K√T): about 16K√T bytes for a sequence of T steps
// (beside the sequence itself); the forward recursion runs twice.
func (h *HMM) SmoothEach(s Seq, fn func(t int, p []float64)) (float64, error) {
	T, err := h.prepare(s)
	if err != nil {
		return 0, err
	}
	return h.smoothSize(s, T, max(int(math.Ceil(math.Sqrt(float64(T)))), 1), fn)
}

// smoothSize runs forward–backward in blocks of S steps.
func (h *HMM) smoothSize(s Seq, T, S int, fn func(t int, p []float64)) (float64, error) {
	nb := (T + S - 1) / S
	if err := checkBytes("forward–backward's working arrays", workBytes(h.K, S, nb), 1); err != nil {
		return 0, err
	}
	w := newWork(h.K, min(S, max(T, 1)), nb)
	return newEngine(h).smooth(s, T, w, fn)
}
