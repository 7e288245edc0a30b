package learn_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/mixture"
)

// blobs returns CSV text of n points in d dimensions around k centres.
func blobs(r *rand.Rand, n, d, k int) ([]byte, *mixture.Matrix) {
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = r.NormFloat64() * 5
	}
	var b strings.Builder
	for a := range d {
		if a > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "x%d", a)
	}
	b.WriteString("\n")
	vals := make([]float64, 0, n*d)
	for range n {
		j := r.IntN(k)
		for a := range d {
			x := centres[j*d+a] + r.NormFloat64()*(0.5+float64(j)*0.3)
			x = math.Round(x*1e6) / 1e6
			vals = append(vals, x)
			if a > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%g", x)
		}
		b.WriteString("\n")
	}
	return []byte(b.String()), mixture.NewMatrix(n, d, vals)
}

// fitGMM fits three components of covariance form to x with the mixture
// package, as learn's em is run in these tests (3 restarts, seed 2, the
// same regularisation): the reference.
func fitGMM(t *testing.T, x *mixture.Matrix, form string, maxIter int, tol float64) *mixture.GMM {
	t.Helper()
	ct, err := mixture.ParseCovariance(form)
	if err != nil {
		t.Fatal(err)
	}
	o := mixture.DefaultGMMOptions(3)
	o.Covariance, o.NInit, o.Seed, o.MaxIter, o.Tol, o.RegCovar = ct, 3, 2, maxIter, tol, learn.DefaultRegCovar
	g, err := mixture.FitGMM(x, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMixtureLearn: a model's mixture (mixture C of x0, x1, x2) learned
// with em is the mixture package's fit of the same rows, for each
// covariance form; the learned model re-loads and answers P(C | x...) as
// the fit's responsibilities.
func TestMixtureLearn(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	src, x := blobs(r, 400, 3, 3)
	for _, form := range []string{"full", "diag", "spherical", "tied"} {
		m := loadModel(t, "var C: {a, b, c}\nvar x0, x1, x2: real\nmixture C of x0, x1, x2 (covariance = "+form+")\n")
		out, rep, err := learn.Learn(m, opener(t, "p.csv", src, m), learn.Options{Method: learn.EM, Restarts: 3, Seed: 2, MaxIter: 200, Tol: 1e-8})
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		want := fitGMM(t, x, form, 200, 1e-8)
		if d := relDiff(rep.LogLik, want.LogLikelihood*400); !(d <= 1e-12) {
			t.Errorf("%s: log-likelihood %v, the mixture package's %v", form, rep.LogLik, want.LogLikelihood*400)
		}
		c, _ := out.Lookup("C")
		if d := maxDiff(out.Factor(c.ID).Vals, want.Weights); !(d <= 1e-12) {
			t.Errorf("%s: P(C) = %v, weights %v", form, out.Factor(c.ID).Vals, want.Weights)
		}
		var buf bytes.Buffer
		if err := source.Write(&buf, out, "learned"); err != nil {
			t.Fatal(err)
		}
		back, err := pbl.Load("back.pbl", []byte(buf.String()+"query P(C | x0=1, x1=2, x2=3)\nquery density(x0=1, x1=2, x2=3)\n"))
		if err != nil {
			t.Fatalf("%s: the learned model does not re-load: %v\n%s", form, err, buf.String())
		}
		if back.MultiNormal(back.Vars[1].ID) == nil {
			t.Errorf("%s: no joint density after the round trip", form)
		}
	}
}

// TestMixtureKnownVariance: Mitchell's k means with a known shared
// variance learns the means alone, never decreasing the log-likelihood,
// and finds two well separated means.
func TestMixtureKnownVariance(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	var b strings.Builder
	b.WriteString("x\n")
	for range 300 {
		mu := 2.0
		if r.IntN(2) == 0 {
			mu = 9
		}
		fmt.Fprintf(&b, "%g\n", mu+r.NormFloat64())
	}
	m := loadModel(t, "var C: {first, second}\nvar x: real\nmixture C of x (variance = 1)\n")
	out, rep, err := learn.Learn(m, opener(t, "x.csv", []byte(b.String()), m), learn.Options{Method: learn.EM, Restarts: 2, Seed: 1, Tol: 1e-12, MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	xv, _ := out.Lookup("x")
	g := out.Gaussian(xv.ID)
	lo, hi := min(g.Mean[0], g.Mean[1]), max(g.Mean[0], g.Mean[1])
	if !(math.Abs(lo-2) < 0.3) || !(math.Abs(hi-9) < 0.3) || g.SD[0] != 1 || g.SD[1] != 1 {
		t.Errorf("means %v, sd %v: want about 2 and 9, sd 1", g.Mean, g.SD)
	}
	cv, _ := out.Lookup("C")
	if p := out.Factor(cv.ID).Vals; p[0] != 0.5 || p[1] != 0.5 {
		t.Errorf("P(C) = %v: the weights are not learned with a known variance", p)
	}
	for i := 1; i < len(rep.Trace); i++ {
		if !(rep.Trace[i] >= rep.Trace[i-1]-1e-9*math.Abs(rep.Trace[i-1])) {
			t.Fatalf("the log-likelihood decreased at iteration %d", i)
		}
	}
}

// TestMixtureRefuses: what cannot be learned is an error of the kind that
// says whose fault it is, and a row that gives some of a joint density's
// variables is positioned at its line.
func TestMixtureRefuses(t *testing.T) {
	var me *learn.ModelError
	for _, c := range []struct {
		name, model, csv string
		isModel          bool
		method           learn.Method
		line             int
	}{
		{"not em", "var C: {a, b}\nvar x: real\nmixture C of x\n", "x\n1\n2\n", true, learn.MLE, 0},
		{"gradient", "var C: {a, b}\nvar x: real\nmixture C of x\n", "x\n1\n2\n", true, learn.Gradient, 0},
		{"missing value", "var C: {a, b}\nvar x, y: real\nmixture C of x, y\n", "x,y\n1,2\n,3\n4,5\n", false, learn.EM, 3},
		{"text", "var C: {a, b}\nvar x, y: real\nmixture C of x, y\n", "x,y\n1,2\nfoo,3\n4,5\n", false, learn.EM, 3},
		{"hidden without states", "var x: real\nnaive_bayes C given x\n", "x\n1\n2\n", true, learn.EM, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := loadModel(t, c.model)
			_, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
				return data.NewReader("d.csv", bytes.NewReader([]byte(c.csv)), m, data.Options{})
			}, learn.Options{Method: c.method})
			if err == nil || errors.As(err, &me) != c.isModel {
				t.Fatalf("got %v (%T)", err, err)
			}
			var ie *ir.Error
			if c.line > 0 && (!errors.As(err, &ie) || ie.Pos.Line != c.line || ie.Pos.File != "d.csv") {
				t.Errorf("got %v, want an error at d.csv:%d", err, c.line)
			}
			t.Log(err)
		})
	}
}
