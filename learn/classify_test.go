package learn_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/parser"
	"github.com/pbl-lang/pbl/sample"
)

func clsNear(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func clsLoad(t *testing.T, src string) *ir.Model {
	t.Helper()
	m, err := pbl.Load("test.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadStructure lowers src as pbl learn does: variables may lack tables.
func clsStructure(src string) (*ir.Model, error) {
	f, err := parser.Parse("structure.pbl", []byte(src))
	if err != nil {
		return nil, err
	}
	return ir.Lower(f)
}

func clsCSV(t *testing.T, m *ir.Model, csv string) *data.Batch {
	t.Helper()
	b, err := data.ReadAll("data.csv", strings.NewReader(csv), m, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inferPosterior answers P(target | the row's observed cells) with infer.
func clsPosterior(t *testing.T, m *ir.Model, target ir.VarID, b *data.Batch, i int) ([]float64, error) {
	t.Helper()
	var ev []string
	for j, v := range b.Vars {
		if v != target && b.Cols[j] != nil && b.Cols[j][i] != data.Missing {
			x := m.Vars[v]
			ev = append(ev, ir.Quote(x.Name)+"="+ir.Quote(x.States[b.Cols[j][i]]))
		}
	}
	text := "P(" + ir.Quote(m.Vars[target].Name) + ")"
	if ev != nil {
		text = "P(" + ir.Quote(m.Vars[target].Name) + " | " + strings.Join(ev, ", ") + ")"
	}
	q, err := pbl.ParseQuery(m, text)
	if err != nil {
		t.Fatal(err)
	}
	r, err := infer.Answer(m, q, infer.Options{Engine: infer.Enum})
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(m.Vars[target].States))
	for _, row := range r.(*infer.Table).Rows {
		out[row.Values[0]] = row.P
	}
	return out, nil
}

// TestPredictBN checks Predict on a general network against enumeration,
// with missing cells, and its impossible-evidence error.
func TestPredictBN(t *testing.T) {
	m := clsLoad(t, `
var Storm, BusTourGroup, Lightning, Campfire, Thunder, ForestFire, Sure: bool
Storm -> Lightning -> Thunder
Storm, BusTourGroup -> Campfire
Storm, Lightning, Campfire -> ForestFire
P(Storm) = 0.3
P(BusTourGroup) = 0.5
P(Lightning | Storm) = { true: 0.7  false: 0.05 }
P(Thunder | Lightning) = { true: 0.95  false: 0.01 }
P(Campfire | Storm, BusTourGroup) = {
    true, true: 0.4   true, false: 0.1   false, true: 0.8   false, false: 0.2
}
P(ForestFire | Storm, Lightning, Campfire) = {
    true, true, true: 0.7     true, true, false: 0.5
    true, false, true: 0.3    true, false, false: 0.05
    false, true, true: 0.6    false, true, false: 0.45
    false, false, true: 0.25  false, false, false: 0.01
}
P(Sure) = 1
`)
	b := clsCSV(t, m, `Storm,Thunder,Campfire,ForestFire,Sure
true,true,false,true,true
,,,,
false,,true,false,
,true,,true,true
false,false,false,false,false
`)
	for _, name := range []string{"Storm", "Campfire", "ForestFire", "Lightning"} {
		target := mustVar(t, m, name)
		for i := range b.N {
			got := make([]float64, 2)
			err := learn.Predict(m, target, b, i, got)
			want, werr := clsPosterior(t, m, target, b, i)
			if i == 4 {
				if err != learn.ErrImpossible || werr == nil {
					t.Errorf("%s, row %d (Sure=false): err %v (infer: %v), want ErrImpossible", name, i, err, werr)
				}
				continue
			}
			if err != nil || werr != nil {
				t.Fatalf("%s, row %d: %v, %v", name, i, err, werr)
			}
			for c := range got {
				if !clsNear(got[c], want[c], 1e-12) {
					t.Errorf("%s, row %d: got %v, want %v", name, i, got, want)
					break
				}
			}
		}
	}
}

// clsNBStructure is a naive Bayes structure over declared variables, and
// clsNBNetwork the same structure written as a plain network with numbers.
const clsNBVars = `
var C: {a, b, c}
var F1: {lo, mid, hi}
var F2, F3: bool
var F4: {p, q}
`

const clsNBStructure = clsNBVars + "naive_bayes C given F1, F2, F3, F4\n"

const clsNBNetwork = clsNBVars + `
C -> F1
C -> F2
C -> F3
C -> F4
P(C) = [0.5, 0.3, 0.2]
P(F1 | C) = { a: [0.6, 0.3, 0.1]  b: [0.2, 0.5, 0.3]  c: [0.1, 0.3, 0.6] }
P(F2 | C) = { a: 0.8  b: 0.4  c: 0.3 }
P(F3 | C) = { a: 0.3  b: 0.6  c: 0.5 }
P(F4 | C) = { a: [0.5, 0.5]  b: [0.7, 0.3]  c: [0.2, 0.8] }
`

// TestPredictClassifier checks that the naive Bayes fast path gives the
// posteriors exact inference gives, with missing features.
func TestPredictClassifier(t *testing.T) {
	m := clsLoad(t, clsNBStructure+`
data train = {
    C, F1, F2, F3, F4
    a, lo, true, false, p
    a, mid, true, true, q
    b, mid, false, true, p
    b, hi, ?, true, p
    c, hi, false, false, q
    c, lo, true, ?, q
}
`)
	if _, err := learnTableInto(&m, m.Tables[0], learn.Options{Method: learn.Bayes, Alpha: 1}); err != nil {
		t.Fatal(err)
	}
	b := clsCSV(t, m, `F1,F2,F3,F4,C
lo,true,false,p,a
hi,,,q,b
,,,,c
mid,false,true,,
`)
	target := mustVar(t, m, "C")
	for i := range b.N {
		got := make([]float64, 3)
		if err := learn.Predict(m, target, b, i, got); err != nil {
			t.Fatal(err)
		}
		want, err := clsPosterior(t, m, target, b, i)
		if err != nil {
			t.Fatal(err)
		}
		for c := range got {
			if !clsNear(got[c], want[c], 1e-12) {
				t.Errorf("row %d: got %v, want %v", i, got, want)
				break
			}
		}
	}
}

// TestEvaluateHandComputed scores a model whose posteriors are known on a
// small data set and compares with a confusion matrix computed by hand.
func TestEvaluateHandComputed(t *testing.T) {
	// P(C | X=x) is 0.8 on the class matching x and 0.1 on the others;
	// with X missing it is uniform, a tie predicting a. Z=false is
	// impossible.
	m := clsLoad(t, `
var C: {a, b, c}
var X: {x1, x2, x3}
var Z: bool
C -> X
P(C) = normalize [1, 1, 1]
P(X | C) = { a: [0.8, 0.1, 0.1]  b: [0.1, 0.8, 0.1]  c: [0.1, 0.1, 0.8] }
P(Z) = 1
`)
	b := clsCSV(t, m, `C,X,Z
a,x1,true
a,x1,
a,x2,true
b,x2,
b,x3,
c,x3,
c,x3,true
c,x1,
a,,
,x1,
b,x2,false
`)
	// Rows 1-8: prediction = the class of X; row 9: a tie predicts a;
	// row 10 has no class; row 11 is impossible.
	mt, skipped, err := learn.Evaluate(m, mustVar(t, m, "C"), b)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{
		{3, 1, 0}, // a: x1, x1 and missing right; x2 → b
		{0, 1, 1}, // b: x2 right; x3 → c
		{1, 0, 2}, // c: x3, x3 right; x1 → a
	}
	if diff := cmp.Diff(want, mt.Confusion); diff != "" {
		t.Errorf("confusion (-want +got):\n%s", diff)
	}
	if skipped != 1 || mt.Skipped != 1 || mt.Unlabelled != 1 || mt.N != 9 {
		t.Errorf("N %d, skipped %d (%d), unlabelled %d; want 9, 1, 1", mt.N, skipped, mt.Skipped, mt.Unlabelled)
	}
	// P(true class): 0.8 on the five right rows, 0.1 on the three wrong
	// ones, 1/3 on the row without X.
	loss := (5*-math.Log(0.8) + 3*-math.Log(0.1) - math.Log(1.0/3)) / 9
	if !clsNear(mt.LogLoss, loss, 1e-12) {
		t.Errorf("log loss %v, want %v", mt.LogLoss, loss)
	}
	if !clsNear(mt.Accuracy, 6.0/9, 1e-15) {
		t.Errorf("accuracy %v, want 6/9", mt.Accuracy)
	}
	// Precision: a 3/4, b 1/2, c 2/3; recall: a 3/4, b 1/2, c 2/3.
	for c, p := range []float64{3.0 / 4, 1.0 / 2, 2.0 / 3} {
		r := []float64{3.0 / 4, 1.0 / 2, 2.0 / 3}[c]
		if !clsNear(mt.Precision[c], p, 1e-15) || !clsNear(mt.Recall[c], r, 1e-15) {
			t.Errorf("class %d: precision %v recall %v, want %v %v", c, mt.Precision[c], mt.Recall[c], p, r)
		}
	}

	// Errors: no target column; unlearned numbers.
	noTarget := clsCSV(t, m, "X\nx1\n")
	if _, _, err := learn.Evaluate(m, mustVar(t, m, "C"), noTarget); err == nil || !strings.Contains(err.Error(), "no column C") {
		t.Errorf("no target column: %v", err)
	}
	s, err := clsStructure(clsNBStructure)
	if err != nil {
		t.Fatal(err)
	}
	// Unlearned numbers: a typed error of kind ir.ErrNoDistribution naming
	// the variables, whose text names no flag of the command line (pbl
	// classify phrases it with pbl learn and --cv).
	_, _, err = learn.Evaluate(s, mustVar(t, s, "C"), clsCSV(t, s, "C\na\n"))
	var ul *learn.UnlearnedError
	if !errors.As(err, &ul) || !errors.Is(err, ir.ErrNoDistribution) || len(ul.Vars) != len(s.Unlearned()) || strings.Contains(err.Error(), "--") {
		t.Errorf("unlearned model: %v (%T)", err, err)
	}
}

func TestLookupTarget(t *testing.T) {
	m := clsLoad(t, clsNBNetwork)
	if v, err := learn.LookupTarget(m, "F2"); err != nil || m.Vars[v].Name != "F2" {
		t.Errorf("LookupTarget(F2) = %v, %v", v, err)
	}
	if _, err := learn.LookupTarget(m, "c"); err == nil || !strings.Contains(err.Error(), `(did you mean "C"?)`) {
		t.Errorf("LookupTarget(c): %v", err)
	}
	// A short name is not guessed at: the discrete variables are listed.
	if _, err := learn.LookupTarget(m, "F5"); err == nil || !strings.Contains(err.Error(), `(its discrete variables: C, F1, F2, F3, F4)`) {
		t.Errorf("LookupTarget(F5): %v", err)
	}
}

// TestStratifiedFolds checks that folds partition the rows, hold each
// class in proportion (within one row) and depend only on the seed.
func TestStratifiedFolds(t *testing.T) {
	var class []int32
	for c, n := range map[int32]int{0: 23, 1: 7, 2: 11, 4: 2, data.Missing: 3} {
		for range n {
			class = append(class, c)
		}
	}
	// Interleave, so that rows of a class are not contiguous.
	for i := range class {
		j := (i * 17) % len(class)
		class[i], class[j] = class[j], class[i]
	}
	for _, k := range []int{2, 3, 5, 10} {
		fold := learn.StratifiedFolds(class, k, 42)
		if len(fold) != len(class) {
			t.Fatalf("k=%d: %d folds for %d rows", k, len(fold), len(class))
		}
		size := make([]int, k)
		per := map[int32][]int{}
		total := map[int32]int{}
		for i, f := range fold {
			if f < 0 || f >= k {
				t.Fatalf("k=%d: row %d in fold %d", k, i, f)
			}
			size[f]++
			if per[class[i]] == nil {
				per[class[i]] = make([]int, k)
			}
			per[class[i]][f]++
			total[class[i]]++
		}
		for f := range k {
			if size[f] < len(class)/k || size[f] > (len(class)+k-1)/k {
				t.Errorf("k=%d: fold %d has %d rows of %d", k, f, size[f], len(class))
			}
		}
		for c, counts := range per {
			for f, n := range counts {
				if n < total[c]/k || n > (total[c]+k-1)/k {
					t.Errorf("k=%d: fold %d has %d rows of class %d (of %d)", k, f, n, c, total[c])
				}
			}
		}
		if again := learn.StratifiedFolds(class, k, 42); !cmp.Equal(fold, again) {
			t.Errorf("k=%d: not deterministic", k)
		}
		if other := learn.StratifiedFolds(class, k, 43); cmp.Equal(fold, other) {
			t.Errorf("k=%d: seeds 42 and 43 give the same folds", k)
		}
	}
}

// bayesOptimal returns the accuracy of the Bayes-optimal classifier of C
// for the naive Bayes network m, by enumerating every feature assignment.
func clsBayesOptimal(t *testing.T, m *ir.Model) float64 {
	t.Helper()
	cv := mustVar(t, m, "C")
	var feats []ir.VarID
	for _, v := range m.Vars {
		if v.ID != cv {
			feats = append(feats, v.ID)
		}
	}
	kc := len(m.Vars[cv].States)
	x := make([]int, len(feats))
	acc := 0.0
	for {
		best := 0.0
		for c := range kc {
			p := m.Table(ir.VarID(cv)).Factor.Vals[c]
			for i, f := range feats {
				fac := m.Table(ir.VarID(f)).Factor
				p *= fac.Vals[fac.Index([]int{c, x[i]})]
			}
			best = max(best, p)
		}
		acc += best
		i := len(x) - 1
		for ; i >= 0; i-- {
			if x[i]++; x[i] < len(m.Vars[feats[i]].States) {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			return acc
		}
	}
}

// TestCrossValidate checks cross-validation on data sampled from a known
// naive Bayes network: its accuracy is close to the Bayes-optimal one, it
// is deterministic, and the classifier fast path and general inference on
// the same structure give the same scores.
func TestCrossValidate(t *testing.T) {
	gen := clsLoad(t, clsNBNetwork)
	var csv bytes.Buffer
	const n = 3000
	if err := sample.WriteCSV(&csv, gen, n, 7, 0.05); err != nil {
		t.Fatal(err)
	}
	opt := learn.Options{Method: learn.Bayes, Alpha: 1}
	nb, err := clsStructure(clsNBStructure)
	if err != nil {
		t.Fatal(err)
	}
	bn, err := clsStructure(clsNBVars + "C -> F1\nC -> F2\nC -> F3\nC -> F4\n")
	if err != nil {
		t.Fatal(err)
	}
	all := clsCSV(t, nb, csv.String())

	folds, err := learn.CrossValidate(nb, "C", all, 5, learn.Fit(opt), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(folds) != 5 {
		t.Fatalf("%d folds", len(folds))
	}
	pooled := learn.Pool(folds)
	if pooled.N+pooled.Unlabelled+pooled.Skipped != n {
		t.Errorf("folds cover %d+%d+%d rows, want %d", pooled.N, pooled.Unlabelled, pooled.Skipped, n)
	}
	for f, mt := range folds {
		if mt.N+mt.Unlabelled < n/5 || mt.N+mt.Unlabelled > n/5+1 {
			t.Errorf("fold %d holds %d rows", f, mt.N+mt.Unlabelled)
		}
	}
	// With 5% of the cells missing the achievable accuracy is a little
	// below the Bayes-optimal accuracy on complete rows; learning from
	// 2400 rows costs a little more. Allow 4 standard errors each way.
	opt0 := clsBayesOptimal(t, gen)
	se := math.Sqrt(opt0 * (1 - opt0) / float64(pooled.N))
	if !(math.Abs(pooled.Accuracy-opt0) <= 4*se) {
		t.Errorf("cross-validated accuracy %.4f, Bayes-optimal %.4f (SE %.4f)", pooled.Accuracy, opt0, se)
	}
	t.Logf("cross-validated accuracy %.4f ± %.4f, Bayes-optimal %.4f", pooled.Accuracy, learn.Summarize(folds).Accuracy.SD, opt0)

	again, err := learn.CrossValidate(nb, "C", all, 5, learn.Fit(opt), 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(folds, again); diff != "" {
		t.Errorf("not deterministic (-first +second):\n%s", diff)
	}
	other, err := learn.CrossValidate(nb, "C", all, 5, learn.Fit(opt), 2)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(folds, other) {
		t.Errorf("seeds 1 and 2 give the same folds")
	}

	// The same structure as a plain network, scored by exact inference.
	viaBN, err := learn.CrossValidate(bn, "C", all, 5, learn.Fit(opt), 1)
	if err != nil {
		t.Fatal(err)
	}
	approx := cmp.Comparer(func(a, b float64) bool { return clsNear(a, b, 1e-9) })
	if diff := cmp.Diff(folds, viaBN, approx); diff != "" {
		t.Errorf("naive Bayes vs network (-nb +bn):\n%s", diff)
	}

	// Out-of-fold posteriors: one per row, the unlabelled ones included.
	seen := make([]int, all.N)
	_, err = learn.CrossValidateFunc(nb, "C", all, 5, learn.Fit(opt), 1, func(i int, post []float64) {
		seen[i]++
		if post != nil && !clsNear(post[0]+post[1]+post[2], 1, 1e-12) {
			t.Errorf("row %d: posterior %v", i, post)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seen {
		if s != 1 {
			t.Fatalf("row %d reported %d times", i, s)
		}
	}

	// Errors.
	for _, tc := range []struct {
		target string
		k      int
		want   string
	}{
		{"Q", 5, `no variable "Q"`},
		{"C", 1, "at least 2 folds"},
		{"C", n + 1, "cannot make"},
	} {
		if _, err := learn.CrossValidate(nb, tc.target, all, tc.k, learn.Fit(opt), 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CrossValidate(%s, k=%d): %v, want %q", tc.target, tc.k, err, tc.want)
		}
	}
}
