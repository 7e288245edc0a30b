package hmm

import (
	"errors"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestNoPanic hands every entry point HMMs and sequences with arbitrary
// shapes and numbers (NaN, ±Inf, negative, huge, subnormal) and checks
// that each returns a result or an error of this package, never panics.
func TestNoPanic(t *testing.T) {
	num := rapid.SampledFrom([]float64{0, 1, 0.5, -1, 2, math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, 5e-324, 1e-300, 0.25})
	rapid.Check(t, func(rt *rapid.T) {
		k := rapid.IntRange(-1, 3).Draw(rt, "k")
		n := func(name string, lo, hi int) []float64 {
			if rapid.IntRange(0, 9).Draw(rt, name+"-nil") == 0 {
				return nil
			}
			return rapid.SliceOfN(num, lo, hi).Draw(rt, name)
		}
		h := &HMM{K: k, Init: n("init", 0, 4), Trans: n("trans", 0, 10)}
		d := rapid.IntRange(-1, 3).Draw(rt, "d")
		switch rapid.IntRange(0, 2).Draw(rt, "emit") {
		case 0:
			h.Emit = &Categorical{M: d, Prob: n("prob", 0, 10)}
		case 1:
			h.Emit = &Gaussian{D: d, Mean: n("mean", 0, 10), Var: n("var", 0, 10)}
		}
		var s Seq
		if rapid.Bool().Draw(rt, "sym") {
			s.Sym = rapid.SliceOfN(rapid.IntRange(-3, 4), 0, 12).Draw(rt, "syms")
		} else {
			s.X = n("x", 0, 12)
		}
		if rapid.IntRange(0, 3).Draw(rt, "valid") == 0 {
			// Sometimes a valid model, so that the sequences' checks run.
			h = &HMM{K: 2, Init: []float64{0.5, 0.5}, Trans: []float64{1, 0, 0.5, 0.5},
				Emit: &Gaussian{D: 1, Mean: []float64{0, 1e300}, Var: []float64{1, 1e-300}}}
			if rapid.Bool().Draw(rt, "cat") {
				h.Emit = &Categorical{M: 2, Prob: []float64{1, 0, 0, 1}}
			}
		}
		ok := func(what string, err error) {
			var e *Error
			var tl *TooLargeError
			if err != nil && !errors.As(err, &e) && !errors.As(err, &tl) {
				rt.Fatalf("%s: error %T %v", what, err, err)
			}
		}
		_, err := h.LogLik(s)
		ok("LogLik", err)
		_, err = h.Smooth(s)
		ok("Smooth", err)
		_, err = h.SmoothEach(s, func(int, []float64) {})
		ok("SmoothEach", err)
		_, _, err = h.Viterbi(s)
		ok("Viterbi", err)
		_, err = h.Predict(s, rapid.IntRange(-1, 3).Draw(rt, "ahead"))
		ok("Predict", err)
		st, err := h.EStep([]Seq{s, s}, 2)
		ok("EStep", err)
		if err == nil {
			_, err = h.MStep(st, Prior{VarFloor: rapid.SampledFrom([]float64{0, 5e-324, 1}).Draw(rt, "floor")})
			ok("MStep", err)
		}
		_, err = Fit(h, []Seq{s}, FitOptions{MaxIter: 3, Restarts: 2})
		ok("Fit", err)
		if f, err := h.NewForward(); err == nil {
			_, err = f.Push(s)
			ok("Push", err)
		}
		_, err = RandomStart(h, []Seq{s}, 1, 1)
		ok("RandomStart", err)
	})
}

// TestErrorSeq checks that an error about a sequence names it.
func TestErrorSeq(t *testing.T) {
	h := &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Categorical{M: 2, Prob: []float64{1, 0}}}
	seqs := []Seq{{Sym: []int{0, 0}}, {Sym: []int{0, 2}}, {Sym: []int{1}}}
	_, err := h.EStep(seqs, 2)
	var e *Error
	if !errors.As(err, &e) || e.Err != ErrObservation || e.Seq != 1 || e.Step != 1 {
		t.Errorf("bad symbol: %v (%+v), want ErrObservation in sequence 1 at step 1", err, e)
	}
	seqs[1].Sym[1] = 0
	_, err = h.EStep(seqs, 2)
	if !errors.As(err, &e) || e.Err != ErrImpossible || e.Seq != 2 || e.Step != 0 {
		t.Errorf("impossible: %v (%+v), want ErrImpossible in sequence 2 at step 0", err, e)
	}
}
