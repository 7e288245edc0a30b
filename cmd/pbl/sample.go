package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
	"github.com/pbl-lang/pbl/sample"
)

// sampleSummary is the help of pbl sample.
const sampleSummary = "Sample draws N independent samples from a Bayesian network by forward sampling and\n" +
	"writes them as CSV: a header naming the variables in declaration order, then one row\n" +
	"per sample giving each discrete variable's state and each real-valued variable's value,\n" +
	"drawn from its normal density given its parents' values (one with no density yet is\n" +
	"left out).\n" +
	"--missing F leaves each cell empty with probability F, for testing learners on\n" +
	"incomplete data. The output is determined by the model, N, --seed and --missing: the\n" +
	"same on every run and machine, whatever the number of cores. Without -o the CSV goes\n" +
	"to stdout; -o writes the file atomically, and --json then prints a summary. A Markov\n" +
	"network cannot be sampled forward."

// The flags of pbl sample. The cli struct belongs to main.go, so they live
// here; sampleFlags binds them afresh for each invocation, resetting them
// to their defaults.
var (
	sampleN       int
	sampleSeed    uint64
	sampleMissing float64
	sampleOut     string
	sampleLength  int
)

func sampleFlags(c *cli, fs *flag.FlagSet) {
	fs.IntVar(&sampleN, "n", 0, "the number of samples (rows) to draw; required")
	fs.Uint64Var(&sampleSeed, "seed", 1, "the random `seed`")
	fs.Float64Var(&sampleMissing, "missing", 0, "leave each cell empty with this probability, in [0, 1)")
	fs.StringVar(&sampleOut, "o", "", "write the CSV to this `file` (atomically) instead of stdout")
	fs.IntVar(&sampleLength, "length", 0, "a time-indexed model: the `steps` of each sequence (default: the slices the model is unrolled to)")
}

// sampleCmd runs pbl sample.
func sampleCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("sample", "want one model file, got %s", plural(len(args), "argument"))
	}
	if sampleN == 0 {
		return c.usageErr("sample", "-n N is required: the number of samples, at least 1")
	}
	if sampleN < 0 {
		return c.usageErr("sample", "-n %d: want at least 1 sample", sampleN)
	}
	if !(sampleMissing >= 0 && sampleMissing < 1) {
		return c.usageErr("sample", "--missing %v is not a fraction in [0, 1)", sampleMissing)
	}
	if c.json && sampleOut == "" {
		return c.usageErr("sample", "--json needs -o FILE: without it the CSV goes to stdout")
	}
	if sampleLength < 0 {
		return c.usageErr("sample", "--length %d: want at least 1 step", sampleLength)
	}
	if sampleLength > ir.MaxHorizon+1 {
		return c.usageErr("sample", "--length %d: at most %d steps (a model is unrolled to slice %d at most)", sampleLength, ir.MaxHorizon+1, ir.MaxHorizon)
	}
	m, err := loadForOutput(sampleOut, args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	if sampleLength > 0 && m.Time == nil {
		c.report(fmt.Errorf("%s: --length is for a time-indexed model (var X[t]: ...), and this one has none", args[0]))
		return exitError
	}
	length := sampleLength
	if m.Time != nil {
		if length == 0 {
			length = m.Time.Horizon + 1
		}
		if m, err = ir.Unroll(m, length-1); err != nil {
			c.report(err)
			return exitError
		}
	}
	s, err := sample.NewSampler(m)
	if err != nil {
		c.report(err)
		return exitError
	}
	start := time.Now()
	write := func(w io.Writer) error { return s.WriteCSV(w, sampleN, sampleSeed, sampleMissing) }
	if m.Time != nil {
		// Sequences: N of them, a row per step.
		write = func(w io.Writer) error { return s.WriteSequences(w, sampleN, length, sampleSeed, sampleMissing) }
	}
	if sampleOut == "" {
		bw := bufio.NewWriterSize(c.stdout, 1<<20)
		err = write(bw)
		if err == nil {
			err = bw.Flush()
		}
	} else {
		err = streamAtomic(sampleOut, write)
	}
	if err != nil {
		c.report(err)
		return exitError
	}
	if c.json {
		o := &report.Object{}
		o.Set("rows", sampleN)
		o.Set("columns", len(s.Columns()))
		o.Set("output", sampleOut)
		o.Set("seconds", report.Float(math.Round(time.Since(start).Seconds()*1e6)/1e6))
		c.writeJSON(o)
	}
	return exitOK
}
