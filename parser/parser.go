package parser

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
)

// Parse parses a .pbl file. On error it returns an ir.ErrorList holding
// the first syntax error, positioned in filename.
func Parse(filename string, src []byte) (f *grammar.File, err error) {
	defer recoverErr(filename, &err)
	p := newParser(filename, string(src))
	return p.file_(), nil
}

// ParseString is Parse of source held as a string (no copy).
func ParseString(filename, src string) (f *grammar.File, err error) {
	defer recoverErr(filename, &err)
	p := newParser(filename, src)
	return p.file_(), nil
}

// ParseLean parses a .pbl file as Parse does, errors included, for a tree
// that is lowered once: it checks each variable declaration and
// distribution but keeps only its position, in File.Lazy (not in Stmts),
// whose VarDecls and Dists parse them again from src. A large model's
// tree then holds a few bytes per such statement, rather than a node per
// name and number (15–20 times the source), and each table's tree lives
// only while it is lowered; the price is a second parse of those
// statements. src must not change while the tree is in use, and must be
// under 2 GiB.
func ParseLean(filename, src string) (f *grammar.File, err error) {
	defer recoverErr(filename, &err)
	p := newParser(filename, src)
	p.lazy = grammar.NewLazyStmts(filename,
		func(pos lexer.Position) *grammar.VarDecl {
			q := reparser(filename, src, pos)
			defer q.recheck()
			return q.varDecl()
		},
		func(pos lexer.Position) *grammar.Dist {
			q := reparser(filename, src, pos)
			defer q.recheck()
			return q.dist()
		})
	return p.file_(), nil
}

// reparser returns a parser of src from pos, the position of a statement
// that ParseLean checked.
func reparser(filename, src string, pos lexer.Position) *parser {
	p := &parser{file: filename, sc: grammar.NewScannerAt(src, pos)}
	p.next()
	return p
}

// recheck, deferred by a lazy statement's parse, turns the syntax error
// that its first parse ruled out (src changed since) into a plain panic.
func (p *parser) recheck() {
	if r := recover(); r != nil {
		if b, ok := r.(bailout); ok {
			panic(fmt.Sprintf("parser: a statement that parsed once fails again (its source changed?): %v", b.err))
		}
		panic(r)
	}
}

// ParseQuery parses a single query such as `P(Campfire | Storm=true)`.
// filename names the source in error positions (e.g. "query").
func ParseQuery(filename, text string) (q *grammar.Query, err error) {
	defer recoverErr(filename, &err)
	p := newParser(filename, text)
	if !p.isQueryStart() {
		p.fail(p.tok.Pos, "expected a query such as P(X | Y=y), MPE(...), MAP(...) or indep(...), found %s", describe(p.tok))
	}
	res := p.query() // not q: on error, q must stay nil
	if p.tok.Type != grammar.EOF {
		p.fail(p.tok.Pos, "unexpected %s after the query", describe(p.tok))
	}
	return res, nil
}

// recoverErr turns an internal panic into an error at the file's start, so
// that no input can crash the caller.
func recoverErr(filename string, err *error) {
	if r := recover(); r != nil {
		if b, ok := r.(bailout); ok {
			*err = ir.ErrorList{b.err}
			return
		}
		*err = ir.ErrorList{ir.Errorf(ir.Pos{File: filename, Line: 1, Col: 1}, "internal error while parsing: %v", r)}
	}
}

// Pos converts a participle position.
func Pos(p lexer.Position) ir.Pos {
	return ir.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}

// convert turns a participle error into an ir.ErrorList with a message in
// pbl's words.
func convert(filename string, err error) error {
	var ut *participle.UnexpectedTokenError
	var pe participle.Error
	switch {
	case errors.As(err, &ut):
		pos := Pos(ut.Unexpected.Pos)
		pos.File = filename
		msg := "unexpected " + describe(ut.Unexpected)
		if ut.Expect != "" {
			msg += ", expected " + ut.Expect
		}
		return ir.ErrorList{&ir.Error{Pos: pos, Msg: msg}}
	case errors.As(err, &pe):
		pos := Pos(pe.Position())
		pos.File = filename
		return ir.ErrorList{&ir.Error{Pos: pos, Msg: cleanMsg(pe.Message())}}
	}
	return ir.ErrorList{ir.Errorf(ir.Pos{File: filename}, "%v", err)}
}

// describe names a token for an error message.
func describe(t lexer.Token) string {
	switch t.Type {
	case grammar.EOF:
		return "end of file"
	case grammar.String:
		return fmt.Sprintf("string %q", t.Value)
	case grammar.Number:
		return "number " + t.Value
	}
	return fmt.Sprintf("%q", t.Value)
}

// cleanMsg rewrites participle's messages into pbl's style: lower case, no
// Go type names.
func cleanMsg(msg string) string {
	msg = strings.ReplaceAll(msg, "<ident>", "name")
	msg = strings.ReplaceAll(msg, "<string>", "string")
	msg = strings.ReplaceAll(msg, "<number>", "number")
	msg = strings.ReplaceAll(msg, "<eof>", "end of file")
	return msg
}
