package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/source"
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
	"learned real variables, as scikit-learn's GaussianNB. The learned model goes to\n" +
	"stdout as .pbl, or with -o to a .pbl or .bif file (by extension), written atomically;\n" +
	"on any error nothing is written. --json (with -o) reports the rows used and skipped."

// The flags of pbl learn, bound afresh (to their defaults) by learnFlags
// for each invocation.
var (
	learnData    string
	learnMethod  string
	learnAlpha   float64
	learnESS     float64
	learnM       float64
	learnOut     string
	learnIgnore  bool
	learnVarSm   float64
	learnFlagSet map[string]bool
)

func learnFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&learnData, "data", "", "the CSV `file` to learn from (gzip recognised); required")
	fs.StringVar(&learnMethod, "method", "mle", "the estimator: mle, bayes or mestimate")
	fs.Float64Var(&learnAlpha, "alpha", 1, "bayes: Dirichlet pseudo-count added to every cell")
	fs.Float64Var(&learnESS, "ess", 0, "bayes: BDeu equivalent sample size (replaces --alpha)")
	fs.Float64Var(&learnM, "m", 1, "mestimate: the equivalent sample size m (p = 1/k)")
	fs.StringVar(&learnOut, "o", "", "write the learned model to this `file` (.pbl or .bif), atomically")
	fs.BoolVar(&learnIgnore, "ignore-unknown-columns", false, "skip CSV columns that name no variable of the model")
	fs.Float64Var(&learnVarSm, "var-smoothing", learn.DefaultVarSmoothing, "real variables: the share of the largest variance added to every Gaussian's variance")
	learnFlagSet = nil
}

// learnCmd runs pbl learn.
func learnCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("learn", "want one model file, got %d arguments", len(args))
	}
	if learnData == "" {
		return c.usageErr("learn", "--data CSV is required: the data to learn from")
	}
	method, err := learn.ParseMethod(learnMethod)
	if err != nil {
		return c.usageErr("learn", "--method: %v", err)
	}
	learnFlagSet = map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { learnFlagSet[f.Name] = true })
	for name, m := range map[string]learn.Method{"alpha": learn.Bayes, "ess": learn.Bayes, "m": learn.MEstimate} {
		if learnFlagSet[name] && method != m {
			return c.usageErr("learn", "--%s applies to --method %v, not %v", name, m, method)
		}
	}
	if !(learnAlpha >= 0) || !(learnM >= 0) || !(learnESS >= 0) || learnFlagSet["ess"] && learnESS == 0 {
		return c.usageErr("learn", "--alpha and --m must be non-negative numbers and --ess positive")
	}
	if !(learnVarSm > 0) || math.IsInf(learnVarSm, 0) {
		return c.usageErr("learn", "--var-smoothing must be a positive number")
	}
	if c.json && learnOut == "" {
		return c.usageErr("learn", "--json needs -o FILE: without it the model goes to stdout")
	}
	var write func(*bytes.Buffer, *ir.Model) error
	if learnOut != "" {
		switch ext := strings.ToLower(filepath.Ext(learnOut)); ext {
		case ".pbl", ".bif":
			w := writers[ext]
			write = func(b *bytes.Buffer, m *ir.Model) error { return w(b, m, args[0]) }
		default:
			return c.usageErr("learn", "cannot write %q: pbl learn writes .pbl or .bif (use pbl convert for other formats)", learnOut)
		}
	}
	if learnOut == "" || strings.EqualFold(filepath.Ext(learnOut), ".pbl") {
		write = func(b *bytes.Buffer, m *ir.Model) error {
			return source.Write(b, m, learnHeader(args[0]))
		}
	}
	m, err := pbl.LoadForLearning(args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	if strings.EqualFold(filepath.Ext(learnOut), ".bif") {
		var reals []ir.VarID
		for _, v := range m.Vars {
			if v.Kind == ir.Real {
				reals = append(reals, v.ID)
			}
		}
		if len(reals) > 0 {
			c.report(fmt.Errorf("%s: cannot write %s: BIF has only discrete variables, and the model has real-valued %s; write .pbl instead", args[0], learnOut, varNames(m, reals)))
			return exitError
		}
	}
	opt := learn.Options{Method: method, Alpha: learnAlpha, ESS: learnESS, M: learnM, VarSmoothing: learnVarSm}
	if method == learn.Bayes && learnESS > 0 {
		opt.Alpha = 0
	}
	dopt := data.Options{IgnoreUnknownColumns: learnIgnore}
	rep, err := learn.Learn(m, func() (*data.Reader, error) { return data.Open(learnData, m, dopt) }, opt)
	if err != nil {
		var e *ir.Error
		var l ir.ErrorList
		var pe *os.PathError
		if !errors.As(err, &e) && !errors.As(err, &l) && !errors.As(err, &pe) {
			err = fmt.Errorf("%s: %v", learnData, err)
		}
		c.report(err)
		return exitError
	}
	if k := rep.Skipped[learn.SkippedGaussians]; k > 0 {
		fmt.Fprintf(c.stderr, "%s: warning: %d parent configuration(s) of real variables have no values in the data; their density is normal(0, 1)\n", learnData, k)
	}
	var buf bytes.Buffer
	if err := write(&buf, m); err != nil {
		c.report(fmt.Errorf("%s: %v", learnOut, err))
		return exitError
	}
	if learnOut == "" {
		c.stdout.Write(buf.Bytes())
		return exitOK
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
		o.Set("method", method.String())
		o.Set("cpts", learnedCPTs(m))
		if g := learnedGaussians(m); g > 0 {
			o.Set("gaussians", g)
		}
		o.Set("rows", rep.Rows)
		skipped := &report.Object{}
		for _, k := range []string{learn.SkippedCounts, learn.SkippedRows} {
			skipped.Set(k, rep.Skipped[k])
		}
		if k := rep.Skipped[learn.SkippedGaussians]; k > 0 {
			skipped.Set(learn.SkippedGaussians, k)
		}
		o.Set("skipped", skipped)
		o.Set("seconds", rep.Seconds)
		c.writeJSON(o)
	}
	return exitOK
}

// learnHeader is the comment written at the top of a learned .pbl model.
func learnHeader(model string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Learned by pbl learn from %s (structure of %s), --method %s", filepath.Base(learnData), filepath.Base(model), learnMethod)
	switch {
	case learnMethod == "bayes" && learnESS > 0:
		fmt.Fprintf(&b, " --ess %s", ir.FormatFloat(learnESS))
	case learnMethod == "bayes":
		fmt.Fprintf(&b, " --alpha %s", ir.FormatFloat(learnAlpha))
	case learnMethod == "mestimate":
		fmt.Fprintf(&b, " --m %s", ir.FormatFloat(learnM))
	}
	if learnFlagSet["var-smoothing"] {
		fmt.Fprintf(&b, " --var-smoothing %s", ir.FormatFloat(learnVarSm))
	}
	b.WriteString(".")
	return b.String()
}

// learnedCPTs counts the model's CPTs.
func learnedCPTs(m *ir.Model) int {
	n := 0
	for _, c := range m.CPTs {
		if c != nil {
			n++
		}
	}
	return n
}

// learnedGaussians counts the model's densities.
func learnedGaussians(m *ir.Model) int {
	n := 0
	for _, g := range m.Gaussians {
		if g != nil {
			n++
		}
	}
	return n
}
