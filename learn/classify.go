package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// ErrImpossible is returned by [Predict] for a row whose observed cells
// have probability 0 under the model, so that no class can be predicted.
// Evaluation skips such rows and counts them (Metrics.Skipped).
var ErrImpossible = errors.New("the row's evidence has probability 0 under the model")

// Predict writes into dst the posterior distribution of target given the
// observed cells of row i of b: dst[c] = P(target = c | the row's other
// non-missing cells). The target's own cell, missing cells and real-valued
// cells (except for a classifier's Gaussian features) are ignored (see
// [IgnoredColumns]). len(dst) must be the number of the target's states.
//
// For the class of a naive Bayes or TAN classifier — declared
// (m.Classifier), or, in a model with Gaussian features, the structure of
// its tables (a learned classifier read back from .pbl) — it uses the fast
// path [LogPosterior], normalised stably in log space, which takes real
// evidence; for any other variable it asks the exact inference engine for
// P(target | evidence), which takes discrete evidence only. A row whose
// evidence is impossible gives [ErrImpossible]; other errors (a model with
// unlearned numbers, a table too large) come from infer.Answer.
func Predict(m *ir.Model, target ir.VarID, b *data.Batch, i int, dst []float64) error {
	if len(dst) != len(m.Vars[target].States) {
		panic(fmt.Sprintf("learn: Predict: dst has length %d for %d states", len(dst), len(m.Vars[target].States)))
	}
	if cl := classifierFor(m, target); cl != nil {
		logPosterior(m, cl, b, i, dst)
		return normalizeLog(dst)
	}
	var ev []ir.Obs
	for j, v := range b.Vars {
		if v == target || b.Cols[j] == nil {
			continue
		}
		if s := b.Cols[j][i]; s != data.Missing {
			ev = append(ev, ir.Obs{Var: v, State: int(s)})
		}
	}
	post, err := infer.Posterior(m, target, ev, infer.Options{})
	if errors.Is(err, infer.ErrImpossible) {
		return ErrImpossible
	}
	if err != nil {
		return err
	}
	copy(dst, post)
	return nil
}

// IgnoredColumns returns the real-valued columns of b that [Predict]
// ignores when it predicts target: all of them when the target is
// predicted by exact inference (which takes discrete evidence only), and
// those that are not Gaussian features when it is a classifier's class.
func IgnoredColumns(m *ir.Model, target ir.VarID, b *data.Batch) []ir.VarID {
	cl := classifierFor(m, target)
	var out []ir.VarID
	for j, v := range b.Vars {
		if j >= len(b.Reals) || b.Reals[j] == nil {
			continue
		}
		if cl != nil && slices.Contains(cl.Features, v) && m.Gaussian(v) != nil {
			continue
		}
		out = append(out, v)
	}
	return out
}

// normalizeLog turns log-probabilities into probabilities summing to 1:
// dst[c] = exp(dst[c] − max) / Σ exp(dst[·] − max). It returns
// ErrImpossible if every entry is −Inf (or NaN).
func normalizeLog(dst []float64) error {
	mx := math.Inf(-1)
	for _, x := range dst {
		if math.IsNaN(x) {
			return ErrImpossible
		}
		mx = max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return ErrImpossible
	}
	if math.IsInf(mx, 1) {
		// A density that overflowed: the classes at +Inf share the mass.
		n := 0.0
		for _, x := range dst {
			if math.IsInf(x, 1) {
				n++
			}
		}
		for c, x := range dst {
			dst[c] = 0
			if math.IsInf(x, 1) {
				dst[c] = 1 / n
			}
		}
		return nil
	}
	sum := 0.0
	for c, x := range dst {
		dst[c] = math.Exp(x - mx)
		sum += dst[c]
	}
	for c := range dst {
		dst[c] /= sum
	}
	return nil
}

// RowFunc receives the posterior of one row of a batch (its index in the
// batch), or nil for a row whose evidence is impossible. Unlabelled rows
// are predicted too (but not scored). It may be called concurrently for different rows, and
// must not keep post, which is reused.
type RowFunc func(row int, post []float64)

// Evaluate scores m as a classifier of target on every row of b: each
// labelled row is predicted with [Predict] from its other cells and
// compared with its target cell. Rows whose evidence is impossible are
// skipped and counted (the second result, also Metrics.Skipped); rows
// whose target is missing are counted as Metrics.Unlabelled. Rows are
// scored on every core; the result does not depend on their number.
func Evaluate(m *ir.Model, target ir.VarID, b *data.Batch) (*Metrics, int, error) {
	mt, err := EvaluateFunc(m, target, b, nil)
	if err != nil {
		return nil, 0, err
	}
	return mt, mt.Skipped, nil
}

// EvaluateFunc is [Evaluate], calling each (unless nil) with every row's
// posterior.
func EvaluateFunc(m *ir.Model, target ir.VarID, b *data.Batch, each RowFunc) (*Metrics, error) {
	col, err := checkTarget(m, target, b)
	if err != nil {
		return nil, err
	}
	e, err := score(m, target, b, col, nil, each)
	if err != nil {
		return nil, err
	}
	return e.Metrics(), nil
}

// checkTarget checks that m can classify target from b and returns the
// column of b holding the target.
func checkTarget(m *ir.Model, target ir.VarID, b *data.Batch) (int, error) {
	v := m.Vars[target]
	if !v.Discrete() {
		return 0, fmt.Errorf("the target %s is real-valued; classification needs a discrete variable", ir.Quote(v.Name))
	}
	if u := m.Unlearned(); len(u) > 0 {
		return 0, &UnlearnedError{Vars: u, msg: fmt.Sprintf("the model has no numbers yet for %s: learn them first, or cross-validate, which learns them on each fold", m.NameList(u, 3))}
	}
	for j, w := range b.Vars {
		if w == target && b.Cols[j] != nil {
			return j, nil
		}
	}
	return 0, fmt.Errorf("the data has no column %s: it is needed to score the predictions", ir.Quote(v.Name))
}

// scoreChunk is the number of rows one goroutine scores at a time.
const scoreChunk = 256

// score predicts the given rows of b (every row if rows is nil) on every
// core. Chunks of rows are scored into evaluators merged in order, so that
// the sums, and the result, are the same whatever the number of cores.
func score(m *ir.Model, target ir.VarID, b *data.Batch, col int, rows []int, each RowFunc) (*Evaluator, error) {
	n := b.N
	if rows != nil {
		n = len(rows)
	}
	classes := m.Vars[target].States
	chunks := (n + scoreChunk - 1) / scoreChunk
	evs := make([]*Evaluator, chunks)
	errs := make([]error, chunks)
	par.For(chunks, func(ch int) {
		e := NewEvaluator(classes)
		evs[ch] = e
		post := make([]float64, len(classes))
		for k := ch * scoreChunk; k < min(n, (ch+1)*scoreChunk); k++ {
			i := k
			if rows != nil {
				i = rows[k]
			}
			t := b.Cols[col][i]
			if t == data.Missing {
				e.SkipUnlabelled()
				if each == nil {
					continue
				}
			}
			err := Predict(m, target, b, i, post)
			if err != nil && err != ErrImpossible {
				errs[ch] = lineErr(b, i, err)
				return
			}
			if err == ErrImpossible && t != data.Missing {
				e.Skip()
			}
			if each != nil {
				if err == ErrImpossible {
					each(i, nil)
				} else {
					each(i, post)
				}
			}
			if err == nil && t != data.Missing {
				e.Add(int(t), post)
			}
		}
	})
	total := NewEvaluator(classes)
	for ch, e := range evs {
		if errs[ch] != nil {
			return nil, errs[ch]
		}
		total.Merge(e)
	}
	return total, nil
}

// lineErr names the data line of row i in err, when it is known.
func lineErr(b *data.Batch, i int, err error) error {
	if i < len(b.Lines) && b.Lines[i] > 0 {
		return fmt.Errorf("data line %d: %w", b.Lines[i], err)
	}
	return err
}

// StratifiedFolds assigns each row to one of k folds, stratified by class:
// class[i] is the class of row i (or data.Missing, which is a stratum of
// its own). The rows of each class, in increasing class order (missing
// last), are shuffled with a PCG generator seeded by seed and dealt round
// robin into the folds, the deal continuing from class to class. So every
// fold holds ⌊n_c/k⌋ or ⌈n_c/k⌉ rows of each class c, fold sizes differ by
// at most one, and the assignment depends only on class, k and seed. It
// returns fold[i], the fold of row i. It panics if k < 1.
func StratifiedFolds(class []int32, k int, seed uint64) []int {
	if k < 1 {
		panic("learn: StratifiedFolds: k < 1")
	}
	var strata [][]int
	index := map[int32]int{} // class -> stratum, built in class order below
	maxClass := int32(-1)
	for _, c := range class {
		maxClass = max(maxClass, c)
	}
	size := make([]int, maxClass+2) // size[c+1]: rows of class c
	for _, c := range class {
		size[c+1]++
	}
	order := make([]int32, 0, len(size))
	for c := int32(0); c <= maxClass; c++ {
		if size[c+1] > 0 {
			order = append(order, c)
		}
	}
	if size[0] > 0 {
		order = append(order, data.Missing)
	}
	for _, c := range order {
		index[c] = len(strata)
		strata = append(strata, make([]int, 0, size[c+1]))
	}
	for i, c := range class {
		s := index[c]
		strata[s] = append(strata[s], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed_f01d))
	fold := make([]int, len(class))
	next := 0
	for _, rows := range strata {
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		for _, i := range rows {
			fold[i] = next
			next = (next + 1) % k
		}
	}
	return fold
}

// subBatch returns the given rows of b's columns, discrete and real, as
// a batch.
func subBatch(b *data.Batch, rows []int) *data.Batch {
	out := &data.Batch{N: len(rows), Vars: b.Vars, Cols: make([][]int32, len(b.Vars)), Reals: make([][]float64, len(b.Vars))}
	for j := range b.Vars {
		if col := b.Cols[j]; col != nil {
			c := make([]int32, len(rows))
			for k, i := range rows {
				c[k] = col[i]
			}
			out.Cols[j] = c
		}
		if j < len(b.Reals) && b.Reals[j] != nil {
			c := make([]float64, len(rows))
			for k, i := range rows {
				c[k] = b.Reals[j][i]
			}
			out.Reals[j] = c
		}
	}
	if len(b.Lines) > 0 {
		out.Lines = make([]int, len(rows))
		for k, i := range rows {
			if i < len(b.Lines) {
				out.Lines[k] = b.Lines[i]
			}
		}
	}
	return out
}

// FitFunc learns a model's numbers from training rows and returns the
// learned model (a new one: m is not changed).
type FitFunc func(m *ir.Model, train *data.Batch) (*ir.Model, error)

// Fit returns the FitFunc that learns every distribution with opt, as
// [LearnBatch] does.
func Fit(opt Options) FitFunc {
	return func(m *ir.Model, train *data.Batch) (*ir.Model, error) {
		out, _, err := LearnBatch(m, train, opt)
		return out, err
	}
}

// CrossValidate estimates how well a model structure learned from data
// classifies target, by stratified k-fold cross-validation: the rows of
// all are split into k folds with [StratifiedFolds] (seeded by seed), and
// for each fold a model is learned from m with fit on the other folds
// (their discrete and real columns; with [Fit], a TAN classifier's tree is
// relearned too) and evaluated ([Evaluate]) on the fold. It returns the
// metrics of each fold, in fold order; [Summarize] gives their mean ± sd
// and [Pool] the metrics of the pooled out-of-fold predictions. all must
// number states as m does (read with m; its open variables' states, if
// any, in all.States). target names the class variable.
func CrossValidate(m *ir.Model, target string, all *data.Batch, k int, fit FitFunc, seed uint64) ([]*Metrics, error) {
	return CrossValidateFunc(m, target, all, k, fit, seed, nil)
}

// CrossValidateFunc is [CrossValidate], calling each (unless nil) with the
// out-of-fold posterior of every row of all (the row's index in all).
func CrossValidateFunc(m *ir.Model, target string, all *data.Batch, k int, fit FitFunc, seed uint64, each RowFunc) ([]*Metrics, error) {
	if all.States != nil {
		m = m.WithStates(all.States)
	}
	tv, err := LookupTarget(m, target)
	if err != nil {
		return nil, err
	}
	col := -1
	for j, v := range all.Vars {
		if v == tv && all.Cols[j] != nil {
			col = j
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("the data has no column %s: it is needed to learn and score the classifier", ir.Quote(target))
	}
	if !m.Vars[tv].Discrete() {
		return nil, fmt.Errorf("the target %s is real-valued; classification needs a discrete variable", ir.Quote(target))
	}
	labelled := 0
	for _, c := range all.Cols[col][:all.N] {
		if c != data.Missing {
			labelled++
		}
	}
	if k < 2 {
		return nil, fmt.Errorf("cross-validation needs at least 2 folds, not %d", k)
	}
	if labelled < k {
		return nil, fmt.Errorf("cannot make %d folds from %s", k, ir.Plural(labelled, "labelled row"))
	}
	fold := StratifiedFolds(all.Cols[col][:all.N], k, seed)
	test := make([][]int, k)
	for i, f := range fold {
		test[f] = append(test[f], i)
	}
	out := make([]*Metrics, k)
	for f := range k {
		var train []int
		for g := range k {
			if g != f {
				train = append(train, test[g]...)
			}
		}
		fm, err := fit(m, subBatch(all, train))
		if err != nil {
			return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
		}
		e, err := score(fm, tv, all, col, test[f], each)
		if err != nil {
			return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
		}
		out[f] = e.Metrics()
	}
	return out, nil
}

// LookupTarget returns the variable named name, or an error suggesting
// the nearest discrete variable's name.
func LookupTarget(m *ir.Model, name string) (ir.VarID, error) {
	if v, ok := m.Lookup(name); ok {
		if !v.Discrete() {
			return 0, fmt.Errorf("the target %s is real-valued; classification needs a discrete variable", ir.Quote(name))
		}
		return v.ID, nil
	}
	var names []string
	for _, v := range m.Vars {
		if v.Discrete() {
			names = append(names, v.Name)
		}
	}
	msg := "the model has no variable " + strconv.Quote(name)
	if h := spell.Nearest(name, names); h != "" {
		msg += " (did you mean " + strconv.Quote(h) + "?)"
	} else if len(names) <= 8 {
		msg += " (its discrete variables: " + strings.Join(names, ", ") + ")"
	}
	return 0, errors.New(msg)
}
