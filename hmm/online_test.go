package hmm

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestForwardPush checks that pushing a sequence in pieces of random
// sizes gives Filter's distributions and log-likelihood bit for bit.
func TestForwardPush(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for c := range 200 {
		h := randHMM(r, 1+r.IntN(4), r.IntN(2) == 0, 1+r.IntN(3))
		s := randSeq(r, h, r.IntN(700))
		T, _ := h.Len(s)
		var want [][]float64
		wantLL, werr := h.Filter(s, func(t int, p []float64) { want = append(want, append([]float64(nil), p...)) })
		f, err := h.NewForward()
		if err != nil {
			t.Fatal(err)
		}
		var got [][]float64
		var gerr error
		for lo := 0; lo < T && gerr == nil; {
			hi := min(T, lo+r.IntN(300))
			var p []float64
			p, gerr = f.Push(slice(h, s, lo, hi))
			if gerr == nil && hi > lo {
				got = append(got, append([]float64(nil), p...))
				if !equalFloats(p, want[hi-1]) {
					t.Fatalf("case %d: after step %d: %v, Filter %v", c, hi-1, p, want[hi-1])
				}
			}
			lo = hi
		}
		if !errors.Is(gerr, errKind(werr)) || (werr != nil && gerr.(*Error).Step != werr.(*Error).Step) {
			t.Fatalf("case %d: error %v, Filter's %v", c, gerr, werr)
		}
		if werr == nil && f.LogLik() != wantLL {
			t.Errorf("case %d: log-likelihood %v, Filter's %v", c, f.LogLik(), wantLL)
		}
		if werr != nil && !math.IsInf(f.LogLik(), -1) {
			t.Errorf("case %d: log-likelihood %v after %v", c, f.LogLik(), werr)
		}
	}
}

func errKind(err error) error {
	if err == nil {
		return nil
	}
	return err.(*Error).Err
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// slice returns steps [lo, hi) of s.
func slice(h *HMM, s Seq, lo, hi int) Seq {
	if s.Sym != nil {
		return Seq{Sym: s.Sym[lo:hi]}
	}
	d := h.Emit.(*Gaussian).D
	return Seq{X: s.X[lo*d : hi*d]}
}

func TestForwardBadStep(t *testing.T) {
	h := &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Categorical{M: 2, Prob: []float64{0.5, 0.5}}}
	f, _ := h.NewForward()
	if _, err := f.Push(Seq{Sym: []int{0, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := f.Push(Seq{Sym: []int{0, 5}})
	var e *Error
	if !errors.As(err, &e) || e.Err != ErrObservation || e.Step != 4 {
		t.Errorf("error %v, want ErrObservation at step 4", err)
	}
	if _, err2 := f.Push(Seq{Sym: []int{0}}); err2 != err {
		t.Errorf("after an error: %v, want the same error", err2)
	}
	if _, err := (&HMM{}).NewForward(); !errors.Is(err, ErrShape) {
		t.Errorf("invalid HMM: %v", err)
	}
}
