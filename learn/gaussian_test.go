package learn_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// gaussCSV returns n rows of C (a, b, c), D (u, v) and real X, Y: X is
// 1e6 + class offset + noise of sd 0.01 (a large mean against the spread),
// Y is normal with a class mean. A share missing of cells is missing.
func gaussCSV(n int, seed uint64, missing float64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	b.WriteString("C,X,D,Y\n")
	cell := func(s string) string {
		if r.Float64() < missing {
			return ""
		}
		return s
	}
	for range n {
		c := r.IntN(3)
		d := "u"
		if r.Float64() < 0.3+0.2*float64(c) {
			d = "v"
		}
		x := 1e6 + float64(c)*0.05 + 0.01*r.NormFloat64()
		y := float64(c) + (1+float64(c))*r.NormFloat64()
		b.WriteString(strings.Join([]string{cell(string(rune('a' + c))), cell(strconv.FormatFloat(x, 'g', -1, 64)), cell(d), cell(strconv.FormatFloat(y, 'g', -1, 64))}, ","))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

const gaussModel = `var X, Y: real
var C: {a, b, c}
naive_bayes C given X, D, Y
`

// twoPass returns the mean and the variance (divisor n) of xs, by the
// textbook two-pass algorithm.
func twoPass(xs []float64) (mean, v float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, v / float64(len(xs))
}

// gaussBatch returns gaussModel and the rows of gaussCSV(n, seed,
// missing), read for it.
func gaussBatch(t *testing.T, n int, seed uint64, missing float64) (*ir.Model, *data.Batch) {
	t.Helper()
	m := loadModel(t, gaussModel)
	return m, readBatch(t, m, gaussCSV(n, seed, missing))
}

// readBatch reads the CSV src for m.
func readBatch(t *testing.T, m *ir.Model, src []byte) *data.Batch {
	t.Helper()
	b, err := data.ReadAll("g.csv", bytes.NewReader(src), m, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGaussianMatchesTwoPass learns Gaussians over many batches and cores
// from data with a large mean and a small spread, and compares them with
// the two-pass estimates, smoothed as documented.
func TestGaussianMatchesTwoPass(t *testing.T) {
	src := gaussCSV(50000, 1, 0.05)
	m := loadModel(t, gaussModel)
	rep, err := learnInto(&m, opener(t, "g.csv", src, m), learn.Options{Method: learn.Bayes, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.EmptyGaussians != 0 {
		t.Errorf("report: %+v", rep)
	}
	b := readBatch(t, m, src)
	cv, _ := m.Lookup("C")
	col := func(name string) (int, []float64) {
		v, _ := m.Lookup(name)
		for j, w := range b.Vars {
			if w == v.ID {
				return j, b.Reals[j]
			}
		}
		t.Fatalf("no column %s", name)
		return 0, nil
	}
	_, _ = col("X")
	// ε: 1e-9 × the largest variance of X, Y over all their values.
	top := 0.0
	per := map[string][3][]float64{}
	for _, name := range []string{"X", "Y"} {
		_, xs := col(name)
		var all []float64
		var byClass [3][]float64
		for i, x := range xs[:b.N] {
			if math.IsNaN(x) {
				continue
			}
			all = append(all, x)
			if c := b.Cols[0][i]; c >= 0 {
				byClass[c] = append(byClass[c], x)
			}
		}
		_, v := twoPass(all)
		top = max(top, v)
		per[name] = byClass
	}
	if b.Vars[0] != cv.ID {
		t.Fatal("C is not the first column")
	}
	eps := 1e-9 * top
	worst := 0.0
	defer func() { t.Logf("largest relative difference of an sd from the two-pass one: %.3g", worst) }()
	for _, name := range []string{"X", "Y"} {
		v, _ := m.Lookup(name)
		g := m.Gaussian(v.ID)
		if g == nil || len(g.Parents) != 1 || g.Parents[0] != cv.ID {
			t.Fatalf("%s: density %+v, want one given C", name, g)
		}
		for c, xs := range per[name] {
			mean, vr := twoPass(xs)
			sd := math.Sqrt(vr + eps)
			// The mean to a few ulps of itself or of the spread.
			if d := math.Abs(g.Mean[c]-mean) / (math.Abs(mean) + sd); d > 1e-14 {
				t.Errorf("%s | C=%d: mean %.17g, two-pass %.17g (relative difference %g)", name, c, g.Mean[c], mean, d)
			}
			if d := math.Abs(g.SD[c]-sd) / sd; d > 1e-12 {
				t.Errorf("%s | C=%d: sd %.17g, two-pass %.17g (relative difference %g)", name, c, g.SD[c], sd, d)
			}
			worst = max(worst, math.Abs(g.SD[c]-sd)/sd)
		}
	}
	// The naive sum-of-squares formula would lose every digit of X's
	// variance (x² ≈ 1e12, the variance 1e-4): check X's sd is sane.
	x, _ := m.Lookup("X")
	for c, sd := range m.Gaussian(x.ID).SD {
		if sd < 0.009 || sd > 0.011 {
			t.Errorf("X | C=%d: sd %g, want about 0.01", c, sd)
		}
	}
}

// TestGaussianCountsMerge: counting halves and merging equals counting
// the whole, to rounding.
func TestGaussianCountsMerge(t *testing.T) {
	_, b := gaussBatch(t, 3000, 2, 0.1)
	opt := learn.Options{Method: learn.MLE}
	m1, m2 := loadModel(t, gaussModel), loadModel(t, gaussModel)
	for _, x := range []*ir.Model{m1, m2} {
		d, _ := x.Lookup("D")
		d.States, d.Open = []string{"u", "v"}, false
	}
	whole := learn.NewCounts(m1, opt)
	whole.Add(b)
	parts := []*learn.Counts{learn.NewCounts(m2, opt), learn.NewCounts(m2, opt), learn.NewCounts(m2, opt)}
	parts[0].Add(subBatch(b, 0, 1000))
	parts[1].Add(subBatch(b, 1000, 1001))
	parts[2].Add(subBatch(b, 1001, b.N))
	parts[1].Merge(parts[2]) // (p0 + (p1 + p2))
	parts[0].Merge(parts[1])
	if err := estimateInto(&m1, whole, opt); err != nil {
		t.Fatal(err)
	}
	if err := estimateInto(&m2, parts[0], opt); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"X", "Y"} {
		v, _ := m1.Lookup(name)
		g1, g2 := m1.Gaussian(v.ID), m2.Gaussian(v.ID)
		for c := range g1.Mean {
			if d := math.Abs(g1.Mean[c]-g2.Mean[c]) / math.Abs(g1.Mean[c]); d > 1e-14 {
				t.Errorf("%s | %d: merged mean %.17g, whole %.17g", name, c, g2.Mean[c], g1.Mean[c])
			}
			if d := math.Abs(g1.SD[c]-g2.SD[c]) / g1.SD[c]; d > 1e-10 {
				t.Errorf("%s | %d: merged sd %.17g, whole %.17g", name, c, g2.SD[c], g1.SD[c])
			}
		}
	}
}

// TestGaussianEdgeCases: a configuration without values gets normal(0, 1)
// and a report; one with a single value gets the smoothing's sd; constant
// data is an error naming the variable and configuration; a real parent
// is refused.
func TestGaussianEdgeCases(t *testing.T) {
	m := loadModel(t, "var C: {a, b, z}\nvar X: real\nnaive_bayes C given X\n")
	src := []byte("C,X\na,1\na,3\nb,10\nz,\n")
	rep, err := learnInto(&m, opener(t, "e.csv", src, m), learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := m.Gaussian(1)
	// ε = 1e-9 × var(1, 3, 10) = 1e-9 × 134/9.
	eps := 1e-9 * 134 / 9
	want := []float64{math.Sqrt(1 + eps), math.Sqrt(eps), 1}
	for c, w := range want {
		if !(math.Abs(g.SD[c]-w) <= 1e-15*w) {
			t.Errorf("sd[%d] = %.17g, want %.17g", c, g.SD[c], w)
		}
	}
	if g.Mean[0] != 2 || g.Mean[1] != 10 || g.Mean[2] != 0 {
		t.Errorf("means %v, want [2 10 0]", g.Mean)
	}
	if rep.EmptyGaussians != 1 || rep.MissingCounts != 1 {
		t.Errorf("report: %+v", rep)
	}
	var out bytes.Buffer
	if err := source.Write(&out, m, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "z: normal(0, 1)") {
		t.Errorf("written model:\n%s", out.String())
	}

	// VarSmoothing scales ε.
	m = loadModel(t, "var C: {a, b, z}\nvar X: real\nnaive_bayes C given X\n")
	if _, err := learnInto(&m, opener(t, "e.csv", src, m), learn.Options{VarSmoothing: 0.5}); err != nil {
		t.Fatal(err)
	}
	if sd, want := m.Gaussian(1).SD[1], math.Sqrt(0.5*134/9); !(math.Abs(sd-want) <= 1e-15) {
		t.Errorf("sd with VarSmoothing 0.5: %v, want %v", sd, want)
	}

	m = loadModel(t, "var C: {a, b}\nvar X: real\nnaive_bayes C given X\n")
	_, err = learnInto(&m, opener(t, "e.csv", []byte("C,X\na,1\nb,1\nb,1\n"), m), learn.Options{})
	if err == nil || !strings.Contains(err.Error(), "density of X: its values given C = a have variance 0") {
		t.Errorf("constant data: err = %v, want it to name X and C = a", err)
	}
	// Values whose variance overflows float64 are not "variance 0".
	_, err = learnInto(&m, opener(t, "e.csv", []byte("C,X\na,1e200\na,-1e200\nb,1\nb,2\n"), m), learn.Options{})
	if err == nil || !strings.Contains(err.Error(), "density of X: its values given C = a are too large") {
		t.Errorf("overflowing data: err = %v", err)
	}
	if m.Gaussian(1) != nil || m.Table(ir.VarID(0)) != nil {
		t.Error("a failed Learn changed the model")
	}

	if _, err := learnInto(&m, opener(t, "e.csv", src, m), learn.Options{VarSmoothing: -1}); err == nil {
		t.Error("a negative VarSmoothing was accepted")
	}

	// A discrete child of a real parent is not learned (not supported
	// yet): the structure is refused as it is lowered, and a model built
	// with such parents is refused by the learner; a real child of one is
	// a linear Gaussian density (linear.go).
	if _, err = clsStructure("var X: real\nvar C, D: {a, b}\nC -> X\nX -> D\n"); !errors.Is(err, ir.ErrRealParentOfDiscrete) {
		t.Errorf("real parent of a discrete child: lowering's error %v", err)
	}
	b := ir.NewBuilder("b")
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Real, nil, 0)
	dv, _ := b.AddVar(ir.Pos{}, "D", ir.Enum, []string{"a", "b"}, 0)
	b.SetParents(dv, []ir.VarID{x})
	if m, err = b.Finish(); err != nil {
		t.Fatal(err)
	}
	_, err = learnInto(&m, opener(t, "e.csv", []byte("X,D\n1,a\n2,b\n3,a\n"), m), learn.Options{})
	if err == nil || !strings.Contains(err.Error(), `parent X is real-valued`) {
		t.Errorf("real parent of a discrete child: err = %v", err)
	}
	m, err = clsStructure("var X, Y: real\nvar C: {a, b}\nC -> X\nX -> Y\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err = learnInto(&m, opener(t, "e.csv", []byte("C,X,Y\na,1,2\na,2,4.5\nb,3,6\nb,5,9\n"), m), learn.Options{}); err != nil {
		t.Fatalf("real parent of a real child: %v", err)
	}
	// Y on X by least squares over (1, 2), (2, 4.5), (3, 6), (5, 9):
	// slope Sxy/Sxx = 14.875/8.75 = 1.7, intercept 5.375 − 2.75·1.7 = 0.7
	// (numpy.linalg.lstsq: [0.7, 1.7]).
	if g := m.Gaussian(1); g == nil || len(g.Real) != 1 || g.Real[0] != 0 ||
		!(math.Abs(g.Coef[0]-1.7) <= 1e-12) || !(math.Abs(g.Mean[0]-0.7) <= 1e-12) {
		t.Errorf("real parent of a real child: density %+v", g)
	}
}

// logNormal is log N(x; mean, sd), computed directly.
func logNormal(x, mean, sd float64) float64 {
	return math.Log(math.Exp(-(x-mean)*(x-mean)/(2*sd*sd)) / (sd * math.Sqrt(2*math.Pi)))
}

// bruteForce returns P(C | row i of b) by summing the joint over the
// missing discrete features, the real features multiplying their
// densities in.
func bruteForce(m *ir.Model, b *data.Batch, i int) []float64 {
	cl := m.Classifier
	a := make([]int, len(m.Vars))
	for v := range a {
		a[v] = -1
	}
	var missing []ir.VarID
	for j, v := range b.Vars {
		if b.Cols[j] != nil && v != cl.Class {
			a[v] = int(b.Cols[j][i])
			if a[v] < 0 {
				missing = append(missing, v)
			}
		}
	}
	for _, f := range cl.Features {
		if m.Vars[f].Kind != ir.Real && !containsCol(b, f) {
			missing = append(missing, f)
		}
	}
	k := len(m.Vars[cl.Class].States)
	post := make([]float64, k)
	for c := range k {
		a[cl.Class] = c
		var rec func(int) float64
		rec = func(n int) float64 {
			if n == len(missing) {
				p := 1.0
				for v := range m.Vars {
					cpt := m.Table(ir.VarID(v))
					if cpt == nil {
						continue
					}
					if cpt == nil {
						continue
					}
					idx := 0
					for s, w := range cpt.Factor.Vars {
						idx += a[w] * cpt.Factor.Stride[s]
					}
					_ = v
					p *= cpt.Factor.Vals[idx]
				}
				return p
			}
			sum := 0.0
			for s := range m.Vars[missing[n]].States {
				a[missing[n]] = s
				sum += rec(n + 1)
			}
			a[missing[n]] = -1
			return sum
		}
		lp := math.Log(rec(0))
		for j, v := range b.Vars {
			if b.Reals[j] != nil {
				if x := b.Reals[j][i]; !math.IsNaN(x) {
					g := m.Gaussian(v)
					lp += logNormal(x, g.Mean[c], g.SD[c])
				}
			}
		}
		post[c] = lp
	}
	top := math.Inf(-1)
	for _, x := range post {
		top = max(top, x)
	}
	sum := 0.0
	for c := range post {
		post[c] = math.Exp(post[c] - top)
		sum += post[c]
	}
	for c := range post {
		post[c] /= sum
	}
	return post
}

func containsCol(b *data.Batch, v ir.VarID) bool {
	for _, w := range b.Vars {
		if w == v {
			return true
		}
	}
	return false
}

// TestGaussianPosterior: naive Bayes and TAN with real and discrete
// features, with missing cells, agree with brute-force enumeration; the
// real features stay out of TAN's tree; a learned classifier written to
// .pbl and read back (without its naive_bayes declaration) predicts the
// same, using its Gaussians.
func TestGaussianPosterior(t *testing.T) {
	var rows bytes.Buffer
	rows.WriteString("C,A,X,B,E,Y\n")
	r := rand.New(rand.NewPCG(3, 3))
	miss := func(s string) string {
		if r.Float64() < 0.15 {
			return ""
		}
		return s
	}
	for range 400 {
		c := r.IntN(2)
		a := r.IntN(3)
		bb := (a + c + r.IntN(2)) % 3
		e := (bb + r.IntN(2)) % 2
		x := float64(c)*2 + r.NormFloat64()
		y := 10 - float64(c) + 0.5*r.NormFloat64()
		rows.WriteString(strings.Join([]string{
			[]string{"no", "yes"}[c], miss(strconv.Itoa(a)), miss(strconv.FormatFloat(x, 'g', -1, 64)),
			miss(strconv.Itoa(bb)), miss(strconv.Itoa(e)), miss(strconv.FormatFloat(y, 'g', -1, 64)),
		}, ",") + "\n")
	}
	src := rows.Bytes()
	for _, kind := range []string{"naive_bayes", "tan"} {
		text := "var X, Y: real\n" + kind + " C given A, X, B, E, Y\n"
		m := loadModel(t, text)
		if _, err := learnInto(&m, opener(t, "p.csv", src, m), learn.Options{Method: learn.Bayes, Alpha: 1}); err != nil {
			t.Fatal(err)
		}
		x, _ := m.Lookup("X")
		y, _ := m.Lookup("Y")
		for _, v := range []ir.VarID{x.ID, y.ID} {
			if ps := m.Parents[v]; len(ps) != 1 || ps[0] != m.Classifier.Class {
				t.Errorf("%s: %s's parents %v, want the class alone", kind, m.Vars[v].Name, ps)
			}
		}
		if kind == "tan" {
			e, _ := m.Lookup("E")
			if len(m.Parents[e.ID]) != 2 {
				t.Errorf("tan: E's parents %v, want the class and a feature", m.Parents[e.ID])
			}
		}
		b, err := data.ReadAll("p.csv", bytes.NewReader(src), m, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		post := make([]float64, 2)
		for i := range b.N {
			if err := learn.Predict(m, m.Classifier.Class, b, i, post); err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(post, bruteForce(m, b, i)); d > 1e-12 {
				t.Errorf("%s row %d: posterior %v, brute force %v", kind, i+1, post, bruteForce(m, b, i))
			}
		}
		mt, _, err := learn.Evaluate(m, m.Classifier.Class, b)
		if err != nil {
			t.Fatal(err)
		}
		if mt.Accuracy < 0.8 {
			t.Errorf("%s: accuracy %v", kind, mt.Accuracy)
		}
		if ig := learn.IgnoredColumns(m, m.Classifier.Class, b); len(ig) != 0 {
			t.Errorf("%s: IgnoredColumns %v for the class", kind, ig)
		}

		// BIF has no real variables: its writer refuses.
		var bifOut bytes.Buffer
		if err := bif.Write(&bifOut, m); err == nil || !strings.Contains(err.Error(), `variable "X" is real-valued: BIF has only discrete variables`) {
			t.Errorf("%s: bif.Write: %v", kind, err)
		}

		// Written and read back: no classifier declaration, the same
		// posteriors, from the Gaussians.
		var out bytes.Buffer
		if err := source.Write(&out, m, ""); err != nil {
			t.Fatal(err)
		}
		m2, err := pbl.Load("learned.pbl", out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if m2.Classifier != nil {
			t.Fatal("the written model declares a classifier")
		}
		c2, _ := m2.Lookup("C")
		b2, err := data.ReadAll("p.csv", bytes.NewReader(src), m2, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		post2 := make([]float64, 2)
		for i := range b.N {
			learn.Predict(m, m.Classifier.Class, b, i, post)
			if err := learn.Predict(m2, c2.ID, b2, i, post2); err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(post, post2); d > 1e-12 {
				t.Fatalf("%s row %d: read back %v, learned %v", kind, i+1, post2, post)
			}
		}
		// Another target is predicted by exact inference: the real
		// columns are ignored.
		a2, _ := m2.Lookup("A")
		if ig := learn.IgnoredColumns(m2, a2.ID, b2); len(ig) != 2 {
			t.Errorf("%s: IgnoredColumns for A: %v, want X and Y", kind, ig)
		}
		if _, _, err := learn.Evaluate(m2, a2.ID, b2); err != nil {
			t.Errorf("%s: evaluating A: %v", kind, err)
		}
	}
}

// TestGaussianCrossValidate: cross-validation learns the Gaussians in
// each fold.
func TestGaussianCrossValidate(t *testing.T) {
	m, b := gaussBatch(t, 600, 4, 0)
	folds, err := learn.CrossValidate(m, "C", b, 5, learn.Fit(learn.Options{}), 1)
	if err != nil {
		t.Fatal(err)
	}
	if acc := learn.Pool(folds).Accuracy; acc < 0.9 {
		t.Errorf("pooled accuracy %v: the Gaussian features seem unused", acc)
	}
}

// TestLearnSubsetKeepsOthers: learning only a real variable keeps the
// class's table, and learning only the class keeps the densities.
func TestLearnSubsetKeepsOthers(t *testing.T) {
	src := gaussCSV(500, 5, 0)
	m := loadModel(t, gaussModel)
	if _, err := learnInto(&m, opener(t, "g.csv", src, m), learn.Options{}); err != nil {
		t.Fatal(err)
	}
	x, _ := m.Lookup("X")
	c, _ := m.Lookup("C")
	cpt, g := m.Table(ir.VarID(c.ID)), m.Gaussian(x.ID)
	y, _ := m.Lookup("Y")
	gy := m.Gaussian(y.ID)
	src2 := gaussCSV(500, 6, 0)
	if _, err := learnInto(&m, opener(t, "g.csv", src2, m), learn.Options{Vars: []ir.VarID{x.ID}}); err != nil {
		t.Fatal(err)
	}
	if m.Table(ir.VarID(c.ID)) != cpt || m.Gaussian(y.ID) != gy || m.Gaussian(x.ID) == g {
		t.Error("learning X alone: want a new density for X and the rest kept")
	}
	g = m.Gaussian(x.ID)
	if _, err := learnInto(&m, opener(t, "g.csv", src2, m), learn.Options{Method: learn.Bayes, Vars: []ir.VarID{c.ID}}); err != nil {
		t.Fatal(err)
	}
	if m.Table(ir.VarID(c.ID)) == cpt || m.Gaussian(x.ID) != g {
		t.Error("learning C alone: want a new table for C and the densities kept")
	}
}
