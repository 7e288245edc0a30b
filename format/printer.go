package format

import (
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// printer writes the source's tokens in order, with the line breaks,
// spaces and alignment cells that the syntax tree's walk (nodes.go) asks
// for, and the comments found before each token. It builds lines of
// cells; render (layout.go) aligns them.
type printer struct {
	toks     []token
	comments []comment // the tokens' comments
	i        int       // the next source token

	lines []*line
	cur   *line // the line being written, or nil at the start of a line

	indent int
	sep    sep  // what goes before the next word
	blank  bool // a blank line may go before the next line, if the source has one
	group  int  // the alignment group of the next line started by newline, or 0
	span   int  // the number of columns the current cell spans, if more than 1
	groups int  // groups allocated
	broken bool // a line comment ended the line in the middle of a construct
	opened bool // the last word opened a block: no blank line may follow
}

// sep is the separation the layout asks for before the next word.
type sep int

const (
	sepNone    sep = iota // nothing: the word follows directly
	sepSpace              // one space
	sepWide               // two spaces: between the rows of a table on one line
	sepCell               // the end of an alignment cell (a space outside a group)
	sepNewline            // a line break
)

// line is one line of output: cells, of which all but the last are
// aligned with the same column of the other lines of their group, and a
// trailing comment aligned with those of the lines around it.
type line struct {
	indent  int    // in levels of four spaces
	group   int    // alignment group, or 0
	cells   []cell // at least one
	comment string // a trailing comment, or ""
	blank   bool   // an empty line
}

type cell struct {
	text strings.Builder
	span int // columns it covers, 1 for most
}

// internalError is a bug in the printer: the walk and the token stream
// disagree. Source recovers it as an error.
type internalError struct{ msg string }

func (p *printer) fail(format string, args ...any) {
	panic(internalError{fmt.Sprintf(format, args...)})
}

// peek returns the text of the next source token.
func (p *printer) peek() string { return p.toks[p.i].text }

// tok writes the next source token, which must be want (any if want is
// ""), after the comments before it.
func (p *printer) tok(want string) {
	t := &p.toks[p.i]
	if want != "" && t.text != want {
		p.fail("expected %q, found %q on line %d", want, t.text, t.line)
	}
	p.writeComments(t)
	p.word(t.text)
	p.i++
	if want == "" && !t.is(grammar.Punct) && p.peek() == "[" {
		p.index()
	}
}

// index writes a time index after a name, [t-1], [3], with no space
// inside: a name is followed directly by "[" only there (the "[" of a
// vector follows punctuation or the keyword normalize, written by
// tok with its text).
func (p *printer) index() {
	for {
		t := &p.toks[p.i]
		p.writeComments(t)
		p.word(t.text)
		p.i++
		if t.text == "]" || t.is(grammar.EOF) {
			return
		}
	}
}

// skip drops the next source token, which must be want. Its comments go
// to the token after it, as if written before that one.
func (p *printer) skip(want string) {
	t := &p.toks[p.i]
	if t.text != want {
		p.fail("expected %q to drop, found %q on line %d", want, t.text, t.line)
	}
	if t.cn > 0 {
		// The comments of one token and of the next are consecutive.
		next := &p.toks[p.i+1]
		next.cfirst = t.cfirst
		next.cn += t.cn
	}
	p.i++
}

// space, cellEnd and newline set what goes before the next word.
func (p *printer) space() { p.sep = max(p.sep, sepSpace) }

func (p *printer) wide() { p.sep = max(p.sep, sepWide) }

func (p *printer) cellEnd() { p.sep = max(p.sep, sepCell) }

// newline asks for a line break before the next word; blankOK allows a
// blank line there if the source has one.
func (p *printer) newline(blankOK bool) {
	p.sep = sepNewline
	p.blank = blankOK
}

// newGroup returns a new alignment group.
func (p *printer) newGroup() int {
	p.groups++
	return p.groups
}

// startLine begins a new line at the current indentation, in group g.
func (p *printer) startLine(indent, g int) {
	p.cur = &line{indent: indent, group: g, cells: []cell{{span: 1}}}
	p.lines = append(p.lines, p.cur)
}

// blankLine adds an empty line, unless one is there already or the output
// is empty.
func (p *printer) blankLine() {
	if n := len(p.lines); n == 0 || p.lines[n-1].blank {
		return
	}
	p.lines = append(p.lines, &line{blank: true})
	p.cur = nil
}

// word writes text after the separation asked for.
func (p *printer) word(text string) {
	switch {
	case p.sep == sepNewline || p.cur == nil && !p.broken:
		if p.blank && p.toks[p.i].blankBefore && !p.opened {
			p.blankLine()
		}
		p.startLine(p.indent, p.group)
		p.group = 0
	case p.broken:
		// A comment ended the line inside a construct: go on one level
		// further in, outside any alignment.
		p.startLine(p.indent+1, 0)
	case p.sep == sepCell && p.cur.group != 0:
		p.cur.cells = append(p.cur.cells, cell{span: 1})
	case p.sep == sepWide:
		p.cell().text.WriteString("  ")
	case p.sep >= sepSpace:
		p.cell().text.WriteByte(' ')
	}
	c := p.cell()
	c.text.WriteString(text)
	if p.span > 1 {
		c.span, p.span = p.span, 0
	}
	p.sep = sepNone
	p.blank = false
	p.opened = false
	p.broken = false
}

func (p *printer) cell() *cell { return &p.cur.cells[len(p.cur.cells)-1] }

// flush writes the comments before the next token now, at the current
// indentation (before a closing brace, at the indentation inside it).
func (p *printer) flush() {
	t := &p.toks[p.i]
	p.writeComments(t)
	t.cn = 0
}

// writeComments writes the comments before t. A comment on the line of the
// previous token stays at the end of that line (or in it, for a /* */
// comment followed by more on the line); one on a line of its own stays
// so, at the current indentation (one level further in inside a
// construct), and what follows it starts a new line.
func (p *printer) writeComments(t *token) {
	for _, c := range p.comments[t.cfirst : t.cfirst+t.cn] {
		switch {
		case c.trailing && p.cur != nil && c.block && !c.lineAfter && p.sep != sepNewline:
			// x /* c */ y: a word among the others, set off by a space
			// on each side but inside brackets and before punctuation
			// that follows a word directly: P(/* c */ A /* d */).
			cell := &p.cell().text
			if s := cell.String(); !strings.HasSuffix(s, "(") && !strings.HasSuffix(s, "[") {
				cell.WriteByte(' ')
			}
			cell.WriteString(c.text)
			if !strings.Contains(")]},:;", t.text) || t.text == "" {
				p.space()
			}
		case c.trailing && p.cur != nil:
			p.cur.comment = c.text
			p.lineEnded()
		default:
			inside := p.sep != sepNewline && (p.cur != nil || p.broken)
			if c.blankBefore && !p.opened && (inside || p.blank) {
				p.blankLine()
			}
			indent := p.indent
			if inside {
				indent++
			}
			p.startLine(indent, 0)
			p.cell().text.WriteString(c.text)
			p.opened = false
			p.lineEnded()
		}
	}
}

// lineEnded notes that a comment ended the current line: the next word
// goes on a new line.
func (p *printer) lineEnded() {
	p.cur = nil
	if p.sep != sepNewline {
		p.broken = true
	}
}
