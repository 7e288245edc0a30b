package learn_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// gaussNet is a Gaussian network of two components ({X1..X4, X6} joined
// through X6's parent X5 too: one component of six) learned by EM from
// rows with 20% of their cells missing; its numbers are EM's start.
const gaussNet = `var X1, X2, X3, X4, X5, X6: real
P(X1) = normal(10, 3)
P(X2 | X1) = normal(1 + 0.5 * X1, 2)
P(X3 | X1, X2) = normal(-2 + 0.3 * X1 + 0.8 * X2, 1.5)
P(X4 | X3) = normal(4 - 0.6 * X3, 1)
P(X5) = normal(-5, 2)
P(X6 | X4, X5) = normal(0.5 * X4 + 1.2 * X5, 2.5)
`

// gaussNetFamilies lists gaussNet's families (child, then real parents)
// for the reference, in the order of its variables.
var gaussNetFamilies = [][]string{{"X1"}, {"X2", "X1"}, {"X3", "X1", "X2"}, {"X4", "X3"}, {"X5"}, {"X6", "X4", "X5"}}

// gaussNetData draws n rows of a Gaussian network of gaussNet's structure
// (other numbers) and empties each cell with probability miss.
func gaussNetData(seed uint64, n int, miss float64) []byte {
	r := rand.New(rand.NewPCG(seed, 17))
	var b strings.Builder
	b.WriteString("X1,X2,X3,X4,X5,X6\n")
	for range n {
		x := make([]float64, 6)
		x[0] = 12 + 2*r.NormFloat64()
		x[1] = 3 + 0.7*x[0] + 1.5*r.NormFloat64()
		x[2] = -1 + 0.2*x[0] + 1.1*x[1] + r.NormFloat64()
		x[3] = 2 - 0.4*x[2] + 0.8*r.NormFloat64()
		x[4] = -4 + 3*r.NormFloat64()
		x[5] = 1 + 0.9*x[3] + 1.5*x[4] + 2*r.NormFloat64()
		cells := make([]string, 6)
		for j, v := range x {
			if r.Float64() >= miss {
				cells[j] = strconv.FormatFloat(v, 'f', 6, 64)
			}
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return []byte(b.String())
}

// numpyGaussEM is EM on a Gaussian network with missing cells written
// apart from package learn, in covariance form: per row, the joint normal
// of all the variables (μ and Σ by the network's recursion), the marginal
// density of the observed cells (the log-likelihood) and the conditional
// normal of the missing ones; each family's expected statistics over the
// rows that give its child or a descendant of it (a missing variable whose
// descendants are all missing is integrated out), then least squares. It
// prints the log-likelihood of each iteration's start, then the numbers
// after the last: per family, the intercept (the mean), coefficients, sd.
const numpyGaussEM = `
import csv, sys, math
import numpy as np
rows = list(csv.reader(open(sys.argv[1])))
names, rows = rows[0], rows[1:]
X = np.array([[float(c) if c != "" else np.nan for c in r] for r in rows])
fams = [f.split(":") for f in sys.argv[2].split(";")]
fams = [[names.index(v) for v in f] for f in fams]  # child, parents
iters, reg = int(sys.argv[3]), float(sys.argv[4])
p = [[float(v) for v in t.split(",")] for t in sys.argv[5].split(";")]  # intercept, coefs..., sd
n = len(names)
def joint(p):
    mu, S = np.zeros(n), np.zeros((n, n))
    for f, th in zip(fams, p):
        y, xs = f[0], f[1:]
        b = np.array(th[1:-1])
        mu[y] = th[0] + (b @ mu[xs] if xs else 0)
        if xs:
            S[y, :] = b @ S[xs, :]
            S[:, y] = S[y, :]
            S[y, y] = b @ S[xs, y] + th[-1] ** 2
        else:
            S[y, y] = th[-1] ** 2
    return mu, S
desc = [set() for _ in range(n)]
for f in fams:
    for x in f[1:]:
        desc[x].add(f[0])
changed = True
while changed:
    changed = False
    for v in range(n):
        new = set(desc[v])
        for c in desc[v]:
            new |= desc[c]
        if new != desc[v]:
            desc[v], changed = new, True
out = []
for it in range(iters):
    mu, S = joint(p)
    ll = 0.0
    stats = [None] * len(fams)
    for f in range(len(fams)):
        d = len(fams[f]) + 1
        stats[f] = [0.0, np.zeros((d, d))]  # W, E[a aᵀ] over a = (1, parents..., child)
    for r in X:
        o = [i for i in range(n) if not np.isnan(r[i])]
        m = [i for i in range(n) if np.isnan(r[i])]
        if not o:
            continue
        Soo = S[np.ix_(o, o)]
        res = r[o] - mu[o]
        sol = np.linalg.solve(Soo, res)
        sign, logdet = np.linalg.slogdet(Soo)
        ll += -0.5 * (len(o) * math.log(2 * math.pi) + logdet + res @ sol)
        xh = r.copy()
        V = np.zeros((n, n))
        if m:
            Smo = S[np.ix_(m, o)]
            xh[m] = mu[m] + Smo @ sol
            V[np.ix_(m, m)] = S[np.ix_(m, m)] - Smo @ np.linalg.solve(Soo, Smo.T)
        seen = [not np.isnan(r[v]) or any(not np.isnan(r[c]) for c in desc[v]) for v in range(n)]
        for f, fam in enumerate(fams):
            if not seen[fam[0]]:
                continue
            idx = fam[1:] + [fam[0]]
            a = np.concatenate([[1.0], xh[idx]])
            E = np.outer(a, a)
            E[1:, 1:] += V[np.ix_(idx, idx)]
            stats[f][0] += 1
            stats[f][1] += E
    out.append("ll " + repr(ll))
    q = []
    for f, fam in enumerate(fams):
        W, E = stats[f]
        k = len(fam)  # 1 + parents
        A, by, yy = E[:k, :k], E[:k, k], E[k, k]
        beta = np.linalg.solve(A, by)
        var = (yy - beta @ by) / W + reg
        q.append(list(beta) + [math.sqrt(var)])
    p = q
for f, th in zip(fams, p):
    out.append("fam " + names[f[0]] + " " + " ".join(repr(float(v)) for v in th))
open(sys.argv[6], "w").write("\n".join(out) + "\n")
`

// TestEMMissingRealParents: EM on a Gaussian network of six variables with
// 20% of the cells of 2,000 rows missing (real parents among them) equals
// the reference EM in covariance form (numpyGaussEM; without numpy,
// testdata/em_missing_numpy.txt, its answers, rewritten by -update-linear)
// to 1e-9: the log-likelihood of every iteration, and every number after
// the last; the log-likelihood never decreases.
func TestEMMissingRealParents(t *testing.T) {
	const iters = 8
	src := gaussNetData(11, 2000, 0.2)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(csvPath, src, 0o666); err != nil {
		t.Fatal(err)
	}
	var fams []string
	for _, f := range gaussNetFamilies {
		fams = append(fams, strings.Join(f, ":"))
	}
	start := "10,3;1,0.5,2;-2,0.3,0.8,1.5;4,-0.6,1;-5,2;0,0.5,1.2,2.5"
	want := numpyOrGolden(t, numpyGaussEM,
		[]string{csvPath, strings.Join(fams, ";"), strconv.Itoa(iters), strconv.FormatFloat(learn.DefaultRegCovar, 'g', -1, 64), start},
		filepath.Join("testdata", "em_missing_numpy.txt"),
		"# learn/emmissing_test.go's numpyGaussEM on gaussNetData(11, 2000, 0.2): the log-likelihood of each iteration's start, then each family's numbers after the last.\n")
	text, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	var refLL []float64
	refFam := map[string][]float64{}
	for _, line := range strings.Split(string(text), "\n") {
		w := strings.Fields(line)
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		var nums []float64
		for _, s := range w[1:] {
			if x, err := strconv.ParseFloat(s, 64); err == nil {
				nums = append(nums, x)
			}
		}
		switch w[0] {
		case "ll":
			refLL = append(refLL, nums[0])
		case "fam":
			refFam[w[1]] = nums
		}
	}
	if len(refLL) != iters || len(refFam) != 6 {
		t.Fatalf("%s: %d log-likelihoods and %d families, want %d and 6", want, len(refLL), len(refFam), iters)
	}

	m := loadModel(t, gaussNet)
	out, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: iters, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rel := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*max(1, math.Abs(want)) }
	if len(rep.Trace) < iters {
		t.Fatalf("trace %v, want %d iterations", rep.Trace, iters)
	}
	for i, ll := range refLL {
		if !rel(rep.Trace[i], ll) {
			t.Errorf("iteration %d: log-likelihood %.15g, the reference %.15g", i+1, rep.Trace[i], ll)
		}
	}
	checkMonotone(t, rep.Trace)
	for _, f := range gaussNetFamilies {
		g := out.Gaussian(mustVar(t, out, f[0]))
		got := append(append([]float64{g.Mean[0]}, g.Coef...), g.SD[0])
		w := refFam[f[0]]
		if len(got) != len(w) {
			t.Fatalf("%s: %v, the reference %v", f[0], got, w)
		}
		for i := range w {
			if !rel(got[i], w[i]) {
				t.Errorf("%s: number %d is %.15g, the reference %.15g", f[0], i, got[i], w[i])
			}
		}
	}
}

// TestEMMissingRealParentsMonotone: on 20,000 rows of the same network
// with 20% of the cells missing, from a start far from the truth, EM's
// log-likelihood never decreases over 60 iterations, and the numbers it
// reaches are the generating ones within sampling error.
func TestEMMissingRealParentsMonotone(t *testing.T) {
	n := raceFewer(20_000, 4000)
	if testing.Short() {
		n = 4000
	}
	src := gaussNetData(12, n, 0.2)
	m := loadModel(t, gaussNet)
	out, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 60, Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	checkMonotone(t, rep.Trace)
	want := map[string][]float64{ // intercept, coefficients, sd
		"X1": {12, 2}, "X2": {3, 0.7, 1.5}, "X3": {-1, 0.2, 1.1, 1}, "X4": {2, -0.4, 0.8}, "X5": {-4, 3}, "X6": {1, 0.9, 1.5, 2},
	}
	for name, w := range want {
		g := out.Gaussian(mustVar(t, out, name))
		got := append(append([]float64{g.Mean[0]}, g.Coef...), g.SD[0])
		for i := range w {
			if !(math.Abs(got[i]-w[i]) <= 0.1*max(1, math.Abs(w[i]))) {
				t.Errorf("%s: number %d is %v, generated with %v", name, i, got[i], w[i])
			}
		}
	}
}

// TestEMMissingRealParentRefused: a row that leaves a real parent missing
// where the missing discrete parents of the component's densities are not
// all parents of one of them is refused at its line, saying why; with
// those discrete parents given, the same row is learned from.
func TestEMMissingRealParentRefused(t *testing.T) {
	const model = `var A, B: {p, q}
var X, Y: real
P(A) = [0.5, 0.5]
P(B) = [0.5, 0.5]
P(X | A) = { p: normal(0, 1)  q: normal(2, 1) }
P(Y | X, B) = { p: normal(X, 1)  q: normal(1 - X, 1) }
`
	m := loadModel(t, model)
	for _, tc := range []struct {
		src  string
		line int // 0: learned
	}{
		{"A,B,X,Y\np,q,0.5,1\nq,p,1.5,0\n,,,2\n", 4},
		{"A,B,X,Y\np,q,0.5,1\nq,p,1.5,0\np,,,2\n,q,,2\n", 0},
	} {
		_, _, err := learn.Learn(m, opener(t, "d.csv", []byte(tc.src), m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 3})
		var e *ir.Error
		switch {
		case tc.line == 0 && err != nil:
			t.Errorf("%q: %v", tc.src, err)
		case tc.line > 0 && !(errors.As(err, &e) && e.Pos.Line == tc.line && strings.Contains(e.Msg, "discrete parents A, B")):
			t.Errorf("%q: got %v, want an error at line %d naming A and B", tc.src, err, tc.line)
		}
	}
}
