package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/report"
)

// learnSummary is the help of pbl learn.
const learnSummary = "Learn learns every CPT of MODEL's structure from the CSV data (the model's own numbers,\n" +
	"if it has any, are ignored). MODEL is a .pbl file, which may give structure without\n" +
	"numbers (edges, naive_bayes, tan), or any format pbl reads. --method mle (the default)\n" +
	"counts; a parent configuration the data never shows gets a uniform row. --method bayes\n" +
	"adds --alpha (default 1, Laplace) to every cell of every CPT, or uses BDeu with --ess N.\n" +
	"--method mestimate is Mitchell's (n_c + m/k)/(n + m), with --m (default 1). A missing\n" +
	"cell leaves out the row from the families it belongs to only. A real-valued variable\n" +
	"with discrete parents (a classifier's real feature) is learned, whatever the method, as\n" +
	"a normal density per parent configuration: the mean and the standard deviation (divisor\n" +
	"n), each variance plus --var-smoothing (default 1e-9) times the largest variance of the\n" +
	"learned real variables, as scikit-learn's GaussianNB. One with real parents too (a\n" +
	"linear Gaussian density) is learned by least squares per configuration of its discrete\n" +
	"parents; --method bayes puts a normal-inverse-gamma prior on it, worth --alpha rows (or\n" +
	"--ess/q) of the least squares of all its rows per configuration.\n\n" +
	"--method em learns with hidden variables (model variables without a column in the data)\n" +
	"and missing cells (real ones too, filled in by their normal given the row), by\n" +
	"expectation-maximisation on the junction tree; --alpha or --ess make it MAP (of the\n" +
	"tables). --method gradient is gradient ascent on the log-likelihood. Both start from\n" +
	"--init model|uniform|random (default: random if a variable is hidden, else model; a\n" +
	"hidden variable's states are symmetric under uniform tables, which EM cannot break),\n" +
	"keep the best of --restarts N starts (the others random, from --seed), and stop when the\n" +
	"log-likelihood changes by at most --tol of itself (em: with the log prior, and no parameter\n" +
	"moving by more than --tol), or after --max-iter iterations. On a terminal they show\n" +
	"their progress; Ctrl-C stops them and writes nothing. Their E-step runs on the junction tree;\n" +
	"where it needs more than --max-memory, on loopy belief propagation instead (an approximate\n" +
	"E-step: stderr, or the JSON's \"estep\", says so, and the log-likelihoods are approximate),\n" +
	"or with --exact not at all.\n\n" +
	"A time-indexed model (var X[t]) learns from a CSV file of sequences: a column per\n" +
	"time-indexed variable (named without [t]), a row per step, static columns, and the\n" +
	"--sequence-column (default sequence) saying which sequence a row belongs to. EM learns\n" +
	"every distribution with its numbers tied across slices: a template distribution's from\n" +
	"the expected counts of all its slices, an initial slice's from that slice. A glob of\n" +
	"shards learns as the file of their sequences in name order would; a sequence must be\n" +
	"whole in one shard (the same id in two is an error).\n\n" +
	"The learned model goes to stdout as .pbl, or with -o to a .pbl or .bif file (by\n" +
	"extension), written atomically; on any error nothing is written. --json (with -o)\n" +
	"reports the rows used and skipped, and for em and gradient the log-likelihood, the\n" +
	"iterations and the trace."

// The flags of pbl learn, bound afresh (to their defaults) by learnFlags
// for each invocation.
var (
	learnData   string
	learnOut    string
	learnIgnore bool
	learnVarSm  float64
	learnMethod methodFlags
	learnMem    string
	learnExact  bool
	learnSeqCol string
)

func learnFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&learnData, "data", "", "the CSV `file` to learn from (gzip recognised), a glob of shards (each with its header), or - for stdin; required")
	learnMethod.register(fs, "the estimator")
	fs.StringVar(&learnOut, "o", "", "write the learned model to this `file` (.pbl or .bif), atomically")
	fs.BoolVar(&learnIgnore, "ignore-unknown-columns", false, "skip CSV columns that name no variable of the model")
	fs.Float64Var(&learnVarSm, "var-smoothing", learn.DefaultVarSmoothing, "real variables: the share of the largest variance added to every Gaussian's variance")
	fs.StringVar(&learnMem, "max-memory", "8GiB", "em and gradient: the largest junction tree of the E-step (e.g. 512MiB); over it the E-step\nis approximate (loopy belief propagation), and says so")
	fs.BoolVar(&learnExact, "exact", false, "em and gradient: refuse a model whose junction tree needs more than --max-memory,\nrather than learn it with an approximate E-step")
	fs.StringVar(&learnSeqCol, "sequence-column", "", "a time-indexed model: the column that says which sequence a row belongs to\n(default \"sequence\"; a file without it is one sequence)")
	runnerFlags(fs) // runner.go: --runner beam hands over to pbl-beam
}

// learnCmd runs pbl learn.
func learnCmd(c *cli, args []string) int {
	if st, ok := c.handOver("learn", args); ok {
		return st
	}
	if len(args) != 1 {
		return c.usageErr("learn", "want one model file, got %s", plural(len(args), "argument"))
	}
	if learnData == "" {
		return c.usageErr("learn", "--data CSV is required: the data to learn from")
	}
	opt, err := learnMethod.options()
	if err != nil {
		return c.usageErr("learn", "%v", err)
	}
	if !(learnVarSm > 0) || math.IsInf(learnVarSm, 0) {
		return c.usageErr("learn", "--var-smoothing must be a positive number")
	}
	opt.VarSmoothing = learnVarSm
	mem, err := parseSize(learnMem)
	if err != nil {
		return c.usageErr("learn", "--max-memory: %v", err)
	}
	opt.MaxMemory, opt.Approximate = mem, !learnExact
	if c.json && learnOut == "" {
		return c.usageErr("learn", "--json needs -o FILE: without it the model goes to stdout")
	}
	ext := strings.ToLower(filepath.Ext(learnOut))
	if learnOut != "" && ext != ".pbl" && ext != ".bif" {
		return c.usageErr("learn", "cannot write %q: pbl learn writes .pbl or .bif (use pbl convert for other formats)", learnOut)
	}
	src, err := resolveData(learnData)
	if errors.Is(err, filepath.ErrBadPattern) {
		return c.usageErr("learn", "--data %q: %v", learnData, err)
	}
	if err != nil {
		c.report(err)
		return exitError
	}
	m, err := loadForOutput(learnOut, args[0], src.paths...)
	if err != nil {
		c.report(err)
		return exitError
	}
	if ext == ".bif" {
		var reals []ir.VarID
		for _, v := range m.Vars {
			if !v.Discrete() {
				reals = append(reals, v.ID)
			}
		}
		if len(reals) > 0 {
			c.report(fileErrorf(args[0], "cannot write %s: BIF has only discrete variables, and the model has real-valued %s; write .pbl instead", learnOut, m.NameList(reals, 3)))
			return exitError
		}
	}
	dopt := data.Options{IgnoreUnknownColumns: learnIgnore}
	spec, _ := learn.LookupMethod(learnMethod.method)
	if spec.Iterative() {
		stop := iterate(c, &opt)
		defer stop()
	}
	var rep *learn.Report
	switch {
	case m.Time != nil:
		// A time-indexed model learns from sequences, every slice of a
		// template distribution sharing its numbers.
		if src.paths == nil {
			return c.usageErr("learn", "--data -: a time-indexed model learns from a CSV file of sequences, or a glob of shards, not stdin")
		}
		col := learnSeqCol
		if col == "" {
			col = "sequence"
		}
		if pbl.CheckSequenceColumn(m, col) != nil {
			return c.usageErr("learn", "%s", seqColumnMsg(col))
		}
		if !spec.Iterative() {
			stop := iterate(c, &opt)
			defer stop()
		}
		m, rep, err = pbl.LearnSequenceShards(m, src.paths, pbl.SequenceOptions{Column: learnSeqCol}, learn.SeqOptions{Options: opt})
	case learnSeqCol != "":
		return c.usageErr("learn", "--sequence-column applies to a time-indexed model (var X[t]), and %s has none", args[0])
	default:
		m, rep, err = learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return src.open(m, dopt) }, opt)
	}
	if errors.Is(err, learn.ErrCanceled) {
		fmt.Fprintln(c.stderr, "pbl learn: interrupted; nothing written")
		return exitInterrupted
	}
	if err != nil {
		var e *ir.Error
		var l ir.ErrorList
		var pe *os.PathError
		var me *learn.ModelError
		var tl *infer.TooLargeError
		if errors.As(err, &tl) && learnExact {
			// The tree's own advice (variable elimination) is not for
			// a learner: say what is.
			err = &ir.Error{Pos: ir.Pos{File: args[0]}, Err: tl, Msg: fmt.Sprintf("EM's E-step: %s; raise --max-memory, or learn without --exact (an approximate E-step)", (&infer.Why{TooLarge: tl}).Phrase(style.Limits))}
		}
		switch {
		case errors.As(err, &me):
			err = fileErrorf(args[0], "%v", err) // about the model, not the data
		case !errors.As(err, &e) && !errors.As(err, &l) && !errors.As(err, &pe):
			err = fileErrorf(learnData, "%v", err)
		}
		c.report(err)
		return exitError
	}
	if k := rep.EmptyGaussians; k > 0 {
		c.warn(learnData, fmt.Sprintf("%s of real variables without values in the data: their density is normal(0, 1)", ir.Plural(k, "parent configuration")))
	}
	if a := rep.EStep; a != nil && !c.json {
		fmt.Fprintf(c.stderr, "pbl learn: %s\n", estepText(a))
	}
	var buf bytes.Buffer
	if ext == ".bif" {
		err = bif.Write(&buf, m)
	} else {
		err = source.Write(&buf, m, learnHeader(args[0]))
	}
	if err != nil {
		c.report(fileErrorf(learnOut, "%v", err))
		return exitError
	}
	if learnOut == "" {
		return c.write(buf.Bytes())
	}
	if err := writeAtomic(learnOut, buf.Bytes()); err != nil {
		c.report(err)
		return exitError
	}
	if c.json {
		o := &report.Object{}
		o.Set("model", args[0])
		o.Set("data", learnData)
		o.Set("output", learnOut)
		o.Set("method", opt.Method.String())
		tables, densities := learnedDists(m)
		o.Set("cpts", tables)
		if g := densities; g > 0 {
			o.Set("gaussians", g)
		}
		o.Set("rows", rep.Rows)
		skipped := &report.Object{}
		skipped.Set("family_counts_missing", rep.MissingCounts)
		skipped.Set("rows_with_missing", rep.PartialRows)
		if k := rep.EmptyGaussians; k > 0 {
			skipped.Set("gaussian_configs_empty", k)
		}
		if opt.Method != learn.EM && opt.Method != learn.Gradient && m.Time == nil {
			o.Set("skipped", skipped)
		} else {
			o.Set("patterns", rep.Patterns)
			hidden := make([]string, len(rep.Hidden))
			for i, v := range rep.Hidden {
				hidden[i] = m.Vars[v].Name
				if m.Time != nil {
					// A time-indexed variable by its name without [t].
					for _, tv := range m.Time.Vars {
						if tv.Slices[0] == v {
							hidden[i] = tv.Name
						}
					}
				}
			}
			o.Set("hidden", hidden)
			o.Set("init", rep.Init.String())
			o.Set("log_likelihood", rep.LogLik)
			o.Set("iterations", rep.Iterations)
			o.Set("converged", rep.Converged)
			o.Set("restarts", rep.Restarts)
			o.Set("best_restart", rep.Best+1)
			o.Set("trace", rep.Trace)
			if a := rep.EStep; a != nil {
				es := &report.Object{}
				es.Set("exact", false)
				es.Set("engine", a.Engine)
				es.Set("why", a.Why.Phrase(style.Limits))
				es.Set("unconverged_rows", a.Unconverged)
				o.Set("estep", es)
			}
		}
		o.Set("seconds", rep.Seconds)
		c.writeJSON(o)
	}
	return exitOK
}

// estepText says that the E-step was approximate, with which engine and
// why, and what that means for the numbers printed.
func estepText(a *learn.ApproxEStep) string {
	what := a.Engine
	if a.Engine == infer.LearnerEngine {
		what = "loopy belief propagation (lbp)"
	}
	s := fmt.Sprintf("approximate E-step: %s (%s); the log-likelihoods are approximate (Bethe), and EM's check that they never decrease is not made", what, a.Why.Phrase(style.Limits))
	if a.Unconverged > 0 {
		s += fmt.Sprintf("; %s did not converge", ir.Plural(int(a.Unconverged), "row's propagation"))
	}
	return s
}

// learnHeader is the comment written at the top of a learned .pbl model.
func learnHeader(model string) string {
	method := learnMethod.header()
	if c := learnMethod.fs.Lookup("var-smoothing"); c != nil && learnVarSm != learn.DefaultVarSmoothing {
		method += " --var-smoothing " + ir.FormatFloat(learnVarSm)
	}
	return learn.Provenance("pbl learn", learnData, model, method)
}

// dataSource is the data a --data argument names: a CSV file, the files a
// glob matches (shards, each with its own header row, read in the order
// of their names as one data set; pbl expands the glob itself, so it
// works quoted and on any shell), or stdin (-).
type dataSource struct {
	arg   string
	paths []string // the files, or nil for stdin
	used  bool     // stdin has been opened (it can be read once)
}

// resolveData returns the data arg names. A glob that matches no file is
// an error; a malformed one is filepath.ErrBadPattern.
func resolveData(arg string) (*dataSource, error) {
	d := &dataSource{arg: arg}
	switch {
	case arg == "-":
		return d, nil
	case !strings.ContainsAny(arg, "*?["):
		d.paths = []string{arg}
		return d, nil
	}
	paths, err := filepath.Glob(arg)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fileErrorf(arg, "no file matches the pattern")
	}
	slices.Sort(paths)
	d.paths = paths
	return d, nil
}

// open opens the data for reading with m. Stdin can be opened once: a
// learner that needs a second pass over the data (a tan classifier's tree,
// then its tables) needs a file.
func (d *dataSource) open(m *ir.Model, opt data.Options) (*data.Reader, error) {
	if d.paths != nil {
		return data.OpenShards(d.paths, m, opt)
	}
	if d.used {
		return nil, fmt.Errorf("the data on stdin can be read once, and this learner reads it again (a tan classifier learns its tree first; em streams data with more distinct rows than it holds in memory): give a file")
	}
	d.used = true
	return data.NewReader("stdin", os.Stdin, m, opt)
}

// readRows reads every row of the data into memory.
func (d *dataSource) readRows(m *ir.Model, opt data.Options) (*data.Batch, error) {
	r, err := d.open(m, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return data.ReadRest(r)
}

// learnedDists counts the model's tables and its densities.
func learnedDists(m *ir.Model) (tables, densities int) {
	for v := range m.Vars {
		if m.Table(ir.VarID(v)) != nil {
			tables++
		}
		if m.Gaussian(ir.VarID(v)) != nil {
			densities++
		}
		if d := m.MultiNormal(ir.VarID(v)); d != nil && d.Children[0] == ir.VarID(v) {
			densities++
		}
	}
	return tables, densities
}

// exitInterrupted is the exit status of a command stopped by Ctrl-C, as a
// shell reports SIGINT.
const exitInterrupted = 130

// iterate sets up an iterative learner's run: Ctrl-C (and SIGTERM) close
// opt.Cancel, which stops it at the end of its iteration, and on a
// terminal without --json, each iteration's progress is shown on stderr.
// stop undoes both.
func iterate(c *cli, opt *learn.Options) (stop func()) {
	cancel := make(chan struct{})
	opt.Cancel = cancel
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			close(cancel)
		case <-done:
		}
	}()
	f, ok := c.stderr.(*os.File)
	shown := false
	if ok && !c.json && term.IsTerminal(int(f.Fd())) {
		last := time.Time{}
		opt.Progress = func(p learn.Progress) {
			if time.Since(last) < 200*time.Millisecond {
				return
			}
			last = time.Now()
			start := ""
			if p.Starts > 1 {
				start = fmt.Sprintf("start %d/%d, ", p.Start, p.Starts)
			}
			rate := float64(p.Rows) * float64(p.Iteration) / max(p.Seconds, 1e-9)
			fmt.Fprintf(f, "\r%siteration %d: log-likelihood %s (%.3g rows/s)\x1b[K", start, p.Iteration, ir.FormatFloat(p.LogLik), rate)
			shown = true
		}
	}
	return func() {
		signal.Stop(ch)
		close(done)
		if shown {
			fmt.Fprint(f, "\r\x1b[K")
		}
	}
}

// loadForOutput checks that the file out may be written, and is none of
// the model file and the other inputs (see checkOutput), then loads the
// model.
func loadForOutput(out, model string, inputs ...string) (*ir.Model, error) {
	if err := checkOutput(out, append([]string{model}, inputs...)...); err != nil {
		return nil, err
	}
	return loadFile(model)
}
