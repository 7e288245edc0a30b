package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// The entry of pbl uai in the command table.
const (
	uaiArgs    = "[--task PR|MAR|MPE] MODEL.uai [EVIDENCE.evid]"
	uaiSummary = "Uai answers a task of the UAI inference competition and prints the answer in the\n" +
		"competition's format. PR prints log10 of the probability of the evidence (for a Markov\n" +
		"network, of its partition function given the evidence); MAR prints every variable's\n" +
		"marginal given the evidence, observed variables as point masses; MPE prints the most\n" +
		"probable assignment of every variable. EVIDENCE defaults to MODEL.evid when that file\n" +
		"exists. MODEL may also be any model pbl reads: the evidence's variable and state\n" +
		"indices then count from 0 in declaration order."
)

// uaiTask is the --task flag of pbl uai. The cli struct belongs to
// main.go, so the flag lives here; uaiFlags binds it afresh for each
// invocation, resetting it to the default.
var uaiTask string

func uaiFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&uaiTask, "task", "MAR", "the `task`: PR, MAR or MPE")
	engineFlags(c, fs)
}

// uaiCmd runs pbl uai.
func uaiCmd(c *cli, args []string) int {
	task := strings.ToUpper(uaiTask)
	switch task {
	case "PR", "MAR", "MPE":
	default:
		return c.usageErr("uai", "unknown task %q (want PR, MAR or MPE)", uaiTask)
	}
	if len(args) < 1 || len(args) > 2 {
		return c.usageErr("uai", "want a model file and an optional evidence file, got %s", plural(len(args), "argument"))
	}
	opt, err := c.options()
	if err != nil {
		return c.usageErr("uai", "%v", err)
	}
	path := args[0]
	var m *ir.Model
	if pathExt(path) == ".uai" {
		m, err = uai.ReadFile(path)
	} else {
		m, err = loadFile(path)
	}
	if err != nil {
		c.report(err)
		return exitError
	}

	evPath := ""
	if len(args) == 2 {
		evPath = args[1]
	} else if fi, err := os.Stat(path + ".evid"); err == nil && fi.Mode().IsRegular() {
		evPath = path + ".evid"
	}
	var ev []ir.Obs
	at := ir.Pos{File: path}
	if evPath != "" {
		if ev, err = uai.ReadEvidenceFile(evPath, m); err != nil {
			c.report(err)
			return exitError
		}
		at = ir.Pos{File: evPath}
	}

	h, cond := ir.QueryHeader{Pos: at, Text: task}, ir.Conditions{Evidence: ev}
	var q ir.Query
	switch task {
	case "PR":
		q = &ir.ProbQuery{QueryHeader: h, Conditions: cond}
		// PR is Z(e) alone: a Markov network's partition function
		// without the evidence is not needed, and the time limit goes
		// to Z(e).
		opt.LogZOnly = true
	case "MAR":
		q = &ir.ProbQuery{QueryHeader: h, Conditions: cond, Star: true}
	case "MPE":
		q = &ir.MPEQuery{QueryHeader: h, Conditions: cond}
	}
	stop := interruptible(&opt)
	res, err := infer.Answer(m, q, opt)
	stop()
	var under *infer.UnderflowError
	if task == "PR" && errors.As(err, &under) {
		// P(e) underflows float64, but PR asks for its logarithm (of
		// Z(e), for a Markov network), which is finite.
		res, err = &infer.Evidence{Header: infer.Header{Query: q, Exact: true}, LogZ: under.LogZ}, nil
	}
	if err != nil {
		c.report(err)
		return exitError
	}

	o := &report.Object{}
	o.Set("task", task)
	if h := res.Head(); !h.Exact && h.Engine != "" {
		// The competition's formats have no room for a label: it goes
		// to stderr (in JSON, beside the answer).
		why := style.Why(res)
		if c.json {
			o.Set("exact", false)
			o.Set("engine", h.Engine)
			o.Set("why", why)
		} else {
			fmt.Fprintf(c.stderr, "pbl uai: approximate: %s (%s)\n", h.Engine, why)
		}
	}
	switch res := res.(type) {
	case *infer.Evidence: // PR
		// The competition's PR is Z(e) = Σ_{x ⊨ e} Π φ(x), the partition
		// function with the evidence (P(e) for a Bayesian network): from
		// its logarithm, LogZ, never from P: Z(e) of a long evidence
		// vector underflows float64, and that of a Markov network may
		// overflow it.
		log10 := res.LogZ / math.Ln10
		if c.json {
			if math.IsInf(log10, -1) {
				o.Set("log10", nil) // Z(e) = 0: JSON has no -inf
			} else {
				o.Set("log10", report.Float(log10))
			}
			if !res.Exact && res.Engine != "" {
				o.Set("log10_error", report.Float(res.LogZErr/math.Ln10))
			}
			break
		}
		if !res.Exact && res.Engine != "" {
			fmt.Fprintf(c.stderr, "pbl uai: log10 PR ± %s\n", report.ErrText(res.LogZErr/math.Ln10))
		}
		err = uai.WritePR(c.stdout, log10)
	case *infer.Marginals: // MAR
		mar := uaiMarginals(m, ev, res)
		if c.json {
			o.Set("marginals", mar)
			break
		}
		err = uai.WriteMAR(c.stdout, mar)
	case *infer.Assignment: // MPE
		a := make([]int, len(m.Vars))
		for _, ob := range ev {
			a[ob.Var] = ob.State
		}
		for _, ob := range res.Assignment {
			a[ob.Var] = ob.State
		}
		if c.json {
			o.Set("assignment", a)
			break
		}
		err = uai.WriteMPE(c.stdout, a)
	default:
		panic(fmt.Sprintf("pbl uai: a result of type %T", res))
	}
	if c.json {
		c.writeJSON(o)
	}
	if err != nil {
		c.report(err)
		return exitError
	}
	return exitOK
}

// uaiMarginals returns every variable's marginal, as the MAR format lists
// them: res's marginals for the unobserved variables and a point mass for
// each observed one. Real-valued variables (of a model that is not from a
// UAI file) get an empty marginal.
func uaiMarginals(m *ir.Model, ev []ir.Obs, res *infer.Marginals) [][]float64 {
	mar := make([][]float64, len(m.Vars))
	for _, o := range ev {
		mar[o.Var] = make([]float64, len(m.Vars[o.Var].States))
		mar[o.Var][o.State] = 1
	}
	for _, mg := range res.Marginals {
		mar[mg.Var] = mg.P
	}
	for v := range mar {
		if mar[v] == nil {
			mar[v] = []float64{}
		}
	}
	return mar
}

// pathExt returns the extension of path in lower case, ignoring a
// trailing .gz.
func pathExt(path string) string {
	return filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz"))
}
