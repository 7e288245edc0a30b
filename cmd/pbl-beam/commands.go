package main

import (
	"context"
	"fmt"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/internal/batch"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// classifyCmd runs pbl-beam classify: the model's numbers scored on every
// shard, the predictions of each written beside it.
func classifyCmd(ctx context.Context, c *cli, f *cmdFlags, args []string) int {
	if len(args) != 1 {
		return c.usageErr("want one model file, got %d arguments", len(args))
	}
	if f.target == "" {
		return c.usageErr("--target VAR is required: the class variable to predict")
	}
	if f.data == "" {
		return c.usageErr("--data SHARDS is required: the labelled rows to score")
	}
	if f.cv != 0 {
		return c.usageErr("--cv is not run by pbl-beam: cross-validate with pbl classify --cv K")
	}
	if g := f.given(c.fs); len(g) > 0 {
		return c.usageErr("%s applies only with --cv K (without it the model's own numbers are scored)", g[0])
	}
	m, err := pbl.LoadFile(args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	target, err := learn.LookupTarget(m, f.target)
	if err != nil {
		c.report(fmt.Errorf("%s: %v", args[0], err))
		return exitError
	}
	if u := m.Unlearned(); len(u) > 0 {
		c.report(fmt.Errorf("%s: the model has no numbers yet for %s: learn them first (pbl learn %s --data CSV -o OUT.pbl)", args[0], m.NameList(u, 3), args[0]))
		return exitError
	}
	l, cleanup, err := f.learner(ctx, c, f.data, args[0], learn.Options{})
	if err != nil {
		c.report(err)
		return exitError
	}
	defer cleanup()
	for _, v := range m.Vars {
		if v.Open {
			p, err := l.pass(ctx, m, &job{Kind: "states"}, nil)
			if err != nil {
				c.report(err)
				return exitError
			}
			l.states = p.mergedStates()
			m = m.WithStates(l.states)
			break
		}
	}
	j := &job{Kind: "classify", Target: target}
	if f.predictions != "" {
		j.Out, j.Ext = outputPrefix(f.predictions, ".csv")
	}
	p, err := l.pass(ctx, m, j, nil)
	if err != nil {
		c.report(err)
		return exitError
	}
	mt := p.Eval.metrics(m.Vars[target].States)
	if mt.N == 0 {
		c.report(fmt.Errorf("%s: no row could be scored (%d skipped as impossible under the model, %d without a %s)", f.data, mt.Skipped, mt.Unlabelled, f.target))
		return exitError
	}
	if c.json {
		o := batch.ScoresJSON(m, target, mt)
		o.Set("shards", len(l.shards))
		b, _ := o.MarshalJSON()
		c.stdout.Write(append(b, '\n'))
		return exitOK
	}
	batch.ScoresText(c.stdout, m, target, mt, nil, 0, "")
	return exitOK
}

// queryCmd runs pbl-beam query --batch: the queries answered for every
// row of every shard, each shard's answers written beside it.
func queryCmd(ctx context.Context, c *cli, f *cmdFlags, args []string) int {
	if len(args) < 2 {
		return c.usageErr("want a model file and at least one query")
	}
	if f.batch == "" {
		return c.usageErr("--batch SHARDS is required: the evidence rows")
	}
	if f.out == "" {
		return c.usageErr("-o PREFIX is required: the answers of shard i go to PREFIX-i-of-n.jsonl")
	}
	if f.data != "" {
		return c.usageErr("--data NAME=FILE is not supported by pbl-beam")
	}
	if f.explain {
		return c.usageErr("--explain is not run by pbl-beam: pbl query --explain shows the plan of the queries")
	}
	mem, err := parseSize(f.maxMemory)
	if err != nil {
		return c.usageErr("%v", err)
	}
	m, err := pbl.LoadFile(args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	for _, text := range args[1:] {
		if _, err := pbl.ParseQuery(m, text); err != nil {
			c.report(err)
			return exitError
		}
	}
	if open := m.Unlearned(); len(open) > 0 {
		c.report(fmt.Errorf("%s: the model has no numbers yet for %s: learn them first", args[0], m.NameList(open, 3)))
		return exitError
	}
	l, cleanup, err := f.learner(ctx, c, f.batch, args[0], learn.Options{})
	if err != nil {
		c.report(err)
		return exitError
	}
	defer cleanup()
	// The engines are chosen as pbl query --batch chooses them, which
	// counts a block of 1,024 rows' queries as sharing a junction tree.
	const pblBatchRows = 1024
	j := &job{Kind: "query", Queries: args[1:], Answer: answerParams{Engine: f.engine, Order: f.order, MaxTable: f.maxTable, MaxMemory: mem, Top: f.top, Seed: f.seed, Queries: pblBatchRows * (len(args) - 1)}}
	j.Out, j.Ext = outputPrefix(f.out, ".jsonl")
	if _, err := j.Answer.options(); err != nil {
		return c.usageErr("%v", err)
	}
	p, err := l.pass(ctx, m, j, nil)
	if err != nil {
		c.report(err)
		return exitError
	}
	if c.json {
		fmt.Fprintf(c.stdout, "{\"rows\":%d,\"shards\":%d,\"output\":%q}\n", p.Rows, len(l.shards), shardName(j.Out, 0, len(l.shards), j.Ext))
		return exitOK
	}
	fmt.Fprintf(c.stderr, "pbl-beam query: %s of %s answered: %s ...\n", ir.Plural(int(p.Rows), "row"), ir.Plural(len(l.shards), "shard"), shardName(j.Out, 0, len(l.shards), j.Ext))
	return exitOK
}
