package hmm

import (
	"errors"
	"math"
	"testing"
)

func isKind(err, kind error) bool { return errors.Is(err, kind) }

// TestBadInput checks that bad models, sequences and options are errors of
// their kind, never panics.
func TestBadInput(t *testing.T) {
	cat := func() *HMM {
		return &HMM{K: 2, Init: []float64{0.5, 0.5}, Trans: []float64{0.9, 0.1, 0.2, 0.8},
			Emit: &Categorical{M: 2, Prob: []float64{0.7, 0.3, 0.1, 0.9}}}
	}
	gau := func() *HMM {
		return &HMM{K: 2, Init: []float64{0.5, 0.5}, Trans: []float64{0.9, 0.1, 0.2, 0.8},
			Emit: &Gaussian{D: 1, Mean: []float64{0, 1}, Var: []float64{1, 1}}}
	}
	sym := Seq{Sym: []int{0, 1, -1}}
	x := Seq{X: []float64{0.5, math.NaN(), 2}}
	tests := []struct {
		name string
		h    func() *HMM
		s    Seq
		kind error
	}{
		{"no states", func() *HMM { h := cat(); h.K = 0; return h }, sym, ErrShape},
		{"short init", func() *HMM { h := cat(); h.Init = []float64{1}; return h }, sym, ErrShape},
		{"negative init", func() *HMM { h := cat(); h.Init = []float64{1.5, -0.5}; return h }, sym, ErrProb},
		{"NaN init", func() *HMM { h := cat(); h.Init = []float64{math.NaN(), 1}; return h }, sym, ErrProb},
		{"unnormalised init", func() *HMM { h := cat(); h.Init = []float64{0.5, 0.6}; return h }, sym, ErrProb},
		{"short trans", func() *HMM { h := cat(); h.Trans = h.Trans[:3]; return h }, sym, ErrShape},
		{"unnormalised trans", func() *HMM { h := cat(); h.Trans = []float64{0.9, 0.2, 0.2, 0.8}; return h }, sym, ErrProb},
		{"Inf trans", func() *HMM { h := cat(); h.Trans = []float64{math.Inf(1), 0, 0.2, 0.8}; return h }, sym, ErrProb},
		{"no emission", func() *HMM { h := cat(); h.Emit = nil; return h }, sym, ErrShape},
		{"no symbols", func() *HMM { h := cat(); h.Emit = &Categorical{}; return h }, sym, ErrShape},
		{"short emission", func() *HMM { h := cat(); h.Emit = &Categorical{M: 2, Prob: []float64{1, 0}}; return h }, sym, ErrShape},
		{"unnormalised emission", func() *HMM { h := cat(); h.Emit = &Categorical{M: 2, Prob: []float64{1, 1, 0, 1}}; return h }, sym, ErrProb},
		{"symbol too large", cat, Seq{Sym: []int{0, 2}}, ErrObservation},
		{"symbol negative", cat, Seq{Sym: []int{-2}}, ErrObservation},
		{"values for symbols", cat, x, ErrShape},
		{"zero variance", func() *HMM { h := gau(); h.Emit.(*Gaussian).Var[1] = 0; return h }, x, ErrVariance},
		{"negative variance", func() *HMM { h := gau(); h.Emit.(*Gaussian).Var[1] = -1; return h }, x, ErrVariance},
		{"subnormal variance", func() *HMM { h := gau(); h.Emit.(*Gaussian).Var[1] = 1e-310; return h }, x, ErrVariance},
		{"NaN mean", func() *HMM { h := gau(); h.Emit.(*Gaussian).Mean[0] = math.NaN(); return h }, x, ErrNotFinite},
		{"no dimensions", func() *HMM { h := gau(); h.Emit = &Gaussian{}; return h }, x, ErrShape},
		{"short means", func() *HMM { h := gau(); h.Emit.(*Gaussian).Mean = []float64{0}; return h }, x, ErrShape},
		{"Inf value", gau, Seq{X: []float64{math.Inf(-1)}}, ErrNotFinite},
		{"ragged values", func() *HMM {
			return &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Gaussian{D: 2, Mean: []float64{0, 0}, Var: []float64{1, 1}}}
		}, Seq{X: []float64{1, 2, 3}}, ErrShape},
		{"symbols for values", gau, sym, ErrShape},
		{"impossible", func() *HMM {
			h := cat()
			h.Emit = &Categorical{M: 2, Prob: []float64{1, 0, 1, 0}}
			return h
		}, Seq{Sym: []int{0, 1}}, ErrImpossible},
	}
	for _, tc := range tests {
		h := tc.h()
		check := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, tc.kind) {
				t.Errorf("%s: %s: error %v, want kind %v", tc.name, what, err, tc.kind)
			}
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Errorf("%s: %s: error %T, want *Error", tc.name, what, err)
			}
		}
		_, err := h.LogLik(tc.s)
		check("LogLik", err)
		_, err = h.Smooth(tc.s)
		check("Smooth", err)
		_, err = h.SmoothEach(tc.s, func(int, []float64) {})
		check("SmoothEach", err)
		_, _, err = h.Viterbi(tc.s)
		check("Viterbi", err)
		_, err = h.Predict(tc.s, 1)
		check("Predict", err)
		_, err = h.EStep([]Seq{tc.s}, 1)
		check("EStep", err)
		_, err = Fit(h, []Seq{tc.s}, FitOptions{MaxIter: 2})
		check("Fit", err)
	}
}

func TestBadOptions(t *testing.T) {
	h := &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Gaussian{D: 1, Mean: []float64{0}, Var: []float64{1}}}
	seqs := []Seq{{X: []float64{1, 2}}}
	for _, o := range []FitOptions{
		{MaxIter: -1}, {Tol: -1}, {Tol: math.NaN()}, {Restarts: -1},
		{Prior: Prior{Trans: -1}}, {Prior: Prior{VarFloor: math.Inf(1)}}, {Prior: Prior{Emit: math.NaN()}},
	} {
		if _, err := Fit(h, seqs, o); !errors.Is(err, ErrBadOption) {
			t.Errorf("%+v: error %v, want ErrBadOption", o, err)
		}
	}
	if _, err := h.Predict(seqs[0], -1); !errors.Is(err, ErrBadOption) {
		t.Errorf("predicting -1 steps: error %v, want ErrBadOption", err)
	}
	var nilH *HMM
	if _, err := nilH.LogLik(seqs[0]); !errors.Is(err, ErrShape) {
		t.Errorf("nil HMM: error %v, want ErrShape", err)
	}
}

// TestTooLarge checks that a result beyond MaxBytes is refused before it
// is allocated.
func TestTooLarge(t *testing.T) {
	k := 1 << 10
	h := &HMM{K: k, Init: make([]float64, k), Trans: make([]float64, k*k), Emit: &Categorical{M: 1, Prob: make([]float64, k)}}
	for i := range k {
		h.Init[i] = 1 / float64(k)
		h.Trans[i*k+i] = 1
		h.Emit.(*Categorical).Prob[i] = 1
	}
	s := Seq{Sym: make([]int, 1<<18)} // 2^18 × 2^10 × 8 bytes = 2 GiB of posteriors
	_, err := h.Smooth(s)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Bytes != 1<<31 {
		t.Errorf("Smooth: error %v, want a *TooLargeError of 2^31 bytes", err)
	}
	s.Sym = make([]int, 1<<19) // 2^19 × 2^10 × 4 bytes of back-pointers = 2 GiB
	if _, _, err = h.Viterbi(s); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Viterbi: error %v, want ErrTooLarge", err)
	}
}

func TestNewStatsInvalid(t *testing.T) {
	for _, h := range []*HMM{nil, {K: 1, Init: []float64{1}, Trans: []float64{1}}} {
		if _, err := h.NewStats(); !errors.Is(err, ErrShape) {
			t.Errorf("%+v: error %v, want ErrShape", h, err)
		}
		if _, err := h.Len(Seq{}); !errors.Is(err, ErrShape) {
			t.Errorf("%+v: Len's error %v, want ErrShape", h, err)
		}
	}
	h := &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Categorical{M: 2, Prob: []float64{0.5, 0.5}}}
	st, err := h.NewStats()
	if err != nil {
		t.Fatal(err)
	}
	g := &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Categorical{M: 3, Prob: []float64{0.5, 0.25, 0.25}}}
	if _, err := g.MStep(st, Prior{}); !errors.Is(err, ErrShape) {
		t.Errorf("statistics of another shape: error %v, want ErrShape", err)
	}
	gs, _ := (&HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Gaussian{D: 1, Mean: []float64{0}, Var: []float64{1}}}).NewStats()
	other := &HMM{K: 1, Init: []float64{1}, Trans: []float64{1}, Emit: &Gaussian{D: 1, Mean: []float64{1}, Var: []float64{1}}}
	if _, err := other.MStep(gs, Prior{}); !errors.Is(err, ErrShape) {
		t.Errorf("statistics about other means: error %v, want ErrShape", err)
	}
}
