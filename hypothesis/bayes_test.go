package hypothesis

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestMDLPolynomialDegree: data from a line, a space of quadratics with a
// prior of 2^(−8 bits per nonzero coefficient): MDL picks w2 = 0, and
// h_MDL = h_MAP (Mitchell §6.6).
func TestMDLPolynomialDegree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var x, d []float64
	for range 40 {
		v := -2 + 4*r.Float64()
		x, d = append(x, v), append(d, 1+0.5*v+0.3*r.NormFloat64())
	}
	s := newSpace(t, []*ir.SpaceParam{param("w0", grid(-2, 2, 0.1)), param("w1", grid(-2, 2, 0.1)), param("w2", grid(-1, 1, 0.1))},
		"2 ^ (-8 * ((w0 != 0) + (w1 != 0) + (w2 != 0)))", "d ~ normal(w0 + w1 * x + w2 * x ^ 2, 0.3)")
	p := evaluate(t, s, d, x)
	i, bitsH, bitsD := p.MDL()
	h := p.Hypothesis(i)
	if h[2] != 0 {
		t.Errorf("MDL chose %v, want w2 = 0", h)
	}
	if i != p.MAP() {
		t.Errorf("MDL %v, MAP %v", h, p.Hypothesis(p.MAP()))
	}
	// Its description length is the least, recomputed independently.
	best := math.Inf(1)
	for j := range p.Len() {
		hj := p.Hypothesis(j)
		nz := 0.0
		for _, w := range hj {
			if w != 0 {
				nz++
			}
		}
		var ll float64
		for k := range x {
			m := hj[0] + hj[1]*x[k] + hj[2]*x[k]*x[k]
			ll += -math.Log(0.3) - 0.5*math.Log(2*math.Pi) - (d[k]-m)*(d[k]-m)/(2*0.09)
		}
		best = min(best, 8*nz-ll/math.Ln2)
	}
	// bitsH = 8·nonzero + log2 Σ_h 2^(−8·nonzero(h)): the same constant for all.
	var z float64
	for j := range p.Len() {
		nz := 0.0
		for _, w := range p.Hypothesis(j) {
			if w != 0 {
				nz++
			}
		}
		z += math.Exp2(-8 * nz)
	}
	if got := bitsH + bitsD - math.Log2(z); !near(got, best, 1e-9) {
		t.Errorf("MDL's length %.12g bits, brute force %.12g", got, best)
	}
	ml := p.Hypothesis(p.ML())
	t.Logf("MDL %v (%.2f + %.2f bits), ML %v", h, bitsH, bitsD, ml)
}

// smallSpace is y ~ bernoulli(sigmoid(a + b*x)) with a, b in {-1, 0, 1}.
func smallSpace(t testing.TB) (*ir.Space, []float64, []float64) {
	s := newSpace(t, []*ir.SpaceParam{param("a", []float64{-1, 0, 1}), param("b", []float64{-1, 0, 1})},
		"1 + (b == 1)", "y ~ bernoulli(sigmoid(a + b * x))")
	y := []float64{1, 1, 0, 1, 0, 1}
	x := []float64{2, 1, -1, 0.5, -2, 0}
	return s, y, x
}

// TestBayesOptimalAndGibbs checks the posterior, the Bayes optimal
// prediction and Gibbs draws on nine hypotheses against a direct
// computation.
func TestBayesOptimalAndGibbs(t *testing.T) {
	s, y, x := smallSpace(t)
	p := evaluate(t, s, y, x)
	// The reference posterior.
	post := make([]float64, 9)
	var z float64
	for i := range post {
		a, b := float64(i/3-1), float64(i%3-1)
		w := 1.0
		if b == 1 {
			w = 2
		}
		for k := range x {
			h := 1 / (1 + math.Exp(-(a + b*x[k])))
			if y[k] == 1 {
				w *= h
			} else {
				w *= 1 - h
			}
		}
		post[i] = w
		z += w
	}
	for i := range post {
		post[i] /= z
		if got := math.Exp(p.LogPosterior(i)); !near(got, post[i], 1e-12) {
			t.Errorf("P(h%d|D) = %g, want %g", i, got, post[i])
		}
	}
	// P(y = 1 | D, x = 0.7) = Σ_h sigmoid(a + 0.7b) P(h|D).
	var want float64
	for i := range post {
		want += post[i] / (1 + math.Exp(-(float64(i/3-1) + 0.7*float64(i%3-1))))
	}
	got, err := p.Predict(0, []float64{0, 0.7})
	if err != nil || !near(got, want, 1e-12) {
		t.Errorf("Predict = %g, %v; want %g", got, err, want)
	}
	if _, err := p.Predict(1, []float64{0, 0.7}); err == nil {
		t.Errorf("Predict of the unobserved column x: no error")
	}
	// Top: the posterior's order.
	top := p.Top(9)
	for k := 1; k < len(top); k++ {
		if !(post[top[k-1]] >= post[top[k]]) {
			t.Errorf("Top = %v: not in decreasing order", top)
		}
	}
	if top[0] != p.MAP() || len(p.Top(3)) != 3 || p.Top(3)[2] != top[2] {
		t.Errorf("Top = %v, Top(3) = %v, MAP = %d", top, p.Top(3), p.MAP())
	}
	// Gibbs: the frequencies of 200000 seeded draws are within 5 standard
	// errors of the posterior.
	r := rand.New(rand.NewPCG(1, 1))
	const draws = 200000
	counts := make([]int, 9)
	for range draws {
		counts[p.Gibbs(r)]++
	}
	for i, c := range counts {
		f := float64(c) / draws
		se := math.Sqrt(post[i] * (1 - post[i]) / draws)
		if !(math.Abs(f-post[i]) <= 5*se+1e-12) {
			t.Errorf("Gibbs drew h%d with frequency %g, posterior %g", i, f, post[i])
		}
	}
}

// TestDeterministic: the result is the same, bit for bit, for any number
// of workers.
func TestDeterministic(t *testing.T) {
	x, d := sigmoidData(50, 3)
	g := grid(-2, 2, 0.02)
	s := newSpace(t, []*ir.SpaceParam{param("w0", g), param("w1", g)}, "exp(-w0 * w0)", "d ~ bernoulli(sigmoid(w0 + w1 * x))")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref *Posterior
	for _, procs := range []int{1, 3, 8} {
		runtime.GOMAXPROCS(procs)
		p := evaluate(t, s, d, x)
		if ref == nil {
			ref = p
			continue
		}
		for i := range p.Len() {
			if p.LogPosterior(i) != ref.LogPosterior(i) || p.LogLikelihood(i) != ref.LogLikelihood(i) {
				t.Fatalf("GOMAXPROCS %d: hypothesis %d differs", procs, i)
			}
		}
		if p.MAP() != ref.MAP() || p.LogEvidence() != ref.LogEvidence() {
			t.Fatalf("GOMAXPROCS %d: MAP or evidence differs", procs)
		}
	}
}

func TestCancel(t *testing.T) {
	x, d := lineData(10, 1)
	g := grid(-5, 5, 0.01)
	s := lineSpace(t, g, g, "1")
	data, err := FromColumns(s, nil, [][]float64{d, x})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, s, nil, data); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestSufficientStatisticsAgainstDirect: spaces whose means the
// sufficient statistics expand (products over sums, division, constants,
// a parameter standard deviation) give the log-likelihoods of the
// column-at-a-time evaluation, which a comparison in the mean forces.
func TestSufficientStatisticsAgainstDirect(t *testing.T) {
	x, d := lineData(300, 5)
	for _, mean := range []string{
		"w0 + w1 * x",
		"(w0 - 1) * (x + 2) / 3 + w1 * x * x - 4",
		"w0 * (1 + x * (w1 + 2)) / (x * x + 1)",
		"-(w0 + exp(w1)) * x + 1000",
	} {
		g := grid(-1, 1, 0.25)
		sd := grid(0.5, 2, 0.5)
		ps := []*ir.SpaceParam{param("w0", g), param("w1", g), param("s", sd)}
		suff := evaluate(t, newSpace(t, ps, "", "d ~ normal("+mean+", s)"), d, x)
		// 1 ^ (w0 * x) is 1 in every row but is not a sum of products.
		direct := evaluate(t, newSpace(t, ps, "", "d ~ normal(("+mean+") * 1 ^ (w0 * x), s)"), d, x)
		if suff.like.obs[0].mode != modeSuff || direct.like.obs[0].mode != modeNormal {
			t.Fatalf("%s: modes %d, %d", mean, suff.like.obs[0].mode, direct.like.obs[0].mode)
		}
		for i := range suff.Len() {
			if a, b := suff.LogLikelihood(i), direct.LogLikelihood(i); !near(a, b, 1e-10) {
				t.Errorf("%s, %v: sufficient statistics %.15g, direct %.15g", mean, suff.Hypothesis(i), a, b)
				break
			}
		}
		if suff.MAP() != direct.MAP() {
			t.Errorf("%s: MAP %d, direct %d", mean, suff.MAP(), direct.MAP())
		}
	}
}

// ln2Pi is the constant the package used to compute at start-up, bit for
// bit.
func TestLn2Pi(t *testing.T) {
	if got, want := math.Float64bits(ln2Pi), math.Float64bits(math.Log(2*math.Pi)); got != want {
		t.Errorf("ln2Pi has bits %#x, math.Log(2π) %#x", got, want)
	}
}
