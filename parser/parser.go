package parser

import (
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/loc"
)

// Parse parses a .pbl file. On error it returns a loc.ErrorList holding
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
// statements. src must not change while the tree is in use. (Source of
// 2 GiB or more is parsed whole: its offsets do not fit the positions
// kept.)
func ParseLean(filename, src string) (f *grammar.File, err error) {
	defer recoverErr(filename, &err)
	return parseLean(filename, src, nil), nil
}

// ParseLeanFrom is ParseLean of source that r holds too, from offset 0 (a
// file that src was read from, or the bytes src views): the lazy
// statements are read again from r rather than kept in src, and the
// tree's other strings are copied, so that the tree holds no reference to
// src: the caller can drop the source once parsed, or reuse its memory,
// and a large model is not held in memory as its source and as what it
// is lowered to at once. A
// statement read again is checked against a hash taken as it was first
// parsed; if r cannot be read or no longer holds it, the iteration of the
// lazy statements stops, and LazyStmts.Err returns a *loc.Error matching
// ErrSourceChanged or the read's error.
func ParseLeanFrom(filename, src string, r io.ReaderAt) (f *grammar.File, err error) {
	defer recoverErr(filename, &err)
	return parseLean(filename, src, r), nil
}

// parseLean is ParseLean and, if r is not nil, ParseLeanFrom.
func parseLean(filename, src string, r io.ReaderAt) *grammar.File {
	text := src        // the source the lazy statements are parsed again from, or ""
	var rd *stmtReader // else where they are read again from
	var reused pool    // the nodes of the trees parsed again with reuse
	// The parser and scanner of each statement parsed again, reused from
	// one to the next (the trees do not refer to them).
	var qp parser
	var sc grammar.Scanner
	again := func(at grammar.LazyAt, reuse bool) (q *parser, err error) {
		defer func() {
			if q != nil && reuse {
				reused.reset()
				q.pool = &reused
			}
		}()
		if rd == nil {
			sc = *grammar.NewScannerAt(text, at.Pos)
			qp = parser{file: filename, sc: &sc}
			q = &qp
			q.next()
			return q, nil
		}
		stmt, err := rd.text(at.Pos.Offset, at.End)
		if err != nil {
			return nil, &loc.Error{Pos: Pos(at.Pos), Msg: fmt.Sprintf("cannot read the file again: %v", err), Err: err}
		}
		if uint32(maphash.String(sumSeed(), stmt)) != at.Sum {
			return nil, changed(at.Pos)
		}
		start := at.Pos
		start.Offset = 0 // in stmt; read adds base
		sc = *grammar.NewScannerAt(stmt, start)
		qp = parser{file: filename, sc: &sc, base: at.Pos.Offset, reread: true}
		q = &qp
		defer q.recheck(at.Pos, &err)
		q.next()
		return q, nil
	}
	p := newParser(filename, src)
	if len(src) > math.MaxInt32 {
		// LazyStmts keep 32-bit offsets: parse the whole tree.
		return p.file_()
	}
	p.sums = r != nil
	p.lazy = grammar.NewLazyStmts(filename, parseAgain(again, (*parser).varDecl), parseAgain(again, (*parser).dist))
	f := p.file_()
	if r != nil {
		cloneStrings(reflect.ValueOf(f.Stmts))
		text, rd = "", &stmtReader{r: r}
	}
	return f
}

// parseAgain returns the function that parses a lazy statement again
// with parse, on the parser again sets at the statement.
func parseAgain[T any](again func(at grammar.LazyAt, reuse bool) (*parser, error), parse func(*parser) *T) func(grammar.LazyAt, bool) (*T, error) {
	return func(at grammar.LazyAt, reuse bool) (_ *T, err error) {
		q, err := again(at, reuse)
		if err != nil {
			return nil, err
		}
		defer q.recheck(at.Pos, &err)
		return parse(q), nil
	}
}

// sumSeed returns the seed of the hashes of lazy statements, which
// ParseLeanFrom takes and checks in the same process; it is made at the
// first use, not at start-up.
func sumSeed() maphash.Seed {
	sumSeedOnce.Do(func() { sumSeedValue = maphash.MakeSeed() })
	return sumSeedValue
}

var (
	sumSeedOnce  sync.Once
	sumSeedValue maphash.Seed
)

// changed is the error of a statement that reads differently the second
// time.
func changed(at grammar.Position) error {
	return &loc.Error{Pos: Pos(at), Msg: "the file changed while it was loaded (this statement reads differently the second time)", Err: ErrSourceChanged}
}

// stmtReader reads the text of statements again, in chunks.
type stmtReader struct {
	r   io.ReaderAt
	buf string // the source from offset off
	off int
}

// readChunk is how much stmtReader reads at once.
const readChunk = 256 << 10

// text returns the source from offset off to end.
func (s *stmtReader) text(off, end int) (string, error) {
	if end < off {
		return "", io.ErrUnexpectedEOF
	}
	if off < s.off || end > s.off+len(s.buf) {
		b := make([]byte, max(readChunk, end-off))
		n, err := s.r.ReadAt(b, int64(off))
		if n < end-off {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF // the file is shorter than it was
			}
			return "", err
		}
		// b is not written again: the strings of the statements share it
		// (while their trees live; the lowering copies what it keeps).
		s.buf, s.off = unsafe.String(&b[0], n), off
	}
	return s.buf[off-s.off : end-s.off], nil
}

// cloneStrings replaces every string that v holds (through pointers,
// interfaces, slices and exported fields) by a copy.
func cloneStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			cloneStrings(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			cloneStrings(v.Index(i))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				cloneStrings(v.Field(i))
			}
		}
	}
}

// recheck, deferred by a lazy statement's parse, turns the syntax error
// that its first parse ruled out into an error matching ErrSourceChanged
// if the statement was read again from a file (that changed since,
// beyond what the hash saw), else into a plain panic (src changed since,
// which ParseLean rules out).
func (p *parser) recheck(at grammar.Position, err *error) {
	if r := recover(); r != nil {
		if b, ok := r.(bailout); ok {
			if p.reread {
				*err = changed(at)
				return
			}
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
			*err = loc.ErrorList{b.err}
			return
		}
		*err = loc.ErrorList{loc.Errorf(loc.Pos{File: filename, Line: 1, Col: 1}, "internal error while parsing: %v", r)}
	}
}

// Pos converts a syntax tree position.
func Pos(p grammar.Position) loc.Pos {
	return loc.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}

// describe names a token for an error message.
func describe(t grammar.Token) string {
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
