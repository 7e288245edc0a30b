package parser

import (
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/loc"
)

// parser is a hand-written recursive-descent parser for the grammar that
// package grammar states in participle's struct tags. It builds the same
// tree participle would (a test checks this), at several times the speed.
// Keywords are recognised only as identifiers: "import", "var" and "query"
// start statements; "P" starts a distribution only when "(" follows.
type parser struct {
	file   string
	sc     *grammar.Scanner
	tok    grammar.Token // current token
	ahead  grammar.Token // the token after tok, if peeked
	peeked bool

	// lazy, if set, receives the positions of the variable declarations
	// and distributions, which are then checked but not kept (ParseLean).
	lazy *grammar.LazyStmts
	sums bool   // hash each lazy statement's text (ParseLeanFrom)
	src  string // the source, when sums

	pool *pool // set while a statement that is checked and dropped is parsed (ParseLean)
	idle *pool // the pool between those statements

	base   int  // the offset in the file of the scanner's source (a statement read again)
	reread bool // the source is a statement read again from a file (ParseLeanFrom)

	indexed bool // a name carried a time index (grammar.File.Indexed)
}

// bailout carries the first syntax error out of the recursion.
type bailout struct{ err *loc.Error }

func newParser(filename, src string) *parser {
	p := &parser{file: filename, sc: grammar.NewScanner(filename, src), src: src}
	p.next()
	return p
}

func (p *parser) read() grammar.Token {
	t, err := p.sc.Next()
	if err != nil {
		pos := p.tok.Pos
		var le *grammar.Error
		if errors.As(err, &le) {
			pos, err = le.Pos, errors.New(le.Msg)
		}
		var kind error
		if p.sc.Unterminated() {
			kind = ErrIncomplete
		}
		panic(bailout{&loc.Error{Pos: loc.Pos{File: p.file, Line: pos.Line, Col: pos.Column}, Msg: err.Error(), Err: kind}})
	}
	t.Pos.Offset += p.base
	return t
}

// next advances to the next token.
func (p *parser) next() {
	if p.peeked {
		p.tok, p.peeked = p.ahead, false
		return
	}
	p.tok = p.read()
}

// peek returns the token after the current one.
func (p *parser) peek() grammar.Token {
	if !p.peeked {
		p.ahead, p.peeked = p.read(), true
	}
	return p.ahead
}

func (p *parser) fail(pos grammar.Position, format string, args ...any) {
	var kind error
	if p.tok.Type == grammar.EOF {
		kind = ErrIncomplete
	}
	panic(bailout{&loc.Error{Pos: loc.Pos{File: p.file, Line: pos.Line, Col: pos.Column}, Msg: fmt.Sprintf(format, args...), Err: kind}})
}

// is reports whether the current token is the punctuation or keyword s.
func (p *parser) is(s string) bool {
	return (p.tok.Type == grammar.Punct || p.tok.Type == grammar.Ident) && p.tok.Value == s
}

// expect consumes the punctuation s or fails, saying what it follows.
func (p *parser) expect(s, after string) {
	if !p.is(s) {
		p.fail(p.tok.Pos, "expected %q %s, found %s", s, after, describe(p.tok))
	}
	p.next()
}

func (p *parser) file_() *grammar.File {
	f := &grammar.File{Pos: p.tok.Pos}
	for p.tok.Type != grammar.EOF {
		if s := p.stmt(); s != nil {
			f.Stmts = append(f.Stmts, s)
		}
	}
	f.Lazy = p.lazy
	f.Indexed = p.indexed
	return f
}

func (p *parser) stmt() grammar.Stmt {
	if p.tok.Type == grammar.Ident && !p.edgeAhead() {
		switch p.tok.Value {
		case "import":
			s := &grammar.Import{Pos: p.tok.Pos}
			p.next()
			if p.tok.Type != grammar.String {
				p.fail(p.tok.Pos, "expected a quoted file name after import, found %s", describe(p.tok))
			}
			s.Path = p.tok.Value
			p.next()
			return s
		case "var":
			if p.lazy != nil {
				p.takePool()
				d := p.varDecl()
				p.addLazy(d.Pos, false)
				return nil
			}
			return p.varDecl()
		case "query":
			s := &grammar.QueryStmt{Pos: p.tok.Pos}
			p.next()
			if !p.isQueryStart() {
				p.fail(p.tok.Pos, "expected a query such as P(X | Y=y) after query, found %s", describe(p.tok))
			}
			s.Query = p.query()
			return s
		case "expect":
			return p.expectStmt()
		case "naive_bayes", "tan":
			return p.classifier()
		case "learn":
			return p.learn()
		case "mixture":
			return p.mixture()
		case "data":
			return p.data()
		case "space":
			return p.space()
		case "decision":
			return p.decision()
		case "utility":
			return p.utility()
		case "latent":
			return p.latent()
		case "observed":
			if t := p.peek(); t.Type == grammar.String || t.Type == grammar.Ident && t.Value == "data" {
				return p.observed()
			}
		case "P":
			if t := p.peek(); t.Type == grammar.Punct && t.Value == "(" {
				if p.lazy != nil {
					p.takePool()
					d := p.dist()
					p.addLazy(d.Pos, true)
					return nil
				}
				return p.dist()
			}
		}
	}
	if !p.isName() {
		p.fail(p.tok.Pos, "expected a statement (var, an edge A -> B, P(...) = ..., query, import), found %s", describe(p.tok))
	}
	return p.edges()
}

// takePool has the statement about to be parsed, which will be dropped,
// take its nodes from the pool.
func (p *parser) takePool() {
	if p.idle == nil {
		p.idle = &pool{}
	}
	p.pool = p.idle
}

// addLazy adds the statement just parsed, which started at pos, to the
// lazy ones (its text runs to the current token), and frees its nodes.
func (p *parser) addLazy(pos grammar.Position, dist bool) {
	if p.pool != nil {
		p.pool.reset()
		p.pool = nil
	}
	at := grammar.LazyAt{Pos: pos, End: p.tok.Pos.Offset}
	if p.sums {
		at.Sum = uint32(maphash.String(sumSeed(), p.src[pos.Offset:at.End]))
	}
	p.lazy.Add(at, dist)
}

// edgeAhead reports whether a ",", "->" or "<->" follows the current token, so
// that a keyword there is the first name of an edge list, as in
// `var, query -> import`. (Keywords are not reserved: participle tries
// Import, VarDecl and QueryStmt, fails on the second token, and falls back
// to Edges.)
func (p *parser) edgeAhead() bool {
	t := p.peek()
	return t.Type == grammar.Punct && (t.Value == "," || t.Value == "->" || t.Value == "<->")
}

func (p *parser) isName() bool {
	switch p.tok.Type {
	case grammar.Ident, grammar.String, grammar.Number:
		return true
	}
	return false
}

func (p *parser) name(what string) *grammar.Name {
	var n *grammar.Name
	if p.pool != nil {
		n = p.pool.names.new()
		n.Pos = p.tok.Pos
	} else {
		n = &grammar.Name{Pos: p.tok.Pos}
	}
	switch p.tok.Type {
	case grammar.Ident:
		n.Ident = p.tok.Value
	case grammar.String:
		n.Quoted = p.tok.Value
	case grammar.Number:
		n.Number = p.tok.Value
	default:
		p.fail(p.tok.Pos, "expected %s, found %s", what, describe(p.tok))
	}
	p.next()
	if p.is("[") {
		n.Index = p.index()
	}
	return n
}

// index parses a time index, [t], [t-1], [t - 1] or [3], after a name.
func (p *parser) index() *grammar.Index {
	p.indexed = true
	x := &grammar.Index{Pos: p.tok.Pos}
	p.next()
	switch p.tok.Type {
	case grammar.Number:
		x.Slice = p.tok.Value
		p.next()
	case grammar.Ident:
		x.Var = p.tok.Value
		p.next()
		switch {
		case p.tok.Type == grammar.Number:
			x.Lag = p.tok.Value
			p.next()
		case p.is("-") || p.is("+"):
			sign := p.tok.Value
			p.next()
			if p.tok.Type != grammar.Number {
				p.fail(p.tok.Pos, "expected a number after %s in a time index, found %s", sign, describe(p.tok))
			}
			x.Lag = sign + p.tok.Value
			p.next()
		}
	default:
		p.fail(p.tok.Pos, "expected a time index (t, t-1 or a slice number) after [, found %s", describe(p.tok))
	}
	p.expect("]", "to close the time index")
	return x
}

// names parses Name ("," Name)*.
func (p *parser) names(what string) []*grammar.Name {
	if q := p.pool; q != nil {
		ns := append(q.nameBuf[:0], p.name(what))
		for p.is(",") {
			p.next()
			ns = append(ns, p.name(what))
		}
		q.nameBuf = ns
		return q.nameSl.copyOf(ns)
	}
	ns := []*grammar.Name{p.name(what)}
	for p.is(",") {
		p.next()
		ns = append(ns, p.name(what))
	}
	return ns
}

func (p *parser) varDecl() *grammar.VarDecl {
	var d *grammar.VarDecl
	if p.pool != nil {
		d = p.pool.decls.new()
	} else {
		d = new(grammar.VarDecl)
	}
	d.Pos = p.tok.Pos
	p.next()
	d.Names = p.names("a variable name")
	p.expect(":", "and a type after the variable names")
	d.Type = p.typ()
	return d
}

// typ parses a variable's type.
func (p *parser) typ() *grammar.Type {
	var t *grammar.Type
	if p.pool != nil {
		t = p.pool.types.new()
	} else {
		t = new(grammar.Type)
	}
	t.Pos = p.tok.Pos
	switch {
	case p.is("bool"):
		t.Bool = true
		p.next()
	case p.is("real"):
		t.Real = true
		p.next()
	case p.is("{"):
		p.next()
		t.States = p.names("a state name")
		p.expect("}", "after the states")
	case p.tok.Type == grammar.Number:
		lo := p.tok.Value
		t.Lo = &lo
		p.next()
		p.expect("..", "in an integer range lo..hi")
		if p.tok.Type != grammar.Number {
			p.fail(p.tok.Pos, "expected the upper bound of the range, found %s", describe(p.tok))
		}
		hi := p.tok.Value
		t.Hi = &hi
		p.next()
	default:
		p.fail(p.tok.Pos, "expected a type (bool, real, {state, ...} or lo..hi), found %s", describe(p.tok))
	}
	return t
}

// decision parses `decision D: TYPE`.
func (p *parser) decision() *grammar.Decision {
	d := &grammar.Decision{Pos: p.tok.Pos}
	p.next()
	d.Name = p.name("a decision's name")
	p.expect(":", "and a type after the decision's name")
	d.Type = p.typ()
	return d
}

// latent parses `latent U, V: TYPE`.
func (p *parser) latent() *grammar.Latent {
	d := &grammar.Latent{Pos: p.tok.Pos}
	p.next()
	d.Names = p.names("a latent variable's name")
	if p.is(":") {
		p.next()
		d.Type = p.typ()
	}
	return d
}

// observed parses `observed "FILE"` and `observed data "FILE.csv"`.
func (p *parser) observed() *grammar.Observed {
	o := &grammar.Observed{Pos: p.tok.Pos}
	p.next()
	if p.tok.Type == grammar.Ident && p.tok.Value == "data" {
		o.Data = true
		p.next()
	}
	if p.tok.Type != grammar.String {
		p.fail(p.tok.Pos, "expected a quoted file name after observed, found %s", describe(p.tok))
	}
	o.Path = p.tok.Value
	p.next()
	return o
}

// utility parses `utility U(A, B) = { ROWS }`.
func (p *parser) utility() *grammar.Utility {
	u := &grammar.Utility{Pos: p.tok.Pos}
	p.next()
	u.Name = p.name("a utility's name")
	p.expect("(", "after the utility's name")
	u.Parents = p.names("a variable name")
	p.expect(")", "after the utility's parents")
	p.expect("=", "after utility "+grammar.Quote(u.Name.Text())+"(...)")
	if !p.is("{") {
		p.fail(p.tok.Pos, "expected \"{\" and the utility's rows, found %s", describe(p.tok))
	}
	u.Rows = p.rows("the utility's rows")
	return u
}

func (p *parser) edges() *grammar.Edges {
	e := &grammar.Edges{Pos: p.tok.Pos}
	e.Lists = append(e.Lists, p.nameList("a variable name"))
	if p.is("<->") {
		p.next()
		e.Bidirected = p.nameList("a variable name after \"<->\"")
		return e
	}
	if !p.is("->") {
		p.fail(p.tok.Pos, "expected \"->\" after %s, found %s", listText(e.Lists[0]), describe(p.tok))
	}
	for p.is("->") {
		p.next()
		e.Lists = append(e.Lists, p.nameList("a variable name after \"->\""))
	}
	return e
}

// nameList parses a NameList. (Its position must be read before the names
// are parsed: in a composite literal {Pos: p.tok.Pos, Names: p.names(...)}
// Go may evaluate p.tok.Pos after the call.)
func (p *parser) nameList(what string) *grammar.NameList {
	l := &grammar.NameList{Pos: p.tok.Pos}
	l.Names = p.names(what)
	return l
}

func listText(l *grammar.NameList) string {
	s := ""
	for i, n := range l.Names {
		if i > 0 {
			s += ", "
		}
		s += grammar.Quote(n.Text())
	}
	return s
}

func (p *parser) dist() *grammar.Dist {
	var d *grammar.Dist
	if p.pool != nil {
		d = p.pool.dists.new()
	} else {
		d = new(grammar.Dist)
	}
	d.Pos = p.tok.Pos
	p.next() // P
	p.next() // (
	d.Child = p.name("a variable name")
	for p.is(",") {
		p.next()
		d.More = append(d.More, p.name("a variable name"))
	}
	if p.is("|") {
		p.next()
		d.Parents = p.names("a parent variable name")
	}
	p.expect(")", "to close P(...)")
	p.expect("=", "after P(...)")
	if p.is("normalize") {
		d.Normalize = true
		p.next()
	}
	d.Body = p.body()
	return d
}

// body parses a distribution's right-hand side. A keyword (normal,
// noisy_or, noisy_max, lookup) starts its form only when the token that
// form needs next follows, as participle, which backtracks, reads it;
// otherwise it is a name in a logical formula.
func (p *parser) body() *grammar.Body {
	var b *grammar.Body
	if p.pool != nil {
		b = p.pool.bodies.new()
	} else {
		b = new(grammar.Body)
	}
	b.Pos = p.tok.Pos
	switch {
	case p.is("{"):
		b.Rows = p.rows("the table")
	case p.tok.Type == grammar.Number || p.is("[") || p.keywordBefore("normal", "(") ||
		p.keywordBefore("logistic", "(") || p.keywordBefore("softmax", "("):
		b.Value = p.value()
	case p.keywordBefore("noisy_or", "(") || p.keywordBefore("noisy_max", "("):
		b.Noisy = p.noisy()
	case p.keywordBefore("lookup", "{"):
		b.Lookup = p.lookup()
	case p.isName() || p.is("("):
		b.Logic = p.logic()
	default:
		b.Value = p.value() // fails, saying what is expected
	}
	b.EndPos = p.tok.Pos
	return b
}

// keywordBefore reports whether the current token is the identifier kw and
// the punctuation next follows it.
func (p *parser) keywordBefore(kw, next string) bool {
	if p.tok.Type != grammar.Ident || p.tok.Value != kw {
		return false
	}
	t := p.peek()
	return t.Type == grammar.Punct && t.Value == next
}

// rows parses `{ Row* }`, the current token being "{"; what names the
// table in messages.
func (p *parser) rows(what string) []*grammar.Row {
	var rows []*grammar.Row
	q := p.pool
	if q != nil {
		rows = q.rowBuf[:0]
	}
	p.next()
	for !p.is("}") {
		if p.tok.Type == grammar.EOF {
			p.fail(p.tok.Pos, "expected \"}\" to close %s, found end of file", what)
		}
		rows = append(rows, p.row())
	}
	p.next()
	if q != nil {
		q.rowBuf = rows
		if len(rows) == 0 {
			return nil
		}
		return q.rowSl.copyOf(rows)
	}
	return rows
}

// noisy parses noisy_or(LINK, ...) or noisy_max(LINK, ...).
func (p *parser) noisy() *grammar.Noisy {
	n := &grammar.Noisy{Pos: p.tok.Pos, Kind: p.tok.Value}
	p.next()
	p.next() // (
	for {
		l := &grammar.Link{Pos: p.tok.Pos}
		l.Name = p.name("a parent's name or leak in " + n.Kind + "(...)")
		p.expect(":", "after "+grammar.Quote(l.Name.Text())+" in "+n.Kind+"(...)")
		if p.is("{") {
			l.Rows = p.rows("the parent's states")
		} else {
			l.Value = p.value()
		}
		n.Links = append(n.Links, l)
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(")", "to close "+n.Kind+"(...)")
	return n
}

// lookup parses lookup { CASE* }.
func (p *parser) lookup() *grammar.Lookup {
	l := &grammar.Lookup{Pos: p.tok.Pos}
	p.next()
	p.next() // {
	for !p.is("}") {
		if p.tok.Type == grammar.EOF {
			p.fail(p.tok.Pos, "expected \"}\" to close the lookup, found end of file")
		}
		c := &grammar.Case{Pos: p.tok.Pos}
		if p.is("else") {
			c.Else = true
			p.next()
		} else {
			c.States = p.names("the parents' states of a lookup row")
		}
		p.expect(":", "after the parents' states of a lookup row")
		c.State = p.name("the child's state")
		if p.is(",") || p.is(";") {
			p.next()
		}
		l.Cases = append(l.Cases, c)
	}
	p.next()
	return l
}

// startsLiteral reports whether the token after the current one can start
// a literal, so that the current and, or or not is an operator; otherwise
// it is a name (participle backtracks to read it so).
func (p *parser) startsLiteral() bool {
	t := p.peek()
	switch t.Type {
	case grammar.Ident, grammar.String, grammar.Number:
		return true
	}
	return t.Type == grammar.Punct && t.Value == "("
}

// logic parses a logical formula: Conj ("or" Conj)*.
func (p *parser) logic() *grammar.Logic {
	l := &grammar.Logic{Pos: p.tok.Pos}
	l.Terms = append(l.Terms, p.conj())
	for p.is("or") && p.tok.Type == grammar.Ident && p.startsLiteral() {
		p.next()
		l.Terms = append(l.Terms, p.conj())
	}
	return l
}

func (p *parser) conj() *grammar.Conj {
	c := &grammar.Conj{Pos: p.tok.Pos}
	c.Literals = append(c.Literals, p.literal())
	for p.is("and") && p.tok.Type == grammar.Ident && p.startsLiteral() {
		p.next()
		c.Literals = append(c.Literals, p.literal())
	}
	return c
}

func (p *parser) literal() *grammar.Literal {
	l := &grammar.Literal{Pos: p.tok.Pos}
	switch {
	case p.is("not") && p.tok.Type == grammar.Ident && p.startsLiteral():
		p.next()
		l.Not = p.literal()
	case p.is("("):
		p.next()
		l.Paren = p.logic()
		p.expect(")", "to close the parenthesised formula")
	default:
		l.Var = p.name("a parent, not or \"(\" in a logical formula")
		if p.tok.Type == grammar.Punct && (p.is("=") || p.is("==") || p.is("!=")) {
			l.Op = p.tok.Value
			p.next()
			l.Right = p.name("a state or a parent after " + l.Op)
		}
	}
	return l
}

func (p *parser) row() *grammar.Row {
	var r *grammar.Row
	if p.pool != nil {
		r = p.pool.rows.new()
	} else {
		r = new(grammar.Row)
	}
	r.Pos = p.tok.Pos
	r.States = p.names("the parents' states of a row")
	p.expect(":", "after the parents' states of a row")
	r.Value = p.value()
	if p.is(",") || p.is(";") {
		p.next()
	}
	return r
}

func (p *parser) value() *grammar.Value {
	var v *grammar.Value
	if p.pool != nil {
		v = p.pool.values.new()
	} else {
		v = new(grammar.Value)
	}
	v.Pos = p.tok.Pos
	switch {
	case p.tok.Type == grammar.Number:
		s := p.tok.Value
		v.Number = &s
		p.next()
	case p.is("["):
		p.next()
		q := p.pool
		if q != nil {
			v.Vector = q.strBuf[:0]
		}
		for {
			if p.tok.Type != grammar.Number {
				p.fail(p.tok.Pos, "expected a number in the vector, found %s", describe(p.tok))
			}
			v.Vector = append(v.Vector, p.tok.Value)
			p.next()
			if !p.is(",") {
				break
			}
			p.next()
		}
		if q != nil {
			q.strBuf = v.Vector
			v.Vector = q.strSl.copyOf(v.Vector)
		}
		p.expect("]", "to close the vector")
	case p.is("normal"):
		n := &grammar.Normal{Pos: p.tok.Pos}
		p.next()
		p.expect("(", "after normal, as in normal(MEAN, SD)")
		// A number followed by "," or a list is the mean as a number
		// (participle's lookahead (?= ",")); anything else is an
		// expression, affine in the real parents.
		if p.is("[") || p.tok.Type == grammar.Number && p.peek().Type == grammar.Punct && p.peek().Value == "," {
			n.Mean = p.array("the mean of normal(MEAN, SD)")
		} else {
			n.Linear = p.expr(0)
		}
		p.expect(",", "between the mean and the standard deviation (or covariance)")
		n.Named = p.argName()
		n.Spread = p.array("the standard deviation of normal(MEAN, SD), or the covariance of normal([MEANS], COV)")
		p.expect(")", "to close normal(MEAN, SD)")
		v.Normal = n
	case p.is("logistic") || p.is("softmax"):
		sm := &grammar.Softmax{Pos: p.tok.Pos, Fn: p.tok.Value}
		p.next()
		p.expect("(", "after "+sm.Fn+", as in logistic(-20 + 0.15 * X) or softmax(A1, A2, ...)")
		sm.Args = append(sm.Args, p.expr(0))
		for p.is(",") {
			p.next()
			sm.Args = append(sm.Args, p.expr(0))
		}
		p.expect(")", "to close "+sm.Fn+"(...)")
		v.Softmax = sm
	default:
		p.fail(p.tok.Pos, "expected a probability, a vector [p1, p2, ...] or normal(MEAN, SD), found %s", describe(p.tok))
	}
	return v
}

// argName parses `NAME =` before an argument, if the current token is a
// word followed by "=", or returns nil.
func (p *parser) argName() *grammar.ArgName {
	if p.tok.Type != grammar.Ident || p.peek().Type != grammar.Punct || p.peek().Value != "=" {
		return nil
	}
	a := &grammar.ArgName{Pos: p.tok.Pos, Name: p.tok.Value}
	p.next()
	p.next()
	return a
}

// array parses a number or a bracketed list of arrays; what names it in
// messages.
func (p *parser) array(what string) *grammar.Array {
	a := &grammar.Array{Pos: p.tok.Pos}
	switch {
	case p.tok.Type == grammar.Number:
		s := p.tok.Value
		a.Number = &s
		p.next()
	case p.is("["):
		p.next()
		for {
			a.Items = append(a.Items, p.array("a number"))
			if !p.is(",") {
				break
			}
			p.next()
		}
		p.expect("]", "to close the list")
	default:
		p.fail(p.tok.Pos, "expected %s, found %s", what, describe(p.tok))
	}
	return a
}

// isQueryKind reports whether name starts a query.
func isQueryKind(name string) bool {
	switch name {
	case "P", "MPE", "MAP", "ML", "MDL", "Gibbs", "indep", "density", "entropy", "MI", "MEU", "policy", "EU", "identify", "adjust", "CF":
		return true
	}
	return false
}

// isQueryStart reports whether a query keyword followed by "(" is next.
func (p *parser) isQueryStart() bool {
	if p.tok.Type != grammar.Ident || !isQueryKind(p.tok.Value) {
		return false
	}
	t := p.peek()
	return t.Type == grammar.Punct && t.Value == "("
}

func (p *parser) query() *grammar.Query {
	q := &grammar.Query{Pos: p.tok.Pos, Kind: p.tok.Value}
	p.next()
	p.expect("(", "after "+q.Kind)
	if !p.is("|") && !p.is(")") {
		q.Targets = p.terms()
	}
	if p.is("|") {
		q.Bar = true
		p.next()
		q.Given = p.terms()
	}
	p.expect(")", "to close the query")
	q.EndPos = p.tok.Pos
	return q
}

func (p *parser) terms() []*grammar.Term {
	ts := []*grammar.Term{p.term()}
	for p.is(",") {
		p.next()
		ts = append(ts, p.term())
	}
	return ts
}

func (p *parser) term() *grammar.Term {
	t := &grammar.Term{Pos: p.tok.Pos}
	switch {
	case p.is("*"):
		t.Star = true
		p.next()
	case p.is("{"):
		p.next()
		t.Group = p.names("a variable name")
		p.expect("}", "to close the group")
	case p.keywordBefore("do", "("):
		p.next()
		p.next()
		t.Do = p.term()
		p.expect(")", "to close do(...)")
	default:
		t.Name = p.name("a variable name")
		switch {
		case p.is("="):
			p.next()
			t.State = p.name("a state")
		case p.is("~"):
			p.next()
			p.expect("[", "after ~, as in X~[0.8, 0.2]")
			t.Soft = p.names("a likelihood")
			p.expect("]", "to close the likelihoods")
		}
	}
	return t
}

// expectStmt parses `expect QUERY == VALUE [within TOL]`.
func (p *parser) expectStmt() *grammar.Expect {
	e := &grammar.Expect{Pos: p.tok.Pos}
	p.next()
	if !p.isQueryStart() {
		p.fail(p.tok.Pos, "expected a query such as P(X=x | Y=y) after expect, found %s", describe(p.tok))
	}
	e.Query = p.query()
	p.expect("==", "between the query and its expected value")
	v := &grammar.ExpectValue{Pos: p.tok.Pos}
	switch {
	case p.tok.Type == grammar.Number:
		s := p.tok.Value
		v.Number = &s
		p.next()
	case p.is("["):
		v.Vector = p.value().Vector
	case p.is("{"):
		p.next()
		for {
			b := &grammar.Binding{Pos: p.tok.Pos}
			b.Name = p.name("a variable name")
			p.expect(":", "between a variable and its state")
			b.State = p.name("a state")
			v.Assign = append(v.Assign, b)
			if !p.is(",") {
				break
			}
			p.next()
		}
		p.expect("}", "to close the assignment")
	case p.is("true") || p.is("false"):
		s := p.tok.Value
		v.Bool = &s
		p.next()
	default:
		p.fail(p.tok.Pos, "expected a number, a vector [p1, p2, ...], an assignment {X: x, ...}, true or false after ==, found %s", describe(p.tok))
	}
	e.Value = v
	if p.is("within") {
		p.next()
		if p.tok.Type != grammar.Number {
			p.fail(p.tok.Pos, "expected a tolerance after within, found %s", describe(p.tok))
		}
		e.Within = &grammar.Tolerance{Pos: p.tok.Pos, Value: p.tok.Value}
		p.next()
	}
	return e
}

// classifier parses `naive_bayes C given A1, A2, ...` or `tan C given ...`.
func (p *parser) classifier() *grammar.Classifier {
	c := &grammar.Classifier{Pos: p.tok.Pos, Kind: p.tok.Value}
	p.next()
	c.Class = p.name("the class variable")
	p.expect("given", "after the class variable, as in "+c.Kind+" C given A, B")
	c.Features = p.names("a feature variable")
	return c
}

// learn parses `learn [X, Y] from DATA [with METHOD [(NAME = NUMBER, ...)]]`.
func (p *parser) learn() *grammar.Learn {
	l := &grammar.Learn{Pos: p.tok.Pos}
	p.next()
	if !p.is("from") {
		l.Vars = p.names("a variable name or from")
	}
	p.expect("from", "and the data, as in learn from \"data.csv\"")
	if p.tok.Type == grammar.String {
		s := p.tok.Value
		l.File = &s
		p.next()
	} else {
		l.Table = p.name("a quoted CSV file name or the name of a data table")
	}
	if p.is("with") {
		p.next()
		if p.tok.Type != grammar.Ident {
			p.fail(p.tok.Pos, "expected a learning method (mle, bayes, mestimate, em, gradient) after with, found %s", describe(p.tok))
		}
		m := p.tok.Value
		l.Method = &m
		p.next()
		if p.is("(") {
			l.Options = p.options("alpha = 1")
		}
	}
	return l
}

// options parses `( NAME = VALUE, ... )`, the current token being "(";
// example shows an option in messages.
func (p *parser) options(example string) []*grammar.Option {
	var opts []*grammar.Option
	p.next()
	if p.is(")") {
		p.next()
		return nil
	}
	for {
		o := &grammar.Option{Pos: p.tok.Pos}
		if p.tok.Type != grammar.Ident {
			p.fail(p.tok.Pos, "expected an option name, as in %s, found %s", example, describe(p.tok))
		}
		o.Name = p.tok.Value
		p.next()
		p.expect("=", "after the option name")
		if p.tok.Type != grammar.Number && p.tok.Type != grammar.Ident {
			p.fail(p.tok.Pos, "expected a number or a word for option %s, found %s", o.Name, describe(p.tok))
		}
		o.Value = p.tok.Value
		p.next()
		opts = append(opts, o)
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(")", "to close the options")
	return opts
}

// mixture parses `mixture C of X, Y [(OPTIONS)]`.
func (p *parser) mixture() *grammar.Mixture {
	m := &grammar.Mixture{Pos: p.tok.Pos}
	p.next()
	m.Component = p.name("the mixture's component variable")
	p.expect("of", "after the component variable, as in mixture C of x, y")
	m.Vars = p.names("a real variable of the mixture")
	if p.is("(") {
		m.Options = p.options("covariance = diag")
	}
	return m
}

// data parses a data set, `data NAME = "file.csv"` or an inline table
// `data NAME = { header rows }`.
func (p *parser) data() *grammar.Data {
	d := &grammar.Data{Pos: p.tok.Pos}
	p.next()
	d.Name = p.name("the table's name")
	p.expect("=", "after the table's name")
	if p.tok.Type == grammar.String {
		f := p.tok.Value
		d.File = &f
		p.next()
		return d
	}
	if !p.is("{") {
		p.fail(p.tok.Pos, "expected a quoted CSV file name or \"{\" to open an inline table after data %s =, found %s", d.Name.Text(), describe(p.tok))
	}
	p.next()
	d.Header = p.names("a variable name in the table's header")
	for !p.is("}") {
		if p.tok.Type == grammar.EOF {
			p.fail(p.tok.Pos, "expected \"}\" to close the data table, found end of file")
		}
		row := &grammar.Cells{Pos: p.tok.Pos}
		for {
			c := &grammar.Cell{Pos: p.tok.Pos}
			if p.is("?") {
				c.Missing = true
				p.next()
			} else {
				c.State = p.name("a state or ? in a data row")
			}
			row.Cells = append(row.Cells, c)
			if !p.is(",") {
				break
			}
			p.next()
		}
		d.Rows = append(d.Rows, row)
	}
	p.next()
	return d
}
