package ir_test

import (
	"math"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestSoftmaxLowering: logistic(A) and softmax(A1, ..., Ak) lower to the
// scores' intercepts and coefficients worked out by hand, per
// configuration of the discrete parents, and ProbsTo gives the
// probabilities computed here from the formulas, 1/(1 + e^−A) and
// e^Ai / Σ e^Aj, at a few values of the real parents.
func TestSoftmaxLowering(t *testing.T) {
	const decls = "var S: bool\nvar X, Z: real\nvar B: bool\nvar L: {lo, mid, hi}\nP(S) = 0.5\nP(X) = normal(0, 1)\nP(Z) = normal(1, 2)\n"
	sigmoid := func(a float64) float64 { return 1 / (1 + math.Exp(-a)) }
	tests := []struct {
		dist     string
		child    string
		bias     []float64
		coef     []float64
		logistic []bool
		// p returns the child's distribution at configuration u and
		// real values x, by the formulas.
		p func(u int, x []float64) []float64
	}{
		{`P(B | X) = logistic(-20 + 0.15 * X)`, "B", []float64{-20, 0}, []float64{0.15, 0}, []bool{true},
			func(_ int, x []float64) []float64 { q := sigmoid(-20 + 0.15*x[0]); return []float64{q, 1 - q} }},
		{`P(B | X, Z) = logistic((X - Z) / 2)`, "B", []float64{0, 0}, []float64{0.5, -0.5, 0, 0}, []bool{true},
			func(_ int, x []float64) []float64 { q := sigmoid((x[0] - x[1]) / 2); return []float64{q, 1 - q} }},
		{`P(L | X) = softmax(0, 1 + X, 2 - X)`, "L", []float64{0, 1, 2}, []float64{0, 1, -1}, nil,
			func(_ int, x []float64) []float64 {
				// p_i = 1 / Σ_j e^(a_j − a_i), which no large a overflows.
				a := []float64{0, 1 + x[0], 2 - x[0]}
				p := make([]float64, 3)
				for i := range a {
					s := 0.0
					for j := range a {
						s += math.Exp(a[j] - a[i])
					}
					p[i] = 1 / s
				}
				return p
			}},
		{`P(B | X, S) = { true: logistic(X)  false: softmax(1, 2 * X) }`, "B", []float64{0, 0, 1, 0}, []float64{1, 0, 0, 2}, []bool{true, false},
			func(u int, x []float64) []float64 {
				if u == 0 {
					q := sigmoid(x[0])
					return []float64{q, 1 - q}
				}
				q := sigmoid(1 - 2*x[0])
				return []float64{q, 1 - q}
			}},
	}
	for _, test := range tests {
		src := decls + test.dist + "\n"
		f, err := parser.Parse("test.pbl", []byte(src))
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, src)
		}
		m, err := ir.Lower(f)
		if err != nil {
			t.Errorf("%s: %v", test.dist, err)
			continue
		}
		vv, _ := m.Lookup(test.child)
		v := vv.ID
		d, ok := m.Dist(v).(*ir.Softmax)
		if !ok {
			t.Errorf("%s: distribution %T, want *ir.Softmax", test.dist, m.Dist(v))
			continue
		}
		if !slices.Equal(d.Bias, test.bias) || !slices.Equal(d.Coef, test.coef) || !slices.Equal(d.Logistic, test.logistic) {
			t.Errorf("%s: bias %v coef %v logistic %v, want %v %v %v", test.dist, d.Bias, d.Coef, d.Logistic, test.bias, test.coef, test.logistic)
		}
		if m.Table(v) != nil {
			t.Errorf("%s: Table is not nil", test.dist)
		}
		dst := make([]float64, d.K)
		for u := range d.Configs() {
			for _, x := range [][]float64{{0, 0}, {120, -3}, {-7.5, 2}, {1e6, 0}} {
				x = x[:len(d.Real)]
				got := d.ProbsTo(dst, u, x)
				want := test.p(u, x)
				for s := range want {
					if !(math.Abs(got[s]-want[s]) <= 1e-14) {
						t.Errorf("%s: u=%d x=%v: P(state %d) = %v, want %v", test.dist, u, x, s, got[s], want[s])
					}
				}
			}
		}
	}
}
