package main

import (
	"bufio"
	"errors"
	"flag"
	"io"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/internal/batch"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// The flags of pbl query's batch mode, bound afresh by queryFlags.
var (
	queryBatch  string
	queryOut    string
	queryIgnore bool
)

// queryFlags are pbl query's flags: the engine's, and those of answering
// the queries for every row of a CSV file (--batch).
func queryFlags(c *cli, fs *flag.FlagSet) {
	engineFlags(c, fs)
	fs.StringVar(&queryBatch, "batch", "", "answer the queries for every row of this CSV `file`, its cells as evidence;\none line of JSON per row (see docs/cli.md)")
	fs.StringVar(&queryOut, "o", "", "with --batch: write the answers to this `file` (atomically) instead of stdout")
	fs.BoolVar(&queryIgnore, "ignore-unknown-columns", false, "with --batch: skip CSV columns that name no variable of the model")
	runnerFlags(fs)
}

// batchRows is the number of rows answered at a time (on every core)
// before they are written, in order.
const batchRows = 1024

// batchCmd answers the queries given on the command line for every row of
// the CSV file --batch: pbl query MODEL --batch rows.csv QUERY...
func batchCmd(c *cli, args []string) int {
	if queryBatch == "" {
		return c.usageErr("query", "--runner %s applies to --batch only", runnerName)
	}
	if st, ok := c.handOver("query", args); ok {
		return st
	}
	if len(args) < 2 {
		return c.usageErr("query", "want a model file and at least one query to answer for each row of %s", queryBatch)
	}
	m, opt, status := c.load("query", args[0])
	if m == nil {
		return status
	}
	if err := checkOutput(queryOut, args[0], queryBatch); err != nil {
		c.report(err)
		return exitError
	}
	queries := make([]ir.Query, len(args)-1)
	var errs ir.ErrorList
	for i, text := range args[1:] {
		q, err := pbl.ParseQuery(m, text)
		if err != nil {
			errs = append(errs, ir.Positioned(ir.Pos{}, err)...)
		}
		queries[i] = q
	}
	if len(errs) > 0 {
		c.report(errs)
		return exitError
	}
	r, err := data.Open(queryBatch, m, data.Options{IgnoreUnknownColumns: queryIgnore})
	if err != nil {
		c.report(err)
		return exitError
	}
	defer r.Close()
	if open := openVars(m); len(open) > 0 {
		c.report(fileErrorf(args[0], "the model has variables without states (%s): learn it first", m.NameList(open, 3)))
		return exitError
	}
	// Every row asks the queries again: a junction tree's compilation is
	// shared by at least a block's worth of them.
	opt.Queries = batchRows * len(queries)
	if c.explain && !c.explainQueries(m, queries, opt) {
		return exitError
	}
	aopt := pbl.AnswerOptions{Infer: opt, Top: c.top, Seed: c.seed}
	answer := func(w io.Writer) error {
		b := r.NewBatch(batchRows)
		lines := make([][]byte, batchRows)
		row := 0
		for {
			err := r.Read(b)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			par.For(b.N, func(i int) {
				lines[i] = batch.AppendAnswers(lines[i][:0], m, queries, b, i, row+i+1, aopt)
			})
			for _, l := range lines[:b.N] {
				if _, err := w.Write(l); err != nil {
					return err
				}
			}
			row += b.N
		}
	}
	if queryOut != "" {
		err = streamAtomic(queryOut, answer)
	} else {
		w := bufio.NewWriterSize(c.stdout, 1<<16)
		if err = answer(w); err == nil {
			err = w.Flush()
		}
	}
	if err != nil {
		c.report(err)
		return exitError
	}
	return exitOK
}

// openVars returns m's open variables (states taken from data).
func openVars(m *ir.Model) []ir.VarID {
	var out []ir.VarID
	for _, v := range m.Vars {
		if v.Open {
			out = append(out, v.ID)
		}
	}
	return out
}
