package ir_test

import (
	"math"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestNamedSpread: normal's spread named sd =, var = or cov = lowers to
// the standard deviations (one variable) or the covariance matrix
// (several) that the name says, worked out here by hand, and records the
// name for the writers.
func TestNamedSpread(t *testing.T) {
	const decls = "var A: bool\nvar x, y: real\n"
	one := []struct {
		dist   string
		sd     []float64
		spread []ir.Spread // nil: every one by position
		vars   []float64   // the variances as written (var =), or nil
	}{
		{`P(x) = normal(0, 2)`, []float64{2}, nil, nil},
		{`P(x) = normal(0, sd = 2)`, []float64{2}, []ir.Spread{ir.SpreadSD}, nil},
		{`P(x) = normal(0, var = 4)`, []float64{2}, []ir.Spread{ir.SpreadVar}, []float64{4}},
		{`P(x) = normal(0, var = 2)`, []float64{math.Sqrt2}, []ir.Spread{ir.SpreadVar}, []float64{2}},
		{`P(x) = normal(0, var = 1e-300)`, []float64{1e-150}, []ir.Spread{ir.SpreadVar}, []float64{1e-300}},
		{`P(x | A) = { true: normal(0, var = 0.25)  false: normal(1, 3) }`, []float64{0.5, 3},
			[]ir.Spread{ir.SpreadVar, ir.SpreadPositional}, []float64{0.25, 0}},
	}
	for _, test := range one {
		m := lowerSrc(t, decls+"P(y) = normal(0, 1)\n"+test.dist)
		v, _ := m.Lookup("x")
		g := m.Gaussian(v.ID)
		if g == nil {
			t.Fatalf("%s: no density", test.dist)
		}
		for i, want := range test.sd {
			if got := g.SD[i]; !(math.Abs(got-want) <= 1e-15*want) {
				t.Errorf("%s: sd[%d] = %v, want %v", test.dist, i, got, want)
			}
		}
		if !equalSpread(g.Spread, test.spread) || !equalFloats(g.Var, test.vars) {
			t.Errorf("%s: spread %v, var %v; want %v, %v", test.dist, g.Spread, g.Var, test.spread, test.vars)
		}
	}
	several := []struct {
		dist   string
		cov    []float64 // row-major 2×2
		form   ir.CovForm
		spread ir.Spread
	}{
		{`P(x, y) = normal([0, 1], 25)`, []float64{25, 0, 0, 25}, ir.SphericalCov, ir.SpreadPositional},
		{`P(x, y) = normal([0, 1], var = 25)`, []float64{25, 0, 0, 25}, ir.SphericalCov, ir.SpreadVar},
		{`P(x, y) = normal([0, 1], sd = 5)`, []float64{25, 0, 0, 25}, ir.SphericalCov, ir.SpreadSD},
		{`P(x, y) = normal([0, 1], cov = 25)`, []float64{25, 0, 0, 25}, ir.SphericalCov, ir.SpreadCov},
		{`P(x, y) = normal([0, 1], var = [1, 2])`, []float64{1, 0, 0, 2}, ir.DiagCov, ir.SpreadVar},
		{`P(x, y) = normal([0, 1], sd = [1, 2])`, []float64{1, 0, 0, 4}, ir.DiagCov, ir.SpreadSD},
		{`P(x, y) = normal([0, 1], cov = [1, 2])`, []float64{1, 0, 0, 2}, ir.DiagCov, ir.SpreadCov},
		{`P(x, y) = normal([0, 1], cov = [[1, 0.5], [0.5, 2]])`, []float64{1, 0.5, 0.5, 2}, ir.FullCov, ir.SpreadCov},
	}
	for _, test := range several {
		m := lowerSrc(t, decls+"P(A) = 0.5\n"+test.dist)
		v, _ := m.Lookup("x")
		d := m.MultiNormal(v.ID)
		if d == nil {
			t.Fatalf("%s: no joint density", test.dist)
		}
		if !equalFloats(d.Cov[0], test.cov) || d.Form != test.form || d.SpreadOf(0) != test.spread {
			t.Errorf("%s: cov %v (%v, %v), want %v (%v, %v)", test.dist, d.Cov[0], d.Form, d.SpreadOf(0), test.cov, test.form, test.spread)
		}
	}
}

// TestNamedSpreadDensity: normal(0, var = 4) has the density of
// normal(0, sd = 2) and of normal(0, 2), the closed form
// exp(−x²/8)/(2√(2π)).
func TestNamedSpreadDensity(t *testing.T) {
	for _, spread := range []string{"2", "sd = 2", "var = 4"} {
		m := lowerSrc(t, "var x: real\nP(x) = normal(0, "+spread+")\n")
		v, _ := m.Lookup("x")
		for _, x := range []float64{0, 1.5, -3, 40} {
			_, l, shift, err := ir.LogDensities(m.Dist(v.ID), []ir.RealObs{{Var: v.ID, Value: x}})
			if err != nil {
				t.Fatal(err)
			}
			want := -x*x/8 - math.Log(2*math.Sqrt(2*math.Pi))
			if got := l[0] + shift; !(math.Abs(got-want) <= 1e-13*math.Max(1, math.Abs(want))) {
				t.Errorf("normal(0, %s): ln density at %v = %v, want %v", spread, x, got, want)
			}
		}
	}
}

// TestNamedSpreadSpace: in a hypothesis space, sd = s is s, and var = v
// is its square root: computed for a number, sqrt(v) for an expression.
func TestNamedSpreadSpace(t *testing.T) {
	tests := []struct {
		arg  string
		want string // the standard deviation's expression
	}{
		{"s", "s"},
		{"sd = s", "s"},
		{"var = s", "sqrt(s)"},
		{"var = 6.25", "2.5"},
		{"sd = 0.5", "0.5"},
	}
	for _, test := range tests {
		m := lowerSrc(t, "space H {\n    w, s in {1, 2}\n    d ~ normal(w, "+test.arg+")\n}\n")
		if got := exprText(m.Spaces[0].Obs[0].Args[1]); got != test.want {
			t.Errorf("normal(w, %s): the standard deviation is %s, want %s", test.arg, got, test.want)
		}
	}
}

func equalSpread(a, b []ir.Spread) bool {
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

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !(a[i] == b[i]) {
			return false
		}
	}
	return true
}
