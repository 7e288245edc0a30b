package hypothesis

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func fitML(t *testing.T, s *ir.Space, opts *FitOptions, cols ...[]float64) (*Fit, error) {
	t.Helper()
	d, err := FromColumns(s, nil, cols)
	if err != nil {
		t.Fatal(err)
	}
	return FitML(context.Background(), s, nil, d, opts)
}

// TestLeastSquaresAgainstGrid: the closed form agrees with the 1001×1001
// grid's best hypothesis to the grid's resolution, and its likelihood is
// at least the grid's best.
func TestLeastSquaresAgainstGrid(t *testing.T) {
	x, d := lineData(1000, 2)
	g := grid(-5, 5, 0.01)
	p := evaluate(t, lineSpace(t, g, g, "1"), d, x)
	cont := lineSpace(t, nil, nil, "1")
	fit, err := fitML(t, cont, nil, d, x)
	if err != nil {
		t.Fatal(err)
	}
	h := p.Hypothesis(p.ML())
	for k := range h {
		if !(math.Abs(h[k]-fit.Params[k]) <= 0.005+1e-9) {
			t.Errorf("parameter %d: grid %g, least squares %g", k, h[k], fit.Params[k])
		}
	}
	if want := directLineLL(fit.Params[0], fit.Params[1], 1, x, d); !near(fit.LogLikelihood, want, 1e-12) {
		t.Errorf("fit's log-likelihood %.15g, direct %.15g", fit.LogLikelihood, want)
	}
	if !(fit.LogLikelihood >= p.LogLikelihood(p.ML())) {
		t.Errorf("fit's log-likelihood %g below the grid's best %g", fit.LogLikelihood, p.LogLikelihood(p.ML()))
	}
	if fit.Method != LeastSquares || !fit.Converged {
		t.Errorf("method %v, converged %v", fit.Method, fit.Converged)
	}

	// With the standard deviation a parameter: its ML value is sqrt(SSE/n),
	// and the likelihood is the profile's maximum.
	cs := newSpace(t, []*ir.SpaceParam{param("w0", nil), param("w1", nil), param("s", nil)}, "", "d ~ normal(w0 + w1 * x, s)")
	fs, err := fitML(t, cs, nil, d, x)
	if err != nil {
		t.Fatal(err)
	}
	if !near(fs.Params[0], fit.Params[0], 1e-12) || !near(fs.Params[1], fit.Params[1], 1e-12) {
		t.Errorf("with s: %v, without %v", fs.Params, fit.Params)
	}
	sigma := math.Sqrt(fit.SSE / 1000)
	if !near(fs.Params[2], sigma, 1e-12) || !near(fs.LogLikelihood, directLineLL(fs.Params[0], fs.Params[1], sigma, x, d), 1e-12) {
		t.Errorf("s = %g (want %g), ln P(D|h) = %g", fs.Params[2], sigma, fs.LogLikelihood)
	}
	for _, ds := range []float64{0.99, 1.01} {
		if ll := directLineLL(fs.Params[0], fs.Params[1], sigma*ds, x, d); !(ll < fs.LogLikelihood) {
			t.Errorf("σ·%g gives a higher likelihood %g than σ_ML's %g", ds, ll, fs.LogLikelihood)
		}
	}
}

// TestLeastSquaresExpanded: a mean with products over sums and constants
// is still linear in the parameters: 2*(a + b*x) - x/4 + 3.
func TestLeastSquaresExpanded(t *testing.T) {
	x, d := lineData(300, 3)
	s := newSpace(t, []*ir.SpaceParam{param("a", nil), param("b", nil)}, "", "d ~ normal(2 * (a + b * x) - x / 4 + 3, 1)")
	fit, err := fitML(t, s, nil, d, x)
	if err != nil {
		t.Fatal(err)
	}
	base, err := fitML(t, lineSpace(t, nil, nil, "1"), nil, d, x)
	if err != nil {
		t.Fatal(err)
	}
	// 2a + 3 = w0, 2b - 1/4 = w1.
	if !near(2*fit.Params[0]+3, base.Params[0], 1e-10) || !near(2*fit.Params[1]-0.25, base.Params[1], 1e-10) {
		t.Errorf("fit %v, line %v", fit.Params, base.Params)
	}
	if !near(fit.LogLikelihood, base.LogLikelihood, 1e-12) {
		t.Errorf("ln P(D|h) %g, line's %g", fit.LogLikelihood, base.LogLikelihood)
	}
}

// sigmoidData returns x uniform on [-3, 3] and d ~ bernoulli(sigmoid(-0.5
// + 1.2x)).
func sigmoidData(n int, seed uint64) (x, d []float64) {
	r := rand.New(rand.NewPCG(seed, 2))
	x, d = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = -3 + 6*r.Float64()
		if r.Float64() < sigmoid(-0.5+1.2*x[i]) {
			d[i] = 1
		}
	}
	return x, d
}

func TestSigmoidUnitAgainstGrid(t *testing.T) {
	x, d := sigmoidData(500, 1)
	g := grid(-2, 2, 0.02)
	sp := newSpace(t, []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", "d ~ bernoulli(sigmoid(w0 + w1 * x))")
	p := evaluate(t, sp, d, x)
	var trace []float64
	s := newSpace(t, []*ir.SpaceParam{param("w0", nil), param("w1", nil)}, "", "d ~ bernoulli(sigmoid(w0 + w1 * x))")
	fit, err := fitML(t, s, &FitOptions{Progress: func(it int, e float64) { trace = append(trace, e) }}, d, x)
	if err != nil {
		t.Fatal(err)
	}
	if !fit.Converged || fit.Method != SigmoidUnit {
		t.Fatalf("converged %v after %d iterations, method %v", fit.Converged, fit.Iterations, fit.Method)
	}
	h := p.Hypothesis(p.ML())
	for k := range h {
		if !(math.Abs(h[k]-fit.Params[k]) <= 0.02) {
			t.Errorf("parameter %d: grid %g, sigmoid unit %g", k, h[k], fit.Params[k])
		}
	}
	gridLL := p.LogLikelihood(p.ML())
	if !(fit.LogLikelihood >= gridLL) || !(fit.LogLikelihood-gridLL <= 0.1) {
		t.Errorf("ln P(D|h): sigmoid unit %g, grid %g", fit.LogLikelihood, gridLL)
	}
	// The direct likelihood at the fit, and the grid evaluation's at a
	// hypothesis, by the textbook formula Σ d ln h + (1−d) ln(1−h).
	direct := func(w0, w1 float64) float64 {
		var ll float64
		for i := range x {
			h := 1 / (1 + math.Exp(-(w0 + w1*x[i])))
			ll += d[i]*math.Log(h) + (1-d[i])*math.Log(1-h)
		}
		return ll
	}
	if want := direct(fit.Params[0], fit.Params[1]); !near(fit.LogLikelihood, want, 1e-10) {
		t.Errorf("fit's ln P(D|h) %.15g, direct %.15g", fit.LogLikelihood, want)
	}
	if want := direct(h[0], h[1]); !near(gridLL, want, 1e-10) {
		t.Errorf("grid's ln P(D|h) %.15g, direct %.15g", gridLL, want)
	}
	// With η = 1/L every step lowers the cross-entropy.
	if len(fit.CrossEntropy) != fit.Iterations+1 || len(trace) != fit.Iterations {
		t.Fatalf("%d cross-entropies, %d reported, %d iterations", len(fit.CrossEntropy), len(trace), fit.Iterations)
	}
	for i := 1; i < len(fit.CrossEntropy); i++ {
		if !(fit.CrossEntropy[i] <= fit.CrossEntropy[i-1]+1e-12) {
			t.Fatalf("cross-entropy rose at iteration %d: %g → %g", i, fit.CrossEntropy[i-1], fit.CrossEntropy[i])
		}
	}
	if !near(fit.CrossEntropy[0], 500*math.Ln2, 1e-12) {
		t.Errorf("cross-entropy at w = 0: %g, want 500 ln 2", fit.CrossEntropy[0])
	}
}

func TestFitMLErrors(t *testing.T) {
	x, d := lineData(20, 4)
	two := make([]float64, len(x))
	for i := range x {
		two[i] = 2 * x[i]
	}
	for _, tc := range []struct {
		name   string
		params []*ir.SpaceParam
		obs    string
		cols   [][]float64
		want   error
	}{
		{"product of parameters", []*ir.SpaceParam{param("a", nil), param("b", nil)}, "d ~ normal(a * b * x, 1)", [][]float64{d, x}, ErrNoClosedForm},
		{"nonlinear call", []*ir.SpaceParam{param("a", nil)}, "d ~ normal(exp(a * x), 1)", [][]float64{d, x}, ErrNoClosedForm},
		{"sd an expression", []*ir.SpaceParam{param("a", nil), param("s", nil)}, "d ~ normal(a * x, 2 * s)", [][]float64{d, x}, ErrNoClosedForm},
		{"sd not positive", []*ir.SpaceParam{param("a", nil)}, "d ~ normal(a * x, 0)", [][]float64{d, x}, ErrDomain},
		{"gridded", []*ir.SpaceParam{param("a", []float64{1, 2})}, "d ~ normal(a * x, 1)", [][]float64{d, x}, ErrContinuous},
		{"collinear", []*ir.SpaceParam{param("a", nil), param("b", nil)}, "d ~ normal(a * x + b * y, 1)", [][]float64{d, x, two}, ErrNotIdentifiable},
		{"unused parameter", []*ir.SpaceParam{param("a", nil), param("b", nil)}, "d ~ normal(a * x, 1)", [][]float64{d, x}, ErrNotIdentifiable},
		{"bernoulli without sigmoid", []*ir.SpaceParam{param("a", nil)}, "b ~ bernoulli(a * x)", [][]float64{make([]float64, 20), x}, ErrNoClosedForm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSpace(t, tc.params, "", tc.obs)
			_, err := fitML(t, s, nil, tc.cols...)
			var e *ir.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &e) || !e.Pos.IsValid() {
				t.Errorf("err = %v, want a positioned %v", err, tc.want)
			}
		})
	}
}
