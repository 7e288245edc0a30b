package main

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// The entry of pbl voi in the command table.
const (
	voiArgs    = "MODEL (--target X | --decision D)"
	voiSummary = "Voi ranks the unobserved discrete variables (or the --candidates) by the mutual\n" +
		"information I(X; V | e) they share with the target X given the evidence, in bits, highest\n" +
		"first: the value of observing each next (which test to run). It prints H(X | e) first,\n" +
		"the most any observation can tell. The numbers are exact, from one junction tree\n" +
		"calibrated once for e and once per state of X. --evidence takes what a query takes after\n" +
		"its bar: 'A=a, B=b', real variables at numbers.\n\n" +
		"With --decision D instead, on an influence diagram whose decisions have perfect recall,\n" +
		"it ranks the chance variables not yet known when D is taken (not observed before it,\n" +
		"not in the evidence, not influenced by D or a later decision) by the expected value of\n" +
		"perfect information about them: the maximum expected utility with the variable known at\n" +
		"D minus the one without, given the evidence (as MEU(| e) reads it), printed first."
)

// The flags of pbl voi, bound afresh for each invocation by voiFlags.
var (
	voiTarget     string
	voiDecision   string
	voiEvidence   string
	voiCandidates string
	voiTop        int
)

func voiFlags(c *cli, fs *flag.FlagSet) {
	c.engine, c.order = "auto", "min-fill"
	fs.StringVar(&voiTarget, "target", "", "the `variable` to learn about")
	fs.StringVar(&voiDecision, "decision", "", "rank by the value of perfect information for this `decision` of an influence diagram")
	fs.StringVar(&voiEvidence, "evidence", "", "the observations so far, as after a query's bar: `'A=a, B=b'`")
	fs.StringVar(&voiCandidates, "candidates", "", "rank only these `variables` (comma-separated; default: every unobserved discrete one)")
	fs.IntVar(&voiTop, "top", 0, "list only the `K` most informative (0: all)")
	fs.Var(&c.data, "data", "bind the model's data set `NAME=FILE.csv` to another file with the same columns; may be repeated")
	fs.IntVar(&c.maxTable, "max-table", infer.DefaultMaxTable, "refuse cliques with more `entries` than this")
	fs.StringVar(&c.maxMemory, "max-memory", "8GiB", "refuse junction trees needing more `memory` than this (e.g. 512MiB, 8GiB)")
}

// voiCands returns the variables of --candidates, nil for none.
func voiCands(m *ir.Model) ([]ir.VarID, error) {
	var cands []ir.VarID
	if strings.TrimSpace(voiCandidates) == "" {
		return nil, nil
	}
	for name := range strings.SplitSeq(voiCandidates, ",") {
		name = strings.TrimSpace(name)
		x, ok := m.Lookup(name)
		if !ok {
			msg := fmt.Sprintf("--candidates: undefined variable %s", strconv.Quote(name))
			if s := spell.Nearest(name, m.Names()); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", strconv.Quote(s))
			}
			return nil, &ir.Error{Msg: msg}
		}
		cands = append(cands, x.ID)
	}
	return cands, nil
}

// voiDecisionCmd runs pbl voi --decision D on the model at path: the
// chance variables ranked by the value of perfect information at D.
func voiDecisionCmd(c *cli, path string) int {
	m, _, status := c.load("voi", path)
	if m == nil {
		return status
	}
	var decs []string
	for _, d := range m.Decisions() {
		decs = append(decs, m.Vars[d].Name)
	}
	x, ok := m.Lookup(voiDecision)
	if !ok || !x.Decision {
		msg := fmt.Sprintf("--decision: %s is not a decision of the model", strconv.Quote(voiDecision))
		if !ok {
			msg = fmt.Sprintf("--decision: undefined decision %s", strconv.Quote(voiDecision))
		}
		if s := spell.Nearest(voiDecision, decs); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", strconv.Quote(s))
		} else if len(decs) == 0 {
			msg += " (it has none: declare one as decision D: {...})"
		}
		c.report(&ir.Error{Msg: msg, Err: ir.ErrNotDecision})
		return exitError
	}
	// The evidence, validated as the query MEU(| evidence) is.
	text := "MEU()"
	if strings.TrimSpace(voiEvidence) != "" {
		text = "MEU(| " + voiEvidence + ")"
	}
	pq, err := pbl.ParseQuery(m, text)
	if err != nil {
		c.report(err)
		return exitError
	}
	q := pq.(*ir.DecisionQuery) // MEU(...) lowers to nothing else
	cands, err := voiCands(m)
	if err != nil {
		c.report(err)
		return exitError
	}
	q2 := *q
	q2.Pos = ir.Pos{}
	meu, gains, err := pbl.RankVPI(m, x.ID, &q2, cands)
	if err != nil {
		c.report(err)
		return exitError
	}
	more := 0
	if voiTop > 0 && len(gains) > voiTop {
		gains, more = gains[:voiTop], len(gains)-voiTop
	}
	if c.json {
		o := &report.Object{}
		o.Set("decision", x.Name)
		ev := &report.Object{}
		for _, ob := range slices.Concat(q.Evidence, q.Do) {
			ev.Set(m.Vars[ob.Var].Name, m.Vars[ob.Var].States[ob.State])
		}
		for _, ob := range q.Soft {
			ls := make([]report.Float, len(ob.Lambda))
			for i, l := range ob.Lambda {
				ls[i] = report.Float(l)
			}
			ev.Set(m.Vars[ob.Var].Name, ls)
		}
		o.Set("evidence", ev)
		o.Set("meu", report.Float(meu))
		list := make([]*report.Object, len(gains))
		for i, g := range gains {
			e := &report.Object{}
			e.Set("variable", m.Vars[g.Var].Name)
			e.Set("vpi", report.Float(g.Value))
			list[i] = e
		}
		o.Set("candidates", list)
		c.writeJSON(o)
		return exitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %s\n", q.Text, report.Num(meu))
	if len(gains) == 0 {
		fmt.Fprintf(&b, "  no variable left to learn before %s\n", ir.Quote(x.Name))
		return c.write([]byte(b.String()))
	}
	t := &report.Table{}
	t.Add("  variable", "VPI at "+ir.Quote(x.Name))
	for _, g := range gains {
		t.Add("  "+m.Vars[g.Var].Name, report.Num(g.Value))
	}
	t.Write(&b)
	if more > 0 {
		fmt.Fprintf(&b, "  (and %d more)\n", more)
	}
	return c.write([]byte(b.String()))
}

// voiCmd runs pbl voi.
func voiCmd(c *cli, args []string) int {
	switch {
	case len(args) != 1:
		return c.usageErr("voi", "want one model file, got %s", plural(len(args), "argument"))
	case voiTarget != "" && voiDecision != "":
		return c.usageErr("voi", "--target and --decision: give one, the variable to learn about or the decision to inform")
	case voiTarget == "" && voiDecision == "":
		return c.usageErr("voi", "--target: name the variable to learn about (or --decision D, the decision to inform)")
	case voiTop < 0:
		return c.usageErr("voi", "--top %d: want a number of variables, at least 1 (or 0 for all)", voiTop)
	}
	if voiDecision != "" {
		return voiDecisionCmd(c, args[0])
	}
	m, opt, status := c.load("voi", args[0])
	if m == nil {
		return status
	}
	// The target and the evidence, validated as the query
	// entropy(X | evidence) is: the evidence is written as after a bar.
	text := "entropy(" + ir.Quote(voiTarget) + ")"
	if strings.TrimSpace(voiEvidence) != "" {
		text = "entropy(" + ir.Quote(voiTarget) + " | " + voiEvidence + ")"
	}
	pq, err := pbl.ParseQuery(m, text)
	if err != nil {
		c.report(err)
		return exitError
	}
	q := pq.(*ir.EntropyQuery) // entropy(...) lowers to nothing else
	cands, err := voiCands(m)
	if err != nil {
		c.report(err)
		return exitError
	}
	// Errors about the candidates and the evidence as a whole belong to
	// no position of the command line.
	q2 := *q
	q2.Pos = ir.Pos{}
	res, err := infer.VOI(m, &q2, cands, opt)
	if err != nil {
		c.report(err)
		return exitError
	}
	gains, more := res.Gains, 0
	if voiTop > 0 && len(gains) > voiTop {
		gains, more = gains[:voiTop], len(gains)-voiTop
	}
	if c.json {
		o := &report.Object{}
		o.Set("target", m.Vars[res.Target].Name)
		ev := &report.Object{}
		for _, ob := range q.Evidence {
			ev.Set(m.Vars[ob.Var].Name, m.Vars[ob.Var].States[ob.State])
		}
		for _, ob := range q.Real {
			ev.Set(m.Vars[ob.Var].Name, report.Float(ob.Value))
		}
		o.Set("evidence", ev)
		o.Set("entropy", report.Float(res.Entropy))
		list := make([]*report.Object, len(gains))
		for i, g := range gains {
			e := &report.Object{}
			e.Set("variable", m.Vars[g.Var].Name)
			e.Set("bits", report.Float(g.Bits))
			list[i] = e
		}
		o.Set("candidates", list)
		c.writeJSON(o)
		return exitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %s bits\n", q.Text, report.Num(res.Entropy))
	if len(gains) == 0 {
		b.WriteString("  no variable left to observe\n")
		return c.write([]byte(b.String()))
	}
	t := &report.Table{}
	t.Add("  variable", "bits")
	for _, g := range gains {
		t.Add("  "+m.Vars[g.Var].Name, report.Num(g.Bits))
	}
	t.Write(&b)
	if more > 0 {
		fmt.Fprintf(&b, "  (and %d more)\n", more)
	}
	return c.write([]byte(b.String()))
}
