package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// runCmd runs a model file's statements in order. A statement that fails
// is reported and the others still run; the exit status is then 1.
func runCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("run", "want one model file, got %s", plural(len(args), "argument"))
	}
	m, opt, status := c.load("run", args[0])
	if m == nil {
		return status
	}
	defer interruptible(&opt)()
	if fails := pbl.Run(m, c.stdout, pbl.RunOptions{Infer: opt, JSON: c.json, Top: c.top, Seed: c.seed, Style: style}); len(fails) > 0 {
		c.report(fails)
		return exitError
	}
	return status
}

// load reads the model of run or query and the engine options. On failure
// it returns a nil model and the exit status, having reported the error.
func (c *cli) load(cmd, path string) (*ir.Model, infer.Options, int) {
	opt, err := c.options()
	if err != nil {
		return nil, opt, c.usageErr(cmd, "%v", err)
	}
	m, err := loadFileWith(path, c.loadOptions())
	if err != nil {
		c.report(err)
		if errors.Is(err, ir.ErrUnknownData) {
			return nil, opt, exitUsage // a --data NAME the model does not name
		}
		return nil, opt, exitError
	}
	if c.explain && cmd != "run" && cmd != "query" {
		// The commands that compile the junction tree for many
		// calibrations describe it; run and query explain each query's
		// plan (explainQueries).
		text, err := infer.Explain(m, opt)
		if err != nil {
			c.report(err)
			return nil, opt, exitError
		}
		// With --json the explanation goes to stderr, keeping stdout JSON Lines.
		w := c.stdout
		if c.json {
			w = c.stderr
		}
		fmt.Fprintln(w, strings.TrimRight(text, "\n"))
		if !c.json {
			fmt.Fprintln(w)
		}
	}
	if cmd == "run" {
		var qs []ir.Query
		for _, s := range m.Stmts {
			switch s := s.(type) {
			case *ir.QueryStmt:
				qs = append(qs, s.Query)
			case *ir.ExpectStmt:
				qs = append(qs, s.Query)
			}
		}
		opt.Queries = len(qs)
		if c.explain && !c.explainQueries(m, qs, opt) {
			return nil, opt, exitError
		}
	}
	return m, opt, exitOK
}

// explainQueries prints, for --explain, the engine each query gets and
// why (infer.ExplainQuery), to stdout or, with --json, to stderr (keeping
// stdout JSON Lines). It reports false, having reported the error, if a
// plan fails; queries about hypotheses, which no engine answers, are
// skipped.
func (c *cli) explainQueries(m *ir.Model, qs []ir.Query, opt infer.Options) bool {
	w := c.stdout
	if c.json {
		w = c.stderr
	}
	for _, q := range qs {
		if q == nil || ir.HypOf(q) != nil {
			continue
		}
		text, err := infer.ExplainQuery(m, q, opt)
		if err != nil {
			c.report(err)
			return false
		}
		fmt.Fprintln(w, strings.TrimRight(phraseExplanation(text), "\n"))
		if !c.json {
			fmt.Fprintln(w)
		}
	}
	return true
}

// print writes one result, separating text results by blank lines, and
// returns the exit status: 1 if it could not be written (reported).
func (c *cli) print(m *ir.Model, res *pbl.Answer, first *bool) int {
	if c.json {
		if err := res.JSONStyle(c.stdout, m, style); err != nil {
			c.report(err)
			return exitError
		}
		return exitOK
	}
	if !*first {
		fmt.Fprintln(c.stdout)
	}
	*first = false
	res.TextStyle(c.stdout, m, style)
	return exitOK
}

// queryCmd answers queries given on the command line.
func queryCmd(c *cli, args []string) int {
	if queryBatch != "" || runnerName != "local" {
		return batchCmd(c, args) // batch.go
	}
	if len(args) < 2 {
		return c.usageErr("query", "want a model file and at least one query")
	}
	m, opt, status := c.load("query", args[0])
	if m == nil {
		return status
	}
	// Parse every query, answer the first alone (it may compile the
	// junction tree, which the others then share) and the rest on every
	// core, then print in order.
	texts := args[1:]
	m, err := pbl.Unrolled(m, texts...)
	if err != nil {
		c.report(err)
		return exitError
	}
	queries := make([]ir.Query, len(texts))
	results := make([]*pbl.Answer, len(texts))
	errs := make([]error, len(texts))
	for i, text := range texts {
		queries[i], errs[i] = pbl.ParseQuery(m, text)
	}
	opt.Queries = len(texts)
	if c.explain && !c.explainQueries(m, queries, opt) {
		return exitError
	}
	defer interruptible(&opt)()
	answer := func(i int) {
		if errs[i] == nil {
			results[i], errs[i] = pbl.AnswerQuery(m, queries[i], pbl.AnswerOptions{Infer: opt, Top: c.top, Seed: c.seed})
		}
	}
	answer(0)
	par.For(len(texts)-1, func(i int) { answer(i + 1) })
	first := true
	for i := range texts {
		if errs[i] != nil {
			c.report(errs[i])
			status = exitError
			continue
		}
		if c.print(m, results[i], &first) != exitOK {
			status = exitError
		}
	}
	return status
}

// checkCmd validates model files.
func checkCmd(c *cli, args []string) int {
	if len(args) == 0 {
		return c.usageErr("check", "want at least one model file")
	}
	status := exitOK
	for _, path := range args {
		m, err := loadFile(path)
		if err != nil {
			c.report(err)
			status = exitError
			if c.json {
				o := &report.Object{}
				o.Set("file", path)
				o.Set("ok", false)
				c.writeJSON(o)
			}
			continue
		}
		edges := 0
		for _, ps := range m.Parents {
			edges += len(ps)
		}
		params := m.FreeParams()
		var toLearn []string // each distribution to learn: its variable, or a joint density's, by ", "
		var learnText []string
		for _, vs := range m.ToLearn() {
			raw, quoted := make([]string, len(vs)), make([]string, len(vs))
			for i, v := range vs {
				raw[i], quoted[i] = m.Vars[v].Name, ir.Quote(m.Vars[v].Name)
			}
			toLearn = append(toLearn, strings.Join(raw, ", "))
			text := strings.Join(quoted, ", ")
			if len(vs) > 1 {
				text = "(" + text + ")"
			}
			learnText = append(learnText, text)
		}
		if c.json {
			o := &report.Object{}
			o.Set("file", path)
			o.Set("ok", true)
			o.Set("variables", len(m.Vars))
			o.Set("edges", edges)
			o.Set("parameters", params)
			o.Set("statements", len(m.Stmts))
			o.Set("to_learn", append([]string{}, toLearn...))
			if len(m.Spaces) > 0 {
				o.Set("spaces", spaceNames(m))
			}
			if m.Time != nil {
				o.Set("time_indexed", len(m.Time.Vars))
				o.Set("slices", m.Time.Horizon+1)
			}
			c.writeJSON(o)
			continue
		}
		learned := ""
		if u := len(toLearn); u > 0 {
			names := slices.Clone(learnText[:min(u, 5)])
			if u > 5 {
				names = append(names, "...")
			}
			learned = ", " + plural(u, "distribution") + " to learn (" + strings.Join(names, ", ") + ")"
		}
		spaces := ""
		if n := len(m.Spaces); n > 0 {
			spaces = ", " + plural(n, "hypothesis space") + " (" + strings.Join(spaceNames(m), ", ") + ")"
		}
		vars := plural(len(m.Vars), "variable")
		if t := m.Time; t != nil {
			// A time-indexed model: its slices are one template's, and
			// its parameters are tied.
			vars = fmt.Sprintf("%s (%s in %s, %s static)", vars, plural(len(t.Vars), "time-indexed variable"), plural(t.Horizon+1, "slice"),
				fmt.Sprint(len(m.Vars)-len(t.Vars)*(t.Horizon+1)))
		}
		fmt.Fprintf(c.stdout, "%s: ok, %s, %s, %s%s%s\n", path, vars, plural(edges, "edge"), plural(params, "free parameter"), learned, spaces)
	}
	return status
}

// spaceNames returns the names of m's hypothesis spaces.
func spaceNames(m *ir.Model) []string {
	names := make([]string, len(m.Spaces))
	for i, s := range m.Spaces {
		names[i] = ir.Quote(s.Name)
	}
	return names
}

func plural(n int, word string) string { return ir.Plural(n, word) }

// writeJSON writes one JSON object on its own line. An error is reported,
// which makes the command's exit status 1 (see runCommand).
func (c *cli) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.report(err)
		return
	}
	c.stdout.Write(append(b, '\n'))
}
