package learn_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/mixture"
)

// gen is a deterministic generator of rows from a small network with a
// mixture: Region → C → (x, y), C → Label.
type gen struct {
	pRegion []float64   // P(Region)
	pC      [][]float64 // P(C | Region)
	pLabel  [][]float64 // P(Label | C)
	mean    [][2]float64
	sd      [][2]float64 // independent given C
	rho     []float64    // correlation of x and y given C
}

var regionNet = gen{
	pRegion: []float64{0.4, 0.6},
	pC:      [][]float64{{0.7, 0.2, 0.1}, {0.1, 0.3, 0.6}},
	pLabel:  [][]float64{{0.9, 0.1}, {0.2, 0.8}, {0.5, 0.5}},
	mean:    [][2]float64{{0, 0}, {6, 1}, {1, 7}},
	sd:      [][2]float64{{1, 0.7}, {0.8, 1.2}, {1.5, 0.6}},
	rho:     []float64{0.5, -0.3, 0},
}

func draw(r *rand.Rand, p []float64) int {
	u := r.Float64()
	for i, x := range p {
		if u < x {
			return i
		}
		u -= x
	}
	return len(p) - 1
}

// csv returns n rows (Region, C, Label, x, y; the columns named by cols,
// in that order), a cell missing with probability miss[column].
func (g *gen) csv(seed uint64, n int, cols []string, miss map[string]float64) []byte {
	r := rand.New(rand.NewPCG(seed, 99))
	var b strings.Builder
	b.WriteString(strings.Join(cols, ",") + "\n")
	regions, comps, labels := []string{"north", "south"}, []string{"a", "b", "c", "d"}, []string{"yes", "no"}
	for range n {
		reg := draw(r, g.pRegion)
		c := draw(r, g.pC[reg])
		l := draw(r, g.pLabel[c])
		z1, z2 := r.NormFloat64(), r.NormFloat64()
		x := g.mean[c][0] + g.sd[c][0]*z1
		y := g.mean[c][1] + g.sd[c][1]*(g.rho[c]*z1+math.Sqrt(1-g.rho[c]*g.rho[c])*z2)
		cell := map[string]string{"Region": regions[reg], "C": comps[c], "Label": labels[l], "x": fmt.Sprintf("%.6f", x), "y": fmt.Sprintf("%.6f", y)}
		for i, col := range cols {
			if i > 0 {
				b.WriteString(",")
			}
			if r.Float64() < miss[col] {
				continue
			}
			b.WriteString(cell[col])
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

const regionModel = `var Region: {north, south}
var C: {a, b, c}
var Label: {yes, no}
var x, y: real
Region -> C
C -> Label
`

// matchComponents returns, for every true component j, the learned
// component whose means are nearest the true means.
func matchComponents(t *testing.T, means [][]float64, want [][2]float64) []int {
	t.Helper()
	out := make([]int, len(want))
	for j, w := range want {
		best := math.Inf(1)
		for u, m := range means {
			d := math.Hypot(m[0]-w[0], m[1]-w[1])
			if d < best {
				best, out[j] = d, u
			}
		}
	}
	s := slices.Clone(out)
	slices.Sort(s)
	if len(slices.Compact(s)) != len(want) {
		t.Fatalf("the learned means %v do not match the true ones %v one to one", means, want)
	}
	return out
}

// TestEMMixtureInNetwork: a mixture whose component has a parent (Region
// → C → (x, y)) and a discrete child (C → Label, partly missing), the
// component hidden and Region partly missing: EM recovers the parameters
// the data was drawn from within sampling error, for a joint density
// (full covariance) and for a normal density of one variable.
func TestEMMixtureInNetwork(t *testing.T) {
	g := regionNet
	src := g.csv(1, 4000, []string{"Region", "Label", "x", "y"}, map[string]float64{"Region": 0.1, "Label": 0.3})
	for _, c := range []struct {
		name, decl string
		joint      bool
	}{
		{"joint", "mixture C of x, y (covariance = full)\n", true},
		{"label and x", "mixture C of x\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := loadModel(t, regionModel+c.decl)
			out, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Restarts: 3, Seed: 1, Tol: 1e-9, MaxIter: 500})
			if err != nil {
				t.Fatal(err)
			}
			xv, _ := out.Lookup("x")
			var means [][]float64
			if c.joint {
				means = out.MultiNormal(xv.ID).Mean
			} else {
				gd := out.Gaussian(xv.ID)
				for _, mu := range gd.Mean {
					means = append(means, []float64{mu, 0})
				}
			}
			want := g.mean
			if !c.joint {
				want = [][2]float64{{0, 0}, {6, 0}, {1, 0}}
			}
			perm := matchComponents(t, means, want)
			t.Logf("means %v, %d iterations, log-likelihood %v, P(C | Region) %v", means, rep.Iterations, rep.LogLik, out.Factor(mustVar(t, out, "C")).Vals)
			cv, _ := out.Lookup("C")
			pc := out.Factor(cv.ID).Vals // P(C | Region), Region slowest
			lv, _ := out.Lookup("Label")
			pl := out.Factor(lv.ID).Vals // P(Label | C)
			for j, u := range perm {
				for a := range 2 {
					if !c.joint && a == 1 {
						continue
					}
					if d := math.Abs(means[u][a] - want[j][a]); !(d <= 0.15) {
						t.Errorf("component %d: mean %d is %v, want %v", j, a, means[u][a], want[j][a])
					}
				}
				for reg := range 2 {
					if d := math.Abs(pc[reg*3+u] - g.pC[reg][j]); !(d <= 0.06) {
						t.Errorf("P(C=%d | Region=%d) = %v, want %v", j, reg, pc[reg*3+u], g.pC[reg][j])
					}
				}
				if d := math.Abs(pl[u*2] - g.pLabel[j][0]); !(d <= 0.06) {
					t.Errorf("P(Label=yes | C=%d) = %v, want %v", j, pl[u*2], g.pLabel[j][0])
				}
				if c.joint {
					cov := out.MultiNormal(xv.ID).Cov[u]
					sx, sy := g.sd[j][0], g.sd[j][1]
					wantCov := []float64{sx * sx, g.rho[j] * sx * sy, g.rho[j] * sx * sy, sy * sy}
					if d := maxDiff(cov, wantCov); !(d <= 0.2) {
						t.Errorf("component %d: covariance %v, want %v", j, cov, wantCov)
					}
				} else if sd := out.Gaussian(xv.ID).SD[u]; !(math.Abs(sd-g.sd[j][0]) <= 0.15) {
					t.Errorf("component %d: sd %v, want %v", j, sd, g.sd[j][0])
				}
			}
			checkMonotone(t, rep.Trace)
		})
	}
}

// checkMonotone fails unless the trace never decreases (beyond rounding)
// and holds no NaN.
func checkMonotone(t *testing.T, trace []float64) {
	t.Helper()
	if len(trace) < 2 {
		t.Fatalf("a trace of %d values", len(trace))
	}
	for i := 1; i < len(trace); i++ {
		if !(trace[i] >= trace[i-1]-1e-9*math.Abs(trace[i-1])) {
			t.Fatalf("the log-likelihood went from %v to %v at iteration %d", trace[i-1], trace[i], i)
		}
	}
}

// TestEMDensityMonotone: in a network with the component's parent and
// child partly missing, the log-likelihood (of densities: it may be
// positive) never decreases, for every covariance form, a known variance,
// and a normal density given two parents (a Gaussian naive Bayes feature
// whose class is hidden).
func TestEMDensityMonotone(t *testing.T) {
	g := regionNet
	src := string(g.csv(2, 600, []string{"Region", "Label", "x", "y"}, map[string]float64{"Region": 0.2, "Label": 0.4, "x": 0.05, "y": 0.05}))
	both := string(g.csv(3, 600, []string{"Region", "Label", "x", "y"}, map[string]float64{"Region": 0.2, "Label": 0.4}))
	for _, c := range []struct{ name, decl, csv string }{
		{"full", "mixture C of x, y (covariance = full)\n", both},
		{"diag", "mixture C of x, y (covariance = diag)\n", both},
		{"spherical", "mixture C of x, y (covariance = spherical)\n", both},
		{"tied", "mixture C of x, y (covariance = tied)\n", both},
		{"variance", "mixture C of x, y (variance = 2)\n", both},
		{"two normal densities", "C -> x\nC -> y\nRegion -> y\n", src},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := loadModel(t, regionModel+c.decl)
			_, rep, err := learn.Learn(m, opener(t, "d.csv", []byte(c.csv), m), learn.Options{Method: learn.EM, Seed: 4, Tol: 0, MaxIter: 40})
			if err != nil {
				t.Fatal(err)
			}
			checkMonotone(t, rep.Trace)
			if rep.Iterations != 40 {
				t.Errorf("%d iterations, want 40", rep.Iterations)
			}
		})
	}
}

// TestEMObservedComponent: with the component observed in every row, EM
// converges in one step to the counted estimates: P(C | Region) the
// shares, each component's mean and covariance (divisor n, plus
// DefaultRegCovar on the diagonal) those of its rows.
func TestEMObservedComponent(t *testing.T) {
	g := regionNet
	src := g.csv(5, 500, []string{"Region", "C", "x", "y"}, nil)
	m := loadModel(t, regionModel+"mixture C of x, y\n")
	out, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Tol: 1e-12, MaxIter: 50})
	if err != nil {
		t.Fatal(err)
	}
	// Closed form.
	var cnt [2][3]float64
	var n [3]float64
	var sum [3][2]float64
	var rows [3][][2]float64
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")[1:]
	for _, l := range lines {
		f := strings.Split(l, ",")
		reg := map[string]int{"north": 0, "south": 1}[f[0]]
		c := map[string]int{"a": 0, "b": 1, "c": 2}[f[1]]
		var x, y float64
		fmt.Sscan(f[2], &x)
		fmt.Sscan(f[3], &y)
		cnt[reg][c]++
		n[c]++
		sum[c][0] += x
		sum[c][1] += y
		rows[c] = append(rows[c], [2]float64{x, y})
	}
	cv, _ := out.Lookup("C")
	pc := out.Factor(cv.ID).Vals
	for reg := range 2 {
		tot := cnt[reg][0] + cnt[reg][1] + cnt[reg][2]
		for c := range 3 {
			if d := math.Abs(pc[reg*3+c] - cnt[reg][c]/tot); !(d <= 1e-12) {
				t.Errorf("P(C=%d | Region=%d) = %v, counted %v", c, reg, pc[reg*3+c], cnt[reg][c]/tot)
			}
		}
	}
	xv, _ := out.Lookup("x")
	mn := out.MultiNormal(xv.ID)
	for c := range 3 {
		mu := []float64{sum[c][0] / n[c], sum[c][1] / n[c]}
		cov := make([]float64, 4)
		for _, r := range rows[c] {
			for a := range 2 {
				for b := range 2 {
					cov[a*2+b] += (r[a] - mu[a]) * (r[b] - mu[b]) / n[c]
				}
			}
		}
		cov[0] += learn.DefaultRegCovar
		cov[3] += learn.DefaultRegCovar
		if d := maxDiff(mn.Mean[c], mu); !(d <= 1e-9) {
			t.Errorf("component %d: mean %v, closed form %v", c, mn.Mean[c], mu)
		}
		if d := maxDiff(mn.Cov[c], cov); !(d <= 1e-9) {
			t.Errorf("component %d: covariance %v, closed form %v", c, mn.Cov[c], cov)
		}
	}
	if !rep.Converged || rep.Iterations > 3 {
		t.Errorf("%d iterations (converged %v): the counted estimates are a fixed point reached in one step", rep.Iterations, rep.Converged)
	}
	if d := relDiff(rep.Trace[len(rep.Trace)-1], rep.Trace[1]); !(d <= 1e-12) {
		t.Errorf("the log-likelihood moved after the first iteration: %v", rep.Trace)
	}
}

// TestEMPureMixtureAgrees: a pure mixture learned by network EM (forced)
// and by package mixture's FitGMM reach the same log-likelihood: from
// their own k-means starts (well separated blobs: the same optimum) for
// every covariance form, and from the same given start (the model's own
// numbers; FitGMM's InitGiven) for the forms a density can be written in.
// With a known variance, network EM and the soft k-means of mixture.go
// find the same means.
func TestEMPureMixtureAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	src, x := blobs(r, 500, 2, 3)
	for _, form := range []string{"full", "diag", "spherical", "tied"} {
		t.Run(form, func(t *testing.T) {
			want := fitGMM(t, x, form, 500, 1e-12)
			m := loadModel(t, "var C: {a, b, c}\nvar x0, x1: real\nmixture C of x0, x1 (covariance = "+form+")\n")
			defer learn.SetForceNetworkEM()()
			_, rep, err := learn.Learn(m, opener(t, "p.csv", src, m), learn.Options{Method: learn.EM, Restarts: 3, Seed: 2, MaxIter: 500, Tol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(rep.LogLik, want.LogLikelihood*500); !(d <= 1e-6) {
				t.Errorf("network EM's log-likelihood %v, FitGMM's %v", rep.LogLik, want.LogLikelihood*500)
			}
			checkMonotone(t, rep.Trace)
		})
	}
	for _, c := range []struct{ form, cov string }{{"full", "[[4, 1], [1, 4]]"}, {"diag", "[4, 3]"}, {"spherical", "4"}} {
		t.Run("same start "+c.form, func(t *testing.T) {
			src2 := "var C: {a, b, c}\nvar x0, x1: real\nP(C) = [0.3, 0.3, 0.4]\nP(x0, x1 | C) = {\n" +
				"a: normal([0, 0], " + c.cov + ")\nb: normal([3, 3], " + c.cov + ")\nc: normal([-3, 2], " + c.cov + ")\n}\n"
			m := loadModel(t, src2)
			xv, _ := m.Lookup("x0")
			mn := m.MultiNormal(xv.ID)
			ct, _ := mixture.ParseCovariance(c.form)
			given := &mixture.GMM{K: 3, D: 2, Covariance: ct, Weights: []float64{0.3, 0.3, 0.4}, Means: []float64{0, 0, 3, 3, -3, 2}}
			for u := range 3 {
				cv := mn.Cov[u]
				switch ct {
				case mixture.Full:
					given.Covariances = append(given.Covariances, cv...)
				case mixture.Diag:
					given.Covariances = append(given.Covariances, cv[0], cv[3])
				case mixture.Spherical:
					given.Covariances = append(given.Covariances, cv[0])
				}
			}
			o := mixture.DefaultGMMOptions(3)
			o.Covariance, o.Init, o.Given, o.MaxIter, o.Tol, o.RegCovar = ct, mixture.InitGiven, given, 300, 1e-12, learn.DefaultRegCovar
			want, err := mixture.FitGMM(x, o)
			if err != nil {
				t.Fatal(err)
			}
			_, rep, err := learn.Learn(m, opener(t, "p.csv", src, m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 300, Tol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(rep.LogLik, want.LogLikelihood*500); !(d <= 1e-6) {
				t.Errorf("network EM's log-likelihood %v, FitGMM's %v", rep.LogLik, want.LogLikelihood*500)
			}
			checkMonotone(t, rep.Trace)
		})
	}
	t.Run("known variance", func(t *testing.T) {
		m := loadModel(t, "var C: {a, b, c}\nvar x0, x1: real\nmixture C of x0, x1 (variance = 1)\n")
		soft, _, err := learn.Learn(m, opener(t, "p.csv", src, m), learn.Options{Method: learn.EM, Restarts: 5, Seed: 1, MaxIter: 500, Tol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		defer learn.SetForceNetworkEM()()
		net, rep, err := learn.Learn(m, opener(t, "p.csv", src, m), learn.Options{Method: learn.EM, Restarts: 5, Seed: 1, MaxIter: 500, Tol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		checkMonotone(t, rep.Trace)
		xv, _ := net.Lookup("x0")
		a, b := soft.MultiNormal(xv.ID).Mean, net.MultiNormal(xv.ID).Mean
		slices.SortFunc(a, func(p, q []float64) int { return compare(p[0], q[0]) })
		slices.SortFunc(b, func(p, q []float64) int { return compare(p[0], q[0]) })
		for j := range a {
			if d := maxDiff(a[j], b[j]); !(d <= 1e-5) {
				t.Errorf("component %d: soft k-means means %v, network EM %v", j, a[j], b[j])
			}
		}
		cv, _ := net.Lookup("C")
		if p := net.Factor(cv.ID).Vals; maxDiff(p, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}) != 0 {
			t.Errorf("P(C) = %v: with a known variance the weights stay uniform", p)
		}
	})
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestEMDensityBadInput: a joint density's row that gives some of its
// variables is refused at its line; text in a real column is refused at
// its cell.
func TestEMDensityBadInput(t *testing.T) {
	m := loadModel(t, regionModel+"mixture C of x, y\n")
	for _, c := range []struct {
		csv  string
		line int
	}{
		{"Region,x,y\nnorth,1,2\nsouth,,2\n", 3},
		{"Region,x,y\nnorth,1,2\nsouth,abc,2\n", 3},
	} {
		_, _, err := learn.Learn(m, opener(t, "d.csv", []byte(c.csv), m), learn.Options{Method: learn.EM})
		var ie *ir.Error
		if !errors.As(err, &ie) || ie.Pos.Line != c.line {
			t.Errorf("got %v, want an error at line %d", err, c.line)
		}
	}
}

// mustVar returns the ID of m's variable name, failing the test if there
// is none.
func mustVar(t *testing.T, m *ir.Model, name string) ir.VarID {
	t.Helper()
	v, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("no variable %s", name)
	}
	return v.ID
}

func (g *gen) csv4(seed uint64, n int) []byte {
	return g.csv(seed, n, []string{"Region", "Label", "x", "y"}, map[string]float64{"Region": 0.1, "Label": 0.3})
}

// BenchmarkEMMixtureNetwork: one EM iteration (11iter less 1iter, over 10) on 10,000 rows of a 2-D,
// k=4 mixture inside a 5-variable network (Region -> C -> x, y; C -> Label).
func BenchmarkEMMixtureNetwork(b *testing.B) {
	g := regionNet
	g.pC = [][]float64{{0.4, 0.3, 0.2, 0.1}, {0.1, 0.2, 0.3, 0.4}}
	g.pLabel = append(g.pLabel, []float64{0.3, 0.7})
	g.mean = append(g.mean, [2]float64{-5, 4})
	g.sd = append(g.sd, [2]float64{1, 1})
	g.rho = append(g.rho, 0.2)
	src := g.csv4(1, 10000)
	m := loadModel(b, `var Region: {north, south}
var C: {a, b, c, d}
var Label: {yes, no}
var x, y: real
Region -> C
C -> Label
mixture C of x, y (covariance = full)
`)
	for _, it := range []int{1, 11} {
		b.Run(map[int]string{1: "1iter", 11: "11iter"}[it], func(b *testing.B) {
			for range b.N {
				if _, _, err := learn.Learn(m, opener(b, "d.csv", src, m), learn.Options{Method: learn.EM, MaxIter: it, Tol: 0}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
