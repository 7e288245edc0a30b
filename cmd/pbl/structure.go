package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/report"
	"github.com/pbl-lang/pbl/structure"
)

// structureSummary is the help of pbl structure.
const structureSummary = "Structure learns the graph of a Bayesian network from DATA.csv, whose columns are all\n" +
	"discrete variables (each column's states are its distinct values; an empty cell, ? or NA\n" +
	"is missing). --method hc (the default) is a tabu search over adding, deleting and\n" +
	"reversing one edge: the best move each step, worsening ones too once no move improves,\n" +
	"a pair of variables left alone for --tabu N moves (default 10) after a move changes it,\n" +
	"stopping after 5N moves without a better graph. It climbs from each of --start (default\n" +
	"chow-liu,pc: the Chow-Liu tree, and PC's graphs after the tests given 2 and given 3\n" +
	"variables; empty, the empty graph) or from a model file's graph, then --restarts N\n" +
	"times from the best graph perturbed by random deletions\n" +
	"and reversals of edges (--seed S), and keeps the best. --method k2 is Cooper and\n" +
	"Herskovits' K2 given --order A,B,... (default: the columns' order). --method chow-liu is\n" +
	"the maximum spanning tree of the pairwise mutual information, rooted at the first\n" +
	"column. --method pc is the stable PC algorithm (--alpha, --test g2|x2|zf, --max-cond);\n" +
	"edges it cannot orient are listed. --score loglik|aic|bic|bdeu|k2|bge (default bic, k2 for\n" +
	"--method k2 on discrete columns; --ess E for bdeu, default 1) is computed from counts; a row missing a cell\n" +
	"of a family is left out of that family's counts only. --max-parents K bounds the\n" +
	"parents; --require FILE and --forbid FILE list edges, one 'A -> B' a line (PC keeps\n" +
	"required pairs untested and directs them as given, and directs a pair forbidden one way\n" +
	"the other way). Results do not depend on the number of cores.\n\n" +
	"A column of numbers, one with a fraction in the first 1,000 rows, is real-valued (no\n" +
	"missing cell allowed): a real\n" +
	"child is a linear regression on its real parents per configuration of its discrete ones,\n" +
	"scored by the Gaussian or conditional linear Gaussian loglik, aic or bic, or by bge (every\n" +
	"column real); a discrete variable never gets a real parent; pc tests real columns by\n" +
	"Fisher's z (zf); -o writes linear Gaussian densities learned by least squares.\n\n" +
	"It prints the score and the edges, or with --json {\"method\", \"score\", \"score_value\",\n" +
	"\"edges\", \"undirected\", \"iterations\", \"seconds\"}. -o OUT writes the network with its\n" +
	"CPTs learned by --params mle (the default) or bayes (BDeu with --ess) in the format OUT's\n" +
	"extension names, atomically.\n\n" +
	"--bootstrap N learns by the method from N resamples of the rows (drawn with replacement,\n" +
	"seeded by --seed; learned in parallel, the result independent of --workers) and prints,\n" +
	"for every pair of variables joined in some resample, the fraction of resamples joining\n" +
	"them (strength) and the fractions directing the edge each way (forward, backward; an edge\n" +
	"PC leaves undirected counts half each way), as bnlearn's boot.strength. The averaged\n" +
	"network (marked *) keeps the pairs of strength >= --threshold (default 0.5), strongest\n" +
	"first, each directed the way more resamples direct it, leaving out an edge that would\n" +
	"close a cycle; -o writes it with its CPTs learned from all the rows. --json gives\n" +
	"{\"method\", \"score\", \"bootstrap\", \"threshold\", \"strengths\": [{\"from\", \"to\",\n" +
	"\"strength\", \"forward\", \"backward\"}, ...], \"edges\", \"score_value\", \"seconds\"}."

// The flags of pbl structure.
var (
	stMethod, stScore, stParams, stOut string
	stRequire, stForbid, stOrder       string
	stESS                              float64
	stMaxParents, stTabu, stRestarts   int
	stSeed                             uint64
	stWorkers                          int
	stAlpha                            float64
	stTest                             string
	stMaxCond                          int
	stStart                            string
	stBootstrap                        int
	stThreshold                        float64
)

func structureFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&stMethod, "method", "hc", "the search: hc, k2, chow-liu or pc")
	fs.StringVar(&stScore, "score", "", "the score: "+strings.Join(structure.ScoreNames(), ", ")+" (default bic; k2 for --method k2)")
	fs.Float64Var(&stESS, "ess", structure.DefaultESS, "BDeu's equivalent sample size (--score bdeu, --params bayes)")
	fs.IntVar(&stMaxParents, "max-parents", 0, "hc, k2: the most parents of a variable (0: no limit)")
	fs.IntVar(&stTabu, "tabu", 10, "hc: the tabu tenure, in moves (0: stop at the first local maximum)")
	fs.StringVar(&stStart, "start", "", "hc: the graphs climbed from, a `list` of empty, chow-liu, pc (default chow-liu,pc),\nor a model file")
	fs.IntVar(&stRestarts, "restarts", 0, "hc: restarts from the best graph perturbed by random deletions and reversals")
	fs.Uint64Var(&stSeed, "seed", 1, "hc: the seed of the restarts' perturbations")
	fs.StringVar(&stRequire, "require", "", "a `file` of edges every graph has, one 'A -> B' a line")
	fs.StringVar(&stForbid, "forbid", "", "a `file` of edges no graph has, one 'A -> B' a line")
	fs.StringVar(&stOrder, "order", "", "k2: the ordering of the variables, `A,B,...` (default: the columns' order)")
	fs.StringVar(&stParams, "params", "mle", "-o: how the CPTs are learned: mle or bayes (BDeu with --ess)")
	fs.StringVar(&stOut, "o", "", "write the learned network to this `file` (format by extension: "+outputFormats()+")")
	fs.IntVar(&stWorkers, "workers", 0, "goroutines scoring moves or running tests (0: one per core); the result does not depend on it")
	fs.Float64Var(&stAlpha, "alpha", 0.05, "pc: the significance level of the independence tests")
	fs.StringVar(&stTest, "test", "g2", "pc: the independence test, "+strings.Join(structure.CITestNames(), " or "))
	fs.IntVar(&stBootstrap, "bootstrap", 0, "learn from `N` resamples of the data and report each edge's strength (0: learn once)")
	fs.Float64Var(&stThreshold, "threshold", 0.5, "--bootstrap -o: the strength an edge of the averaged network needs")
	fs.IntVar(&stMaxCond, "max-cond", 0, "pc: the largest conditioning set tested (0: no limit)")
}

// structureCmd runs pbl structure.
func structureCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("structure", "want one CSV file, got %s", plural(len(args), "argument"))
	}
	in := args[0]
	scoreName := stScore
	if scoreName == "" {
		scoreName = "bic"
		if stMethod == "k2" {
			scoreName = "k2"
		}
	}
	kind, err := structure.ParseScore(scoreName)
	if err != nil {
		return c.usageErr("structure", "--score: %v", err)
	}
	if !(stESS > 0) || math.IsInf(stESS, 0) {
		return c.usageErr("structure", "--ess must be a positive number")
	}
	if stMaxParents < 0 || stTabu < 0 || stRestarts < 0 || stWorkers < 0 {
		return c.usageErr("structure", "--max-parents, --tabu, --restarts and --workers must not be negative")
	}
	switch stMethod {
	case "hc", "k2", "chow-liu":
	case "pc":
	default:
		return c.usageErr("structure", "unknown --method %q (want hc, k2, chow-liu or pc)", stMethod)
	}
	if stStart != "" && stMethod != "hc" {
		return c.usageErr("structure", "--start is for --method hc")
	}
	if stStart != "" {
		if _, err := os.Stat(stStart); err != nil {
			for _, name := range strings.Split(stStart, ",") {
				if _, err := structure.ParseStart(strings.TrimSpace(name)); err != nil {
					return c.usageErr("structure", "--start: %v, or a model file", err)
				}
			}
		}
	}
	ciTest, err := structure.ParseCITest(stTest)
	if err != nil {
		return c.usageErr("structure", "--test: %v", err)
	}
	if stMethod == "pc" && !(stAlpha > 0 && stAlpha < 1) {
		return c.usageErr("structure", "--alpha %v: want a level in (0, 1)", stAlpha)
	}
	if stBootstrap < 0 {
		return c.usageErr("structure", "--bootstrap must not be negative")
	}
	if !(stThreshold >= 0 && stThreshold <= 1) {
		return c.usageErr("structure", "--threshold %v: want a fraction in [0, 1]", stThreshold)
	}
	if stOrder != "" && stMethod != "k2" {
		return c.usageErr("structure", "--order is for --method k2")
	}
	if stMethod == "chow-liu" && (stRequire != "" || stForbid != "" || stMaxParents != 0) {
		return c.usageErr("structure", "--method chow-liu takes no --require, --forbid or --max-parents")
	}
	if stMethod == "pc" && stMaxParents != 0 {
		// PC's graph is what the independence tests leave; a bound on the
		// parents would have to drop edges the tests kept.
		return c.usageErr("structure", "--method pc takes no --max-parents (its edges are what the tests keep; --max-cond bounds the tests)")
	}
	var lopt learn.Options
	switch stParams {
	case "mle":
		lopt.Method, _ = learn.ParseMethod("mle")
	case "bayes":
		lopt.Method, _ = learn.ParseMethod("bayes")
		lopt.ESS = stESS
	default:
		return c.usageErr("structure", "--params %q: want mle or bayes", stParams)
	}
	var write func(w *bytes.Buffer, m *ir.Model) error
	if stOut != "" {
		if !canWrite(stOut) {
			return c.usageErr("structure", "cannot write %q: unknown output format (pbl writes %s)", stOut, outputFormats())
		}
		write = func(w *bytes.Buffer, m *ir.Model) error {
			return writeModel(w, m, stOut, fmt.Sprintf("Learned from %s by pbl structure --method %s (CPTs by %s).", filepath.Base(in), stMethod, stParams))
		}
		if err := checkOutput(stOut, in); err != nil {
			c.report(err)
			return exitError
		}
	}
	t0 := time.Now()
	d, err := structure.ReadCSVNumeric(in)
	if err != nil {
		c.report(fileError(in, err))
		return exitError
	}
	if stScore == "" && kind == structure.K2 && d.HasReal() {
		kind = structure.BIC // K2's score is for discrete columns
	}
	if err := structure.CheckScore(d, kind); err != nil {
		c.report(fileError(in, err))
		return exitError
	}
	if stMethod == "pc" && d.HasReal() {
		// Real-valued columns are tested by Fisher's z; a mix of real and
		// discrete has no test here.
		if !d.AllReal() {
			c.report(fileErrorf(in, "--method pc needs every column discrete or every column real-valued; this file mixes them (use --method hc)"))
			return exitError
		}
		ciTest = structure.FisherZ
	} else if stMethod == "pc" && ciTest == structure.FisherZ {
		c.report(fileErrorf(in, "--test zf is for real-valued columns, and these are discrete"))
		return exitError
	}
	opt := structure.Options{MaxParents: stMaxParents, Tabu: stTabu, Restarts: stRestarts, Seed: stSeed, Workers: stWorkers}
	if opt.Require, err = readEdges(stRequire, d.Names); err != nil {
		c.report(err)
		return exitError
	}
	if opt.Forbid, err = readEdges(stForbid, d.Names); err != nil {
		c.report(err)
		return exitError
	}
	if stMethod == "k2" {
		if opt.Order, err = parseOrder(stOrder, d.Names); err != nil {
			return c.usageErr("structure", "--order: %v", err)
		}
	}
	var start *structure.DAG
	if stMethod == "hc" {
		if start, opt.Starts, err = parseStart(stStart, d); err != nil {
			c.report(err)
			return exitError
		}
	}
	// learnOne learns a graph from d by the method.
	learnOne := func(d *structure.Data, opt structure.Options) (*structure.Result, [][2]int, error) {
		s := structure.NewScorer(d, kind, stESS)
		switch stMethod {
		case "pc":
			popt := structure.PCOptions{Alpha: stAlpha, Test: ciTest, MaxCond: stMaxCond, Workers: opt.Workers, Require: opt.Require, Forbid: opt.Forbid}
			cols, card := d.Cols, d.Card
			if ciTest == structure.FisherZ {
				corr, err := structure.Correlation(d)
				if err != nil {
					return nil, nil, err
				}
				popt.Corr, popt.Rows, cols, card = corr, d.N, nil, nil
			}
			cp, err := structure.PC(context.Background(), cols, card, d.Names, popt)
			if err != nil {
				return nil, nil, err
			}
			g := cp.DAG()
			if err := keepsConstraints(g, opt); err != nil {
				return nil, nil, err
			}
			return &structure.Result{DAG: g, Score: s.Total(g), Iterations: cp.Tests}, cp.Undirected(), nil
		case "hc":
			res, err := structure.HillClimb(s, start, opt)
			return res, nil, err
		case "k2":
			res, err := structure.K2Search(s, opt)
			return res, nil, err
		}
		return structure.ChowLiu(s, opt), nil, nil
	}
	if stBootstrap > 0 {
		return bootstrapCmd(c, in, d, kind, opt, learnOne, lopt, write, t0)
	}
	stop := structureProgress(c, &opt)
	res, undirected, err := learnOne(d, opt)
	stop()
	if err != nil {
		c.report(fileError(in, err))
		return exitError
	}
	if write != nil {
		if st := writeLearned(c, d, res.DAG, lopt, write); st != exitOK {
			return st
		}
	}
	secs := time.Since(t0).Seconds()
	names := d.Names
	if c.json {
		edges := [][2]string{}
		for _, e := range res.DAG.Edges() {
			edges = append(edges, [2]string{names[e[0]], names[e[1]]})
		}
		o := &report.Object{}
		o.Set("method", stMethod)
		o.Set("score", kind.String())
		o.Set("score_value", res.Score)
		o.Set("edges", edges)
		und := [][2]string{}
		for _, e := range undirected {
			und = append(und, [2]string{names[e[0]], names[e[1]]})
		}
		o.Set("undirected", und)
		o.Set("iterations", res.Iterations)
		return writeStructureJSON(c, o, secs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s: score %s, %s, %s, %s, %.3g s\n", stMethod, kind, ir.FormatFloat(res.Score), plural(res.DAG.NumEdges(), "edge"), plural(res.Iterations, "iteration"), plural(d.N, "row"), secs)
	for _, e := range res.DAG.Edges() {
		fmt.Fprintf(&b, "%s -> %s\n", ir.Quote(names[e[0]]), ir.Quote(names[e[1]]))
	}
	if len(undirected) > 0 {
		fmt.Fprintf(&b, "%s the data cannot orient (oriented above by a consistent extension):\n", plural(len(undirected), "edge"))
		for _, e := range undirected {
			fmt.Fprintf(&b, "%s -- %s\n", ir.Quote(names[e[0]]), ir.Quote(names[e[1]]))
		}
	}
	return c.write([]byte(b.String()))
}

// writeLearned learns the CPTs of g from d and writes the network to stOut.
func writeLearned(c *cli, d *structure.Data, g *structure.DAG, lopt learn.Options, write func(*bytes.Buffer, *ir.Model) error) int {
	m, err := g.Model(d.States)
	if err != nil {
		c.report(err)
		return exitError
	}
	b := &data.Batch{N: d.N, Cols: d.Cols, Reals: make([][]float64, len(d.Cols)), Lines: make([]int, d.N), Vars: make([]ir.VarID, len(d.Cols))}
	if d.HasReal() {
		// Real-valued columns: linear Gaussians by least squares, the
		// roots' normals too (learned only when asked for by name).
		copy(b.Reals, d.Real)
		lopt.Vars = make([]ir.VarID, len(d.Names))
		for v := range lopt.Vars {
			lopt.Vars[v] = ir.VarID(v)
		}
	}
	for i := range b.Lines {
		b.Lines[i] = i + 2
	}
	for v := range b.Vars {
		b.Vars[v] = ir.VarID(v)
	}
	m, _, err = learn.LearnBatch(m, b, lopt)
	if err != nil {
		c.report(err)
		return exitError
	}
	var buf bytes.Buffer
	if err := write(&buf, m); err != nil {
		c.report(fileErrorf(stOut, "%v", err))
		return exitError
	}
	if err := writeAtomic(stOut, buf.Bytes()); err != nil {
		c.report(err)
		return exitError
	}
	return exitOK
}

// readEdges reads a file of edges, one "A -> B" a line; blank lines and
// lines starting with # are skipped.
func readEdges(path string, names []string) ([][2]int, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	var edges [][2]int
	var errs ir.ErrorList
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		pos := ir.Pos{File: path, Line: line}
		a, b, ok := strings.Cut(text, "->")
		if !ok {
			errs.Add(pos, "want an edge 'A -> B', not %q", text)
			continue
		}
		var e [2]int
		for k, name := range []string{unquote(a), unquote(b)} {
			i, ok := index[name]
			if !ok {
				errs.Add(pos, "unknown variable %s: no column of the data has that name", ir.Quote(name))
			}
			e[k] = i
		}
		if e[0] == e[1] {
			errs.Add(pos, "an edge from %s to itself", ir.Quote(names[e[0]]))
		}
		edges = append(edges, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return edges, nil
}

// unquote trims s and removes double quotes around it.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

// parseOrder parses --order: every variable once.
func parseOrder(spec string, names []string) ([]int, error) {
	if spec == "" {
		order := make([]int, len(names))
		for i := range order {
			order[i] = i
		}
		return order, nil
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	seen := make([]bool, len(names))
	var order []int
	for _, name := range strings.Split(spec, ",") {
		name = unquote(name)
		i, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("unknown variable %s", ir.Quote(name))
		}
		if seen[i] {
			return nil, fmt.Errorf("%s named twice", ir.Quote(name))
		}
		seen[i] = true
		order = append(order, i)
	}
	if len(order) != len(names) {
		var missing []string
		for i, ok := range seen {
			if !ok {
				missing = append(missing, ir.Quote(names[i]))
			}
		}
		return nil, fmt.Errorf("the ordering leaves out %s", strings.Join(missing, ", "))
	}
	return order, nil
}

// keepsConstraints reports a required edge missing from g or a forbidden
// edge in it: PC's DAG reverses an edge that would close a cycle, which
// may break a constraint.
func keepsConstraints(g *structure.DAG, opt structure.Options) error {
	for _, e := range opt.Require {
		if !g.HasEdge(e[0], e[1]) {
			return fmt.Errorf("no DAG of the CPDAG found has the required edge %s -> %s without a cycle", ir.Quote(g.Names[e[0]]), ir.Quote(g.Names[e[1]]))
		}
	}
	for _, e := range opt.Forbid {
		if g.HasEdge(e[0], e[1]) {
			return fmt.Errorf("no DAG of the CPDAG found avoids the forbidden edge %s -> %s without a cycle", ir.Quote(g.Names[e[0]]), ir.Quote(g.Names[e[1]]))
		}
	}
	return nil
}

// parseStart parses --start: a list of start kinds, or a model file whose
// graph (over the data's variables) is the one start.
func parseStart(spec string, d *structure.Data) (*structure.DAG, []structure.Start, error) {
	if spec == "" {
		return nil, nil, nil
	}
	var kinds []structure.Start
	for _, name := range strings.Split(spec, ",") {
		k, err := structure.ParseStart(strings.TrimSpace(name))
		if err != nil {
			if _, serr := os.Stat(spec); serr == nil {
				m, err := loadFile(spec)
				if err != nil {
					return nil, nil, err
				}
				g, err := structure.Reindex(structure.FromModel(m), d.Names)
				if err != nil {
					return nil, nil, fmt.Errorf("--start %s: %v", spec, err)
				}
				return g, nil, nil
			}
			return nil, nil, fmt.Errorf("--start: %v, or a model file", err) // checked before: not reached
		}
		kinds = append(kinds, k)
	}
	return nil, kinds, nil
}

// structureProgress shows the search's progress on a terminal.
func structureProgress(c *cli, opt *structure.Options) (stop func()) {
	f, ok := c.stderr.(*os.File)
	if !ok || c.json || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	shown := false
	last := time.Now()
	opt.Progress = func(iter int, score float64) {
		if time.Since(last) < 200*time.Millisecond {
			return
		}
		last = time.Now()
		fmt.Fprintf(f, "\riteration %d: score %s\x1b[K", iter, ir.FormatFloat(score))
		shown = true
	}
	return func() {
		if shown {
			fmt.Fprint(f, "\r\x1b[K")
		}
	}
}

// writeStructureJSON prints o, the JSON object of pbl structure, with
// the seconds taken and the -o file added last.
func writeStructureJSON(c *cli, o *report.Object, secs float64) int {
	o.Set("seconds", secs)
	if stOut != "" {
		o.Set("output", stOut)
	}
	c.writeJSON(o)
	return exitOK
}
