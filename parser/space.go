package parser

import "github.com/pbl-lang/pbl/grammar"

// space parses `space NAME { ITEMS }`.
func (p *parser) space() *grammar.Space {
	s := &grammar.Space{Pos: p.tok.Pos}
	p.next()
	s.Name = p.name("the space's name")
	p.expect("{", "to open the space, as in space H { w in 0 .. 1 by 0.1  d ~ bernoulli(w) }")
	for !p.is("}") {
		if p.tok.Type == grammar.EOF {
			p.fail(p.tok.Pos, "expected \"}\" to close the space, found end of file")
		}
		s.Items = append(s.Items, p.spaceItem())
	}
	p.next()
	return s
}

// spaceItem parses a parameter declaration, a concept, an observation or
// the prior. As participle does (its alternatives are tried in that
// order, each failing by its second token at the latest), the item is
// chosen by the token after the first name.
func (p *parser) spaceItem() *grammar.SpaceItem {
	it := &grammar.SpaceItem{Pos: p.tok.Pos}
	if !p.isName() {
		p.fail(p.tok.Pos, "expected a parameter (w in 0 .. 1 by 0.1), an observation (d ~ normal(w * x, 1)), a concept (T = yes if conjunction(A, B)) or prior, found %s", describe(p.tok))
	}
	next := p.peek()
	punct := func(v string) bool { return next.Type == grammar.Punct && next.Value == v }
	switch {
	case punct(",") || next.Type == grammar.Ident && next.Value == "in":
		it.Param = p.paramDecl()
	case punct("="):
		it.Concept = p.concept()
	case punct("~"):
		it.Observe = p.observe()
	case p.tok.Type == grammar.Ident && p.tok.Value == "prior":
		it.Prior = p.prior()
	default:
		what := describe(p.tok)
		if next.Type == grammar.EOF {
			// The input ends after the name: incomplete, so that the REPL
			// reads the space's next line (fail looks at the current
			// token).
			p.next()
		}
		p.fail(next.Pos, "expected \"in\" (a parameter), \"~\" (an observation) or \"=\" (a concept) after %s, found %s", what, describe(next))
	}
	return it
}

func (p *parser) paramDecl() *grammar.ParamDecl {
	d := &grammar.ParamDecl{Pos: p.tok.Pos}
	d.Names = p.names("a parameter name")
	p.expect("in", "after the parameter names, as in w in -5 .. 5 by 0.1")
	switch {
	case p.is("real"):
		d.Real = true
		p.next()
	case p.is("{"):
		p.next()
		for {
			d.Values = append(d.Values, p.number("a value of the parameter"))
			if !p.is(",") {
				break
			}
			p.next()
		}
		p.expect("}", "to close the parameter's values")
	case p.tok.Type == grammar.Number:
		lo := p.number("")
		d.Lo = &lo
		p.expect("..", "after the grid's first value, as in -5 .. 5 by 0.1")
		hi := p.number("the grid's last value")
		d.Hi = &hi
		p.expect("by", "after the grid's last value, as in -5 .. 5 by 0.1")
		step := p.number("the grid's step")
		d.Step = &step
	default:
		p.fail(p.tok.Pos, "expected a grid (LO .. HI by STEP), values {v1, v2} or real after in, found %s", describe(p.tok))
	}
	return d
}

// number consumes a number token and returns its text.
func (p *parser) number(what string) string {
	if p.tok.Type != grammar.Number {
		p.fail(p.tok.Pos, "expected %s, found %s", what, describe(p.tok))
	}
	v := p.tok.Value
	p.next()
	return v
}

func (p *parser) concept() *grammar.Concept {
	c := &grammar.Concept{Pos: p.tok.Pos}
	c.Target = p.name("the target variable")
	p.expect("=", "after the target variable")
	c.State = p.name("the target's positive state")
	p.expect("if", "after the target's state, as in EnjoySport = yes if conjunction(Sky, Wind)")
	p.expect("conjunction", "after if, as in EnjoySport = yes if conjunction(Sky, Wind)")
	p.expect("(", "after conjunction")
	c.Attrs = p.names("an attribute variable")
	p.expect(")", "to close the attributes")
	return c
}

func (p *parser) observe() *grammar.Observe {
	o := &grammar.Observe{Pos: p.tok.Pos}
	o.Column = p.name("a column name")
	p.expect("~", "after the column")
	if p.tok.Type != grammar.Ident {
		p.fail(p.tok.Pos, "expected a distribution, normal(MEAN, SD) or bernoulli(P), after ~, found %s", describe(p.tok))
	}
	o.Family = p.tok.Value
	p.next()
	p.expect("(", "after "+o.Family)
	for {
		a := &grammar.Arg{Pos: p.tok.Pos}
		a.Named = p.argName()
		a.Value = p.expr(0)
		o.Args = append(o.Args, a)
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(")", "to close "+o.Family+"(...)")
	return o
}

func (p *parser) prior() *grammar.Prior {
	pr := &grammar.Prior{Pos: p.tok.Pos}
	p.next()
	if p.is("uniform") {
		pr.Uniform = true
		p.next()
		return pr
	}
	pr.Expr = p.expr(0)
	return pr
}

func (p *parser) exprList(depth int) []*grammar.Expr {
	es := []*grammar.Expr{p.expr(depth)}
	for p.is(",") {
		p.next()
		es = append(es, p.expr(depth))
	}
	return es
}

// isComparison reports whether op is a comparison operator.
func isComparison(op string) bool {
	switch op {
	case "==", "!=", "<=", ">=", "<", ">":
		return true
	}
	return false
}

// The expression parsers take the depth of nesting (parentheses, calls,
// unary minus, exponents) they are at, and refuse more than
// grammar.MaxExprDepth levels: the recursion would otherwise exhaust the
// stack on ((((...)))) a million deep, which no recover can catch.

func (p *parser) expr(depth int) *grammar.Expr {
	e := &grammar.Expr{Pos: p.tok.Pos}
	e.Left = p.sum(depth)
	if p.tok.Type == grammar.Punct && isComparison(p.tok.Value) {
		e.Op = p.tok.Value
		p.next()
		e.Right = p.sum(depth)
	}
	return e
}

func (p *parser) sum(depth int) *grammar.Sum {
	s := &grammar.Sum{Pos: p.tok.Pos}
	s.Left = p.product(depth)
	for {
		t := &grammar.SumTail{Pos: p.tok.Pos}
		switch {
		case p.is("+") || p.is("-"):
			t.Op = p.tok.Value
			p.next()
			t.Right = p.product(depth)
		case p.tok.Type == grammar.Number:
			n := p.tok.Value
			t.Number = &n
			p.next()
			if p.is("^") {
				p.next()
				t.Exp = p.unary(depth + 1)
			}
			for p.is("*") || p.is("/") {
				t.Mul = append(t.Mul, p.mulTail(depth))
			}
		default:
			return s
		}
		s.Tail = append(s.Tail, t)
	}
}

func (p *parser) product(depth int) *grammar.Product {
	x := &grammar.Product{Pos: p.tok.Pos}
	x.Left = p.unary(depth)
	for p.is("*") || p.is("/") {
		x.Tail = append(x.Tail, p.mulTail(depth))
	}
	return x
}

func (p *parser) mulTail(depth int) *grammar.MulTail {
	t := &grammar.MulTail{Pos: p.tok.Pos, Op: p.tok.Value}
	p.next()
	t.Right = p.unary(depth)
	return t
}

func (p *parser) unary(depth int) *grammar.Unary {
	if depth > grammar.MaxExprDepth {
		p.fail(p.tok.Pos, "the expression nests more than %d levels deep (parentheses, calls, minus signs, exponents)", grammar.MaxExprDepth)
	}
	u := &grammar.Unary{Pos: p.tok.Pos}
	if p.is("-") {
		p.next()
		u.Neg = p.unary(depth + 1)
		return u
	}
	u.Power = p.power(depth)
	return u
}

func (p *parser) power(depth int) *grammar.Power {
	w := &grammar.Power{Pos: p.tok.Pos}
	w.Base = p.primary(depth)
	if p.is("^") {
		p.next()
		w.Exp = p.unary(depth + 1)
	}
	return w
}

func (p *parser) primary(depth int) *grammar.Primary {
	x := &grammar.Primary{Pos: p.tok.Pos}
	switch {
	case p.tok.Type == grammar.Number:
		n := p.tok.Value
		x.Number = &n
		p.next()
	case p.tok.Type == grammar.Ident:
		if t := p.peek(); t.Type == grammar.Punct && t.Value == "(" {
			c := &grammar.Call{Pos: p.tok.Pos, Fn: p.tok.Value}
			p.next()
			p.next()
			c.Args = p.exprList(depth + 1)
			p.expect(")", "to close "+c.Fn+"(...)")
			x.Call = c
			return x
		}
		x.Ident = p.tok.Value
		p.next()
		p.noIndex(x.Ident)
	case p.tok.Type == grammar.String:
		x.Quoted = p.tok.Value
		p.next()
		p.noIndex(x.Quoted)
	case p.is("("):
		p.next()
		x.Paren = p.expr(depth + 1)
		p.expect(")", "to close the parenthesis")
	default:
		p.fail(p.tok.Pos, "expected a number, a name, a function call or ( in an expression, found %s", describe(p.tok))
	}
	return x
}

// noIndex refuses a time index after a name in an expression (nothing
// else may follow a name there with "["): a mean, a score or a softmax
// cannot name a time-indexed variable's slice yet.
func (p *parser) noIndex(name string) {
	if p.is("[") {
		p.fail(p.tok.Pos, "%s[...]: an expression (a mean, a score, a softmax) cannot name a slice of a time-indexed variable: a real parent across slices, normal(0.5 * X[t-1], 1), is not supported; a static variable (declared without [t]) may be named", name)
	}
}
