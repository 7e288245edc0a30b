package learn

import (
	"fmt"
	"math"
)

// MinProb is the probability below which a predicted probability of the
// true class is clamped when computing the log loss, so that one confident
// mistake costs −ln 1e-15 ≈ 34.5 rather than +Inf.
const MinProb = 1e-15

// Metrics are the scores of a classifier on a set of labelled rows.
//
// Per-class scores are defined from the confusion matrix C (rows: the true
// class, columns: the predicted class) as
//
//	precision[c] = C[c][c] / Σ_t C[t][c]   (of the rows predicted c, the share that are c)
//	recall[c]    = C[c][c] / Σ_p C[c][p]   (of the rows that are c, the share predicted c)
//	f1[c]        = 2·precision·recall / (precision + recall)
//
// A ratio whose denominator is 0 is undefined; it is reported as 0, never
// NaN: the precision of a class never predicted, the recall of a class
// never present, and the F1 of a class whose precision and recall are both
// 0. (scikit-learn does the same, with a warning.)
type Metrics struct {
	Classes   []string  // the class names, in state order
	Confusion [][]int   // Confusion[t][p]: rows of true class t predicted as p
	Support   []int     // Support[c]: rows whose true class is c (the row sums of Confusion)
	Accuracy  float64   // the share of rows predicted correctly; 0 if N is 0
	Precision []float64 // per class; 0 where undefined (see above)
	Recall    []float64 // per class; 0 where undefined
	F1        []float64 // per class; 0 where undefined
	// MacroF1 is the unweighted mean of F1 over the classes that occur,
	// as the true class or as a prediction (scikit-learn's default labels):
	// a class absent from both does not count. 0 if N is 0.
	MacroF1 float64
	LogLoss float64 // the mean of −ln p(true class), p clamped below at MinProb; 0 if N is 0
	N       int     // rows scored

	// Rows seen but not scored: Skipped rows, whose evidence has
	// probability 0 under the model, and Unlabelled rows, whose class is
	// missing.
	Skipped, Unlabelled int
}

// Evaluator accumulates the predictions of a classifier, one row at a
// time, and computes their Metrics. Evaluators of disjoint sets of rows
// merge (see [Evaluator.Merge]), so rows may be scored on several cores.
// The zero Evaluator is not usable; call [NewEvaluator].
type Evaluator struct {
	classes             []string
	conf                []int   // k×k, row-major: conf[t*k+p]
	nll                 float64 // Σ −ln max(p(true), MinProb)
	n                   int
	skipped, unlabelled int
}

// NewEvaluator returns an Evaluator for a class with the given states.
func NewEvaluator(classes []string) *Evaluator {
	k := len(classes)
	return &Evaluator{classes: classes, conf: make([]int, k*k)}
}

// Predicted returns the index of the largest entry of post, the lowest
// index on ties: the prediction of a classifier whose posterior is post.
// It returns -1 for an empty slice.
func Predicted(post []float64) int {
	best := -1
	for c, p := range post {
		if best < 0 || p > post[best] {
			best = c
		}
	}
	return best
}

// Add scores one row: its true class (a state index) and the classifier's
// posterior over the classes, which is predicted by its argmax (ties to
// the lowest index). It panics if the posterior has the wrong length or
// holds NaN, or the class is out of range: these are programmer errors.
func (e *Evaluator) Add(trueClass int, post []float64) {
	k := len(e.classes)
	if len(post) != k {
		panic(fmt.Sprintf("learn: Evaluator.Add: posterior of length %d for %d classes", len(post), k))
	}
	if trueClass < 0 || trueClass >= k {
		panic(fmt.Sprintf("learn: Evaluator.Add: class %d out of range [0, %d)", trueClass, k))
	}
	for _, p := range post {
		if math.IsNaN(p) {
			panic("learn: Evaluator.Add: NaN in the posterior")
		}
	}
	e.conf[trueClass*k+Predicted(post)]++
	p := min(max(post[trueClass], MinProb), 1)
	e.nll -= math.Log(p)
	e.n++
}

// Skip counts a row that could not be scored because its evidence has
// probability 0 under the model.
func (e *Evaluator) Skip() { e.skipped++ }

// SkipUnlabelled counts a row whose class is missing.
func (e *Evaluator) SkipUnlabelled() { e.unlabelled++ }

// Merge adds o's rows to e. Both must be for the same classes.
func (e *Evaluator) Merge(o *Evaluator) {
	if len(o.conf) != len(e.conf) {
		panic("learn: Evaluator.Merge: different classes")
	}
	for i, x := range o.conf {
		e.conf[i] += x
	}
	e.nll += o.nll
	e.n += o.n
	e.skipped += o.skipped
	e.unlabelled += o.unlabelled
}

// Metrics returns the scores of the rows added so far.
func (e *Evaluator) Metrics() *Metrics {
	k := len(e.classes)
	conf := make([][]int, k)
	for t := range conf {
		conf[t] = append([]int(nil), e.conf[t*k:(t+1)*k]...)
	}
	mt := metricsOf(e.classes, conf)
	mt.N = e.n
	if e.n > 0 {
		mt.LogLoss = e.nll / float64(e.n)
	}
	mt.Skipped, mt.Unlabelled = e.skipped, e.unlabelled
	return mt
}

// metricsOf computes every score but the log loss from a confusion matrix.
func metricsOf(classes []string, conf [][]int) *Metrics {
	k := len(classes)
	mt := &Metrics{
		Classes:   classes,
		Confusion: conf,
		Support:   make([]int, k),
		Precision: make([]float64, k),
		Recall:    make([]float64, k),
		F1:        make([]float64, k),
	}
	predicted := make([]int, k)
	correct, n := 0, 0
	for t, row := range conf {
		for p, x := range row {
			mt.Support[t] += x
			predicted[p] += x
			n += x
		}
		correct += row[t]
	}
	if n == 0 {
		return mt
	}
	mt.Accuracy = float64(correct) / float64(n)
	occurring := 0
	for c := range k {
		tp := float64(conf[c][c])
		if predicted[c] > 0 {
			mt.Precision[c] = tp / float64(predicted[c])
		}
		if mt.Support[c] > 0 {
			mt.Recall[c] = tp / float64(mt.Support[c])
		}
		if p, r := mt.Precision[c], mt.Recall[c]; p+r > 0 {
			mt.F1[c] = 2 * p * r / (p + r)
		}
		if predicted[c] > 0 || mt.Support[c] > 0 {
			mt.MacroF1 += mt.F1[c]
			occurring++
		}
	}
	mt.MacroF1 /= float64(occurring)
	return mt
}

// Pool combines the metrics of disjoint sets of rows with the same
// classes (the folds of a cross-validation) into the metrics of their
// union: the confusion matrices add up, and the log loss is the mean over
// every row.
func Pool(folds []*Metrics) *Metrics {
	if len(folds) == 0 {
		return &Metrics{}
	}
	classes := folds[0].Classes
	k := len(classes)
	conf := make([][]int, k)
	for t := range conf {
		conf[t] = make([]int, k)
	}
	nll, n, skipped, unlabelled := 0.0, 0, 0, 0
	for _, f := range folds {
		if len(f.Confusion) != k {
			panic("learn: Pool: metrics for different classes")
		}
		for t, row := range f.Confusion {
			for p, x := range row {
				conf[t][p] += x
			}
		}
		nll += f.LogLoss * float64(f.N)
		n += f.N
		skipped += f.Skipped
		unlabelled += f.Unlabelled
	}
	mt := metricsOf(classes, conf)
	mt.N = n
	if n > 0 {
		mt.LogLoss = nll / float64(n)
	}
	mt.Skipped, mt.Unlabelled = skipped, unlabelled
	return mt
}

// Stat is the mean and the sample standard deviation of a score over the
// folds of a cross-validation.
type Stat struct {
	Mean, SD float64 // SD is 0 for fewer than two values
}

// MeanSD returns the mean and the sample standard deviation (divisor
// n − 1) of xs, computed in two passes for accuracy. Both are 0 for an
// empty slice, and the deviation is 0 for a single value.
func MeanSD(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) == 1 {
		return Stat{Mean: mean}
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return Stat{Mean: mean, SD: math.Sqrt(ss / float64(len(xs)-1))}
}

// Summary is the mean ± sd of each score over the folds of a
// cross-validation.
type Summary struct {
	Accuracy, LogLoss, MacroF1 Stat
	Precision, Recall, F1      []Stat // per class
}

// Summarize returns the mean ± sd of each score over folds, which must be
// for the same classes.
func Summarize(folds []*Metrics) *Summary {
	s := &Summary{}
	if len(folds) == 0 {
		return s
	}
	k := len(folds[0].Classes)
	xs := make([]float64, len(folds))
	stat := func(get func(*Metrics) float64) Stat {
		for i, f := range folds {
			xs[i] = get(f)
		}
		return MeanSD(xs)
	}
	s.Accuracy = stat(func(f *Metrics) float64 { return f.Accuracy })
	s.LogLoss = stat(func(f *Metrics) float64 { return f.LogLoss })
	s.MacroF1 = stat(func(f *Metrics) float64 { return f.MacroF1 })
	s.Precision, s.Recall, s.F1 = make([]Stat, k), make([]Stat, k), make([]Stat, k)
	for c := range k {
		s.Precision[c] = stat(func(f *Metrics) float64 { return f.Precision[c] })
		s.Recall[c] = stat(func(f *Metrics) float64 { return f.Recall[c] })
		s.F1[c] = stat(func(f *Metrics) float64 { return f.F1[c] })
	}
	return s
}
