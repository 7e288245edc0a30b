package hmm

import "math"

// Forward is the forward recursion fed a few steps at a time: filtering
// of a sequence that arrives as a stream (rows of a file, readings of a
// sensor), in memory constant in its length. Make one with
// [HMM.NewForward]; it is not safe for concurrent use.
type Forward struct {
	h    *HMM
	e    *engine
	w    *work
	prev []float64 // α̂ at the last step, K
	t    int       // steps taken
	ll   logSum
	err  error // the first error, after which Push does nothing
}

// NewForward returns the forward recursion of h before any step, or h's
// error if it is not valid.
func (h *HMM) NewForward() (*Forward, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return &Forward{h: h, e: newEngine(h), w: newWork(h.K, filterChunk, 0), prev: make([]float64, h.K)}, nil
}

// Push takes the next steps of the sequence (any number, the emission's
// kind of Seq) and returns the filtered distribution P(z_t | x_0..x_t)
// after the last of them (the one before if s is empty; nil before any
// step), valid until the next call. The distributions and the
// log-likelihood are those of Filter over all the steps pushed, bit for
// bit. A bad or impossible step is an *Error (Step counted from the first
// step ever pushed); after it Push returns the same error.
func (f *Forward) Push(s Seq) ([]float64, error) {
	if f.err != nil {
		return nil, f.err
	}
	T, err := f.h.Len(s)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Step >= 0 {
			e.Step += f.t
		}
		f.err = err
		return nil, err
	}
	k, w := f.h.K, f.w
	for lo := 0; lo < T; lo += w.s {
		hi := min(lo+w.s, T)
		f.e.emit(s, lo, hi, w.b, w.m)
		for t := lo; t < hi; t++ {
			i := t - lo
			dst := w.a[i*k : (i+1)*k]
			var c float64
			if f.t == 0 {
				c = f.e.first(w.b[:k], dst)
			} else {
				c = f.e.step(f.prev, w.b[i*k:(i+1)*k], dst)
			}
			if !(c > 0) {
				f.err = impossible(f.t)
				return nil, f.err
			}
			f.ll.add(c, w.m[i])
			copy(f.prev, dst)
			f.t++
		}
	}
	if f.t == 0 {
		return nil, nil
	}
	return f.prev, nil
}

// LogLik returns the log-likelihood of the steps pushed, log P(x_0..x_t);
// -Inf after an impossible step.
func (f *Forward) LogLik() float64 {
	if f.err != nil && isImpossible(f.err) {
		return math.Inf(-1)
	}
	return f.ll.value()
}

// Steps returns the number of steps pushed.
func (f *Forward) Steps() int { return f.t }

func isImpossible(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Err == ErrImpossible
}
