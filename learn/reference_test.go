package learn_test

// Reference tests: pbl's naive Bayes against independent implementations,
// run at test time (each skips, saying why, when its tool is absent; CI
// installs them, see .ci/run). The data sets come with the tools and are
// written to a temporary directory; none is committed.
//
//   - Categorical features with missing values: R's e1071::naiveBayes
//     (laplace = 1) on mlbench's HouseVotes84.
//   - Gaussian features: scikit-learn's GaussianNB (var_smoothing = 1e-9)
//     on the iris data set.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// The R script: write HouseVotes84 as CSV (NA as an empty cell), fit
// e1071's naive Bayes with Laplace smoothing 1, and write the posterior of
// every row with 17 significant digits.
//
// e1071's naiveBayes.default estimates P(x | c) = (n_cx + laplace) /
// (n_c + laplace · nlevels) from table(y, x), which leaves out the rows
// where x (or the class) is NA, so n_c counts the rows of class c with x
// present: pbl's available-case counting with bayes(alpha = 1). The class
// prior is not smoothed: apriori is table(y), the raw counts (used as
// log(apriori), the normalising constant cancels): pbl's mle. predict
// skips an NA cell (a factor of 1), as pbl skips a missing feature. It
// replaces a probability p <= eps (default 0) by threshold (default
// 0.001); with laplace = 1 no probability is 0, so this never applies, and
// the script sets threshold = 0 to say so.
const votesR = `
suppressMessages({library(e1071); library(mlbench)})
args <- commandArgs(trailingOnly = TRUE)
data(HouseVotes84)
write.csv(HouseVotes84, args[1], row.names = FALSE, na = "")
model <- naiveBayes(Class ~ ., data = HouseVotes84, laplace = 1)
post <- predict(model, HouseVotes84, type = "raw", threshold = 0, eps = 0)
out <- apply(post, 2, function(x) sprintf("%.17g", x))
write.csv(out, args[2], row.names = FALSE, quote = FALSE)
`

// A refProgram is an outside program the tests compare pbl with.
type refProgram struct {
	prog  string // its absolute path
	flag  string // the flag before a script's text: -e for Rscript, -c for python3
	probe string // a script that runs when the packages used are installed
	needs string // what to install, for the message of a skipped test
}

// runReference runs script by ref with args, failing the test if it
// fails; it skips the test when ref's program or packages are missing.
func runReference(t *testing.T, ref refProgram, script string, args ...string) {
	t.Helper()
	if _, err := os.Stat(ref.prog); err != nil {
		t.Skipf("%s not found (%v): install %s to compare with it", ref.prog, err, ref.needs)
	}
	if out, err := exec.Command(ref.prog, ref.flag, ref.probe).CombinedOutput(); err != nil {
		t.Skipf("%s: %q fails (install %s): %v\n%s", ref.prog, ref.probe, ref.needs, err, out)
	}
	if out, err := exec.Command(ref.prog, append([]string{ref.flag, script}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", ref.prog, err, out)
	}
}

// TestNaiveBayesMatchesE1071 compares pbl's posteriors with e1071's on all
// 435 rows of HouseVotes84 (16 y/n votes, with NAs).
func TestNaiveBayesMatchesE1071(t *testing.T) {
	dir := t.TempDir()
	votes, want := filepath.Join(dir, "votes.csv"), filepath.Join(dir, "e1071.csv")
	runReference(t, refProgram{"/usr/bin/Rscript", "-e", "library(e1071); library(mlbench)",
		"r-base, r-cran-e1071 and r-cran-mlbench (e1071::naiveBayes)"}, votesR, votes, want)
	var vs []string
	for i := 1; i <= 16; i++ {
		vs = append(vs, "V"+strconv.Itoa(i))
	}
	src := fmt.Sprintf(`naive_bayes Class given %[1]s
learn Class from "votes.csv" with mle
learn %[1]s from "votes.csv" with bayes(alpha = 1)
`, strings.Join(vs, ", "))
	path := filepath.Join(dir, "votes.pbl")
	if err := os.WriteFile(path, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	m, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fails := pbl.Run(m, io.Discard, pbl.RunOptions{}); len(fails) > 0 {
		t.Fatal(fails)
	}
	// The two statements each learned their own variables, keeping the
	// other's: the class prior is unsmoothed, the votes' tables smoothed.
	class := m.Classifier.Class
	if u := m.Unlearned(); len(u) > 0 {
		t.Fatalf("unlearned after the learn statements: %v", u)
	}
	if p := m.Table(ir.VarID(class)).Factor.Vals; p[m.Vars[class].State("democrat")] != 267.0/435 {
		t.Errorf("P(Class) = %v: want the unsmoothed 267/435 democrats", p)
	}
	b := readFile(t, votes, m)
	na := 0
	for _, col := range b.Cols {
		for _, s := range col[:b.N] {
			if s == data.Missing {
				na++
			}
		}
	}
	if b.N != 435 || na == 0 {
		t.Fatalf("votes.csv: %d rows, %d missing cells; want 435 rows with NAs", b.N, na)
	}
	t.Logf("%d missing cells", na)
	cmpPosteriors(t, m, class, b, readPosteriors(t, want))
}

// The Python script: write iris as CSV (every value as repr, which reads
// back exactly), fit GaussianNB(var_smoothing=1e-9) and write
// predict_proba of every row with repr.
//
// GaussianNB's class prior is the class frequency (pbl's mle); its
// variance per class and feature is np.var (divisor n) plus
// epsilon = var_smoothing · max over the features of np.var(X, axis=0),
// the variance over the whole data set: what pbl computes with
// VarSmoothing = 1e-9.
const irisPy = `
import sys, csv
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB
d = load_iris()
X, y = d.data, d.target
cols = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(cols + ["Species"])
    for x, c in zip(X, y):
        w.writerow([repr(float(v)) for v in x] + [d.target_names[c]])
nb = GaussianNB(var_smoothing=1e-9).fit(X, y)
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow([d.target_names[c] for c in nb.classes_])
    for p in nb.predict_proba(X):
        w.writerow([repr(float(v)) for v in p])
`

// TestGaussianNaiveBayesMatchesSklearn compares pbl's posteriors with
// scikit-learn's GaussianNB on all 150 rows of iris.
func TestGaussianNaiveBayesMatchesSklearn(t *testing.T) {
	dir := t.TempDir()
	iris, want := filepath.Join(dir, "iris.csv"), filepath.Join(dir, "sklearn.csv")
	runReference(t, refProgram{"/usr/bin/python3", "-c", "import sklearn", "python3-sklearn (GaussianNB)"}, irisPy, iris, want)
	m, err := pbl.Load("iris.pbl", []byte(`var SepalLength, SepalWidth, PetalLength, PetalWidth: real
naive_bayes Species given SepalLength, SepalWidth, PetalLength, PetalWidth
`))
	if err != nil {
		t.Fatal(err)
	}
	opt := learn.Options{Method: learn.MLE, VarSmoothing: 1e-9}
	if _, err := learnInto(&m, func(m *ir.Model) (*data.Reader, error) { return data.Open(iris, m, data.Options{}) }, opt); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, iris, m)
	cmpPosteriors(t, m, m.Classifier.Class, b, readPosteriors(t, want))

	// The priors of bayes and mestimate apply to the class's table only:
	// the densities are the same maximum likelihood estimates.
	m2, err := pbl.Load("iris.pbl", []byte(`var SepalLength, SepalWidth, PetalLength, PetalWidth: real
naive_bayes Species given SepalLength, SepalWidth, PetalLength, PetalWidth
`))
	if err != nil {
		t.Fatal(err)
	}
	opt = learn.Options{Method: learn.Bayes, Alpha: 3}
	if _, err := learnInto(&m2, func(m *ir.Model) (*data.Reader, error) { return data.Open(iris, m2, data.Options{}) }, opt); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Classifier.Features {
		g, g2 := m.Gaussian(f), m2.Gaussian(f)
		if d := max(maxDiff(g.Mean, g2.Mean), maxDiff(g.SD, g2.SD)); d != 0 {
			t.Errorf("%s: the densities learned with bayes differ from mle's by %g", m.Vars[f].Name, d)
		}
	}
}

// readFile reads a whole CSV file against m.
func readFile(t *testing.T, path string, m *ir.Model) *data.Batch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := data.ReadAll(path, f, m, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readPosteriors reads a CSV of posteriors: a header of class names, one
// row per data row.
func readPosteriors(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(src)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v (%d records)", path, err, len(recs))
	}
	out := map[string][]float64{}
	for _, r := range recs[1:] {
		for j, cell := range r {
			x, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out[recs[0][j]] = append(out[recs[0][j]], x)
		}
	}
	return out
}

// cmpPosteriors compares pbl's posterior of every row of b with want
// (per class name, per row) to 1e-9, and logs the largest difference.
func cmpPosteriors(t *testing.T, m *ir.Model, class ir.VarID, b *data.Batch, want map[string][]float64) {
	t.Helper()
	states := m.Vars[class].States
	if len(want) != len(states) {
		t.Fatalf("the reference has classes %v, pbl %v", want, states)
	}
	post := make([]float64, len(states))
	lp := make([]float64, len(states))
	worst := 0.0
	for i := range b.N {
		if err := learn.Predict(m, class, b, i, post); err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		learn.LogPosterior(m, b, i, lp)
		for c, s := range states {
			w, ok := want[s]
			if !ok || len(w) != b.N {
				t.Fatalf("the reference has no column %q with %d rows", s, b.N)
			}
			d := math.Abs(post[c] - w[i])
			d = max(d, math.Abs(math.Exp(lp[c])-w[i]))
			worst = max(worst, d)
			if !(d <= 1e-9) {
				t.Errorf("row %d: P(%s | row) = %.17g, reference %.17g", i+1, s, post[c], w[i])
			}
		}
	}
	t.Logf("%d rows, %d classes: max |pbl − reference| = %.3g", b.N, len(states), worst)
}
