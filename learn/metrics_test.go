package learn

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// near reports whether a and b agree to tol; NaN never does.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// addCells feeds e conf[t][p] rows of true class t predicted p, each with
// the posterior 0.6 on p and the rest spread evenly over the other classes.
func addCells(e *Evaluator, conf [][]int) {
	k := len(conf)
	for t, row := range conf {
		for p, n := range row {
			post := make([]float64, k)
			for c := range post {
				post[c] = 0.4 / float64(k-1)
			}
			post[p] = 0.6
			for range n {
				e.Add(t, post)
			}
		}
	}
}

// TestMetricsThreeClasses checks every score of a 3-class confusion matrix
// against values computed by hand from the definitions (CS229: precision =
// true positives / predicted positives, recall = true positives / (true
// positives + false negatives)).
func TestMetricsThreeClasses(t *testing.T) {
	//             predicted a  b   c
	conf := [][]int{ /* a */ {5, 3, 0},
		/* b */ {2, 3, 1},
		/* c */ {0, 2, 11},
	}
	e := NewEvaluator([]string{"a", "b", "c"})
	addCells(e, conf)
	m := e.Metrics()
	if diff := cmp.Diff(conf, m.Confusion); diff != "" {
		t.Fatalf("confusion (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{8, 6, 13}, m.Support); diff != "" {
		t.Errorf("support (-want +got):\n%s", diff)
	}
	// 27 rows, 19 on the diagonal. Column sums 7, 8, 12; row sums 8, 6, 13.
	// F1 = 2TP / (2TP + FP + FN): a 10/15, b 6/14, c 22/25.
	want := struct {
		n                 int
		acc, macro, loss  float64
		prec, recall, f1s []float64
	}{
		n:      27,
		acc:    19.0 / 27,
		prec:   []float64{5.0 / 7, 3.0 / 8, 11.0 / 12},
		recall: []float64{5.0 / 8, 3.0 / 6, 11.0 / 13},
		f1s:    []float64{2.0 / 3, 3.0 / 7, 22.0 / 25},
		macro:  (2.0/3 + 3.0/7 + 22.0/25) / 3,
		loss:   (19*-math.Log(0.6) + 8*-math.Log(0.2)) / 27,
	}
	if m.N != want.n {
		t.Errorf("N = %d, want %d", m.N, want.n)
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if !near(got, want, 1e-15) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("accuracy", m.Accuracy, want.acc)
	check("macro F1", m.MacroF1, want.macro)
	check("log loss", m.LogLoss, want.loss)
	for c, name := range m.Classes {
		check("precision["+name+"]", m.Precision[c], want.prec[c])
		check("recall["+name+"]", m.Recall[c], want.recall[c])
		check("F1["+name+"]", m.F1[c], want.f1s[c])
	}
}

// TestMetricsUndefined checks that undefined ratios are 0, never NaN, and
// which classes the macro F1 averages over.
func TestMetricsUndefined(t *testing.T) {
	// Classes: x and y occur; z is present but never predicted; w is
	// predicted but never present; v neither.
	classes := []string{"x", "y", "z", "w", "v"}
	conf := [][]int{
		{3, 1, 0, 1, 0}, // x
		{0, 2, 0, 0, 0}, // y
		{1, 1, 0, 0, 0}, // z: never predicted
		{0, 0, 0, 0, 0}, // w: never present, predicted once
		{0, 0, 0, 0, 0}, // v: never present nor predicted
	}
	e := NewEvaluator(classes)
	addCells(e, conf)
	m := e.Metrics()
	wantP := []float64{3.0 / 4, 2.0 / 4, 0, 0, 0}
	wantR := []float64{3.0 / 5, 1, 0, 0, 0}
	wantF := []float64{6.0 / 9, 4.0 / 6, 0, 0, 0}
	for c, name := range classes {
		if !near(m.Precision[c], wantP[c], 1e-15) || !near(m.Recall[c], wantR[c], 1e-15) || !near(m.F1[c], wantF[c], 1e-15) {
			t.Errorf("%s: precision, recall, F1 = %v, %v, %v; want %v, %v, %v", name, m.Precision[c], m.Recall[c], m.F1[c], wantP[c], wantR[c], wantF[c])
		}
	}
	// The macro F1 averages x, y, z and w (which occur), not v.
	if want := (6.0/9 + 4.0/6) / 4; !near(m.MacroF1, want, 1e-15) {
		t.Errorf("macro F1 = %v, want %v", m.MacroF1, want)
	}
	if want := 5.0 / 9; !near(m.Accuracy, want, 1e-15) {
		t.Errorf("accuracy = %v, want %v", m.Accuracy, want)
	}

	// No rows at all: every score is 0.
	m = NewEvaluator(classes).Metrics()
	if m.N != 0 || m.Accuracy != 0 || m.LogLoss != 0 || m.MacroF1 != 0 {
		t.Errorf("empty evaluator: %+v", m)
	}
	for c := range classes {
		if m.Precision[c] != 0 || m.Recall[c] != 0 || m.F1[c] != 0 {
			t.Errorf("empty evaluator, class %d: %v %v %v", c, m.Precision[c], m.Recall[c], m.F1[c])
		}
	}
}

func TestEvaluatorTiesAndClamp(t *testing.T) {
	e := NewEvaluator([]string{"a", "b", "c"})
	e.Add(1, []float64{0.4, 0.4, 0.2}) // a tie predicts the lowest index: a
	e.Add(2, []float64{0, 0, 0.0})     // all zero predicts a; p(true) = 0 is clamped
	e.Add(2, []float64{0, 0.5, 0.5})   // tie between b and c: b
	e.Skip()
	e.SkipUnlabelled()
	e.SkipUnlabelled()
	m := e.Metrics()
	want := [][]int{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}
	if diff := cmp.Diff(want, m.Confusion); diff != "" {
		t.Errorf("confusion (-want +got):\n%s", diff)
	}
	loss := (-math.Log(0.4) - math.Log(MinProb) - math.Log(0.5)) / 3
	if !near(m.LogLoss, loss, 1e-14) {
		t.Errorf("log loss = %v, want %v", m.LogLoss, loss)
	}
	if m.Skipped != 1 || m.Unlabelled != 2 || m.N != 3 {
		t.Errorf("N, skipped, unlabelled = %d, %d, %d; want 3, 1, 2", m.N, m.Skipped, m.Unlabelled)
	}
	// A posterior a rounding error above 1 gives no negative loss.
	e = NewEvaluator([]string{"a", "b"})
	e.Add(0, []float64{1 + 1e-16, 0})
	if l := e.Metrics().LogLoss; l != 0 {
		t.Errorf("log loss of a sure, right prediction = %v, want 0", l)
	}
	if got := Predicted(nil); got != -1 {
		t.Errorf("Predicted(nil) = %d, want -1", got)
	}
}

func TestEvaluatorPanics(t *testing.T) {
	for name, f := range map[string]func(e *Evaluator){
		"length": func(e *Evaluator) { e.Add(0, []float64{1}) },
		"class":  func(e *Evaluator) { e.Add(2, []float64{1, 0}) },
		"nan":    func(e *Evaluator) { e.Add(0, []float64{math.NaN(), 0}) },
		"merge":  func(e *Evaluator) { e.Merge(NewEvaluator([]string{"a"})) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(NewEvaluator([]string{"a", "b"}))
		}()
	}
}

// TestMergeAndPool checks that merging evaluators, and pooling their
// metrics, gives the metrics of all their rows.
func TestMergeAndPool(t *testing.T) {
	classes := []string{"a", "b", "c"}
	parts := [][][]int{
		{{2, 1, 0}, {0, 3, 1}, {1, 0, 4}},
		{{0, 0, 0}, {1, 1, 0}, {0, 2, 2}},
		{{5, 0, 1}, {0, 0, 0}, {0, 0, 0}},
	}
	all := NewEvaluator(classes)
	merged := NewEvaluator(classes)
	var folds []*Metrics
	for _, conf := range parts {
		addCells(all, conf)
		e := NewEvaluator(classes)
		addCells(e, conf)
		e.Skip()
		merged.Merge(e)
		folds = append(folds, e.Metrics())
	}
	want := all.Metrics()
	want.Skipped = 3
	approx := cmp.Comparer(func(a, b float64) bool { return near(a, b, 1e-14) })
	if diff := cmp.Diff(want, merged.Metrics(), approx); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, Pool(folds), approx); diff != "" {
		t.Errorf("pooled (-want +got):\n%s", diff)
	}
}

func TestMeanSD(t *testing.T) {
	for _, tc := range []struct {
		xs       []float64
		mean, sd float64
	}{
		{nil, 0, 0},
		{[]float64{0.7}, 0.7, 0},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
		{[]float64{0.5, 0.5, 0.5}, 0.5, 0},
	} {
		got := MeanSD(tc.xs)
		if !near(got.Mean, tc.mean, 1e-15) || !near(got.SD, tc.sd, 1e-15) {
			t.Errorf("MeanSD(%v) = %+v, want {%v %v}", tc.xs, got, tc.mean, tc.sd)
		}
	}
}

func TestSummarize(t *testing.T) {
	classes := []string{"a", "b"}
	e1, e2 := NewEvaluator(classes), NewEvaluator(classes)
	addCells(e1, [][]int{{3, 1}, {0, 4}}) // accuracy 7/8
	addCells(e2, [][]int{{2, 2}, {1, 3}}) // accuracy 5/8
	s := Summarize([]*Metrics{e1.Metrics(), e2.Metrics()})
	if !near(s.Accuracy.Mean, 0.75, 1e-15) || !near(s.Accuracy.SD, math.Sqrt(2)*0.125, 1e-15) {
		t.Errorf("accuracy %+v, want mean 0.75, sd %v", s.Accuracy, math.Sqrt(2)*0.125)
	}
	// Recall of b: 1 and 3/4.
	if !near(s.Recall[1].Mean, 0.875, 1e-15) || !near(s.Recall[1].SD, math.Sqrt(2)*0.125, 1e-15) {
		t.Errorf("recall[b] %+v", s.Recall[1])
	}
	if len(s.Precision) != 2 || len(s.F1) != 2 {
		t.Errorf("per-class lengths %d, %d", len(s.Precision), len(s.F1))
	}
}
