package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/flagargs"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// cmdFlags are the flags of a command: pbl's (the same names and meaning
// as the pbl command's), and the Beam SDK's pipeline options.
type cmdFlags struct {
	data, work string
	ignore     bool

	// learn
	out       string
	varSm     float64
	method    string
	optValues map[string]*string // by flag name: a method option's text
	seqCol    string             // a time-indexed model's sequence column

	// classify
	target, predictions string
	cv                  int

	// query
	batch         string
	engine, order string
	maxTable      int
	maxMemory     string
	top           int
	seed          uint64
	explain       bool

	runner string // the Beam runner, after beam()
}

// newFlags returns the flag set of c's command, with the flags every
// command has: --json, --work, and the Beam SDK's.
func newFlags(c *cli) *cmdFlags {
	f := &cmdFlags{optValues: map[string]*string{}}
	c.fs = flag.NewFlagSet("pbl-beam "+c.cmd, flag.ContinueOnError)
	c.fs.SetOutput(io.Discard)
	c.fs.BoolVar(&c.json, "json", false, "print results as JSON")
	c.fs.StringVar(&f.work, "work", "", "the `folder` (of any Beam filesystem) where the pipelines leave their results\nfor the driver; default: a new local temporary folder (enough for prism)")
	c.fs.StringVar(&f.runner, "runner", "", "the Beam runner: beam or prism (in-process; the default), flink, spark, dataflow, universal")
	return f
}

// beamFlags adds the Beam SDK's flags (registered on flag.CommandLine by
// its packages) to c's flag set, sharing their values.
func beamFlags(c *cli) {
	flag.CommandLine.VisitAll(func(g *flag.Flag) {
		if c.fs.Lookup(g.Name) == nil && !strings.HasPrefix(g.Name, "test.") {
			c.fs.Var(g.Value, g.Name, g.Usage)
		}
	})
}

// beam sets the runner from --runner.
func (f *cmdFlags) beam() error {
	switch f.runner {
	case "", "beam":
		f.runner = "prism"
	case "local":
		return fmt.Errorf("--runner local: run pbl itself")
	}
	return nil
}

// methodFlags registers --method and the flag of each option of any
// learning method, as pbl does.
func (f *cmdFlags) methodFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.method, "method", "mle", "the estimator: "+strings.Join(learn.MethodNames(), ", "))
	for _, s := range learn.Methods {
		for _, o := range s.Options {
			name := o.Flag()
			if _, dup := f.optValues[name]; dup || fs.Lookup(name) != nil {
				continue
			}
			v := new(string)
			f.optValues[name] = v
			fs.Func(name, s.Name+": "+o.Help, func(s string) error { *v = s; return nil })
		}
	}
}

// options returns the learning options of the method flags given, checked
// by learn's registry as pbl's are.
func (f *cmdFlags) options(fs *flag.FlagSet) (learn.Options, error) {
	var opts []ir.LearnOption
	fs.Visit(func(g *flag.Flag) {
		v, ok := f.optValues[g.Name]
		if !ok {
			return
		}
		name := strings.ReplaceAll(g.Name, "-", "_")
		x, err := strconv.ParseFloat(*v, 64)
		if err != nil {
			x = math.NaN()
		}
		opts = append(opts, ir.LearnOption{Name: name, Text: *v, Value: x})
	})
	o, err := learn.ParseOptions(f.method, ir.Pos{}, opts)
	if err != nil {
		var msgs []string
		for _, e := range ir.Positioned(ir.Pos{}, err) {
			msgs = append(msgs, e.Msg)
		}
		return o, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return o, nil
}

// given returns the names of the method flags given.
func (f *cmdFlags) given(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(g *flag.Flag) {
		if _, ok := f.optValues[g.Name]; ok || g.Name == "method" {
			out = append(out, "--"+g.Name)
		}
	})
	return out
}

func learnFlags(c *cli, f *cmdFlags) {
	c.fs.StringVar(&f.data, "data", "", "the CSV shards to learn from: a glob, or a Beam filesystem pattern; required")
	f.methodFlags(c.fs)
	c.fs.StringVar(&f.out, "o", "", "write the learned model to this `file` (.pbl or .bif)")
	c.fs.BoolVar(&f.ignore, "ignore-unknown-columns", false, "skip CSV columns that name no variable of the model")
	c.fs.Float64Var(&f.varSm, "var-smoothing", learn.DefaultVarSmoothing, "real variables: the share of the largest variance added to every Gaussian's variance")
	c.fs.StringVar(&f.seqCol, "sequence-column", "", "a time-indexed model: the column that says which sequence a row belongs to\n(default \"sequence\"; a shard without it is one sequence)")
	beamFlags(c)
}

func classifyFlags(c *cli, f *cmdFlags) {
	c.fs.StringVar(&f.target, "target", "", "the class `variable` to predict; required")
	c.fs.StringVar(&f.data, "data", "", "the CSV shards to score: a glob, or a Beam filesystem pattern; required")
	c.fs.StringVar(&f.predictions, "predictions", "", "write each shard's predictions to PREFIX-SSSSS-of-NNNNN.csv")
	c.fs.IntVar(&f.cv, "cv", 0, "cross-validation: not run by pbl-beam")
	c.fs.Uint64Var(&f.seed, "seed", 1, "the seed of --cv: not run by pbl-beam")
	f.methodFlags(c.fs)
	c.fs.BoolVar(&f.ignore, "ignore-unknown-columns", false, "skip data columns that name no variable of the model")
	beamFlags(c)
}

func queryFlags(c *cli, f *cmdFlags) {
	c.fs.StringVar(&f.batch, "batch", "", "the CSV shards of evidence rows: a glob, or a Beam filesystem pattern; required")
	c.fs.StringVar(&f.out, "o", "", "write each shard's answers to PREFIX-SSSSS-of-NNNNN.jsonl; required")
	c.fs.BoolVar(&f.ignore, "ignore-unknown-columns", false, "skip CSV columns that name no variable of the model")
	c.fs.StringVar(&f.engine, "engine", "auto", infer.EngineHelp())
	c.fs.StringVar(&f.order, "order", "best", "elimination order for ve: best, min-fill, min-weight, weighted-min-fill or input")
	c.fs.BoolVar(&f.explain, "explain", false, "the plan of the queries: not run by pbl-beam")
	c.fs.IntVar(&f.maxTable, "max-table", infer.DefaultMaxTable, "refuse tables with more `entries` than this")
	c.fs.StringVar(&f.maxMemory, "max-memory", "8GiB", "refuse junction trees needing more `memory` than this")
	c.fs.IntVar(&f.top, "top", 1000, "P(H | D) lists at most this many hypotheses")
	c.fs.Uint64Var(&f.seed, "seed", 1, "seed of Gibbs(...) draws")
	c.fs.StringVar(&f.data, "data", "", "binding a model's data set: not supported by pbl-beam")
	beamFlags(c)
}

// parseSize parses a memory size such as 512MiB or 8GiB.
var parseSize = flagargs.ParseSize

// learner expands the shards of pattern and makes the work folder, and
// returns the learner of the model file path over them, with the function
// that removes the folder if it was made here.
func (f *cmdFlags) learner(ctx context.Context, c *cli, pattern, path string, opt learn.Options) (*learner, func(), error) {
	shards, err := expand(ctx, pattern)
	if err != nil {
		return nil, nil, err
	}
	work, cleanup, err := f.workDir()
	if err != nil {
		return nil, nil, err
	}
	return &learner{c: c, r: &runner{name: f.runner, work: work}, shards: shards, opt: opt, ignore: f.ignore, path: path, seqCol: f.seqCol}, cleanup, nil
}

// workDir returns the work folder and a function that removes it if it
// was made here.
func (f *cmdFlags) workDir() (string, func(), error) {
	if f.work != "" {
		if !remote(f.work) {
			if err := os.MkdirAll(f.work, 0o755); err != nil {
				return "", nil, err
			}
		}
		return f.work, func() {}, nil
	}
	d, err := os.MkdirTemp("", "pbl-beam-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}
