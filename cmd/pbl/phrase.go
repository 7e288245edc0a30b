package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
	"github.com/pbl-lang/pbl/structure"
)

// The libraries' errors carry kinds and facts and never name a flag (see
// TestLibraryNamesNoFlag); this file phrases the ones a user can avoid
// with a flag in terms of that flag, as report prints them.

// phrase returns e with its message in the command line's terms: advice
// to use variable elimination names --engine ve (and a clique too large
// names --max-table), an input over the limit names --max-input, and a
// limit on parents names --max-parents; the exact engines' refusal of a
// discrete variable with a real parent names --engine lw; a data set bound by --data, and
// the hypotheses asked for by --top, name those flags.
func phrase(e *ir.Error) *ir.Error {
	msg := e.Msg
	var tl *infer.TooLargeError
	if errors.As(e, &tl) && tl.Instead == infer.VE {
		lib := tl.Error()
		cli := strings.Replace(lib, "use variable elimination", "use variable elimination (--engine ve)", 1)
		cli = strings.Replace(cli, "raise the table limit", "raise the table limit (--max-table)", 1)
		msg = strings.Replace(msg, lib, cli, 1)
	}
	var tle *infer.TimeLimitError
	if errors.As(e, &tle) {
		msg = strings.Replace(msg, "the time limit of", "--time-limit", 1)
	}
	var in *input.TooLargeError
	if errors.As(e, &in) {
		lib := in.Error()
		msg = strings.Replace(msg, lib, lib+" (raise it with --max-input)", 1)
	}
	var mp *structure.MaxParentsError
	if errors.As(e, &mp) {
		lib := mp.Error()
		has := ir.Plural(mp.Parents, "parent") + " in the starting graph (or required)"
		if mp.Required {
			has = ir.Plural(mp.Parents, "required parent")
		}
		cli := fmt.Sprintf("%s has %s, more than --max-parents %d", mp.Var, has, mp.Limit)
		msg = strings.Replace(msg, lib, cli, 1)
	}
	var ud *ir.UnknownDataError
	if errors.As(e, &ud) && !strings.Contains(msg, "--data ") {
		lib := ud.Error()
		msg = strings.Replace(msg, lib, "--data "+ud.Name+"=...: "+lib, 1)
	}
	var bd *pbl.BoundDataError
	if errors.As(e, &bd) {
		lib := bd.Error()
		msg = strings.Replace(msg, lib, fmt.Sprintf("%v (in %s, bound with --data)", bd.Err, bd.File), 1)
	}
	var he *infer.HybridError
	if errors.As(e, &he) {
		lib := he.Error()
		msg = strings.Replace(msg, lib, lib+fmt.Sprintf(" (--engine %s; --engine auto, the default without --exact, falls back on it)", he.Instead), 1)
	}
	var top *pbl.TopError
	if errors.As(e, &top) {
		lib := top.Error()
		msg = strings.Replace(msg, lib, fmt.Sprintf("%s would list %d hypotheses (--top %d), more than the limit of %d: lower --top", top.Query, top.List, top.Top, pbl.MaxTop), 1)
	}
	if msg == e.Msg {
		return e
	}
	c := *e
	c.Msg = msg
	return &c
}

// style is how the command line prints an approximate answer's reason:
// the limits named by their flags ("more than --max-memory's 64 MiB").
var style = report.Style{Limits: infer.LimitNames{
	Memory: "--max-memory's",
	Table:  "--max-table's",
	Time:   "--time-limit's",
	Caller: "chosen by --engine",
}}

// phraseExplanation returns the text of infer.ExplainQuery with an engine
// chosen by hand said to be chosen by --engine.
func phraseExplanation(text string) string {
	return strings.ReplaceAll(text, "(chosen by the caller)", "(chosen by --engine)")
}
