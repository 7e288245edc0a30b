package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/structure"
)

// The libraries' errors carry kinds and facts and never name a flag (see
// TestLibraryNamesNoFlag); this file phrases the ones a user can avoid
// with a flag in terms of that flag, as report prints them.

// phrase returns e with its message in the command line's terms: advice
// to use variable elimination names --engine ve (and a clique too large
// names --max-table), and a limit on parents names --max-parents.
func phrase(e *ir.Error) *ir.Error {
	msg := e.Msg
	var tl *infer.TooLargeError
	if errors.As(e, &tl) && tl.Instead == infer.VE {
		lib := tl.Error()
		cli := strings.Replace(lib, "use variable elimination", "use variable elimination (--engine ve)", 1)
		cli = strings.Replace(cli, "raise the table limit", "raise the table limit (--max-table)", 1)
		msg = strings.Replace(msg, lib, cli, 1)
	}
	var mp *structure.MaxParentsError
	if errors.As(e, &mp) {
		lib := mp.Error()
		cli := strings.Replace(lib, "the limit of "+strconv.Itoa(mp.Limit)+" parents a variable may have", "--max-parents "+strconv.Itoa(mp.Limit), 1)
		msg = strings.Replace(msg, lib, cli, 1)
	}
	if msg == e.Msg {
		return e
	}
	c := *e
	c.Msg = msg
	return &c
}

// phraseExplanation returns the text of infer.ExplainQuery with an engine
// chosen by hand said to be chosen by --engine.
func phraseExplanation(text string) string {
	return strings.ReplaceAll(text, "(chosen by the caller)", "(chosen by --engine)")
}
