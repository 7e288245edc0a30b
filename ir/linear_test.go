package ir_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// TestLinearMean: a mean affine in the real parents lowers to the
// intercept and coefficients worked out by hand, per configuration of the
// discrete parents; Model.Parents lists the discrete parents, then the
// real ones; a real parent absent from a row's mean has coefficient 0.
func TestLinearMean(t *testing.T) {
	const decls = "var A: bool\nvar X, Z, Y: real\nP(A) = 0.5\nP(X) = normal(0, 1)\nP(Z) = normal(1, 2)\n"
	tests := []struct {
		dist      string
		mean      []float64 // per configuration of the discrete parents
		coef      []float64 // row-major
		sd        []float64
		real      []string
		discrete  []string
		wantNoRel bool // no real parents
	}{
		{`P(Y | X) = normal(1.5 + 2 * X, 0.3)`, []float64{1.5}, []float64{2}, []float64{0.3}, []string{"X"}, nil, false},
		{`P(Y | X) = normal(X, sd = 2)`, []float64{0}, []float64{1}, []float64{2}, []string{"X"}, nil, false},
		{`P(Y | X) = normal(X * 0.5 - 3, var = 4)`, []float64{-3}, []float64{0.5}, []float64{2}, []string{"X"}, nil, false},
		{`P(Y | X) = normal(1 -2*X, 1)`, []float64{1}, []float64{-2}, []float64{1}, []string{"X"}, nil, false},
		{`P(Y | X) = normal(-X, 1)`, []float64{0}, []float64{-1}, []float64{1}, []string{"X"}, nil, false},
		{`P(Y | X, Z) = normal((X + Z) / 2 - 1, 1)`, []float64{-1}, []float64{0.5, 0.5}, []float64{1}, []string{"X", "Z"}, nil, false},
		{`P(Y | X, Z) = normal(3 * (X - 2 * (Z + 1)) + 2^3, 1)`, []float64{-6 + 8}, []float64{3, -6}, []float64{1}, []string{"X", "Z"}, nil, false},
		{`P(Y | X, Z) = normal(1 + Z, 1)`, []float64{1}, []float64{0, 1}, []float64{1}, []string{"X", "Z"}, nil, false},
		{`P(Y | X, Z) = normal(4, 1)`, []float64{4}, []float64{0, 0}, []float64{1}, []string{"X", "Z"}, nil, false},
		{`P(Y | X) = normal(X - X + 2, 1)`, []float64{2}, []float64{0}, []float64{1}, []string{"X"}, nil, false},
		{`P(Y) = normal(2 * 3 - exp(0), 1)`, []float64{5}, nil, []float64{1}, nil, nil, true},
		{`P(Y | X, A) = { true: normal(90 + 0.6 * X, 8)  false: normal(80 + 0.5 * X, 7) }`,
			[]float64{90, 80}, []float64{0.6, 0.5}, []float64{8, 7}, []string{"X"}, []string{"A"}, false},
		{`P(Y | A, X, Z) = { false: normal(Z, 1)  true: normal(X / 4, 2) }`,
			[]float64{0, 0}, []float64{0.25, 0, 0, 1}, []float64{2, 1}, []string{"X", "Z"}, []string{"A"}, false},
	}
	for _, test := range tests {
		m := lowerSrc(t, decls+test.dist)
		y, _ := m.Lookup("Y")
		g := m.Gaussian(y.ID)
		if g == nil {
			t.Fatalf("%s: no density", test.dist)
		}
		if !closeAll(g.Mean, test.mean) || !closeAll(g.Coef, test.coef) || !closeAll(g.SD, test.sd) {
			t.Errorf("%s: mean %v coef %v sd %v; want %v %v %v", test.dist, g.Mean, g.Coef, g.SD, test.mean, test.coef, test.sd)
		}
		if got := varNames(m, g.Real); !slices.Equal(got, test.real) {
			t.Errorf("%s: real parents %v, want %v", test.dist, got, test.real)
		}
		if got := varNames(m, g.Parents); !slices.Equal(got, test.discrete) {
			t.Errorf("%s: discrete parents %v, want %v", test.dist, got, test.discrete)
		}
		if want := append(slices.Clone(test.discrete), test.real...); !slices.Equal(varNames(m, m.Parents[y.ID]), want) {
			t.Errorf("%s: Model.Parents %v, want %v", test.dist, varNames(m, m.Parents[y.ID]), want)
		}
		if test.wantNoRel != (g.Real == nil && g.Coef == nil) {
			t.Errorf("%s: Real %v, Coef %v", test.dist, g.Real, g.Coef)
		}
		// Free parameters: intercept and SD per configuration, and the
		// coefficients.
		if got, want := g.Params(), 2*len(test.mean)+len(test.coef); got != want {
			t.Errorf("%s: %d free parameters, want %d", test.dist, got, want)
		}
	}
}

// TestLinearMeanErrors: each mistake in a linear Gaussian density is an
// error at its place, of its kind, with a hint where a name is misspelt.
func TestLinearMeanErrors(t *testing.T) {
	const decls = "var A, B: bool\nvar X, Z, Y, W, Age: real\nP(A) = 0.5\nP(X) = normal(0, 1)\nP(Z) = normal(1, 2)\nP(W) = normal(0, 1)\n"
	tests := []struct {
		src  string
		kind error
		at   string // line:col
		msg  string // a part of the message
	}{
		{`P(Y | X) = normal(X * X, 1)`, ir.ErrNonLinearMean, "7:21", "product of real parents"},
		{`P(Y | X, A) = { true: normal(X * A, 1) false: normal(0, 1) }`, ir.ErrNonLinearMean, "7:34", "discrete parent"},
		{`P(Y | X) = normal(exp(X), 1)`, ir.ErrNonLinearMean, "7:19", "exp(...)"},
		{`P(Y | X) = normal(1 / X, 1)`, ir.ErrNonLinearMean, "7:21", "division by a real parent"},
		{`P(Y | X) = normal(X ^ 2, 1)`, ir.ErrNonLinearMean, "7:19", "power"},
		{`P(Y | X) = normal(X > 0, 1)`, ir.ErrNonLinearMean, "7:19", "comparison"},
		{`P(Y | X) = normal(X / 0, 1)`, ir.ErrNonLinearMean, "7:21", "division by zero"},
		{`P(Y | X) = normal(expp(2), 1)`, ir.ErrNonLinearMean, "7:19", `did you mean exp`},
		{`P(Y | X) = normal(1 + W, 1)`, ir.ErrNotAParent, "7:23", `W is not listed as a parent of Y`},
		{`P(Y | X, Age) = normal(1 + Agee, 1)`, ir.ErrNotAParent, "7:28", `did you mean "Age"`},
		{`P(Y | X) = normal(1 + Y, 1)`, ir.ErrNotAParent, "7:23", `its own mean`},
		{`P(Y | X) = normal(1 + A, 1)`, ir.ErrNotAParent, "7:23", `A is discrete and not a parent`},
		{`P(B | X) = [0.5, 0.5]`, ir.ErrRealParentOfDiscrete, "7:7", `give "B", a discrete variable with a real-valued parent, logistic(A) or softmax`},
		{"P(Y | X) = normal(X, 1)\nP(V | Y) = { true: 0.5 false: 0.5 }\nvar V: bool", ir.ErrRealParentOfDiscrete, "8:7", "a table needs discrete parents"},
		{"X -> B", ir.ErrRealParentOfDiscrete, "7:6", "cannot be learned yet"},
		{"P(Y | W) = normal(W, 1)\nP(V | Y) = normal(Y, 1)\nvar V: real", nil, "", ""},
	}
	for _, test := range tests {
		src := decls + test.src
		f, err := parser.Parse("test.pbl", []byte(src))
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, src)
		}
		_, err = ir.Lower(f)
		if test.kind == nil {
			if err != nil {
				t.Errorf("%s: %v", test.src, err)
			}
			continue
		}
		if !errors.Is(err, test.kind) {
			t.Errorf("%s: error %v, want kind %v", test.src, err, test.kind)
			continue
		}
		var le *ir.Error
		errors.As(err, &le)
		if !strings.HasPrefix(le.Error(), "test.pbl:"+test.at+":") || !strings.Contains(le.Msg, test.msg) {
			t.Errorf("%s: error %q, want it at %s and to say %q", test.src, le.Error(), test.at, test.msg)
		}
	}
}

// TestCycleThroughRealParents: a cycle through real parents is an error
// of kind ErrCycle, as one through discrete parents.
func TestCycleThroughRealParents(t *testing.T) {
	for _, src := range []string{
		"var X, Y: real\nP(X | Y) = normal(Y, 1)\nP(Y | X) = normal(2 * X, 1)\n",
		"var X, Y, Z: real\nvar A: bool\nP(A) = 0.5\nP(X | Z, A) = { true: normal(Z, 1) false: normal(0, 1) }\nP(Y | X) = normal(X, 1)\nP(Z | Y) = normal(Y, 1)\n",
	} {
		f, err := parser.Parse("test.pbl", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ir.Lower(f); !errors.Is(err, ir.ErrCycle) || !strings.Contains(err.Error(), "cycle:") {
			t.Errorf("%s: error %v, want a cycle", src, err)
		}
	}
}

// TestSetLinearGaussian: the builder checks what an importer or a program
// gives it.
func TestSetLinearGaussian(t *testing.T) {
	build := func(set func(b *ir.Builder, a, x, y ir.VarID)) error {
		b := ir.NewBuilder("b")
		p := ir.Pos{File: "b", Line: 1, Col: 1}
		a, _ := b.AddVar(p, "A", ir.Bool, nil, 0)
		x, _ := b.AddVar(p, "X", ir.Real, nil, 0)
		y, _ := b.AddVar(p, "Y", ir.Real, nil, 0)
		b.SetCPT(p, a, nil, []float64{0.5, 0.5}, nil)
		b.SetGaussian(p, x, nil, []float64{0}, []float64{1})
		set(b, a, x, y)
		_, err := b.Finish()
		return err
	}
	p := ir.Pos{File: "b", Line: 2, Col: 1}
	good := func(b *ir.Builder, a, x, y ir.VarID) {
		b.SetLinearGaussian(p, y, []ir.VarID{a}, []ir.VarID{x}, []float64{1, 2}, []float64{0.5, -0.5}, []float64{1, 2})
	}
	if err := build(good); err != nil {
		t.Fatalf("a good density: %v", err)
	}
	bad := map[string]func(b *ir.Builder, a, x, y ir.VarID){
		"coefficients short": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, []ir.VarID{a}, []ir.VarID{x}, []float64{1, 2}, []float64{0.5}, []float64{1, 2})
		},
		"a discrete real parent": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, nil, []ir.VarID{a}, []float64{1}, []float64{0.5}, []float64{1})
		},
		"a real discrete parent": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, []ir.VarID{x}, nil, []float64{1}, nil, []float64{1})
		},
		"itself": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, nil, []ir.VarID{y}, []float64{1}, []float64{0.5}, []float64{1})
		},
		"twice": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, nil, []ir.VarID{x, x}, []float64{1}, []float64{0.5, 1}, []float64{1})
		},
		"NaN coefficient": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, nil, []ir.VarID{x}, []float64{1}, []float64{math.NaN()}, []float64{1})
		},
		"means short": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, []ir.VarID{a}, []ir.VarID{x}, []float64{1}, []float64{0.5}, []float64{1})
		},
		"zero sd": func(b *ir.Builder, a, x, y ir.VarID) {
			b.SetLinearGaussian(p, y, nil, []ir.VarID{x}, []float64{1}, []float64{0.5}, []float64{0})
		},
	}
	for name, set := range bad {
		if err := build(set); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func closeAll(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= 1e-12*math.Max(1, math.Abs(want[i]))) {
			return false
		}
	}
	return true
}

func varNames(m *ir.Model, vs []ir.VarID) []string {
	var out []string
	for _, v := range vs {
		out = append(out, m.Vars[v].Name)
	}
	return out
}

// TestLinearLogDensities: a linear Gaussian density's log densities are
// those of each configuration's line at the real parents' values in the
// observations (computed here from the normal density's formula), over
// every configuration or some (LogDensitiesAt); a real parent without a
// value is an error.
func TestLinearLogDensities(t *testing.T) {
	m := lowerSrc(t, "var A: bool\nvar X, Y: real\nP(A) = 0.5\nP(X) = normal(0, 1)\nP(Y | A, X) = { true: normal(1 + 2 * X, 0.5)  false: normal(-1 - X, 2) }\n")
	x, _ := m.Lookup("X")
	y, _ := m.Lookup("Y")
	g := m.Gaussian(y.ID)
	obs := []ir.RealObs{{Var: x.ID, Value: 0.7}, {Var: y.ID, Value: 2.1}}
	normal := func(v, mean, sd float64) float64 {
		return -0.5*math.Log(2*math.Pi) - math.Log(sd) - (v-mean)*(v-mean)/(2*sd*sd)
	}
	want := []float64{normal(2.1, 1+2*0.7, 0.5), normal(2.1, -1-0.7, 2)}
	_, l, shift, err := ir.LogDensities(g, obs)
	if err != nil {
		t.Fatal(err)
	}
	for u := range want {
		if !(math.Abs(l[u]+shift-want[u]) <= 1e-12) {
			t.Errorf("configuration %d: %v, want %v", u, l[u]+shift, want[u])
		}
	}
	_, l, shift, err = ir.LogDensitiesAt(g, obs, []int{1})
	if err != nil || !math.IsInf(l[0], -1) || !(math.Abs(l[1]+shift-want[1]) <= 1e-12) {
		t.Errorf("at configuration 1: %v + %v, %v; want -Inf, %v", l, shift, err, want[1])
	}
	if _, _, _, err := ir.LogDensities(g, obs[1:]); !errors.Is(err, ir.ErrUnobservedRealParent) {
		t.Errorf("without X's value: error %v", err)
	}
}
