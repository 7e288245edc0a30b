package xmlbif

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/internal/xmltext"
	"github.com/pbl-lang/pbl/ir"
)

// maxRowPos is the largest number of rows of one table for which row
// positions are kept (for the positions of row-sum errors reported by
// ir.Builder.Finish).
const maxRowPos = 1 << 20

// maxHints is the number of unknown names for which a similar name is
// looked for; maxHintLen is the longest name (in bytes) for which one is.
const (
	maxHints   = 100
	maxHintLen = 200
)

// ReadFile reads the XMLBIF model in the file at path. An error reading the
// file is returned as is; errors in its contents are an ir.ErrorList, as
// for [Read].
func ReadFile(path string) (*ir.Model, error) { return importer.ReadFile(path, Read) }

// Read parses an XMLBIF model (see the package documentation for the
// dialect). Errors are an ir.ErrorList of *ir.Error positioned in filename
// (line:col, 1-based, rune columns). Malformed XML stops the reader at the
// first syntax error; every other error is collected and all are reported.
func Read(filename string, src []byte) (*ir.Model, error) {
	return importer.Read(filename, "XMLBIF", src, parse)
}

// parse reads src, decompressed, as Read.
func parse(filename string, src []byte) (*ir.Model, error) {
	r := newReader(filename, src)
	if !r.document() {
		return nil, r.b.Errs.Err() // malformed XML: the rest would mislead
	}
	return r.finish()
}

// reader reads one XMLBIF document. It walks the token stream of its
// tokenizer (see xmltok.go), matching start and end tags itself, to
// position the errors, declares variables as their VARIABLE elements end, and
// resolves the DEFINITIONs once the whole document is read, so that a
// DEFINITION may precede the VARIABLEs it names.
type reader struct {
	file string
	src  []byte // the text, in UTF-8; offsets are into it
	base int    // offset in src of the tokenizer's first byte (past a BOM)
	d    *tokenizer
	b    *ir.Builder

	// Position cache: positions are asked for in increasing order, so
	// line:col is computed incrementally.
	cOff, cLine, cCol int

	sawNetwork bool
	defs       []*defDecl
	broken     map[string]bool // variables too damaged to declare: references to them are not reported
	utils      []utilDecl      // the utility VARIABLEs, in order
	isUtil     map[string]bool // the names of utils
}

// utilDecl is a VARIABLE of TYPE="utility": not a variable of the model,
// but the name of a utility table, which its DEFINITION gives.
type utilDecl struct {
	name string
	pos  ir.Pos // of its NAME
}

// defDecl is a DEFINITION element, kept until the document is read.
type defDecl struct {
	pos   ir.Pos // of the DEFINITION tag
	tag   string // DEFINITION or PROBABILITY, as written
	child *text  // the FOR element, or nil
	given []*text
	table *text  // or nil
	tpos  ir.Pos // of the TABLE tag

	utility bool // the DEFINITION of a utility: one number per configuration of the GIVENs
}

// text is the character data of a leaf element (NAME, OUTCOME, FOR, GIVEN,
// TABLE) with what is needed to position any byte of it.
type text struct {
	s    string
	segs []seg // in order; segs[0].at == 0 if any
	end  ir.Pos
}

// seg is a piece of character data that starts at s[at:] and at pos. Within
// a piece, positions are found by counting lines and runes of s, which is
// exact unless the piece holds entity references or a CDATA section.
type seg struct {
	at  int
	pos ir.Pos
}

// bail is the panic value that stops the reader after malformed XML.
type bail struct{}

func newReader(filename string, src []byte) *reader {
	r := &reader{file: filename, src: src, b: ir.NewBuilder(filename), cLine: 1, cCol: 1, broken: map[string]bool{}, isUtil: map[string]bool{}}
	if enc, ok := declEncoding(src); ok && isLatin1(enc) {
		r.src = latin1ToUTF8(src)
	}
	in := r.src
	if bytes.HasPrefix(in, []byte("\uFEFF")) {
		in, r.base = in[3:], 3
	}
	r.d = newTokenizer(in, checkCharset)
	return r
}

// checkCharset accepts the encodings the reader understands. Latin-1 input
// was converted to UTF-8 before tokenizing began.
func checkCharset(label string) error {
	switch l := strings.ToLower(label); {
	case l == "us-ascii" || l == "ascii" || l == "utf8" || isLatin1(l):
		return nil
	}
	return &charsetError{fmt.Sprintf("unsupported encoding %q (use UTF-8, US-ASCII or ISO-8859-1)", label)}
}

type charsetError struct{ msg string }

func (e *charsetError) Error() string { return e.msg }

func isLatin1(label string) bool {
	switch strings.ToLower(label) {
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
		return true
	}
	return false
}

func latin1ToUTF8(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(src)/8)
	for _, c := range src {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}

// pos returns the position of byte offset off of the decoded input.
func (r *reader) pos(off int) ir.Pos {
	off += r.base
	if off > len(r.src) {
		off = len(r.src)
	}
	if off < r.cOff {
		r.cOff, r.cLine, r.cCol = 0, 1, 1
	}
	for _, c := range r.src[r.cOff:off] {
		switch {
		case c == '\n':
			r.cLine++
			r.cCol = 1
		case c < 0x80 || c >= 0xC0: // the first byte of a rune
			r.cCol++
		}
	}
	r.cOff = off
	return ir.Pos{File: r.file, Line: r.cLine, Col: r.cCol}
}

func (r *reader) offset() int { return r.d.offset() }

func (r *reader) errorf(pos ir.Pos, format string, args ...any) {
	r.b.Errorf(pos, format, args...)
}

// fatalf reports malformed XML and stops the reader.
func (r *reader) fatalf(pos ir.Pos, format string, args ...any) {
	r.errorf(pos, format, args...)
	panic(bail{})
}

// next returns the next token and the offset where it begins; nil at the
// end of the input.
func (r *reader) next() (any, int) {
	off := r.offset()
	tok, err := r.d.next()
	if err == io.EOF {
		return nil, off
	}
	if err != nil {
		var se *xmlSyntaxError
		var ce *charsetError
		switch {
		case errors.As(err, &ce):
			r.fatalf(r.pos(off), "%s", ce.msg)
		case errors.As(err, &se):
			// The tokenizer, as encoding/xml, notices a character XML
			// does not allow only once it has read past it, often at
			// the end of a token:
			// position the first such character of the token instead.
			if at, c, ok := r.badChar(off, r.offset()); ok {
				if c == utf8.RuneError {
					r.fatalf(r.pos(at), "malformed XML: invalid UTF-8")
				}
				r.fatalf(r.pos(at), "malformed XML: illegal character code %U", c)
			}
			r.fatalf(r.pos(r.offset()), "malformed XML: %s", se.msg)
		}
		r.fatalf(r.pos(r.offset()), "malformed XML: %v", err)
	}
	return tok, off
}

// badChar finds the first character that XML does not allow (see
// xmltext.IsChar), or a byte that is not UTF-8, in the decoded input between
// offsets from and to: its offset, the character (utf8.RuneError for a
// byte that is not UTF-8), and whether there is one.
func (r *reader) badChar(from, to int) (int, rune, bool) {
	in := r.src[r.base:]
	to = min(to, len(in))
	for i := from; i < to; {
		c, n := utf8.DecodeRune(in[i:])
		if c == utf8.RuneError && n == 1 || !xmltext.IsChar(c) {
			return i, c, true
		}
		i += n
	}
	return 0, 0, false
}

// document reads the whole document; it reports whether the XML was well
// formed, in which case the DEFINITIONs can be resolved.
func (r *reader) document() (ok bool) {
	defer func() {
		if x := recover(); x != nil {
			if _, isBail := x.(bail); !isBail {
				panic(x)
			}
			ok = false
		}
	}()
	root := false
	for {
		tok, off := r.next()
		switch t := tok.(type) {
		case nil:
			if !root {
				r.fatalf(r.pos(off), "no <BIF> element: this is not an XMLBIF file")
			}
			return true
		case startTag:
			switch {
			case root:
				r.errorf(r.pos(off), "unexpected <%s> after the end of the document", tagName(t.Name))
				r.skip(t, off)
			case is(t.Name, "BIF"):
				root = true
				r.bif(t, off)
			case is(t.Name, "NETWORK"): // a bare NETWORK, as in XMLBIF 0.2
				root = true
				r.network(t, off)
			default:
				root = true
				r.errorf(r.pos(off), "expected <BIF>, found <%s>", tagName(t.Name))
				r.skip(t, off)
			}
		case endTag:
			r.fatalf(r.pos(off), "malformed XML: unexpected </%s>", tagName(t.Name))
		case charData:
			r.strayText(t, off, "outside <BIF>")
		}
	}
}

// strayText reports character data other than white space where only
// elements belong.
func (r *reader) strayText(t charData, off int, where string) {
	s := bytes.Trim(t, " \t\r\n")
	if len(s) == 0 {
		return
	}
	if len(s) > 20 {
		// A new slice: appending to the token's bytes would write over
		// what follows them, the caller's source once (FuzzRead's
		// testdata/fuzz/FuzzRead/inplace_text).
		s = append(bytes.Clone(bytes.TrimRight(s[:20], " \t\r\n")), "..."...)
	}
	r.errorf(r.pos(off+len(t)-len(bytes.TrimLeft(t, " \t\r\n"))), "unexpected text %q %s", s, where)
}

// elements reads the content of the element start, which began at off, up
// to its end tag: it calls child for each child element, which must consume
// it, and reports text. It returns the offset just past the end tag.
func (r *reader) elements(start startTag, off int, child func(startTag, int)) int {
	for {
		tok, toff := r.next()
		switch t := tok.(type) {
		case nil:
			r.unclosed(start, off, toff)
		case startTag:
			child(t, toff)
		case endTag:
			r.checkEnd(start, off, t, toff)
			return r.offset()
		case charData:
			r.strayText(t, toff, "in <"+tagName(start.Name)+">")
		}
	}
}

func (r *reader) unclosed(start startTag, off, eof int) {
	r.fatalf(r.pos(eof), "malformed XML: unexpected end of input: <%s> at %s is not closed", tagName(start.Name), r.posNoCache(off))
}

// posNoCache is pos for an offset behind the cache.
func (r *reader) posNoCache(off int) ir.Pos {
	cOff, cLine, cCol := r.cOff, r.cLine, r.cCol
	p := r.pos(off)
	r.cOff, r.cLine, r.cCol = cOff, cLine, cCol
	return p
}

func (r *reader) checkEnd(start startTag, off int, end endTag, endOff int) {
	if end.Name != start.Name {
		p := r.pos(endOff)
		r.fatalf(p, "malformed XML: <%s> at %s is closed by </%s>", tagName(start.Name), r.posNoCache(off), tagName(end.Name))
	}
}

// skip consumes the element start and everything in it.
func (r *reader) skip(start startTag, off int) {
	type open struct {
		name xmlName
		off  int
	}
	stack := []open{{start.Name, off}}
	for len(stack) > 0 {
		tok, toff := r.next()
		switch t := tok.(type) {
		case nil:
			top := stack[len(stack)-1]
			r.unclosed(startTag{Name: top.name}, top.off, toff)
		case startTag:
			stack = append(stack, open{t.Name, toff})
		case endTag:
			top := stack[len(stack)-1]
			r.checkEnd(startTag{Name: top.name}, top.off, t, toff)
			stack = stack[:len(stack)-1]
		}
	}
}

// text reads the character data of a leaf element, reporting and skipping
// any element inside it.
func (r *reader) text(start startTag, off int) *text {
	t := &text{}
	var sb strings.Builder
	for {
		tok, toff := r.next()
		switch x := tok.(type) {
		case nil:
			r.unclosed(start, off, toff)
		case startTag:
			r.errorf(r.pos(toff), "unexpected <%s> inside <%s>, which holds only text", tagName(x.Name), tagName(start.Name))
			r.skip(x, toff)
		case endTag:
			r.checkEnd(start, off, x, toff)
			t.end = r.pos(toff)
			t.s = sb.String()
			return t
		case charData:
			t.segs = append(t.segs, seg{at: sb.Len(), pos: r.pos(toff)})
			sb.Write(x)
		}
	}
}

// posAt returns the position of byte i of t.s.
func (t *text) posAt(i int) ir.Pos {
	if len(t.segs) == 0 {
		return t.end
	}
	k := 0
	for k+1 < len(t.segs) && t.segs[k+1].at <= i {
		k++
	}
	return advance(t.segs[k].pos, t.s[t.segs[k].at:i])
}

// advance returns the position after s, which begins at p.
func advance(p ir.Pos, s string) ir.Pos {
	for _, c := range s {
		if c == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
	}
	return p
}

// name returns t's text without surrounding white space, and its position.
func (t *text) name() (string, ir.Pos) {
	s := strings.TrimLeft(t.s, xmlSpace)
	at := len(t.s) - len(s)
	return strings.TrimRight(s, xmlSpace), t.posAt(at)
}

const xmlSpace = " \t\r\n"

// isSpace reports whether c is XML white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// is reports whether n's local name is want, ignoring case.
func is(n xmlName, want string) bool { return strings.EqualFold(n.Local, want) }

// tagName renders n as written.
func tagName(n xmlName) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

func (r *reader) bif(start startTag, off int) {
	pos := r.pos(off)
	r.elements(start, off, func(t startTag, toff int) {
		if is(t.Name, "NETWORK") {
			r.network(t, toff)
			return
		}
		r.unexpected(t, toff, start, "NETWORK")
	})
	if !r.sawNetwork {
		r.errorf(pos, "<%s> holds no <NETWORK>", tagName(start.Name))
	}
}

// unexpected reports and skips an element that does not belong in parent.
func (r *reader) unexpected(t startTag, off int, parent startTag, allowed ...string) {
	h := ""
	if s := spell.Nearest(strings.ToUpper(t.Name.Local), allowed); s != "" && !strings.EqualFold(s, t.Name.Local) {
		h = fmt.Sprintf(" (did you mean <%s>?)", s)
	}
	r.errorf(r.pos(off), "unexpected <%s> in <%s>, expected <%s>%s", tagName(t.Name), tagName(parent.Name), strings.Join(allowed, ">, <"), h)
	r.skip(t, off)
}

func (r *reader) network(start startTag, off int) {
	if r.sawNetwork {
		r.errorf(r.pos(off), "second <NETWORK>: a file holds one network")
		r.skip(start, off)
		return
	}
	r.sawNetwork = true
	r.elements(start, off, func(t startTag, toff int) {
		switch {
		case is(t.Name, "VARIABLE"):
			r.variable(t, toff)
		case is(t.Name, "DEFINITION"), is(t.Name, "PROBABILITY"):
			r.definition(t, toff)
		case is(t.Name, "NAME"), is(t.Name, "PROPERTY"):
			r.skip(t, toff)
		default:
			r.unexpected(t, toff, start, "VARIABLE", "DEFINITION", "NAME", "PROPERTY")
		}
	})
}

func (r *reader) variable(start startTag, off int) {
	vpos := r.pos(off)
	var nameText *text // or nil
	typ := "nature"
	for _, a := range start.Attr {
		if is(a.Name, "TYPE") {
			typ = strings.Trim(a.Value, xmlSpace)
		}
	}
	var outcomes []*text
	r.elements(start, off, func(t startTag, toff int) {
		switch {
		case is(t.Name, "NAME"):
			if nameText != nil {
				r.errorf(r.pos(toff), "second <NAME> in <VARIABLE>")
				r.skip(t, toff)
				return
			}
			nameText = r.text(t, toff)
		case is(t.Name, "OUTCOME"), is(t.Name, "VALUE"): // VALUE: XMLBIF 0.2
			outcomes = append(outcomes, r.text(t, toff))
		case is(t.Name, "PROPERTY"):
			r.skip(t, toff)
		default:
			r.unexpected(t, toff, start, "NAME", "OUTCOME", "PROPERTY")
		}
	})
	if nameText == nil {
		r.errorf(vpos, "<VARIABLE> has no <NAME>")
		return
	}
	name, npos := nameText.name()
	if name == "" {
		r.errorf(npos, "empty variable <NAME>")
		return
	}
	decision := strings.EqualFold(typ, "decision")
	switch {
	case strings.EqualFold(typ, "utility"):
		r.utility(name, npos, outcomes)
		return
	case !decision && !strings.EqualFold(typ, "nature"):
		r.errorf(vpos, "variable %q has TYPE=%q: expected nature (a chance variable), decision or utility", name, typ)
		r.broken[name] = true
		return
	}
	if r.isUtil[name] {
		r.errorf(npos, "%q redeclared (first declared as a utility)", name)
		return
	}
	if len(outcomes) == 0 {
		r.errorf(npos, "variable %q has no <OUTCOME>", name)
		r.broken[name] = true
		return
	}
	states := make([]string, 0, len(outcomes))
	seen := make(map[string]bool, len(outcomes))
	bad := false
	for _, o := range outcomes {
		s, spos := o.name()
		switch {
		case s == "":
			r.errorf(spos, "empty <OUTCOME> in variable %q", name)
			bad = true
		case seen[s]:
			r.errorf(spos, "state %q of variable %q is listed twice", s, name)
			bad = true
		}
		seen[s] = true
		states = append(states, s)
	}
	if _, exists := r.b.Model().Lookup(name); exists {
		r.b.AddVar(npos, name, ir.Enum, states, 0) // reports the redeclaration
		return
	}
	if bad {
		r.broken[name] = true
		return
	}
	add := r.b.AddVar
	if decision {
		add = r.b.AddDecision
	}
	if _, ok := add(npos, name, ir.Enum, states, 0); !ok {
		r.broken[name] = true
		return
	}
}

// utility declares the utility name: at most one OUTCOME (aGrUM writes a
// utility as a variable of one state), whose text does not matter.
func (r *reader) utility(name string, npos ir.Pos, outcomes []*text) {
	if _, exists := r.b.Model().Lookup(name); exists || r.isUtil[name] {
		r.errorf(npos, "%q redeclared", name)
		return
	}
	r.isUtil[name] = true
	if len(outcomes) > 1 {
		_, opos := outcomes[1].name()
		r.errorf(opos, "utility %q has %d <OUTCOME>s: a utility has one value per configuration of its parents, and at most one OUTCOME", name, len(outcomes))
		r.broken[name] = true
		return
	}
	r.utils = append(r.utils, utilDecl{name: name, pos: npos})
}

func (r *reader) definition(start startTag, off int) {
	d := &defDecl{pos: r.pos(off), tag: tagName(start.Name)}
	r.elements(start, off, func(t startTag, toff int) {
		switch {
		case is(t.Name, "FOR"):
			if d.child != nil {
				r.errorf(r.pos(toff), "second <FOR> in <%s>: a definition is for one variable", d.tag)
				r.skip(t, toff)
				return
			}
			d.child = r.text(t, toff)
		case is(t.Name, "GIVEN"):
			d.given = append(d.given, r.text(t, toff))
		case is(t.Name, "TABLE"):
			if d.table != nil {
				r.errorf(r.pos(toff), "second <TABLE> in <%s>", d.tag)
				r.skip(t, toff)
				return
			}
			d.tpos = r.pos(toff)
			d.table = r.text(t, toff)
		case is(t.Name, "PROPERTY"):
			r.skip(t, toff)
		default:
			r.unexpected(t, toff, start, "FOR", "GIVEN", "TABLE", "PROPERTY")
		}
	})
	r.defs = append(r.defs, d)
}

// finish resolves the DEFINITIONs, reports variables without one, and
// validates the model.
func (r *reader) finish() (*ir.Model, error) {
	m := r.b.Model()
	hasDef := make([]bool, len(m.Vars))
	utilDef := map[string]*defDecl{} // the DEFINITION of each utility
	hints := 0
	// lookup resolves a name, reporting an unknown one with a hint.
	lookup := func(name string, pos ir.Pos, what string) (ir.VarID, bool) {
		if v, ok := m.Lookup(name); ok {
			return v.ID, true
		}
		if r.broken[name] {
			return 0, false // its VARIABLE was reported
		}
		if r.isUtil[name] {
			r.errorf(pos, "%s %q is a utility: a utility has no children", what, name)
			return 0, false
		}
		h := ""
		if hints < maxHints && len(name) <= maxHintLen {
			hints++
			h = hint(name, m.Names())
		}
		r.errorf(pos, "%s %q is not declared by any <VARIABLE>%s", what, name, h)
		return 0, false
	}
	for _, d := range r.defs {
		if d.child == nil {
			r.errorf(d.pos, "<%s> has no <FOR>", d.tag)
			continue
		}
		name, cpos := d.child.name()
		if r.isUtil[name] {
			if prev, dup := utilDef[name]; dup {
				r.errorf(cpos, "second <%s> for utility %q (first at %s)", d.tag, name, prev.pos)
				continue
			}
			utilDef[name] = d
			continue
		}
		child, ok := lookup(name, cpos, "<FOR> variable")
		if !ok {
			continue
		}
		cv := m.Vars[child]
		k := len(cv.States)
		if hasDef[child] && cv.Decision {
			r.errorf(cpos, "second <%s> for decision %q", d.tag, name)
			continue
		}
		hasDef[child] = true
		parents, card, good := r.given(d, name, child, lookup)
		if cv.Decision {
			// The information parents; a TABLE, an initial policy if
			// any, is not needed and not read.
			if good {
				r.b.SetInformation(cpos, child, parents)
			}
			continue
		}
		if !good {
			// The shape of the table is unknown: give the child a
			// placeholder, so that it is not also reported as undefined.
			r.b.SetCPT(cpos, child, nil, importer.Uniform(k), []ir.Pos{{}})
			continue
		}
		n, ok := ir.TableSize(append(card, k))
		switch {
		case !ok:
			r.errorf(cpos, "the table of %q is too large (more than %d entries)", name, ir.MaxTableSize)
		case d.table != nil && n > len(d.table.s):
			// Too many for the TABLE, whatever it holds: say so
			// without allocating the table.
			r.errorf(d.tpos, "%s", countMsg(name, k, len(parents), n, len(strings.Fields(d.table.s))))
			ok = false
		}
		if !ok {
			r.b.SetCPT(cpos, child, nil, importer.Uniform(k), []ir.Pos{{}})
			continue
		}
		vals, rowPos := r.table(d, name, k, len(parents), n)
		if vals == nil {
			// Reported. A placeholder keeps the parents for the check
			// for cycles, if the table is of a size the input could hold.
			if n > len(r.src) {
				r.b.SetCPT(cpos, child, nil, importer.Uniform(k), []ir.Pos{{}})
				continue
			}
			vals, rowPos = uniformN(n, k), nil
		}
		if n/k > maxRowPos {
			rowPos = nil // malformed rows hold uniform values, so they pass
		}
		r.b.SetCPT(cpos, child, parents, vals, rowPos)
	}
	for i, v := range m.Vars {
		if !hasDef[i] && !v.Decision { // a decision without one is taken knowing nothing
			r.errorf(v.Pos, "variable %q has no <DEFINITION>", v.Name)
			r.b.SetCPT(v.Pos, v.ID, nil, importer.Uniform(len(v.States)), []ir.Pos{{}})
		}
	}
	for _, u := range r.utils {
		d := utilDef[u.name]
		if d == nil {
			r.errorf(u.pos, "utility %q has no <DEFINITION>", u.name)
			continue
		}
		_, cpos := d.child.name()
		parents, card, good := r.given(d, u.name, -1, lookup)
		if !good {
			continue
		}
		n, ok := ir.TableSize(card)
		switch {
		case !ok:
			r.errorf(cpos, "the table of utility %q is too large (more than %d entries)", u.name, ir.MaxTableSize)
			continue
		case d.table != nil && n > len(d.table.s):
			r.errorf(d.tpos, "%s", utilityCountMsg(u.name, n, len(strings.Fields(d.table.s))))
			continue
		}
		d.utility = true
		vals, _ := r.table(d, u.name, 1, len(parents), n)
		if vals == nil {
			continue // reported
		}
		r.b.AddUtility(cpos, u.name, parents, vals)
	}
	return r.b.Finish()
}

// given resolves the GIVEN variables of d, the DEFINITION of name (the
// variable child, or -1 for a utility): the parents, their numbers of
// states, and whether all were resolved without error.
func (r *reader) given(d *defDecl, name string, child ir.VarID, lookup func(string, ir.Pos, string) (ir.VarID, bool)) ([]ir.VarID, []int, bool) {
	m := r.b.Model()
	parents := make([]ir.VarID, 0, len(d.given))
	card := make([]int, 0, len(d.given)+1)
	good := true
	for _, g := range d.given {
		pname, ppos := g.name()
		if pname == name {
			what := "variable"
			if child < 0 {
				what = "utility"
			}
			r.errorf(ppos, "%s %q is given as its own parent", what, name)
			good = false
			continue
		}
		p, ok := lookup(pname, ppos, "<GIVEN> variable")
		if !ok {
			good = false
			continue
		}
		dup := false
		for _, q := range parents {
			dup = dup || q == p
		}
		if dup {
			r.errorf(ppos, "%q is given twice in the definition of %q", pname, name)
			good = false
			continue
		}
		parents = append(parents, p)
		card = append(card, len(m.Vars[p].States))
	}
	return parents, card, good
}

// utilityCountMsg explains a utility's table with got entries instead of
// want.
func utilityCountMsg(name string, want, got int) string {
	return fmt.Sprintf("the table of utility %q has %s, expected %d (one utility for each configuration of its parents)", name, ir.Plural(got, "entry"), want)
}

// table reads the TABLE of d, which must have n entries. It returns nil if
// the table is missing or has the wrong number of entries; rowPos[r] is the
// position of row r's first entry, or the zero Pos if a number of the row
// is malformed (the row then holds a uniform distribution).
func (r *reader) table(d *defDecl, name string, k, parents, n int) ([]float64, []ir.Pos) {
	if d.table == nil {
		r.errorf(d.pos, "<%s> of %q has no <TABLE>", d.tag, name)
		return nil, nil
	}
	t := d.table
	s := t.s
	vals := make([]float64, 0, n)
	rowPos := make([]ir.Pos, 0, n/k)
	cur := cursor{t: t}
	count := 0    // entries seen
	var bad []int // rows with a malformed number
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if count++; count <= n {
			if len(vals)%k == 0 {
				rowPos = append(rowPos, cur.pos(i))
			}
			x, err := parseNumber(s[i:j])
			if err != "" {
				r.errorf(cur.pos(i), "%s %q in the table of %q", err, abbrev(s[i:j]), name)
				rowPos[len(rowPos)-1] = ir.Pos{} // reported: the row is not checked
				bad = append(bad, len(rowPos)-1)
			}
			vals = append(vals, x)
		}
		i = j
	}
	if count != n {
		if d.utility {
			r.errorf(d.tpos, "%s", utilityCountMsg(name, n, count))
		} else {
			r.errorf(d.tpos, "%s", countMsg(name, k, parents, n, count))
		}
		return nil, nil
	}
	for _, row := range bad {
		copy(vals[row*k:(row+1)*k], importer.Uniform(k))
	}
	return vals, rowPos
}

// countMsg explains a table with got entries instead of want.
func countMsg(name string, k, parents, want, got int) string {
	if parents == 0 {
		return fmt.Sprintf("the table of %q has %s, expected %d (one per state)", name, ir.Plural(got, "entry"), want)
	}
	return fmt.Sprintf("the table of %q has %s, expected %d (%s for each of %s)", name, ir.Plural(got, "entry"), want, ir.Plural(k, "state"), ir.Plural(want/k, "parent configuration"))
}

// cursor positions bytes of a text in increasing order in time linear in
// the length of the text.
type cursor struct {
	t   *text
	seg int
	at  int
	p   ir.Pos
	ok  bool
}

func (c *cursor) pos(i int) ir.Pos {
	t := c.t
	if len(t.segs) == 0 {
		return t.end
	}
	if !c.ok || i < c.at {
		c.seg, c.at, c.p, c.ok = 0, 0, t.segs[0].pos, true
	}
	for c.seg+1 < len(t.segs) && t.segs[c.seg+1].at <= i {
		c.seg++
		c.at, c.p = t.segs[c.seg].at, t.segs[c.seg].pos
	}
	c.p = advance(c.p, t.s[c.at:i])
	c.at = i
	return c.p
}

func abbrev(s string) string {
	if len(s) > 30 {
		return s[:30] + "..."
	}
	return s
}

// uniformN returns n values 1/k: rows of a uniform distribution over k
// states.
func uniformN(n, k int) []float64 {
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = 1 / float64(k)
	}
	return vals
}

// hint returns ` (did you mean "x"?)` for the candidate nearest to name,
// or "" if none is close enough. Candidates whose lengths differ too much
// to be near are not compared.
func hint(name string, candidates []string) string {
	n := utf8.RuneCountInString(name)
	slack := n/3 + 1
	var near []string
	for _, c := range candidates {
		if d := utf8.RuneCountInString(c) - n; -slack <= d && d <= slack {
			near = append(near, c)
		}
	}
	return importer.Hint(name, near)
}

// parseNumber parses a probability written in decimal, with an optional
// sign, fraction and exponent: 1, 0.25, .5, 1e-05, 1.0E-4. Forms that
// strconv.ParseFloat also accepts (inf, nan, hexadecimal, underscores) are
// malformed here. The error is "" or says what is wrong.
func parseNumber(s string) (float64, string) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, "malformed number"
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return 0, "malformed number"
		}
	}
	if i != len(s) {
		return 0, "malformed number"
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, "out-of-range number"
	}
	return x, ""
}
