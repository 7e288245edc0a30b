package dbn_test

import (
	"errors"
	"fmt"
	"github.com/pbl-lang/pbl/internal/dbntest"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/dbn"
)

// randomHMM is a random HMM written as .pbl text: X[t] with k states,
// Y[t] its emission, m states or (gauss) a normal density per state.
type randomHMM struct {
	k, m     int
	gauss    bool
	init     []float64
	trans    [][]float64
	emit     [][]float64 // categorical
	mean, sd []float64   // Gaussian
	src      string
}

func newRandomHMM(r *rand.Rand, k, m int, gauss bool) *randomHMM {
	h := &randomHMM{k: k, m: m, gauss: gauss}
	dist := func(n int) []float64 {
		p := make([]float64, n)
		s := 0.0
		for i := range p {
			p[i] = 0.05 + r.Float64()
			if i == 0 && r.IntN(5) == 0 {
				p[i] = 0
			}
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
		return p
	}
	var b strings.Builder
	st := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("s%d", i)
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	fmt.Fprintf(&b, "var X[t]: %s\n", st(k))
	if gauss {
		b.WriteString("var Y[t]: real\n")
	} else {
		fmt.Fprintf(&b, "var Y[t]: %s\n", st(m))
	}
	b.WriteString("X[t-1] -> X[t]\nX[t] -> Y[t]\n")
	h.init = dist(k)
	fmt.Fprintf(&b, "P(X[0]) = %s\n", dbntest.Vec(h.init))
	b.WriteString("P(X[t] | X[t-1]) = {\n")
	for i := range k {
		h.trans = append(h.trans, dist(k))
		fmt.Fprintf(&b, "  s%d: %s\n", i, dbntest.Vec(h.trans[i]))
	}
	b.WriteString("}\n")
	if gauss {
		b.WriteString("P(Y[t] | X[t]) = {\n")
		for i := range k {
			h.mean = append(h.mean, 3*r.NormFloat64())
			h.sd = append(h.sd, 0.5+r.Float64())
			fmt.Fprintf(&b, "  s%d: normal(%v, %v)\n", i, h.mean[i], h.sd[i])
		}
	} else {
		b.WriteString("P(Y[t] | X[t]) = {\n")
		for i := range k {
			h.emit = append(h.emit, dist(m))
			fmt.Fprintf(&b, "  s%d: %s\n", i, dbntest.Vec(h.emit[i]))
		}
	}
	b.WriteString("}\n")
	h.src = b.String()
	return h
}

// weight returns p(path, y) for the observations y (-1 or NaN missing).
func (h *randomHMM) weight(z []int, y []float64) float64 {
	p := 1.0
	for t, s := range z {
		if t == 0 {
			p *= h.init[s]
		} else {
			p *= h.trans[z[t-1]][s]
		}
		switch {
		case h.gauss && !math.IsNaN(y[t]):
			d := (y[t] - h.mean[s]) / h.sd[s]
			p *= math.Exp(-d*d/2) / (h.sd[s] * math.Sqrt(2*math.Pi))
		case !h.gauss && y[t] >= 0:
			p *= h.emit[s][int(y[t])]
		}
	}
	return p
}

// each calls f with every path of T steps.
func (h *randomHMM) each(T int, f func(z []int)) {
	z := make([]int, T)
	total := int(math.Pow(float64(h.k), float64(T)))
	for c := range total {
		rem := c
		for t := T - 1; t >= 0; t-- {
			z[t] = rem % h.k
			rem /= h.k
		}
		f(z)
	}
}

// TestHMM checks the plain HMMs, which package hmm answers, and the
// same models through the interface algorithm (dbn.Slow), against
// enumeration of every hidden path: categorical (missing observations,
// zeros) and Gaussian emissions.
func TestHMM(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for trial := range 40 {
		k, m, gauss := 2+trial%2, 2+(trial/2)%2, trial%3 == 2
		T := 1 + r.IntN(7)
		h := newRandomHMM(r, k, m, gauss)
		mod, err := pbl.Load("h.pbl", []byte(h.src))
		if err != nil {
			t.Fatalf("%v\n%s", err, h.src)
		}
		fast, err := dbn.Compile(mod)
		if err != nil || !fast.Fast() {
			t.Fatalf("trial %d: %v, fast %v", trial, err, err == nil && fast.Fast())
		}
		y := make([]float64, T)
		var seq dbn.Seq
		for s := range y {
			switch {
			case gauss:
				y[s] = 3 * r.NormFloat64()
				if r.IntN(4) == 0 {
					y[s] = math.NaN()
				}
			default:
				y[s] = float64(r.IntN(m+1) - 1)
			}
			seq.Steps = append(seq.Steps, []float64{-1, y[s]})
		}
		for _, net := range []*dbn.Net{fast, dbn.Slow(fast)} {
			name := fmt.Sprintf("trial %d (k=%d m=%d gauss=%v T=%d fast=%v)", trial, k, m, gauss, T, net.Fast())
			marg := func(L, upto, at int) ([]float64, float64) {
				p := make([]float64, k)
				z := 0.0
				yy := append([]float64(nil), y...)
				yy = append(yy, make([]float64, L)...)[:L]
				for s := upto; s < L; s++ {
					yy[s] = -1
					if gauss {
						yy[s] = math.NaN()
					}
				}
				h.each(L, func(path []int) {
					w := h.weight(path, yy)
					z += w
					p[path[at]] += w
				})
				for i := range p {
					p[i] /= z
				}
				return p, z
			}
			_, z := marg(T, T, 0)
			ll, err := net.LogLik(seq)
			if !(z > 0) {
				if !errors.Is(err, dbn.ErrImpossible) {
					t.Fatalf("%s: got %v, want impossible", name, err)
				}
				continue
			}
			if err != nil || !near(ll, math.Log(z)) {
				t.Fatalf("%s: LogLik %v, %v; want %v", name, ll, err, math.Log(z))
			}
			same := func(what string, got []float64, want []float64) {
				t.Helper()
				for i := range want {
					if !near(got[i], want[i]) {
						t.Fatalf("%s: %s: state %d: got %v, want %v", name, what, i, got[i], want[i])
					}
				}
			}
			if err := net.Filter(seq, []string{"X"}, func(s int, post [][]float64) error {
				want, _ := marg(s+1, s+1, s)
				same(fmt.Sprint("filter ", s), post[0], want)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := net.Smooth(seq, []string{"X"}, func(s int, post [][]float64) error {
				want, _ := marg(T, T, s)
				same(fmt.Sprint("smooth ", s), post[0], want)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			pred, err := net.Predict(seq, []string{"X"}, 3)
			if err != nil {
				t.Fatal(err)
			}
			for j := range 3 {
				want, _ := marg(T+j+1, T, T+j)
				same(fmt.Sprint("predict ", j+1), pred[j][0], want)
			}
			// Viterbi maximises over the missing categorical
			// observations too: enumerate them.
			best := -1.0
			h.each(T, func(path []int) {
				if gauss {
					best = max(best, h.weight(path, y))
					return
				}
				w := 1.0
				for s := range T {
					if y[s] >= 0 {
						continue
					}
					mx := 0.0
					for _, p := range h.emit[path[s]] {
						mx = max(mx, p)
					}
					w *= mx
				}
				best = max(best, w*h.weight(path, y))
			})
			path, lp, err := net.Viterbi(seq, []string{"X"})
			if err != nil || !near(lp, math.Log(best)) {
				t.Fatalf("%s: Viterbi %v, %v; want %v", name, lp, err, math.Log(best))
			}
			if len(path) != T {
				t.Fatalf("%s: a path of %d steps", name, len(path))
			}
		}
	}
}
