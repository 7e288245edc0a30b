package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// The entry of pbl sequence in the command table.
const (
	sequenceArgs    = "MODEL --data CSV --task filter|smooth|viterbi|predict"
	sequenceSummary = "Sequence answers a time-indexed model (var X[t]: ...) for each sequence of a CSV\n" +
		"file: one row per time step, a column per time-indexed variable named without its\n" +
		"index (Rain for var Rain[t]), a column per static variable, and optionally a column\n" +
		"naming the sequence (--sequence-column, default sequence). Missing cells are\n" +
		"marginalised. --task filter gives P(X_t | observations up to t) at every step;\n" +
		"smooth, P(X_t | every observation); predict, P(X_{T-1+k} | every observation) for\n" +
		"k = 1..--steps; viterbi, the most probable joint path of the unobserved variables\n" +
		"with ln P(path, observations). X is each discrete variable that no step observes,\n" +
		"or those --target names. Each sequence's answer gives ln P(observations) too."
)

// The flags of pbl sequence.
var (
	sequenceData      string
	sequenceTask      string
	sequenceSteps     int
	sequenceColumn    string
	sequenceTargets   string
	sequenceParticles int
	sequenceSeed      uint64
	sequenceExact     bool
)

func sequenceFlags(c *cli, fs *flag.FlagSet) {
	c.engine, c.order = "auto", "min-fill"
	fs.StringVar(&sequenceData, "data", "", "the sequences' CSV `file` (- for stdin): one row per step; required")
	fs.StringVar(&sequenceTask, "task", "", "the `task`: filter, smooth, viterbi or predict; required")
	fs.IntVar(&sequenceSteps, "steps", 1, "predict: how many `steps` ahead of each sequence's end")
	fs.StringVar(&sequenceColumn, "sequence-column", "sequence", "the `column` that names each row's sequence (a file without it is one sequence)")
	fs.StringVar(&sequenceTargets, "target", "", "the time-indexed variables to report, comma-separated `names` without [t] (default: those no step observes)")
	fs.IntVar(&sequenceParticles, "particles", 0, "filter and predict with a particle filter of `N` particles (approximate, with standard errors) instead of exactly")
	fs.Uint64Var(&sequenceSeed, "seed", 1, "the particle filter's random `seed`")
	fs.BoolVar(&sequenceExact, "exact", false, "refuse a model too wide for the exact engines instead of filtering it with particles")
	fs.IntVar(&c.maxTable, "max-table", infer.DefaultMaxTable, "refuse cliques with more `entries` than this")
	fs.StringVar(&c.maxMemory, "max-memory", "8GiB", "refuse junction trees needing more `memory` than this (e.g. 512MiB, 8GiB)")
}

// sequenceCmd runs pbl sequence.
func sequenceCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("sequence", "want one model file, got %s", plural(len(args), "argument"))
	}
	if sequenceData == "" {
		return c.usageErr("sequence", "--data FILE.csv is required: the sequences, one row per step")
	}
	task := slices.Index(pbl.SeqTasks, sequenceTask)
	if task < 0 {
		hint := ""
		if s := spell.Nearest(sequenceTask, pbl.SeqTasks); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		switch strings.ToLower(sequenceTask) {
		case "mpe", "map", "path", "decode":
			hint = " (the most probable path is viterbi)"
		case "forward", "filtering":
			hint = " (did you mean filter?)"
		case "forward-backward", "smoothing":
			hint = " (did you mean smooth?)"
		case "prediction", "forecast":
			hint = " (did you mean predict?)"
		}
		if sequenceTask == "" {
			return c.usageErr("sequence", "--task is required: filter, smooth, viterbi or predict")
		}
		return c.usageErr("sequence", "--task %q: want filter, smooth, viterbi or predict%s", sequenceTask, hint)
	}
	if sequenceParticles < 0 {
		return c.usageErr("sequence", "--particles %d: want at least 1 particle (or 0, the default: the exact engines)", sequenceParticles)
	}
	if sequenceParticles > 0 && sequenceExact {
		return c.usageErr("sequence", "--particles and --exact contradict each other")
	}
	if sequenceParticles > 0 && pbl.SeqTask(task) != pbl.Filter && pbl.SeqTask(task) != pbl.Predict {
		return c.usageErr("sequence", "--particles: the particle filter answers --task filter and predict, not %s", sequenceTask)
	}
	if sequenceSteps < 1 {
		return c.usageErr("sequence", "--steps %d: want at least 1 step ahead", sequenceSteps)
	}
	m, opt, status := c.load("sequence", args[0])
	if m == nil {
		return status
	}
	if m.Time == nil {
		c.report(fmt.Errorf("%s: the model has no time-indexed variables (var X[t]: ...): pbl sequence answers those", args[0]))
		return exitError
	}
	if u := m.Unlearned(); len(u) > 0 {
		c.report(fileErrorf(args[0], "the model has no numbers yet for %s: learn them first (pbl learn %s --data CSV -o OUT.pbl)", m.NameList(u, 3), args[0]))
		return exitError
	}
	var targets []int
	if sequenceTargets != "" {
		names := make([]string, len(m.Time.Vars))
		for i, tv := range m.Time.Vars {
			names[i] = tv.Name
		}
		for _, name := range strings.Split(sequenceTargets, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				return c.usageErr("sequence", "--target %s: an empty name (want names separated by commas)", sequenceTargets)
			}
			i := slices.Index(names, name)
			if i < 0 {
				hint := ""
				if s := spell.Nearest(name, names); s != "" {
					hint = fmt.Sprintf(" (did you mean %s?)", s)
				}
				return c.usageErr("sequence", "--target %s: not a time-indexed variable of the model%s", name, hint)
			}
			if slices.Contains(targets, i) {
				continue // named twice: reported once
			}
			if !m.Vars[m.Time.Vars[i].Slices[0]].Discrete() {
				return c.usageErr("sequence", "--target %s: a real-valued variable: the answers are discrete variables' distributions and paths", name)
			}
			targets = append(targets, i)
		}
	}
	if pbl.CheckSequenceColumn(m, sequenceColumn) != nil {
		return c.usageErr("sequence", "%s", seqColumnMsg(sequenceColumn))
	}
	var seqs []*pbl.Sequence
	var err error
	dataName := sequenceData // as errors name it
	if sequenceData == "-" {
		dataName = "stdin"
		seqs, err = pbl.ReadSequencesFrom(m, dataName, os.Stdin, pbl.SequenceOptions{Column: sequenceColumn})
	} else {
		seqs, err = pbl.ReadSequences(m, sequenceData, pbl.SequenceOptions{Column: sequenceColumn})
	}
	if err != nil {
		c.report(err)
		return exitError
	}
	if len(seqs) == 0 {
		c.report(fmt.Errorf("%s: the data has no rows: no sequence to answer", dataName))
		return exitError
	}
	defer interruptible(&opt)()
	first := true
	for _, s := range seqs {
		a, err := pbl.AnswerSequence(m, s, pbl.SeqTask(task), pbl.SeqOptions{Targets: targets, Steps: sequenceSteps, Infer: opt,
			Particles: sequenceParticles, Seed: sequenceSeed, Exact: sequenceExact})
		if err != nil {
			c.report(seqError(dataName, s, err))
			return exitError
		}
		if c.json {
			if err := sequenceJSON(c.stdout, m, a); err != nil {
				c.report(err)
				return exitError
			}
			continue
		}
		if !first {
			fmt.Fprintln(c.stdout)
		}
		first = false
		sequenceText(c, m, a)
	}
	return exitOK
}

// seqError says which sequence an error is about: it is positioned at
// the sequence's first row in the data file path (path:line: sequence ID:
// message).
func seqError(path string, s *pbl.Sequence, err error) error {
	var e *ir.Error
	if errors.As(err, &e) && e.Pos.Line > 0 {
		return err
	}
	msg := err.Error()
	if s.ID != "" {
		msg = fmt.Sprintf("sequence %s: %s", seqID(s.ID), msg)
	}
	return &ir.Error{Pos: ir.Pos{File: path, Line: s.Line}, Msg: msg, Err: err}
}

// seqColumnMsg says that the sequence column col (given, or the default)
// is the name of a variable of the model.
func seqColumnMsg(col string) string {
	return fmt.Sprintf("--sequence-column %s (default sequence): a variable of the model, not a column naming sequences; name the file's sequence column with --sequence-column (a name no column has reads the file as one sequence)", col)
}

// seqID is a sequence's id as text output shows it: as it is, or quoted
// if it holds a space, a quote or a character that is not printable (a
// quoted CSV cell may hold a line break).
func seqID(id string) string {
	for _, r := range id {
		if r == ' ' || r == '"' || !strconv.IsPrint(r) {
			return strconv.Quote(id)
		}
	}
	return id
}

// sequenceText prints one sequence's answer: a header line, then a row
// per step.
func sequenceText(c *cli, m *ir.Model, a *pbl.SeqAnswer) {
	w := c.stdout
	if !a.Exact() {
		why := fmt.Sprintf("%d particles, seed %d", sequenceParticles, sequenceSeed)
		if a.Why != "" {
			why = fmt.Sprintf("%d particles, seed %d: %s", pbl.DefaultParticles, sequenceSeed, a.Why)
		}
		fmt.Fprintf(w, "approximate: particle filter (%s); ± one standard error\n", why)
	}
	name := "sequence"
	if a.Seq.ID != "" {
		name = "sequence " + seqID(a.Seq.ID)
	}
	fmt.Fprintf(w, "%s (%s, %s)", name, plural(len(a.Seq.Steps), "step"), a.Task)
	switch {
	case a.Task == pbl.Viterbi:
		fmt.Fprintf(w, "  ln P(path, observations) = %s\n", report.Num(a.LogP))
	case !a.Exact():
		fmt.Fprintf(w, "  ln P(observations) = %s ± %s\n", report.Num(a.LogP), strconv.FormatFloat(a.LogPErr, 'g', 2, 64))
	default:
		fmt.Fprintf(w, "  ln P(observations) = %s\n", report.Num(a.LogP))
	}
	head := []string{"step"}
	for _, k := range a.Targets {
		tv := m.Time.Vars[k]
		if a.IsPath() {
			head = append(head, tv.Name)
			continue
		}
		for _, st := range m.Vars[tv.Slices[0]].States {
			head = append(head, tv.Name+"="+st)
		}
	}
	// Columns as wide as their header or a probability's usual 12
	// characters, written row by row (a sequence may have millions of
	// steps: nothing is held).
	cell := 12
	if !a.Exact() {
		cell += utf8.RuneCountInString(" ±1.2e-05") // a standard error after each probability
	}
	widths := make([]int, len(head))
	for j, h := range head {
		widths[j] = max(len(h), cell)
	}
	if n := a.Len(); n > 0 {
		widths[0] = max(len(head[0]), len(fmt.Sprint(a.Step(n-1))))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	defer bw.Flush()
	row := make([]string, 0, len(head))
	line := func(r []string) {
		var b strings.Builder
		b.WriteString(" ")
		for j, cell := range r {
			b.WriteString(" ")
			b.WriteString(cell)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", max(widths[j]-utf8.RuneCountInString(cell), 0)+1))
			}
		}
		b.WriteByte('\n')
		bw.WriteString(b.String())
	}
	line(head)
	for i := range a.Len() {
		row = append(row[:0], strconv.Itoa(a.Step(i)))
		for k, v := range a.Targets {
			if a.IsPath() {
				row = append(row, m.Vars[m.Time.Vars[v].Slices[0]].States[a.State(i, k)])
				continue
			}
			errs := a.StdErr(i, k)
			for st, p := range a.Posterior(i, k) {
				cell := report.Num(p)
				if errs != nil {
					cell += " ±" + strconv.FormatFloat(errs[st], 'g', 2, 64)
				}
				row = append(row, cell)
			}
		}
		line(row)
	}
}

// sequenceJSON writes one sequence's answer as a line of JSON: {"sequence",
// "line", "length", "task", "engine", "exact", "steps": [{"step",
// "posterior": {var: {state: p}}} or {"step", "state": {var: state}}],
// "log_likelihood" or "log_p_path"}. The steps are written one by one,
// the object around them in two parts: a sequence of millions of steps is
// never held as JSON values.
func sequenceJSON(w io.Writer, m *ir.Model, a *pbl.SeqAnswer) error {
	head := &report.Object{}
	head.Set("sequence", a.Seq.ID)
	head.Set("line", a.Seq.Line)
	head.Set("length", len(a.Seq.Steps))
	head.Set("task", a.Task.String())
	head.Set("engine", a.Engine)
	head.Set("exact", a.Exact())
	if a.Why != "" {
		head.Set("why", a.Why)
	}
	tail := &report.Object{}
	var lp any = a.LogP
	if math.IsInf(a.LogP, 0) || math.IsNaN(a.LogP) {
		lp = nil // never: impossible observations are an error
	}
	if a.Task == pbl.Viterbi {
		tail.Set("log_p_path", lp)
	} else {
		tail.Set("log_likelihood", lp)
	}
	if !a.Exact() {
		tail.Set("log_likelihood_error", a.LogPErr)
	}
	hb, err := json.Marshal(head)
	if err != nil {
		return err
	}
	tb, err := json.Marshal(tail)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(hb[:len(hb)-1]) // without its }
	bw.WriteString(`,"steps":[`)
	for i := range a.Len() {
		if i > 0 {
			bw.WriteByte(',')
		}
		b, err := json.Marshal(stepJSON(m, a, i))
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	bw.WriteString("],")
	bw.Write(tb[1:]) // without its {
	bw.WriteByte('\n')
	return bw.Flush()
}

// stepJSON is row i of a sequence's answer as a JSON object.
func stepJSON(m *ir.Model, a *pbl.SeqAnswer, i int) *report.Object {
	so := &report.Object{}
	so.Set("step", a.Step(i))
	vo, errs := &report.Object{}, &report.Object{}
	for k, v := range a.Targets {
		tv := m.Time.Vars[v]
		states := m.Vars[tv.Slices[0]].States
		if a.IsPath() {
			vo.Set(tv.Name, states[a.State(i, k)])
			continue
		}
		po := &report.Object{}
		for s, p := range a.Posterior(i, k) {
			po.Set(states[s], p)
		}
		vo.Set(tv.Name, po)
		if se := a.StdErr(i, k); se != nil {
			eo := &report.Object{}
			for s, e := range se {
				eo.Set(states[s], e)
			}
			errs.Set(tv.Name, eo)
		}
	}
	if a.IsPath() {
		so.Set("state", vo)
	} else {
		so.Set("posterior", vo)
	}
	if !a.Exact() {
		so.Set("error", errs)
	}
	return so
}
