package hmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/internal/testrun"
)

// The references of this file enumerate every hidden path of a small HMM
// (K ≤ 3, T ≤ 8: at most 3^10 paths with prediction) and sum or maximise
// the joint probability P(z, x) = π(z_0) b_0(z_0) Π A(z_{t-1}, z_t) b_t(z_t),
// with the emission densities written out again here; none of the
// package's recursions is used.

// bruteEmit returns P(x_t | z_t = k), 1 where x_t is missing.
func bruteEmit(h *HMM, s Seq, t, k int) float64 {
	switch e := h.Emit.(type) {
	case *Categorical:
		if t >= len(s.Sym) || s.Sym[t] < 0 {
			return 1
		}
		return e.Prob[k*e.M+s.Sym[t]]
	case *Gaussian:
		p := 1.0
		if t*e.D >= len(s.X) {
			return 1
		}
		for d := range e.D {
			x := s.X[t*e.D+d]
			if math.IsNaN(x) {
				continue
			}
			m, v := e.Mean[k*e.D+d], e.Var[k*e.D+d]
			p *= math.Exp(-(x-m)*(x-m)/(2*v)) / math.Sqrt(2*math.Pi*v)
		}
		return p
	}
	panic("unknown emission")
}

// paths calls fn(z, P(z, x)) for every path z of n steps, the
// observations beyond s's end missing.
func paths(h *HMM, s Seq, n int, fn func(z []int, p float64)) {
	z := make([]int, n)
	for {
		p := 1.0
		for t, k := range z {
			if t == 0 {
				p *= h.Init[k]
			} else {
				p *= h.Trans[z[t-1]*h.K+k]
			}
			p *= bruteEmit(h, s, t, k)
		}
		fn(z, p)
		i := n - 1
		for i >= 0 && z[i] == h.K-1 {
			z[i] = 0
			i--
		}
		if i < 0 {
			return
		}
		z[i]++
	}
}

// bruteMarginal returns P(z_at | x_0..x_{obs-1}) over paths of n steps
// and the total probability.
func bruteMarginal(h *HMM, s Seq, obs, n, at int) ([]float64, float64) {
	cut := truncate(h, s, obs)
	m := make([]float64, h.K)
	tot := 0.0
	paths(h, cut, n, func(z []int, p float64) {
		m[z[at]] += p
		tot += p
	})
	for i := range m {
		m[i] /= tot
	}
	return m, tot
}

// truncate returns the first n steps of s.
func truncate(h *HMM, s Seq, n int) Seq {
	if s.Sym != nil {
		return Seq{Sym: s.Sym[:n]}
	}
	d := h.Emit.(*Gaussian).D
	return Seq{X: s.X[:n*d]}
}

// randHMM returns a random HMM with k states: categorical with m symbols
// (some probabilities 0) if gauss is false, else Gaussian of d
// dimensions.
func randHMM(r *rand.Rand, k int, gauss bool, m int) *HMM {
	h := &HMM{K: k, Init: make([]float64, k), Trans: make([]float64, k*k)}
	randDist(r, h.Init, false)
	for i := range k {
		randDist(r, h.Trans[i*k:(i+1)*k], true)
	}
	if gauss {
		g := &Gaussian{D: m, Mean: make([]float64, k*m), Var: make([]float64, k*m)}
		for i := range g.Mean {
			g.Mean[i] = 4*r.Float64() - 2
			g.Var[i] = 0.2 + 2*r.Float64()
		}
		h.Emit = g
	} else {
		c := &Categorical{M: m, Prob: make([]float64, k*m)}
		for i := range k {
			randDist(r, c.Prob[i*m:(i+1)*m], true)
		}
		h.Emit = c
	}
	return h
}

// randDist fills p with a random distribution, with some zeros if zeros
// is set (never all).
func randDist(r *rand.Rand, p []float64, zeros bool) {
	s := 0.0
	for i := range p {
		p[i] = r.Float64()
		if zeros && r.IntN(5) == 0 {
			p[i] = 0
		}
		s += p[i]
	}
	if s == 0 {
		p[0], s = 1, 1
	}
	for i := range p {
		p[i] /= s
	}
}

// randSeq returns a random sequence of t steps for h, some missing.
func randSeq(r *rand.Rand, h *HMM, t int) Seq {
	switch e := h.Emit.(type) {
	case *Categorical:
		s := make([]int, t)
		for i := range s {
			s[i] = r.IntN(e.M+1) - 1
		}
		return Seq{Sym: s}
	case *Gaussian:
		x := make([]float64, t*e.D)
		for i := range x {
			x[i] = 5*r.Float64() - 2.5
			if r.IntN(6) == 0 {
				x[i] = math.NaN()
			}
		}
		return Seq{X: x}
	}
	panic("unknown emission")
}

// randCase returns a random small HMM and sequence of 1..8 steps.
func randCase(r *rand.Rand) (*HMM, Seq) {
	k := 1 + r.IntN(3)
	gauss := r.IntN(2) == 0
	m := 1 + r.IntN(3)
	if gauss {
		m = 1 + r.IntN(2)
	}
	h := randHMM(r, k, gauss, m)
	return h, randSeq(r, h, 1+r.IntN(8))
}

// close reports whether a and b agree to tol, relative above 1 in
// magnitude; NaN never agrees.
func near(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*max(1, math.Abs(b)) // equal infinities agree
}

func closeAll(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i], tol) {
			return false
		}
	}
	return true
}

const bruteTol = 1e-9

func TestBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	impossibles, cases := 0, 600
	if testrun.Race {
		cases = 150 // the race detector's run: the same paths, fewer cases
	}
	for c := range cases {
		h, s := randCase(r)
		T, err := h.Len(s)
		if err != nil {
			t.Fatal(err)
		}
		_, tot := bruteMarginal(h, s, T, T, 0)
		ll, err := h.LogLik(s)
		if tot == 0 {
			impossibles++
			if err == nil || !isKind(err, ErrImpossible) {
				t.Errorf("case %d: impossible sequence: log-likelihood %v, error %v", c, ll, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		if !near(ll, math.Log(tot), bruteTol) {
			t.Errorf("case %d: log-likelihood %v, brute force %v", c, ll, math.Log(tot))
		}
		// Filtering.
		var filt [][]float64
		if _, err := h.Filter(s, func(t int, p []float64) { filt = append(filt, append([]float64(nil), p...)) }); err != nil {
			t.Fatal(err)
		}
		for i := range T {
			want, _ := bruteMarginal(h, s, i+1, i+1, i)
			if !closeAll(filt[i], want, bruteTol) {
				t.Errorf("case %d: filtered at %d: %v, brute force %v", c, i, filt[i], want)
			}
		}
		// Smoothing, plain and in blocks of every size.
		post, err := h.Smooth(s)
		if err != nil {
			t.Fatal(err)
		}
		if !near(post.LogLik, math.Log(tot), bruteTol) {
			t.Errorf("case %d: smoothing's log-likelihood %v, brute force %v", c, post.LogLik, math.Log(tot))
		}
		smoothed := make([][]float64, T)
		for i := range T {
			smoothed[i], _ = bruteMarginal(h, s, T, T, i)
		}
		for S := 1; S <= T; S++ {
			got := make([]float64, T*h.K)
			next := T - 1
			ll, err := h.smoothSize(s, T, S, func(t int, p []float64) {
				if t != next {
					panic("smoothing out of order")
				}
				next--
				copy(got[t*h.K:], p)
			})
			if err != nil || !near(ll, math.Log(tot), bruteTol) {
				t.Errorf("case %d, blocks of %d: log-likelihood %v (%v), brute force %v", c, S, ll, err, math.Log(tot))
			}
			for i := range T {
				want := smoothed[i]
				if !closeAll(got[i*h.K:(i+1)*h.K], want, bruteTol) {
					t.Errorf("case %d, blocks of %d: smoothed at %d: %v, brute force %v", c, S, i, got[i*h.K:(i+1)*h.K], want)
				}
				if S == T && !closeAll(post.At(i), want, bruteTol) {
					t.Errorf("case %d: Smooth at %d: %v, brute force %v", c, i, post.At(i), want)
				}
			}
		}
		// Prediction, 0 to 2 steps ahead.
		for k := range 3 {
			got, err := h.Predict(s, k)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := bruteMarginal(h, s, T, T+k, T-1+k)
			if !closeAll(got, want, bruteTol) {
				t.Errorf("case %d: predicted %d ahead: %v, brute force %v", c, k, got, want)
			}
		}
		// Viterbi.
		path, lp, err := h.Viterbi(s)
		if err != nil {
			t.Fatal(err)
		}
		best, second := -1.0, -1.0
		var bestZ []int
		paths(h, s, T, func(z []int, p float64) {
			if p > best {
				best, second, bestZ = p, best, append([]int(nil), z...)
			} else if p > second {
				second = p
			}
		})
		if !near(lp, math.Log(best), bruteTol) {
			t.Errorf("case %d: Viterbi log-probability %v, brute force %v", c, lp, math.Log(best))
		}
		if best-second > 1e-12*best && !equalInts(path, bestZ) {
			t.Errorf("case %d: Viterbi path %v, brute force %v", c, path, bestZ)
		}
		pz := 1.0
		paths(h, s, T, func(z []int, p float64) {
			if equalInts(z, path) {
				pz = p
			}
		})
		if !near(math.Log(pz), lp, bruteTol) {
			t.Errorf("case %d: the Viterbi path's probability %v, its claimed %v", c, math.Log(pz), lp)
		}
	}
	if impossibles == 0 || impossibles > cases/2 {
		t.Errorf("%d impossible sequences of %d: the cases do not test both", impossibles, cases)
	}
}

func equalInts(a, b []int) bool {
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

// TestPredictEmpty checks prediction from no observations: P(z_{k-1}).
func TestPredictEmpty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := randHMM(r, 3, false, 2)
	for k := 1; k <= 4; k++ {
		got, err := h.Predict(Seq{Sym: []int{}}, k)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := bruteMarginal(h, Seq{Sym: []int{}}, 0, k, k-1)
		if !closeAll(got, want, bruteTol) {
			t.Errorf("predicted %d ahead of nothing: %v, brute force %v", k, got, want)
		}
	}
	if _, err := h.Predict(Seq{Sym: []int{}}, 0); !isKind(err, ErrBadOption) {
		t.Errorf("predicting step -1: error %v, want ErrBadOption", err)
	}
}
