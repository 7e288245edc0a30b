package lsp

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
)

// maxPartialPasses bounds the loads partialModel tries: each blanks the
// statements the previous one reported.
const maxPartialPasses = 8

// partialModel returns the model of the document's text without the
// statements that have errors, or nil: a file being typed has an error
// somewhere most of the time, and its other declarations still say what
// a variable is (hover, completion of states). Each statement an error
// is reported in (an error in an imported file: the import that brings
// it in), and each statement whose brackets do not close, is blanked —
// its bytes but its newlines made spaces, so that the positions of the
// rest stay — and the text loaded again, until it loads, at most
// maxPartialPasses times, within the time of ctx.
func (d *document) partialModel(ctx context.Context) *ir.Model {
	if len(d.errs) == 0 {
		return nil
	}
	src := []byte(d.text.src)
	errs := d.errs
	for pass := 0; pass < maxPartialPasses && ctx.Err() == nil; pass++ {
		t := newText(string(src))
		stmts := statements(d.path, t)
		if len(stmts) == 0 {
			return nil
		}
		blank := make([]bool, len(stmts))
		for i, s := range stmts {
			blank[i] = s.open && !isBlank(src[s.start:s.end])
		}
		for _, e := range errs {
			var off int
			switch {
			case !e.Pos.IsValid():
				return nil // no place to take out
			case e.Pos.File != "" && filepath.Clean(e.Pos.File) != filepath.Clean(d.path):
				var ok bool
				if off, ok = d.fileStmt(e.Pos.File); !ok {
					return nil // no statement to take out
				}
			default:
				off = t.fromPos(e.Pos.Line, e.Pos.Col)
			}
			i, _ := slices.BinarySearchFunc(stmts, off, func(s span, off int) int {
				switch {
				case s.end <= off:
					return -1
				case s.start > off:
					return 1
				}
				return 0
			})
			i = min(i, len(stmts)-1) // at the end of the text: the last statement
			if i > 0 && off == stmts[i].start && stmts[i-1].open {
				// A syntax error where a statement starts, after one
				// whose brackets do not close: the earlier one is at
				// fault (and blanked).
				continue
			}
			blank[i] = true
		}
		changed := false
		for i, s := range stmts {
			if blank[i] && !isBlank(src[s.start:s.end]) {
				changed = true
				for j := s.start; j < s.end; j++ {
					if src[j] != '\n' && src[j] != '\r' {
						src[j] = ' '
					}
				}
			}
		}
		if !changed {
			return nil
		}
		m, err := pbl.LoadWith(d.path, src, pbl.LoadOptions{Cancel: ctx.Done(), MaxEntries: maxEntries, RegularFilesOnly: true})
		if err == nil {
			return m
		}
		errs = errorList(err)
	}
	return nil
}

// A span is a statement's bytes.
type span struct {
	start, end int
	open       bool // its brackets do not close
}

// statementKeyword reports whether w starts a statement whatever the brackets before: a
// line that starts with one of them starts a statement even after a
// bracket left open (the usual state of a line being typed).
func statementKeyword(w string) bool {
	switch w {
	case "var", "query", "expect", "learn", "data", "space", "import", "mixture", "P":
		return true
	}
	return false
}

// statements splits a text into its top-level statements by its tokens: a
// statement starts at a token at the start of a line (column 1) outside
// any bracket (a word, a quoted name, or something stray such as a "}"
// too many), or at a statement keyword there whatever the brackets, and
// runs to the next. Scanning stops at a lexical error: the rest is the
// last statement.
func statements(path string, t *text) []span {
	sc := grammar.NewScanner(path, t.src)
	var out []span
	depth := 0
	for {
		tk, err := sc.Next()
		if err != nil || tk.EOF() {
			break
		}
		if tk.Pos.Column == 1 && (depth <= 0 || tk.Type == grammar.Ident && statementKeyword(tk.Value)) {
			if n := len(out); n > 0 {
				out[n-1].end, out[n-1].open = tk.Pos.Offset, depth != 0
			}
			out = append(out, span{start: tk.Pos.Offset})
			depth = 0
		}
		if tk.Type == grammar.Punct {
			switch tk.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
	}
	if n := len(out); n > 0 {
		out[n-1].end, out[n-1].open = len(t.src), depth != 0
	}
	if len(out) > 0 {
		out[0].start = 0 // comments and spaces before the first
	}
	return out
}

// isBlank reports whether b is only spaces and line ends.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}
