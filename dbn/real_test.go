package dbn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/pbl-lang/pbl/dbn"
)

// mixed has real leaves: a static one given the static S, and Y[t]
// given X[t] and S.
const mixed = `var S: bool
var G: real
var X[t]: bool
var Y[t]: real
S -> G
X[t-1] -> X[t]
X[t] -> Y[t]
S -> Y[t]
P(S) = 0.3
P(G | S) = { true: normal(1, 2)  false: normal(-1, 0.5) }
P(X[0]) = 0.6
P(X[t] | X[t-1]) = { true: 0.8  false: 0.25 }
P(Y[t] | X[t], S) = {
  true, true: normal(2, 1)  true, false: normal(0, 1.5)
  false, true: normal(-1, 0.7)  false, false: normal(0.5, 3)
}
`

func npdf(x, m, s float64) float64 {
	z := (x - m) / s
	return math.Exp(-z*z/2) / (s * math.Sqrt(2*math.Pi))
}

// TestRealLeaves checks a model with real leaves (a static one and a
// template one, both given S) against enumeration by hand, with missing
// values: filtering, smoothing, the log-likelihood and Viterbi.
func TestRealLeaves(t *testing.T) {
	n := compile(t, mixed)
	if n.Fast() {
		t.Fatal("a static variable: not package hmm's")
	}
	g := 0.4
	y := []float64{1.5, math.NaN(), -0.8, 0.3}
	T := len(y)
	seq := dbn.Seq{Static: []float64{-1, g}}
	for _, v := range y {
		seq.Steps = append(seq.Steps, []float64{-1, v})
	}
	pS := []float64{0.3, 0.7} // true, false
	gm, gs := []float64{1, -1}, []float64{2, 0.5}
	pX0 := []float64{0.6, 0.4}
	tr := [][]float64{{0.8, 0.2}, {0.25, 0.75}}
	ym := [][]float64{{2, 0}, {-1, 0.5}} // [x][s]
	ys := [][]float64{{1, 1.5}, {0.7, 3}}
	weight := func(L int, x []int, s int) float64 {
		w := pS[s] * npdf(g, gm[s], gs[s])
		for k := range L {
			if k == 0 {
				w *= pX0[x[0]]
			} else {
				w *= tr[x[k-1]][x[k]]
			}
			if !math.IsNaN(y[k]) {
				w *= npdf(y[k], ym[x[k]][s], ys[x[k]][s])
			}
		}
		return w
	}
	each := func(L int, f func(x []int, s int)) {
		x := make([]int, L)
		for s := range 2 {
			for c := range 1 << L {
				for k := range L {
					x[k] = c >> (L - 1 - k) & 1
				}
				f(x, s)
			}
		}
	}
	marg := func(L, at int) ([]float64, []float64, float64) {
		px, ps := make([]float64, 2), make([]float64, 2)
		z := 0.0
		each(L, func(x []int, s int) {
			w := weight(L, x, s)
			z += w
			px[x[at]] += w
			ps[s] += w
		})
		for i := range 2 {
			px[i] /= z
			ps[i] /= z
		}
		return px, ps, z
	}
	check := func(what string, got [][]float64, px, ps []float64) {
		t.Helper()
		for i := range 2 {
			if !near(got[0][i], px[i]) || !near(got[1][i], ps[i]) {
				t.Fatalf("%s: got %v, want X %v S %v", what, got, px, ps)
			}
		}
	}
	targets := []string{"X", "S"}
	if err := n.Filter(seq, targets, func(k int, p [][]float64) error {
		px, ps, _ := marg(k+1, k)
		check(fmt.Sprint("filter ", k), p, px, ps)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := n.Smooth(seq, targets, func(k int, p [][]float64) error {
		px, ps, _ := marg(T, k)
		check(fmt.Sprint("smooth ", k), p, px, ps)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, _, z := marg(T, 0)
	if ll, err := n.LogLik(seq); err != nil || !near(ll, math.Log(z)) {
		t.Fatalf("LogLik %v, %v; want %v", ll, err, math.Log(z))
	}
	best, bx, bs := 0.0, []int(nil), 0
	each(T, func(x []int, s int) {
		if w := weight(T, x, s); w > best {
			best, bx, bs = w, append([]int(nil), x...), s
		}
	})
	path, lp, err := n.Viterbi(seq, targets)
	if err != nil || !near(lp, math.Log(best)) {
		t.Fatalf("Viterbi %v, %v; want %v", lp, err, math.Log(best))
	}
	for k := range T {
		if path[k][0] != bx[k] || path[k][1] != bs {
			t.Fatalf("Viterbi path %v, want X %v S %d", path, bx, bs)
		}
	}
}

// TestOrderZero checks a model whose slices are independent given a
// static variable (order 0).
func TestOrderZero(t *testing.T) {
	n := compile(t, `var S: bool
var X[t]: bool
S -> X[t]
P(S) = 0.5
P(X[t] | S) = { true: 0.9  false: 0.2 }
`)
	seq := dbn.Seq{Steps: [][]float64{{0}, {0}}}
	// P(S=true | X0=X1=true) = 0.81 / (0.81 + 0.04).
	want := 0.81 / 0.85
	var got float64
	if err := n.Smooth(seq, []string{"S"}, func(k int, p [][]float64) error { got = p[0][0]; return nil }); err != nil {
		t.Fatal(err)
	}
	ll, err := n.LogLik(seq)
	if err != nil || !near(got, want) || !near(ll, math.Log(0.5*0.85)) {
		t.Fatalf("P(S | X) = %v, want %v; LogLik %v, %v", got, want, ll, err)
	}
}
