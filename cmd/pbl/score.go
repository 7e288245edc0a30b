package main

import (
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
	"github.com/pbl-lang/pbl/structure"
)

// scoreSummary is the help of pbl score.
const scoreSummary = "Score computes the score of MODEL's graph given the CSV data: --score bic (the default),\n" +
	"aic, loglik, bdeu (with --ess, default 1), k2 or bge, as pbl structure does, so that a\n" +
	"graph written by hand can be compared with a learned one. Only the graph counts, not the\n" +
	"model's numbers. Every variable of MODEL must have a column (a real-valued one complete,\n" +
	"its family scored as a linear Gaussian or CLG regression); a row\n" +
	"missing a cell of a family is left out of that family's counts only. It prints the\n" +
	"total and each family's score, or with --json {\"score\", \"score_value\", \"rows\",\n" +
	"\"families\": [{\"variable\", \"parents\", \"score\"}, ...]}."

var (
	scoreData, scoreName string
	scoreESS             float64
	scoreIgnore          bool
)

func scoreFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&scoreData, "data", "", "the CSV `file` (gzip recognised); required")
	fs.StringVar(&scoreName, "score", "bic", "the score: "+strings.Join(structure.ScoreNames(), ", "))
	fs.Float64Var(&scoreESS, "ess", structure.DefaultESS, "BDeu's equivalent sample size")
	fs.BoolVar(&scoreIgnore, "ignore-unknown-columns", false, "skip CSV columns that name no variable of the model")
}

// scoreCmd runs pbl score.
func scoreCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("score", "want one model file, got %s", plural(len(args), "argument"))
	}
	if scoreData == "" {
		return c.usageErr("score", "--data CSV is required: the data to score the graph by")
	}
	kind, err := structure.ParseScore(scoreName)
	if err != nil {
		return c.usageErr("score", "--score: %v", err)
	}
	if !(scoreESS > 0) || math.IsInf(scoreESS, 0) {
		return c.usageErr("score", "--ess must be a positive number")
	}
	m, err := loadFile(args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	d, err := structure.ReadModelData(scoreData, m, data.Options{IgnoreUnknownColumns: scoreIgnore})
	if err != nil {
		c.report(err)
		return exitError
	}
	if d.N == 0 {
		c.report(fileErrorf(scoreData, "the data has no rows to score the graph by")) // as learn and structure refuse it
		return exitError
	}
	if err := structure.CheckScore(d, kind); err != nil {
		c.report(fileError(scoreData, err))
		return exitError
	}
	g := structure.FromModel(m)
	s := structure.NewScorer(d, kind, scoreESS)
	total := s.Total(g)
	if c.json {
		fams := []*report.Object{}
		for v, ps := range g.Parents {
			o := &report.Object{}
			o.Set("variable", g.Names[v])
			names := []string{}
			for _, p := range ps {
				names = append(names, g.Names[p])
			}
			o.Set("parents", names)
			o.Set("score", s.Family(v, ps))
			fams = append(fams, o)
		}
		o := &report.Object{}
		o.Set("score", kind.String())
		o.Set("score_value", total)
		o.Set("rows", d.N)
		o.Set("families", fams)
		c.writeJSON(o)
		return exitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s, %s\n", kind, ir.FormatFloat(total), plural(d.N, "row"), plural(g.NumEdges(), "edge"))
	for v, ps := range g.Parents {
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = ir.Quote(g.Names[p])
		}
		fam := ir.Quote(g.Names[v])
		if len(ps) > 0 {
			fam += " | " + strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "  %s  %s\n", fam, ir.FormatFloat(s.Family(v, ps)))
	}
	return c.write([]byte(b.String()))
}
