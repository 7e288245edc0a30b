package learn_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
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

var updateLinear = flag.Bool("update-linear", false, "rewrite testdata/linear_numpy.txt from numpy (needs python3 with numpy)")

// linearModel is the structure learned by TestLinearMatchesNumpy: X2 a
// linear Gaussian of X1, Y one of X1 and X2 per state of A.
const linearModel = `var A: {a, b, c}
var X1, X2, Y: real
P(A) = [0.3, 0.5, 0.2]
P(X1) = normal(0, 1)
P(X2 | X1) = normal(X1, 1)
P(Y | A, X1, X2) = { a: normal(0, 1)  b: normal(0, 1)  c: normal(0, 1) }
`

// linearData writes n rows of A, X1, X2, Y drawn from a conditional linear
// Gaussian network by a fixed generator (the same rows on every machine),
// about 5% of them with one empty cell.
func linearData(path string, n int) error {
	r := rand.New(rand.NewPCG(7, 11))
	var b bytes.Buffer
	b.WriteString("A,X1,X2,Y\n")
	lines := map[string][4]float64{ // intercept, X1, X2, sd
		"a": {90, 0.6, -1.2, 8},
		"b": {-3, 2, 0.5, 0.3},
		"c": {1e3, -0.05, 3, 20},
	}
	for range n {
		u := r.Float64()
		a := "a"
		switch {
		case u >= 0.8:
			a = "c"
		case u >= 0.3:
			a = "b"
		}
		x1 := 50 + 12*r.NormFloat64()
		x2 := 4 + 0.3*x1 + 5*r.NormFloat64()
		l := lines[a]
		y := l[0] + l[1]*x1 + l[2]*x2 + l[3]*r.NormFloat64()
		cells := []string{a, strconv.FormatFloat(x1, 'g', -1, 64), strconv.FormatFloat(x2, 'g', -1, 64), strconv.FormatFloat(y, 'g', -1, 64)}
		if r.Float64() < 0.05 {
			cells[r.IntN(4)] = ""
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return os.WriteFile(path, b.Bytes(), 0o666)
}

// numpyLinear fits, for each family, numpy.linalg.lstsq on the rows that
// give the whole family, and prints per configuration: the family, the
// configuration, n, the intercept, the coefficients and the residual sum
// of squares; then each real column's variance (ddof 0) over the rows that
// give it.
const numpyLinear = `
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
def col(name, rs):
    return np.array([float(r[name]) for r in rs])
out = []
def fit(child, xs, rs, label):
    X = np.column_stack([np.ones(len(rs))] + [col(x, rs) for x in xs])
    y = col(child, rs)
    beta, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    rss = float(np.sum((y - X @ beta) ** 2))
    out.append(" ".join([child, label, str(len(rs))] + [repr(float(b)) for b in beta] + [repr(rss)]))
full = [r for r in rows if r["X1"] != "" and r["X2"] != ""]
fit("X2", ["X1"], full, "-")
for a in ["a", "b", "c"]:
    rs = [r for r in rows if r["A"] == a and r["X1"] != "" and r["X2"] != "" and r["Y"] != ""]
    fit("Y", ["X1", "X2"], rs, a)
for name in ["X1", "X2", "Y"]:
    vs = np.array([float(r[name]) for r in rows if r[name] != ""])
    out.append("var " + name + " " + repr(float(np.var(vs))))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
`

// numpyOrGolden runs script (Python with numpy) with args and then the
// path of its output, and returns that path; with -update-linear it also
// writes the output, after the comment line head, to golden. Without
// python3 and numpy it returns golden, numpy's answers of an earlier run.
func numpyOrGolden(t *testing.T, script string, args []string, golden, head string) string {
	t.Helper()
	py := python()
	if py == "" {
		t.Logf("python3 with numpy not found: comparing with %s", golden)
		return golden
	}
	out := filepath.Join(t.TempDir(), "numpy.txt")
	if b, err := exec.Command(py, append(append([]string{"-c", script}, args...), out)...).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, b)
	}
	if *updateLinear {
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append([]byte(head), text...), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// python returns a python3 that imports numpy, or "".
func python() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil {
			if exec.Command(path, "-c", "import numpy").Run() == nil {
				return path
			}
		}
	}
	return ""
}

// TestLinearMatchesNumpy: maximum likelihood learning of linear Gaussian
// densities from 100,000 generated rows (5% with an empty cell, skipped
// in the families they touch) gives numpy.linalg.lstsq's intercepts and
// coefficients, and the standard deviation √(RSS/n + ε) (ε the variance
// smoothing: 1e-9 times the largest learned variable's variance), to
// 1e-9 relative. numpy runs when python3 has it; otherwise the test
// compares with testdata/linear_numpy.txt, numpy 1.24's answers on the
// same rows (go test ./learn -run TestLinearMatchesNumpy -update-linear
// writes it).
func TestLinearMatchesNumpy(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.csv")
	if err := linearData(csvPath, 100_000); err != nil {
		t.Fatal(err)
	}
	want := numpyOrGolden(t, numpyLinear, []string{csvPath}, filepath.Join("testdata", "linear_numpy.txt"),
		"# numpy.linalg.lstsq on the rows of learn/linear_test.go's linearData(100000), by its numpyLinear script:\n# family, configuration, rows, intercept, coefficients, RSS; then each real column's variance (ddof 0).\n")
	ref := readNumpy(t, want)

	m, err := pbl.Load("linear.pbl", []byte(linearModel))
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(csvPath, m, data.Options{}) }, learn.Options{Method: learn.MLE})
	if err != nil {
		t.Fatal(err)
	}
	if rep.PartialRows == 0 {
		t.Errorf("no row skipped for a missing cell")
	}
	top := math.Max(ref.vars["X1"], math.Max(ref.vars["X2"], ref.vars["Y"]))
	eps := learn.DefaultVarSmoothing * top
	check := func(child string, u int, fit numpyFit) {
		v, _ := out.Lookup(child)
		g := out.Gaussian(v.ID)
		if g == nil || len(g.Real) != len(fit.beta)-1 {
			t.Fatalf("%s: density %+v", child, g)
		}
		k := len(g.Real)
		got := append([]float64{g.Mean[u]}, g.Coef[u*k:(u+1)*k]...)
		for i, b := range fit.beta {
			if !(math.Abs(got[i]-b) <= 1e-9*math.Max(1, math.Abs(b))) {
				t.Errorf("%s, configuration %d: coefficient %d is %.17g, numpy %.17g", child, u, i, got[i], b)
			}
		}
		sd := math.Sqrt(fit.rss/fit.n + eps)
		if !(math.Abs(g.SD[u]-sd) <= 1e-9*sd) {
			t.Errorf("%s, configuration %d: sd %.17g, numpy's √(RSS/n + ε) %.17g", child, u, g.SD[u], sd)
		}
	}
	check("X2", 0, ref.fits["X2 -"])
	for u, a := range []string{"a", "b", "c"} {
		check("Y", u, ref.fits["Y "+a])
	}
	// The numbers learned are those the data came from, roughly: a
	// learner that ignored the real parents would be far off.
	y, _ := out.Lookup("Y")
	if g := out.Gaussian(y.ID); !(math.Abs(g.Coef[3]-0.5) < 0.01 && math.Abs(g.Coef[5]-3) < 0.05 && math.Abs(g.SD[1]-0.3) < 0.01) {
		t.Errorf("Y's density %+v is not the generating one", g)
	}

	// Counted in two parts, merged, and carried through MarshalBinary,
	// the statistics give the same densities to rounding (the residual
	// sum of squares, a difference of scatters, keeps fewer digits than
	// the coefficients: 4e-11 here).
	r, err := data.Open(csvPath, m, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	parts := []*learn.Counts{learn.NewCounts(m, learn.Options{}), learn.NewCounts(m, learn.Options{})}
	for i := 0; ; i++ {
		b := r.NewBatch(7777)
		err := r.Read(b)
		parts[i%2].Add(b)
		if err != nil {
			break
		}
	}
	enc, err := parts[1].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back learn.Counts
	if err := back.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	parts[0].Merge(&back)
	merged, err := learn.Estimate(m, parts[0], learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"X2", "Y"} {
		v, _ := out.Lookup(name)
		a, b := out.Gaussian(v.ID), merged.Gaussian(v.ID)
		for i, x := range append(append(append([]float64(nil), a.Mean...), a.Coef...), a.SD...) {
			y := append(append(append([]float64(nil), b.Mean...), b.Coef...), b.SD...)[i]
			if !(math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x))) {
				t.Errorf("%s: number %d is %v learned at once, %v from merged parts", name, i, x, y)
			}
		}
	}
}

type numpyFit struct {
	n, rss float64
	beta   []float64
}

type numpyRef struct {
	fits map[string]numpyFit
	vars map[string]float64
}

func readNumpy(t *testing.T, path string) numpyRef {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref := numpyRef{fits: map[string]numpyFit{}, vars: map[string]float64{}}
	sc := bufio.NewScanner(f)
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return x
	}
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		switch {
		case len(w) == 0 || strings.HasPrefix(w[0], "#"):
		case w[0] == "var" && len(w) == 3:
			ref.vars[w[1]] = num(w[2])
		case len(w) >= 5:
			fit := numpyFit{n: num(w[2]), rss: num(w[len(w)-1])}
			for _, s := range w[3 : len(w)-1] {
				fit.beta = append(fit.beta, num(s))
			}
			ref.fits[w[0]+" "+w[1]] = fit
		default:
			t.Fatalf("%s: line %q", path, sc.Text())
		}
	}
	if len(ref.fits) != 4 || len(ref.vars) != 3 {
		t.Fatalf("%s: %d fits and %d variances, want 4 and 3", path, len(ref.fits), len(ref.vars))
	}
	return ref
}

// TestLinearLearnErrors: EM learns linear Gaussian densities (on complete
// rows, its coefficients are the least squares ones: emlinear_test.go
// checks it with hidden parents and missing cells); collinear real
// parents are an error naming them.
func TestLinearLearnErrors(t *testing.T) {
	m, err := pbl.Load("l.pbl", []byte("var X, Y: real\nP(X) = normal(0, 1)\nP(Y | X) = normal(X, 1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "d.csv")
	var b strings.Builder
	b.WriteString("X,Y\n")
	for i := range 50 {
		fmt.Fprintf(&b, "%d,%d\n", i%7, (i*3)%11)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	open := func(m *ir.Model) (*data.Reader, error) { return data.Open(path, m, data.Options{}) }
	em, _, err := learn.Learn(m, open, learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 1})
	if err != nil {
		t.Fatalf("EM: %v", err)
	}
	ls, _, err := learn.Learn(m, open, learn.Options{Method: learn.MLE})
	if err != nil {
		t.Fatal(err)
	}
	ge, gl := em.Gaussian(1), ls.Gaussian(1)
	if !(math.Abs(ge.Mean[0]-gl.Mean[0]) <= 1e-9) || !(math.Abs(ge.Coef[0]-gl.Coef[0]) <= 1e-9) || !(math.Abs(ge.SD[0]-gl.SD[0]) <= 1e-6) {
		t.Errorf("EM on complete rows: %v + %v·X, sd %v; least squares: %v + %v·X, sd %v", ge.Mean[0], ge.Coef[0], ge.SD[0], gl.Mean[0], gl.Coef[0], gl.SD[0])
	}
	// X constant: the line through the rows is not determined.
	b.Reset()
	b.WriteString("X,Y\n")
	for i := range 50 {
		fmt.Fprintf(&b, "2,%d\n", i%5)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, _, err := learn.Learn(m, open, learn.Options{Method: learn.MLE, Vars: []ir.VarID{1}}); err == nil || !strings.Contains(err.Error(), "collinear") {
		t.Errorf("constant X: error %v", err)
	}
}
