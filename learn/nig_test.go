package learn_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// nigModel is the structure TestLinearBayesNIG learns: Y a linear Gaussian
// of X1 and X2 per state of A, whose state d the data never shows and c
// shows in a handful of rows.
const nigModel = `var A: {a, b, c, d}
var X1, X2, Y: real
P(A) = [0.3, 0.5, 0.1, 0.1]
P(X1) = normal(0, 1)
P(X2 | X1) = normal(X1, 1)
P(Y | A, X1, X2) = { a: normal(0, 1)  b: normal(0, 1)  c: normal(0, 1)  d: normal(0, 1) }
`

// nigData writes 3,000 rows of A, X1, X2, Y (A = c in 6 of them, d in
// none) by a fixed generator.
func nigData(path string) error {
	r := rand.New(rand.NewPCG(3, 5))
	var b bytes.Buffer
	b.WriteString("A,X1,X2,Y\n")
	lines := map[string][4]float64{ // intercept, X1, X2, sd
		"a": {90, 0.6, -1.2, 8},
		"b": {70, 1.0, -0.5, 3},
		"c": {20, 2.5, 1, 1},
	}
	for i := range 3000 {
		a := "a"
		switch {
		case i%500 == 7:
			a = "c"
		case r.Float64() < 0.6:
			a = "b"
		}
		x1 := 50 + 12*r.NormFloat64()
		x2 := 4 + 0.3*x1 + 5*r.NormFloat64()
		l := lines[a]
		y := l[0] + l[1]*x1 + l[2]*x2 + l[3]*r.NormFloat64()
		b.WriteString(strings.Join([]string{a, strconv.FormatFloat(x1, 'g', -1, 64), strconv.FormatFloat(x2, 'g', -1, 64), strconv.FormatFloat(y, 'g', -1, 64)}, ",") + "\n")
	}
	return os.WriteFile(path, b.Bytes(), 0o666)
}

// numpyNIG computes the normal-inverse-gamma point estimates of
// learn/nig.go in another way: the posterior mean of the coefficients of
// configuration u is the least-squares fit of u's rows together with every
// row of the family weighted κ/N, whose targets are replaced by the pooled
// least-squares fit's predictions (that is what a prior worth κ pooled
// rows means), and bn = ½(κ·s² + RSS_u(mn) + (κ/N)·Σ_pool (ŷ_pool − mnᵀa)²),
// an = (κ + n_u)/2, the variance bn/an. Raw (uncentred) columns, numpy's
// lstsq. It prints, per family and configuration, the rows, the intercept,
// the coefficients and the variance, for κ given per configuration.
const numpyNIG = `
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
out = []
def design(xs, rs):
    return np.column_stack([np.ones(len(rs))] + [np.array([float(r[x]) for r in rs]) for x in xs])
def target(child, rs):
    return np.array([float(r[child]) for r in rs])
def nig(child, xs, configs, kappa, label):
    pool = [r for c in configs for r in c[1]]
    XP, yP = design(xs, pool), target(child, pool)
    N = len(pool)
    m0 = np.linalg.lstsq(XP, yP, rcond=None)[0]
    s2 = float(np.sum((yP - XP @ m0) ** 2)) / N
    yhat = XP @ m0
    w = kappa / N
    for name, rs in configs:
        X, y = design(xs, rs), target(child, rs)
        A = np.vstack([X, np.sqrt(w) * XP])
        b = np.concatenate([y, np.sqrt(w) * yhat])
        mn = np.linalg.lstsq(A, b, rcond=None)[0]
        bn = 0.5 * (kappa * s2 + float(np.sum((y - X @ mn) ** 2)) + w * float(np.sum((yhat - XP @ mn) ** 2)))
        an = 0.5 * (kappa + len(rs))
        out.append(" ".join([label, child, name, str(len(rs))] + [repr(float(v)) for v in mn] + [repr(bn / an)]))
for label, alpha, ess in [("alpha1", 1.0, 0), ("ess20", 0, 20.0)]:
    k1 = alpha if ess == 0 else ess / 1
    nig("X2", ["X1"], [("-", rows)], k1, label)
    k4 = alpha if ess == 0 else ess / 4
    nig("Y", ["X1", "X2"], [(a, [r for r in rows if r["A"] == a]) for a in "abcd"], k4, label)
top = max(float(np.var(target(c, rows))) for c in ["X1", "X2", "Y"])
out.append("top variance - " + repr(top))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
`

// TestLinearBayesNIG: method bayes learns linear Gaussian densities as
// the normal-inverse-gamma posterior of learn/nig.go, checked against
// numpy's different computation of it (numpyNIG; without numpy, against
// testdata/nig_numpy.txt, its answers, rewritten by -update-linear) to
// 1e-9 relative, with alpha = 1 (κ = 1 per configuration) and ess = 20
// (κ = 20/q). And its properties: a family without discrete parents gets
// the maximum likelihood fit (numpy's lstsq and RSS/n), whatever κ; a
// configuration without rows gets the pooled fit; one with a few rows is
// drawn towards it.
func TestLinearBayesNIG(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.csv")
	if err := nigData(csvPath); err != nil {
		t.Fatal(err)
	}
	want := numpyOrGolden(t, numpyNIG, []string{csvPath}, filepath.Join("testdata", "nig_numpy.txt"),
		"# learn/nig_test.go's numpyNIG on nigData's rows: options, family, configuration, rows, intercept, coefficients, variance.\n")
	text, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	type fit struct {
		n    float64
		beta []float64
		v    float64
	}
	ref := map[string]fit{}
	var top float64 // the largest variance of a real column
	for _, line := range strings.Split(string(text), "\n") {
		w := strings.Fields(line)
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		var nums []float64
		for _, s := range w[3:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", want, line, err)
			}
			nums = append(nums, x)
		}
		if w[0] == "top" {
			top = nums[0]
			continue
		}
		ref[strings.Join(w[:3], " ")] = fit{n: nums[0], beta: nums[1 : len(nums)-1], v: nums[len(nums)-1]}
	}
	if len(ref) != 10 || !(top > 0) {
		t.Fatalf("%s: %d fits, want 10", want, len(ref))
	}

	m, err := pbl.Load("nig.pbl", []byte(nigModel))
	if err != nil {
		t.Fatal(err)
	}
	open := func(m *ir.Model) (*data.Reader, error) { return data.Open(csvPath, m, data.Options{}) }
	mle, _, err := learn.Learn(m, open, learn.Options{Method: learn.MLE})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		label string
		opt   learn.Options
	}{
		{"alpha1", learn.Options{Method: learn.Bayes, Alpha: 1}},
		{"ess20", learn.Options{Method: learn.Bayes, ESS: 20}},
	} {
		out, _, err := learn.Learn(m, open, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.label, err)
		}
		// The smoothing added to every variance: 1e-9 of the largest
		// real column's variance.
		eps := learn.DefaultVarSmoothing * top
		check := func(child, config string, u int) {
			f, ok := ref[tc.label+" "+child+" "+config]
			if !ok {
				t.Fatalf("%s: no reference for %s %s", tc.label, child, config)
			}
			v, _ := out.Lookup(child)
			g := out.Gaussian(v.ID)
			k := len(g.Real)
			got := append([]float64{g.Mean[u]}, g.Coef[u*k:(u+1)*k]...)
			for i, b := range f.beta {
				if !(math.Abs(got[i]-b) <= 1e-9*math.Max(1, math.Abs(b))) {
					t.Errorf("%s: %s given %s: coefficient %d is %.17g, numpy %.17g", tc.label, child, config, i, got[i], b)
				}
			}
			if sd := math.Sqrt(f.v + eps); !(math.Abs(g.SD[u]-sd) <= 1e-9*sd) {
				t.Errorf("%s: %s given %s: sd %.17g, numpy %.17g", tc.label, child, config, g.SD[u], sd)
			}
		}
		check("X2", "-", 0)
		for u, a := range []string{"a", "b", "c", "d"} {
			check("Y", a, u)
		}
		// Properties, independent of numpy: X2 has no discrete parent, so
		// bayes is mle; A = d has no rows, so its fit is the pooled one,
		// far from mle's placeholder (intercept 0, sd 1); A = c's 6 rows
		// are drawn towards the pooled fit, a lot when κ = 5, a little when
		// κ = 1.
		x2, _ := out.Lookup("X2")
		a, b := out.Gaussian(x2.ID), mle.Gaussian(x2.ID)
		for i, x := range []float64{a.Mean[0], a.Coef[0], a.SD[0]} {
			y := []float64{b.Mean[0], b.Coef[0], b.SD[0]}[i]
			if !(math.Abs(x-y) <= 1e-10*math.Max(1, math.Abs(y))) {
				t.Errorf("%s: X2's number %d is %.17g with bayes, %.17g with mle", tc.label, i, x, y)
			}
		}
		y, _ := out.Lookup("Y")
		g, gm := out.Gaussian(y.ID), mle.Gaussian(y.ID)
		if !(gm.Mean[3] == 0 && gm.SD[3] == 1 && g.SD[3] > 3 && g.SD[3] < 20) {
			t.Errorf("%s: Y given d: mle sd %v, bayes sd %v (the pooled fit's)", tc.label, gm.SD[3], g.SD[3])
		}
		if shift := math.Abs(g.Coef[2*2] - gm.Coef[2*2]); !(shift > 1e-6) {
			t.Errorf("%s: Y given c's X1 coefficient %v moved only %v from mle's", tc.label, g.Coef[4], shift)
		}
	}
}
