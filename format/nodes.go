package format

import (
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// This file walks the syntax tree in source order and says, token by
// token, where lines break, where spaces go and what aligns; the tokens
// themselves come from the source (printer.tok).

func (p *printer) file(f *grammar.File) {
	for _, s := range f.Stmts {
		p.newline(true)
		p.stmt(s)
	}
	p.newline(true)
	p.flush()
}

func (p *printer) stmt(s grammar.Stmt) {
	switch s := s.(type) {
	case *grammar.Import:
		p.words("import", "")
	case *grammar.VarDecl:
		p.tok("var")
		p.space()
		p.names(len(s.Names))
		p.tok(":")
		p.space()
		p.typ(s.Type)
	case *grammar.Edges:
		for i, l := range s.Lists {
			if i > 0 {
				p.space()
				p.tok("->")
				p.space()
			}
			p.names(len(l.Names))
		}
		if s.Bidirected != nil {
			p.space()
			p.tok("<->")
			p.space()
			p.names(len(s.Bidirected.Names))
		}
	case *grammar.Dist:
		p.dist(s)
	case *grammar.QueryStmt:
		p.tok("query")
		p.space()
		p.query(s.Query)
	case *grammar.Expect:
		p.tok("expect")
		p.space()
		p.query(s.Query)
		p.space()
		p.tok("==")
		p.space()
		p.expectValue(s.Value)
		if s.Within != nil {
			p.space()
			p.words("within", "")
		}
	case *grammar.Classifier:
		p.words(s.Kind, "", "given")
		p.space()
		p.names(len(s.Features))
	case *grammar.Learn:
		p.learn(s)
	case *grammar.Mixture:
		p.words("mixture", "", "of")
		p.space()
		p.names(len(s.Vars))
		if p.peek() == "(" {
			p.options(len(s.Options), true)
		}
	case *grammar.Data:
		p.data(s)
	case *grammar.Space:
		p.space_(s)
	case *grammar.Decision:
		p.tok("decision")
		p.space()
		p.tok("")
		p.tok(":")
		p.space()
		p.typ(s.Type)
	case *grammar.Latent:
		p.tok("latent")
		p.space()
		p.names(len(s.Names))
		if s.Type != nil {
			p.tok(":")
			p.space()
			p.typ(s.Type)
		}
	case *grammar.Observed:
		if s.Data {
			p.words("observed", "data", "")
		} else {
			p.words("observed", "")
		}
	case *grammar.Utility:
		p.tok("utility")
		p.space()
		p.tok("")
		p.tok("(")
		p.names(len(s.Parents))
		p.tok(")")
		p.space()
		p.tok("=")
		p.space()
		p.rows(s.Rows)
	default:
		p.fail("unknown statement %T", s)
	}
}

// comma writes the ", " before the i-th element of a list (none before
// the first).
func (p *printer) comma(i int) {
	if i > 0 {
		p.tok(",")
		p.space()
	}
}

// words writes tokens separated by spaces, each as tok does ("" for a
// token of any text).
func (p *printer) words(want ...string) {
	for i, w := range want {
		if i > 0 {
			p.space()
		}
		p.tok(w)
	}
}

// names writes n names separated by commas.
func (p *printer) names(n int) {
	for i := range n {
		p.comma(i)
		p.tok("")
	}
}

func (p *printer) typ(t *grammar.Type) {
	switch {
	case t.States != nil:
		p.tok("{")
		p.names(len(t.States))
		p.tok("}")
	case t.Lo != nil:
		p.tok("")
		p.tok("..")
		p.tok("")
	default:
		p.tok("") // bool or real
	}
}

// dist writes P(X | A, B) = BODY.
func (p *printer) dist(d *grammar.Dist) {
	p.tok("P")
	p.tok("(")
	p.names(1 + len(d.More))
	if d.Parents != nil {
		p.space()
		p.tok("|")
		p.space()
		p.names(len(d.Parents))
	}
	p.tok(")")
	p.space()
	p.tok("=")
	p.space()
	if d.Normalize {
		p.tok("normalize")
		p.space()
	}
	b := d.Body
	switch {
	case b.Value != nil:
		p.value(b.Value)
	case b.Rows != nil || p.peek() == "{":
		p.rows(b.Rows)
	case b.Noisy != nil:
		p.noisy(b.Noisy)
	case b.Lookup != nil:
		p.lookup(b.Lookup)
	case b.Logic != nil:
		p.logic(b.Logic)
	default:
		p.fail("empty distribution body")
	}
}

// oneLine reports whether the bracketed construct opened by the next
// token closes on the same source line with no comment inside.
func (p *printer) oneLine() bool {
	depth := 0
	for j := p.i; j < len(p.toks); j++ {
		t := &p.toks[j]
		if j > p.i && t.cn > 0 {
			return false
		}
		if !t.is(grammar.Punct) {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return t.line == p.toks[p.i].line
			}
		}
	}
	return false
}

// open writes the opening brace of a block and indents; close undoes it.
func (p *printer) open(brace string) {
	p.tok(brace)
	p.opened = true
	p.indent++
}

func (p *printer) close(brace string) {
	p.newline(false)
	p.flush()
	p.indent--
	p.newline(false)
	p.tok(brace)
}

// rows writes { ROW ... }: on one line if it was written so, else one
// aligned row a line.
func (p *printer) rows(rows []*grammar.Row) {
	if p.oneLine() {
		p.tok("{")
		for i, r := range rows {
			p.between(i)
			p.row(r, false)
		}
		if len(rows) > 0 {
			p.space()
		}
		p.tok("}")
		return
	}
	p.open("{")
	g := p.newGroup()
	for _, r := range rows {
		p.newline(true)
		p.group = g
		p.row(r, true)
	}
	p.close("}")
}

// between separates row i of a table on one line from what precedes it:
// the brace, or two spaces from the row before.
func (p *printer) between(i int) {
	if i == 0 {
		p.space()
	} else {
		p.wide()
	}
}

// row writes STATES: VALUE and drops the row's separator.
func (p *printer) row(r *grammar.Row, aligned bool) {
	p.keys(len(r.States), aligned)
	p.value(r.Value)
	p.dropSeparator()
}

// keys writes a row's n states, each with its comma or colon ending a
// cell.
func (p *printer) keys(n int, aligned bool) {
	for i := range n {
		p.tok("")
		if i < n-1 {
			p.tok(",")
		} else {
			p.tok(":")
		}
		if aligned {
			p.cellEnd()
		} else {
			p.space()
		}
	}
}

func (p *printer) dropSeparator() {
	if t := &p.toks[p.i]; t.is(grammar.Punct) && (t.text == "," || t.text == ";") {
		p.skip(t.text)
	}
}

// noisy writes noisy_or(LINK, ...) on one line, or one aligned link a line
// if it was written over several.
func (p *printer) noisy(n *grammar.Noisy) {
	p.tok(n.Kind)
	multi := !p.oneLine()
	if multi {
		p.open("(")
	} else {
		p.tok("(")
	}
	g := p.newGroup()
	for i, l := range n.Links {
		p.comma(i)
		if multi {
			p.newline(true)
			p.group = g
		}
		p.tok("")
		p.tok(":")
		if multi {
			p.cellEnd()
		} else {
			p.space()
		}
		if l.Value != nil {
			p.value(l.Value)
		} else {
			p.rows(l.Rows)
		}
	}
	if multi {
		// The closing parenthesis ends the last link's line (the grammar
		// has no trailing comma to put before it on a line of its own),
		// unless comments come before it: then it closes like a brace.
		if p.toks[p.i].cn > 0 {
			p.close(")")
			return
		}
		p.indent--
	}
	p.tok(")")
}

// lookup writes lookup { CASE ... }, aligned like a table's rows, else
// spanning the states' columns.
func (p *printer) lookup(l *grammar.Lookup) {
	p.tok("lookup")
	p.space()
	if p.oneLine() {
		p.tok("{")
		for i, c := range l.Cases {
			p.between(i)
			p.lookupCase(c, false, 0)
		}
		if len(l.Cases) > 0 {
			p.space()
		}
		p.tok("}")
		return
	}
	width := 1
	for _, c := range l.Cases {
		width = max(width, len(c.States))
	}
	p.open("{")
	g := p.newGroup()
	for _, c := range l.Cases {
		p.newline(true)
		p.group = g
		p.lookupCase(c, true, width)
	}
	p.close("}")
}

func (p *printer) lookupCase(c *grammar.Case, aligned bool, width int) {
	if c.Else {
		p.span = width
		p.tok("else")
		p.tok(":")
		if aligned {
			p.cellEnd()
		} else {
			p.space()
		}
	} else {
		p.keys(len(c.States), aligned)
	}
	p.tok("")
	p.dropSeparator()
}

// logic writes a logical formula: A and not (B or C = s).
func (p *printer) logic(l *grammar.Logic) {
	for i, c := range l.Terms {
		if i > 0 {
			p.space()
			p.tok("or")
			p.space()
		}
		for j, lit := range c.Literals {
			if j > 0 {
				p.space()
				p.tok("and")
				p.space()
			}
			p.literal(lit)
		}
	}
}

func (p *printer) literal(l *grammar.Literal) {
	switch {
	case l.Not != nil:
		p.tok("not")
		p.space()
		p.literal(l.Not)
	case l.Paren != nil:
		p.tok("(")
		p.logic(l.Paren)
		p.tok(")")
	default:
		p.tok("")
		if l.Op != "" {
			p.space()
			p.words(l.Op, "")
		}
	}
}

// value writes a number, a vector, normal(MEAN, SPREAD), MEAN a number,
// a list or an expression (affine in the real parents), or logistic(A) /
// softmax(A1, ...), each argument an expression.
func (p *printer) value(v *grammar.Value) {
	switch {
	case v.Number != nil:
		p.tok("")
	case v.Vector != nil:
		p.vector(len(v.Vector))
	case v.Normal != nil:
		p.tok("normal")
		p.tok("(")
		if v.Normal.Linear != nil {
			p.expr(v.Normal.Linear)
		} else {
			p.array(v.Normal.Mean)
		}
		p.tok(",")
		p.space()
		p.argName(v.Normal.Named)
		p.array(v.Normal.Spread)
		p.tok(")")
	case v.Softmax != nil:
		p.tok(v.Softmax.Fn)
		p.tok("(")
		for i, a := range v.Softmax.Args {
			if i > 0 {
				p.tok(",")
				p.space()
			}
			p.expr(a)
		}
		p.tok(")")
	}
}

// argName writes `NAME = ` before a named argument (sd = 2), or nothing.
func (p *printer) argName(n *grammar.ArgName) {
	if n == nil {
		return
	}
	p.words("", "=")
	p.space()
}

// vector writes [n numbers].
func (p *printer) vector(n int) {
	p.tok("[")
	p.names(n)
	p.tok("]")
}

func (p *printer) array(a *grammar.Array) {
	if a.Number != nil {
		p.tok("")
		return
	}
	p.tok("[")
	for i, it := range a.Items {
		p.comma(i)
		p.array(it)
	}
	p.tok("]")
}

// query writes KIND(TERMS | TERMS).
func (p *printer) query(q *grammar.Query) {
	p.tok(q.Kind)
	p.tok("(")
	p.terms(q.Targets)
	if q.Bar {
		if q.Targets != nil {
			p.space()
		}
		p.tok("|")
		p.space()
		p.terms(q.Given)
	}
	p.tok(")")
}

func (p *printer) terms(ts []*grammar.Term) {
	for i, t := range ts {
		p.comma(i)
		p.term(t)
	}
}

func (p *printer) term(t *grammar.Term) {
	switch {
	case t.Star:
		p.tok("*")
	case t.Group != nil:
		p.tok("{")
		p.names(len(t.Group))
		p.tok("}")
	case t.Do != nil:
		p.tok("do")
		p.tok("(")
		p.term(t.Do)
		p.tok(")")
	default:
		p.tok("")
		switch {
		case t.State != nil:
			p.tok("=")
			p.tok("")
		case t.Soft != nil:
			p.tok("~")
			p.vector(len(t.Soft))
		}
	}
}

func (p *printer) expectValue(v *grammar.ExpectValue) {
	switch {
	case v.Vector != nil:
		p.vector(len(v.Vector))
	case v.Assign != nil:
		p.tok("{")
		for i := range v.Assign {
			p.comma(i)
			p.tok("")
			p.words(":", "")
		}
		p.tok("}")
	default:
		p.tok("") // a number, true or false
	}
}

// learn writes learn [X, Y] from DATA [with METHOD[(OPTIONS)]].
func (p *printer) learn(l *grammar.Learn) {
	p.tok("learn")
	p.space()
	if l.Vars != nil {
		p.names(len(l.Vars))
		p.space()
	}
	p.words("from", "")
	if l.Method != nil {
		p.space()
		p.words("with", "")
		if p.peek() == "(" {
			p.options(len(l.Options), false)
		}
	}
}

// options writes (NAME = VALUE, ...), after a space if spaced; an empty
// list is dropped.
func (p *printer) options(n int, spaced bool) {
	if n == 0 {
		p.skip("(")
		p.skip(")")
		return
	}
	if spaced {
		p.space()
	}
	p.tok("(")
	for i := range n {
		p.comma(i)
		p.words("", "=", "")
	}
	p.tok(")")
}

// data writes data D = "file.csv", or an inline table: the header and one
// row a line, aligned in columns.
func (p *printer) data(d *grammar.Data) {
	p.words("data", "", "=")
	p.space()
	if d.File != nil {
		p.tok("")
		return
	}
	p.open("{")
	g := p.newGroup()
	p.newline(false)
	p.group = g
	p.cells(len(d.Header))
	for _, r := range d.Rows {
		p.newline(true)
		p.group = g
		p.cells(len(r.Cells))
	}
	p.close("}")
}

// cells writes n cells of a data table's line, each ending a column.
func (p *printer) cells(n int) {
	for i := range n {
		p.tok("")
		if i < n-1 {
			p.tok(",")
			p.cellEnd()
		}
	}
}

// space_ writes space H { ITEM ... }, one item a line.
func (p *printer) space_(s *grammar.Space) {
	p.words("space", "")
	p.space()
	p.open("{")
	for _, it := range s.Items {
		p.newline(true)
		p.spaceItem(it)
	}
	p.close("}")
}

func (p *printer) spaceItem(it *grammar.SpaceItem) {
	switch {
	case it.Param != nil:
		d := it.Param
		p.names(len(d.Names))
		p.space()
		p.tok("in")
		p.space()
		switch {
		case d.Real:
			p.tok("real")
		case d.Values != nil:
			p.tok("{")
			p.names(len(d.Values))
			p.tok("}")
		default:
			p.words("", "..", "", "by", "")
		}
	case it.Concept != nil:
		c := it.Concept
		p.words("", "=", "", "if", "conjunction")
		p.tok("(")
		p.names(len(c.Attrs))
		p.tok(")")
	case it.Observe != nil:
		o := it.Observe
		p.words("", "~", "")
		p.tok("(")
		for i, a := range o.Args {
			p.comma(i)
			p.argName(a.Named)
			p.expr(a.Value)
		}
		p.tok(")")
	case it.Prior != nil:
		p.tok("prior")
		p.space()
		if it.Prior.Uniform {
			p.tok("uniform")
		} else {
			p.expr(it.Prior.Expr)
		}
	}
}

// call writes (ARGS) after a function's name.
func (p *printer) call(args []*grammar.Expr) {
	p.tok("(")
	for i, a := range args {
		p.comma(i)
		p.expr(a)
	}
	p.tok(")")
}

func (p *printer) expr(e *grammar.Expr) {
	p.sum(e.Left)
	if e.Op != "" {
		p.space()
		p.tok(e.Op)
		p.space()
		p.sum(e.Right)
	}
}

func (p *printer) sum(s *grammar.Sum) {
	p.product(s.Left)
	for _, t := range s.Tail {
		p.space()
		if t.Op != "" {
			p.tok(t.Op)
			p.space()
			p.product(t.Right)
			continue
		}
		// A negative number after an operand, x-1: the subtraction it
		// means, x - 1.
		if num := p.peek(); strings.HasPrefix(num, "-") {
			p.splitMinus()
		} else {
			p.tok("")
		}
		if t.Exp != nil {
			p.tok("^")
			p.unary(t.Exp)
		}
		p.mulTails(t.Mul)
	}
}

// splitMinus writes the next token, a negative number, as a minus sign, a
// space and the number.
func (p *printer) splitMinus() {
	t := &p.toks[p.i]
	p.writeComments(t)
	p.word("-")
	p.space()
	p.word(t.text[1:])
	p.i++
}

func (p *printer) product(x *grammar.Product) {
	p.unary(x.Left)
	p.mulTails(x.Tail)
}

func (p *printer) mulTails(ts []*grammar.MulTail) {
	for _, t := range ts {
		p.space()
		p.tok(t.Op)
		p.space()
		p.unary(t.Right)
	}
}

func (p *printer) unary(u *grammar.Unary) {
	if u.Neg != nil {
		p.tok("-")
		// - 2 must not become the number -2, nor - -2 a --2 that lexes
		// the same but reads badly.
		if next := p.peek(); next != "" && (next[0] >= '0' && next[0] <= '9' || next[0] == '.' || next[0] == '-') {
			p.space()
		}
		p.unary(u.Neg)
		return
	}
	p.primary(u.Power.Base)
	if u.Power.Exp != nil {
		p.tok("^")
		p.unary(u.Power.Exp)
	}
}

func (p *printer) primary(x *grammar.Primary) {
	switch {
	case x.Call != nil:
		p.tok(x.Call.Fn)
		p.call(x.Call.Args)
	case x.Paren != nil:
		p.tok("(")
		p.expr(x.Paren)
		p.tok(")")
	default:
		p.tok("") // a number or a name
	}
}
