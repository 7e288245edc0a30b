package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/internal/batch"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/report"
)

// classifySummary is the help of pbl classify.
const classifySummary = "Classify scores a model as a classifier of the variable --target on the rows of the CSV\n" +
	"file --data: each row's target is predicted from its other cells (the class of largest\n" +
	"posterior probability; ties go to the first state) and compared with its target cell.\n" +
	"It prints the accuracy, the log loss (mean −ln P(true class), P clamped at 1e-15), the\n" +
	"confusion matrix (rows: true class, columns: predicted) and per-class precision, recall,\n" +
	"F1 and support; an undefined ratio (a class never predicted or never present) is 0.\n" +
	"Rows whose other cells are impossible under the model are skipped and counted.\n" +
	"Without --cv the model's numbers are scored as they are (a model file's learn statements\n" +
	"run first); a structure without numbers must be learned first (pbl learn).\n" +
	"--cv K runs stratified K-fold cross-validation instead: the model's numbers are\n" +
	"learned (--method etc.) on K−1 folds and scored on the last, for each fold; it prints\n" +
	"each score's mean ± sd over the folds and the confusion matrix of the out-of-fold\n" +
	"predictions. --predictions FILE writes each row's prediction and posterior as CSV.\n" +
	"A classifier's real-valued features (Gaussian given the class) are used as evidence;\n" +
	"any other target is predicted by exact inference, which takes discrete evidence only:\n" +
	"real-valued columns are then ignored, and the output says so."

// The flags of pbl classify, bound afresh (reset to their defaults) for
// each invocation by classifyFlags.
var (
	classifyTarget      string
	classifyData        string
	classifyCV          int
	classifyMethod      methodFlags
	classifyPredictions string
	classifySeed        uint64
	classifyIgnore      bool
)

func classifyFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&classifyTarget, "target", "", "the class `variable` to predict; required")
	fs.StringVar(&classifyData, "data", "", "the CSV `file` of rows to score (header: variable names), a glob of shards (each with its header), or - for stdin; required")
	fs.IntVar(&classifyCV, "cv", 0, "stratified `K`-fold cross-validation, K ≥ 2 (learning in each fold); 0: none")
	// --seed before the method's flags: the folds' seed is also em's.
	fs.Uint64Var(&classifySeed, "seed", 1, "the random `seed` of the --cv folds (and of em's random starts)")
	classifyMethod.register(fs, "with --cv, how each fold learns (default: as the file's learn statements, else mle)")
	fs.StringVar(&classifyPredictions, "predictions", "", "write each row's prediction and class posterior to this CSV `file` (atomically)")
	fs.BoolVar(&classifyIgnore, "ignore-unknown-columns", false, "skip data columns that name no variable of the model")
	runnerFlags(fs) // runner.go: --runner beam hands over to pbl-beam
}

// classifyCmd runs pbl classify.
func classifyCmd(c *cli, args []string) int {
	const name = "classify"
	if st, ok := c.handOver(name, args); ok {
		return st
	}
	if len(args) != 1 {
		return c.usageErr(name, "want one model file, got %s", plural(len(args), "argument"))
	}
	if classifyTarget == "" {
		return c.usageErr(name, "--target VAR is required: the class variable to predict")
	}
	if classifyData == "" {
		return c.usageErr(name, "--data CSV is required: the labelled rows to score")
	}
	if classifyCV < 0 || classifyCV == 1 {
		return c.usageErr(name, "--cv %d: want K ≥ 2 folds (or 0 for no cross-validation)", classifyCV)
	}
	given := classifyMethod.given()
	if classifyCV == 0 {
		seed := false
		c.fs.Visit(func(f *flag.Flag) { seed = seed || f.Name == "seed" })
		if seed {
			given = append(given, "--seed")
		}
		if len(given) > 0 {
			return c.usageErr(name, "%s applies only with --cv K (without it the model's own numbers are scored)", given[0])
		}
	}
	opt, err := classifyMethod.options()
	if err != nil {
		return c.usageErr(name, "%v", err)
	}
	path := args[0]
	src, err := resolveData(classifyData)
	if errors.Is(err, filepath.ErrBadPattern) {
		return c.usageErr(name, "--data %q: %v", classifyData, err)
	}
	if err != nil {
		c.report(err)
		return exitError
	}
	m, err := loadForOutput(classifyPredictions, path, src.paths...)
	if err != nil {
		c.report(err)
		return exitError
	}
	target, err := learn.LookupTarget(m, classifyTarget)
	if err != nil {
		c.report(fileErrorf(path, "%v", err))
		return exitError
	}
	if u := m.Unlearned(); classifyCV == 0 && len(u) > 0 {
		c.report(fileErrorf(path, "the model has no numbers yet for %s: learn them first (pbl learn %s --data CSV -o OUT.pbl), or cross-validate with --cv K", m.NameList(u, 3), path))
		return exitError
	}
	b, err := src.readRows(m, data.Options{IgnoreUnknownColumns: classifyIgnore})
	if err != nil {
		c.report(err)
		return exitError
	}
	if b.N == 0 {
		c.report(fileErrorf(classifyData, "no data rows to score"))
		return exitError
	}
	if b.States != nil {
		m = m.WithStates(b.States)
	}
	k := len(m.Vars[target].States)
	var posts [][]float64
	var each learn.RowFunc
	if classifyPredictions != "" {
		posts = make([][]float64, b.N)
		each = func(i int, post []float64) {
			if post != nil {
				posts[i] = append(make([]float64, 0, k), post...)
			}
		}
	}
	var mt *learn.Metrics
	var folds []*learn.Metrics
	if classifyCV > 0 {
		fit := learn.Fit(opt)
		if len(given) == 0 {
			if f := stmtFit(m); f != nil {
				fit = f
			}
		}
		folds, err = learn.CrossValidateFunc(m, classifyTarget, b, classifyCV, fit, classifySeed, each)
		if err == nil {
			mt = learn.Pool(folds)
		}
	} else {
		mt, err = learn.EvaluateFunc(m, target, b, each)
	}
	if err != nil {
		c.report(fileError(classifyData, err))
		return exitError
	}
	if mt.N == 0 {
		c.report(fileErrorf(classifyData, "no row could be scored (%d skipped as impossible under the model, %d without a %s)", mt.Skipped, mt.Unlabelled, classifyTarget))
		return exitError
	}
	if classifyPredictions != "" {
		if err := writePredictions(classifyPredictions, m, target, b, posts); err != nil {
			c.report(err)
			return exitError
		}
	}
	ignored := learn.IgnoredColumns(m, target, b)
	if c.json {
		o := classifyJSON(m, target, mt, folds)
		if len(ignored) > 0 {
			var names []string
			for _, v := range ignored {
				names = append(names, m.Vars[v].Name)
			}
			o.Set("ignored_columns", names)
		}
		c.writeJSON(o)
	} else {
		classifyText(c.stdout, m, target, mt, folds)
		if len(ignored) > 0 {
			fmt.Fprintf(c.stdout, "\nnote: the real-valued column(s) %s were ignored: only a classifier's Gaussian features are evidence for its class, and exact inference takes discrete evidence only\n", m.NameList(ignored, 3))
		}
	}
	return exitOK
}

// stmtFit returns how the file's own learn statements learn, applied to a
// fold's rows: each statement's method and options, for the variables it
// names, in order. It returns nil if the file has no learn statement.
func stmtFit(m *ir.Model) learn.FitFunc {
	var opts []learn.Options
	for _, s := range m.Stmts {
		if ls, ok := s.(*ir.LearnStmt); ok {
			o, err := learn.StmtOptions(ls)
			if err != nil {
				panic("pbl: a learn statement of a loaded model has invalid options")
			}
			opts = append(opts, o)
		}
	}
	if opts == nil {
		return nil
	}
	return func(m *ir.Model, train *data.Batch) (*ir.Model, error) {
		for _, o := range opts {
			var err error
			if m, _, err = learn.LearnBatch(m, train, o); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
}

// readCSV reads a whole CSV file against m.
func readCSV(path string, m *ir.Model, opt data.Options) (*data.Batch, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return data.ReadAll(path, f, m, opt)
}

// writePredictions writes the predictions file: per data row its number
// (1-based), true class, predicted class and the posterior of each class.
// The class and probability cells of a row that could not be scored are
// empty; so is the true class of an unlabelled row.
func writePredictions(path string, m *ir.Model, target ir.VarID, b *data.Batch, posts [][]float64) error {
	v := m.Vars[target]
	col := -1
	for j, w := range b.Vars {
		if w == target && b.Cols[j] != nil {
			col = j
		}
	}
	var buf bytes.Buffer
	buf.WriteString("row,true,predicted")
	for _, s := range v.States {
		buf.WriteByte(',')
		buf.WriteString(data.Quote("P(" + v.Name + "=" + s + ")"))
	}
	buf.WriteByte('\n')
	for i := range b.N {
		buf.WriteString(strconv.Itoa(i + 1))
		buf.WriteByte(',')
		if col >= 0 && b.Cols[col][i] != data.Missing {
			buf.WriteString(data.Quote(v.States[b.Cols[col][i]]))
		}
		buf.WriteByte(',')
		post := posts[i]
		if post != nil {
			buf.WriteString(data.Quote(v.States[learn.Predicted(post)]))
		}
		for c := range v.States {
			buf.WriteByte(',')
			if post != nil {
				buf.WriteString(strconv.FormatFloat(post[c], 'g', -1, 64))
			}
		}
		buf.WriteByte('\n')
	}
	if err := writeAtomic(path, buf.Bytes()); err != nil {
		return pathErr(path, err)
	}
	return nil
}

// classifyText prints the scores for people (batch.ScoresText, the Beam
// runner's too), with a hint where cross-validation by counting found
// impossible rows.
func classifyText(w io.Writer, m *ir.Model, target ir.VarID, mt *learn.Metrics, folds []*learn.Metrics) {
	hint := ""
	if mt.Skipped > 0 && folds != nil && classifyMethod.method == "mle" && len(classifyMethod.given()) == 0 && stmtFit(m) == nil {
		hint = "(hint: --method bayes smooths the counts, so that no row is impossible)"
	}
	batch.ScoresText(w, m, target, mt, folds, classifySeed, hint)
}

// classifyJSON returns the JSON form of the scores (batch.ScoresJSON, the
// Beam runner's too) and of cross-validation's folds.
func classifyJSON(m *ir.Model, target ir.VarID, mt *learn.Metrics, folds []*learn.Metrics) *report.Object {
	o := batch.ScoresJSON(m, target, mt)
	if folds == nil {
		return o
	}
	s := learn.Summarize(folds)
	stat := func(st learn.Stat) *report.Object {
		x := &report.Object{}
		x.Set("mean", report.Float(st.Mean))
		x.Set("sd", report.Float(st.SD))
		return x
	}
	o.Set("folds", len(folds))
	o.Set("seed", classifySeed)
	cv := &report.Object{}
	cv.Set("accuracy", stat(s.Accuracy))
	cv.Set("log_loss", stat(s.LogLoss))
	cv.Set("macro_f1", stat(s.MacroF1))
	cvPer := &report.Object{}
	for c, name := range mt.Classes {
		pc := &report.Object{}
		pc.Set("precision", stat(s.Precision[c]))
		pc.Set("recall", stat(s.Recall[c]))
		pc.Set("f1", stat(s.F1[c]))
		cvPer.Set(name, pc)
	}
	cv.Set("per_class", cvPer)
	o.Set("cv", cv)
	return o
}
