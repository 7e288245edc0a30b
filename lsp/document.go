package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// A document is an open .pbl file: its text and what the server learned
// of it at the last change.
type document struct {
	uri     string
	path    string // the file path of a file: URI, else the URI itself
	version int
	text    *text

	model *ir.Model    // the text's model, or nil if it has errors
	last  *ir.Model    // the last model of this document that loaded, or nil
	errs  ir.ErrorList // the text's errors: parse, import, lowering, learning
	decls []decl       // the declarations, scanned from the tokens

	part     *ir.Model // the model of the text without its statements with errors (partialModel), or nil
	partDone bool      // part was computed for this text

	answered chan struct{} // closed when the last answer a hover started ends (answerWithin), or nil
}

// A decl is a name the document declares.
type decl struct {
	name     string
	kind     int    // Symbol*
	detail   string // "var", "data", "space", "mixture"
	off, end int    // the name's bytes
	line     int    // the declaration's line (zero-based)
	stmtEnd  int    // the byte offset where the line of the declaring statement's name ends
}

// newDocument reads a document's text and analyses it.
func newDocument(uri string, version int, src string) *document {
	d := &document{uri: uri, path: uriPath(uri), version: version}
	d.update(src)
	return d
}

// learnTimeout bounds the time a learn statement runs when a document is
// analysed — its iterative method (em, gradient), whose options may ask
// for ages (restarts = 1000000, max_iter = 1000000, tol = 0), and the
// reading of its data file, which may be large — as the server, answering
// one message at a time, would hang meanwhile. Such a statement is
// reported, for pbl check or pbl learn to run. It bounds partialModel's
// loads too.
var learnTimeout = 2 * time.Second

// maxEntries bounds the entries of a document's distributions' tables
// together: the command line's --max-table default.
var maxEntries = infer.DefaultMaxTable

// update replaces the text and analyses it again. The distributions'
// tables together are limited to the entries of the command line's
// --max-table default (a compact table of a few hundred bytes can ask for
// 2^29 entries, seconds and gigabytes on every change), a learn
// statement's method to learnTimeout, and data to regular files (a named
// pipe would block the server until something wrote to it).
func (d *document) update(src string) {
	d.text = newText(src)
	d.decls = scanDecls(d.path, d.text)
	d.part, d.partDone = nil, false
	ctx, cancel := context.WithTimeout(context.Background(), learnTimeout)
	m, err := pbl.LoadWith(d.path, []byte(src), pbl.LoadOptions{Cancel: ctx.Done(), MaxEntries: maxEntries, RegularFilesOnly: true})
	cancel()
	d.model, d.errs = m, nil
	if err != nil {
		d.model = nil
		d.errs = errorList(err)
		for i, e := range d.errs {
			if errors.Is(e, learn.ErrCanceled) {
				c := *e
				c.Msg = fmt.Sprintf("learning takes longer than %v: the language server stops it (run pbl check or pbl learn)", learnTimeout)
				d.errs[i] = &c
			}
		}
		return
	}
	d.last = m
}

// errorList returns err's user errors, one per position.
func errorList(err error) ir.ErrorList {
	var l ir.ErrorList
	var e *ir.Error
	switch {
	case errors.As(err, &l):
		return l
	case errors.As(err, &e):
		return ir.ErrorList{e}
	}
	return ir.ErrorList{{Msg: err.Error()}}
}

// maxDiagnostics is the most diagnostics published for a document: a
// data file's header with 40,000 columns that name no variable gave as
// many, which an editor lists one by one.
var maxDiagnostics = 100

// diagnostics returns the document's errors as LSP diagnostics, at most
// maxDiagnostics: past maxDiagnostics-1, the last says how many more
// there are, at the first of them. An error in an imported file is shown
// on the import that brings it in, naming its place.
func (d *document) diagnostics() []Diagnostic {
	out := []Diagnostic{}
	for i, e := range d.errs {
		if i == maxDiagnostics-1 && len(d.errs) > maxDiagnostics {
			diag := d.diagnostic(e)
			diag.Message = fmt.Sprintf("and %d more errors (pbl check lists them all)", len(d.errs)-i)
			return append(out, diag)
		}
		out = append(out, d.diagnostic(e))
	}
	return out
}

// diagnostic returns an error as an LSP diagnostic.
func (d *document) diagnostic(e *ir.Error) Diagnostic {
	diag := Diagnostic{Severity: SeverityError, Source: "pbl", Message: e.Msg}
	switch {
	case !e.Pos.IsValid():
		diag.Range = d.text.tokenRange(0)
	case e.Pos.File != "" && filepath.Clean(e.Pos.File) != filepath.Clean(d.path):
		diag.Message = fmt.Sprintf("%s: %s", e.Pos, e.Msg)
		diag.Range = d.importRange(e.Pos.File)
	default:
		diag.Range = d.text.tokenRange(d.text.fromPos(e.Pos.Line, e.Pos.Col))
	}
	return diag
}

// importRange returns the range of the path of the statement that
// brings file in (fileRef), else of the first import (file comes in by
// way of one); the start of the text if there is none.
func (d *document) importRange(file string) Range {
	off, _ := d.fileStmt(file)
	return d.text.tokenRange(off)
}

// fileStmt returns the offset of the path that brings file in: the one
// that names it (fileRef), else the first import's; ok is false if there
// is neither.
func (d *document) fileStmt(file string) (off int, ok bool) {
	if off, ok := d.fileRef(file); ok {
		return off, true
	}
	sc := grammar.NewScanner(d.path, d.text.src)
	prevImport := false
	for {
		tk, err := sc.Next()
		if err != nil || tk.EOF() {
			break
		}
		if prevImport && tk.Type == grammar.String {
			return tk.Pos.Offset, true
		}
		prevImport = tk.Type == grammar.Ident && tk.Value == "import"
	}
	return 0, false
}

// fileRef returns the offset of the path that names file in the text: an
// import's (import "base.pbl"), a data file's (data D = "d.csv", learn
// from "d.csv"), relative to the document's directory; ok is false if
// none names it (file comes in by way of an import).
func (d *document) fileRef(file string) (off int, ok bool) {
	sc := grammar.NewScanner(d.path, d.text.src)
	prev := ""
	for {
		tk, err := sc.Next()
		if err != nil || tk.EOF() {
			break
		}
		if tk.Type == grammar.String && (prev == "import" || prev == "from" || prev == "=") {
			path := tk.Value
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(d.path), path)
			}
			if filepath.Clean(path) == filepath.Clean(file) {
				return tk.Pos.Offset, true
			}
		}
		prev = tk.Value
		if tk.Type == grammar.String {
			prev = ""
		}
	}
	return 0, false
}

// bestModel returns the model to answer from: this text's; else, as an
// editor's file has errors most of the time it is being typed, the model
// of this text without the statements that have errors (partialModel,
// computed once per text, within learnTimeout); else the last one that
// loaded (names may be stale).
func (d *document) bestModel() *ir.Model {
	if d.model != nil {
		return d.model
	}
	if !d.partDone {
		d.partDone = true
		ctx, cancel := context.WithTimeout(context.Background(), learnTimeout)
		d.part = d.partialModel(ctx)
		cancel()
	}
	if d.part != nil {
		return d.part
	}
	return d.last
}

// scanDecls finds the declarations by their tokens, so that a file with
// errors still has its symbols: "var A, B: …" at the start of a line, and
// "data D", "space H", "mixture C" likewise. Scanning stops at a lexical
// error.
func scanDecls(path string, t *text) []decl {
	sc := grammar.NewScanner(path, t.src)
	var out []decl
	type tok struct {
		val       string
		off, line int
		first     bool // the first token of its line
	}
	var toks []tok
	prevLine := 0
	for {
		tk, err := sc.Next()
		if err != nil || tk.EOF() {
			break
		}
		toks = append(toks, tok{tk.Value, tk.Pos.Offset, tk.Pos.Line - 1, tk.Pos.Line != prevLine})
		prevLine = tk.Pos.Line
	}
	lineEnd := func(line int) int { return t.lines[line] + len(t.line(line)) }
	for i := 0; i < len(toks); i++ {
		k := toks[i]
		if !k.first || i+1 >= len(toks) || !isIdent(toks[i+1].val) {
			continue
		}
		add := func(j int, kind int, detail string) {
			n := toks[j]
			// The declaration runs to the end of its name's line, which
			// may come after the keyword's: the name must lie inside it.
			out = append(out, decl{name: n.val, kind: kind, detail: detail, off: n.off, end: n.off + len(n.val), line: k.line, stmtEnd: lineEnd(max(k.line, n.line))})
		}
		switch k.val {
		case "var":
			j := i + 1
			for ; j < len(toks) && isIdent(toks[j].val); j++ {
				add(j, SymbolVariable, "var")
				if j+1 >= len(toks) || toks[j+1].val != "," {
					break
				}
				j++
			}
		case "data":
			add(i+1, SymbolArray, "data")
		case "space":
			add(i+1, SymbolStruct, "space")
		case "mixture":
			add(i+1, SymbolClass, "mixture")
		}
	}
	return out
}

// isIdent reports whether a token's text is an identifier.
func isIdent(s string) bool {
	return s != "" && !isDigitByte(s[0]) && strings.IndexFunc(s, func(r rune) bool { return !isWordByte(byte(min(r, 0x80))) }) < 0
}
