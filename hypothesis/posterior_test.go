package hypothesis

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// lineData returns n rows of x uniform on [-5, 5] and d = 1.3 + 0.7x +
// N(0, 1), seeded.
func lineData(n int, seed uint64) (x, d []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	x, d = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = -5 + 10*r.Float64()
		d[i] = 1.3 + 0.7*x[i] + r.NormFloat64()
	}
	return x, d
}

// lineSpace is the line fit of Mitchell §6.4: d ~ normal(w0 + w1 x, sd).
func lineSpace(t testing.TB, w0, w1 []float64, sd string) *ir.Space {
	return newSpace(t, []*ir.SpaceParam{param("w0", w0), param("w1", w1)}, "", "d ~ normal(w0 + w1 * x, "+sd+")")
}

// directLineLL is ln P(D|h) computed the textbook way, row by row.
func directLineLL(w0, w1, sd float64, x, d []float64) float64 {
	var ll float64
	for i := range x {
		r := d[i] - (w0 + w1*x[i])
		ll += -math.Log(sd) - 0.5*math.Log(2*math.Pi) - r*r/(2*sd*sd)
	}
	return ll
}

func evaluate(t testing.TB, s *ir.Space, cols ...[]float64) *Posterior {
	t.Helper()
	d, err := FromColumns(s, nil, cols)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Evaluate(context.Background(), s, nil, d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLineFit(t *testing.T) {
	x, d := lineData(200, 1)
	g := grid(-5, 5, 0.01)
	s := lineSpace(t, g, g, "1")
	if s.Columns[0] != "d" || s.Columns[1] != "x" {
		t.Fatalf("columns %v", s.Columns)
	}
	p := evaluate(t, s, d, x)
	if p.Len() != 1001*1001 {
		t.Fatalf("Len = %d", p.Len())
	}
	// The reference: every hypothesis evaluated directly.
	best, bestLL := -1, math.Inf(-1)
	for i := range p.Len() {
		w0, w1 := g[i/1001], g[i%1001]
		ll := directLineLL(w0, w1, 1, x, d)
		if ll > bestLL {
			best, bestLL = i, ll
		}
		if i%9973 == 0 {
			if got := p.LogLikelihood(i); !near(got, ll, 1e-9) {
				t.Errorf("LogLikelihood(%d) = %.15g, direct %.15g", i, got, ll)
			}
		}
	}
	if p.ML() != best || p.MAP() != best {
		t.Errorf("ML = %v, MAP = %v, direct best %v", p.Hypothesis(p.ML()), p.Hypothesis(p.MAP()), p.Hypothesis(best))
	}
	if got := p.LogLikelihood(p.ML()); !near(got, bestLL, 1e-12) {
		t.Errorf("ML's log-likelihood %.15g, direct %.15g", got, bestLL)
	}
	// The closed form, by the normal equations.
	var mx, md float64
	for i := range x {
		mx += x[i]
		md += d[i]
	}
	mx, md = mx/float64(len(x)), md/float64(len(x))
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (d[i] - md)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	w1 := sxy / sxx
	w0 := md - w1*mx
	h := p.Hypothesis(p.ML())
	if !(math.Abs(h[0]-w0) <= 0.005+1e-12 && math.Abs(h[1]-w1) <= 0.005+1e-12) {
		t.Errorf("grid ML %v, least squares (%g, %g)", h, w0, w1)
	}
	// The posterior is normalised: with a uniform prior, P(h|D) ∝ P(D|h).
	if got, want := p.LogPrior(7), -math.Log(1001*1001); !near(got, want, 1e-14) {
		t.Errorf("LogPrior = %g, want %g", got, want)
	}
	var sum float64
	for i := range p.Len() {
		sum += math.Exp(p.LogPosterior(i))
	}
	if !near(sum, 1, 1e-9) {
		t.Errorf("Σ P(h|D) = %.15g", sum)
	}
	if p.Support() != p.Len() {
		t.Errorf("Support = %d of %d", p.Support(), p.Len())
	}
}
