package bif

import (
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/ir"
)

// cpt is the state of a probability block being read.
type cpt struct {
	ok      bool // the header resolved: rows are checked and stored
	bad     bool // an error in the body: the table is not set
	child   ir.VarID
	parents []ir.VarID
	stride  []int // stride of each parent in the row index
	k, rows int
	vals    []float64
	seen    []bool
	rowPos  []ir.Pos // or nil if there are too many rows
	given   int      // rows given explicitly

	def      bool // a default row was given
	defPos   ir.Pos
	defVals  []float64
	table    bool // a table was given
	tablePos ir.Pos
	title    string // "P(X | A, B)"
}

// parseProbability parses
//
//	probability ( X | A, B ) { (a1, b1) 0.1, 0.9; ... default 0.5, 0.5; }
//	probability ( X ) { table 0.2, 0.8; }
func (p *parser) parseProbability() {
	p.next()
	if !p.expect(tLParen, `"probability"`) {
		p.skipToBlock()
		return
	}
	if !p.isName() {
		p.errorf(p.tok, `expected a variable name after "(", found %s`, p.found())
		p.skipToBlock()
		return
	}
	childTok := p.tok
	p.next()
	var parentToks []token
	bar := false
	for p.tok.kind != tRParen {
		switch {
		case p.isName():
			parentToks = append(parentToks, p.tok)
		case p.tok.kind == tComma:
		case p.tok.kind == tBar && !bar && len(parentToks) == 0:
			bar = true
		default:
			p.errorf(p.tok, `expected a parent name or ")" in probability ( %s ... ), found %s`, p.s.name(childTok), p.found())
			p.claim(childTok)
			p.skipToBlock()
			return
		}
		p.next()
	}
	p.next()

	// Resolve the header.
	c := &cpt{ok: true}
	child, childOK := p.lookup(childTok, true)
	c.ok = childOK
	c.child = child
	if childOK {
		if p.hasBlock[child] {
			// ir.Builder.SetCPT reports the second block; only parse this one.
			c.ok = false
			p.b.SetCPT(p.s.pos(childTok), child, nil, uniform(p.card(child)), nil)
			childOK = false
		}
		p.hasBlock[child] = true
	}
	seen := map[string]token{p.s.name(childTok): childTok}
	for _, t := range parentToks {
		name := p.s.name(t)
		if prev, dup := seen[name]; dup {
			if prev == childTok {
				p.errorf(t, "%q cannot be a parent of itself", name)
			} else {
				p.errorf(t, "parent %q is listed twice", name)
			}
			c.ok = false
			continue
		}
		seen[name] = t
		v, ok := p.lookup(t, false)
		if !ok {
			c.ok = false
			continue
		}
		c.parents = append(c.parents, v)
	}
	if c.ok {
		c.title = p.title(child, c.parents)
		c.k = p.card(child)
		c.rows = 1
		c.stride = make([]int, len(c.parents))
		for i := len(c.parents) - 1; i >= 0; i-- {
			c.stride[i] = c.rows
			n := p.card(c.parents[i])
			if c.rows > maxTableEntries/n {
				c.rows = maxTableEntries + 1
				break
			}
			c.rows *= n
		}
		if c.rows > maxTableEntries/c.k {
			p.errorf(childTok, "the table of %s is too large (more than %d entries)", c.title, maxTableEntries)
			c.ok = false
		} else {
			c.vals = make([]float64, c.rows*c.k)
			c.seen = make([]bool, c.rows)
			if c.rows <= maxRowPos {
				c.rowPos = make([]ir.Pos, c.rows)
			}
		}
	}
	if !p.expect(tLBrace, "the variables of the probability block") {
		p.skipToBlock()
		c.bad = true
		p.endCPT(c, childTok, childOK, token{})
		return
	}
	for {
		switch {
		case p.tok.kind == tRBrace:
			end := p.tok
			p.next()
			p.endCPT(c, childTok, childOK, end)
			return
		case p.tok.kind == tEOF || p.atBlockStart():
			p.errorf(p.tok, `expected "}" at the end of the probability block for %q, found %s`, p.s.name(childTok), p.found())
			c.bad = true
			p.endCPT(c, childTok, childOK, p.tok)
			return
		case p.tok.kind == tLParen:
			p.parseRow(c)
		case p.is("default"):
			p.parseDefault(c)
		case p.is("table"):
			p.parseTable(c)
		case p.is("property"):
			p.skipStmt()
		default:
			p.errorf(p.tok, `expected a row "( ... )", "table", "default" or "}" in the probability block for %q, found %s`, p.s.name(childTok), p.found())
			c.bad = true
			p.skipStmt()
		}
	}
}

func (p *parser) card(v ir.VarID) int { return len(p.b.Model().Vars[v].States) }

// claim records that the variable named by t has a probability block, one
// whose header was too broken to read, so that it is not also reported as
// having none.
func (p *parser) claim(t token) {
	if v, ok := p.b.Model().Lookup(p.s.name(t)); ok && !p.hasBlock[v.ID] {
		p.hasBlock[v.ID] = true
		p.b.SetCPT(p.s.pos(t), v.ID, nil, uniform(len(v.States)), nil)
	}
}

// title renders P(X | A, B) the way ir.Builder does.
func (p *parser) title(child ir.VarID, parents []ir.VarID) string {
	vars := p.b.Model().Vars
	var s strings.Builder
	s.WriteString("P(")
	s.WriteString(ir.Quote(vars[child].Name))
	for i, v := range parents {
		if i == 0 {
			s.WriteString(" | ")
		} else {
			s.WriteString(", ")
		}
		s.WriteString(ir.Quote(vars[v].Name))
	}
	s.WriteString(")")
	return s.String()
}

// rowText renders the parent states of the current row, e.g. (yes, "<5").
func (p *parser) rowText() string {
	var s strings.Builder
	s.WriteByte('(')
	for i, t := range p.rowToks {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(ir.Quote(p.s.name(t)))
	}
	s.WriteByte(')')
	return s.String()
}

// parseRow parses `( a, b ) v1, v2, ... ;`.
func (p *parser) parseRow(c *cpt) {
	lp := p.tok
	p.next()
	p.rowToks = p.rowToks[:0]
	good := c.ok
	r := 0
	for p.tok.kind != tRParen {
		switch {
		case p.isName():
			i := len(p.rowToks)
			p.rowToks = append(p.rowToks, p.tok)
			if !c.ok {
				break
			}
			if i >= len(c.parents) {
				if i == len(c.parents) {
					p.errorf(p.tok, "too many states in a row of %s: expected %d", c.title, len(c.parents))
				}
				good = false
				break
			}
			pv := c.parents[i]
			st := p.stateIndex(pv, p.tok)
			if st < 0 {
				v := p.b.Model().Vars[pv]
				name := p.s.name(p.tok)
				p.errorf(p.tok, "unknown state %q of %q%s", name, v.Name, hint(name, v.States))
				good = false
				break
			}
			r += st * c.stride[i]
		case p.tok.kind == tComma:
		default:
			p.errorf(p.tok, `expected a state name or ")" in a row of the probability block, found %s`, p.found())
			c.bad = true
			p.skipStmt()
			return
		}
		p.next()
	}
	if c.ok && len(p.rowToks) < len(c.parents) {
		p.errorf(p.tok, "row %s of %s has %d states, expected %d", p.rowText(), c.title, len(p.rowToks), len(c.parents))
		good = false
	}
	p.next()
	if good && c.seen[r] {
		msg := fmt.Sprintf("duplicate row %s of %s", p.rowText(), c.title)
		if c.rowPos != nil {
			msg += fmt.Sprintf(" (first at %s)", c.rowPos[r])
		}
		p.errorf(lp, "%s", msg)
		good = false
	}
	if c.table && c.ok {
		p.errorf(lp, "%s has both a table and rows", c.title)
		good = false
	}
	var vals []float64
	if good {
		vals = c.vals[r*c.k : (r+1)*c.k]
	}
	n, ok := p.parseValues(c, c.k, func(j int, x float64) {
		if vals != nil {
			vals[j] = x
		}
	}, func() string { return "row " + p.rowTextIf(c) })
	if !ok || !good || n != c.k {
		c.bad = true
		return
	}
	c.seen[r] = true
	c.given++
	if c.rowPos != nil {
		c.rowPos[r] = p.s.pos(lp)
	}
}

func (p *parser) rowTextIf(c *cpt) string {
	if !c.ok {
		return p.rowText()
	}
	return p.rowText() + " of " + c.title
}

// parseValues parses `v1, v2, ... ;` and stores the first want values
// with set, if the block is ok. It returns the number of values read and
// whether the syntax was right; a wrong count has been reported.
func (p *parser) parseValues(c *cpt, want int, set func(j int, x float64), what func() string) (int, bool) {
	n := 0
	var extra token
	for p.tok.kind != tSemi {
		switch p.tok.kind {
		case tWord:
			x, ok := importer.ParseNumber(p.s.bytes(p.tok))
			if !ok {
				p.errorf(p.tok, "malformed number %s", p.found())
				c.bad = true
			} else if c.ok && n < want {
				set(n, x)
			}
			if n == want {
				extra = p.tok
			}
			n++
		case tComma:
		default:
			p.errorf(p.tok, `expected ";" after the probabilities of %s, found %s`, what(), p.found())
			p.skipStmt()
			return n, false
		}
		p.next()
	}
	if c.ok && n != want {
		t := p.tok
		if n > want {
			t = extra
		}
		p.errorf(t, "%s has %d probabilities, expected %d", what(), n, want)
	}
	p.next()
	return n, true
}

// parseDefault parses `default v1, v2, ... ;`: the distribution of the
// child for every parent configuration without a row.
func (p *parser) parseDefault(c *cpt) {
	t := p.tok
	p.next()
	if c.def {
		p.errorf(t, "second default row in the probability block")
		c.bad = true
	}
	if c.table && c.ok {
		p.errorf(t, "%s has both a table and a default row", c.title)
		c.bad = true
	}
	c.def = true
	c.defPos = p.s.pos(t)
	c.defVals = make([]float64, c.k)
	title := "the default row"
	if c.ok {
		title += " of " + c.title
	}
	n, ok := p.parseValues(c, c.k, func(j int, x float64) { c.defVals[j] = x }, func() string { return title })
	if !ok || n != c.k {
		c.bad = true
	}
}

// parseTable parses `table v1, v2, ... ;`. The values are listed with the
// child varying slowest and the parents in row-major order after it (the
// last parent fastest): for P(X | A) with binary X and A,
//
//	table P(x0|a0), P(x0|a1), P(x1|a0), P(x1|a1);
//
// which is the transpose of ir's layout.
func (p *parser) parseTable(c *cpt) {
	t := p.tok
	p.next()
	if c.table {
		p.errorf(t, "second table in the probability block")
		c.bad = true
	} else if c.ok && (c.given > 0 || c.def) {
		p.errorf(t, "%s has both rows and a table", c.title)
		c.bad = true
	}
	c.table = true
	c.tablePos = p.s.pos(t)
	title := "the table"
	if c.ok {
		title += " of " + c.title
	}
	n, ok := p.parseValues(c, c.rows*c.k, func(j int, x float64) {
		c.vals[(j%c.rows)*c.k+j/c.rows] = x
	}, func() string { return title })
	if !ok || n != c.rows*c.k {
		c.bad = true
	}
}

// endCPT completes a probability block whose "}" is end (or a zero token
// if the block ended early): it checks for missing rows, fills default
// rows and gives the child its CPT. A child whose block is unusable gets
// a placeholder, so that it is not also reported as lacking a block; the
// model is not returned anyway, as an error has been reported.
func (p *parser) endCPT(c *cpt, childTok token, childOK bool, end token) {
	if !childOK {
		return
	}
	pos := p.s.pos(childTok)
	if !c.ok || c.bad {
		p.b.SetCPT(pos, c.child, nil, uniform(p.card(c.child)), nil)
		return
	}
	if !c.table {
		missing, first := 0, -1
		for r, ok := range c.seen {
			if !ok {
				if c.def {
					copy(c.vals[r*c.k:(r+1)*c.k], c.defVals)
					if c.rowPos != nil {
						c.rowPos[r] = c.defPos
					}
					continue
				}
				if first < 0 {
					first = r
				}
				missing++
			}
		}
		if missing > 0 {
			var msg string
			if len(c.parents) == 0 {
				msg = fmt.Sprintf(`%s has no probabilities (expected "table ...;")`, c.title)
			} else {
				msg = fmt.Sprintf("%s has no row for %s", c.title, p.config(c, first))
				if missing > 1 {
					msg += fmt.Sprintf(" (and %d more missing rows)", missing-1)
				}
			}
			p.errorf(end, "%s", msg)
			p.b.SetCPT(pos, c.child, nil, uniform(p.card(c.child)), nil)
			return
		}
	} else if c.rowPos != nil {
		for r := range c.rowPos {
			c.rowPos[r] = c.tablePos
		}
	}
	p.b.SetCPT(pos, c.child, c.parents, c.vals, c.rowPos)
}

// config renders the parent configuration of row r, e.g. (yes, no).
func (p *parser) config(c *cpt, r int) string {
	vars := p.b.Model().Vars
	var s strings.Builder
	s.WriteByte('(')
	for i, v := range c.parents {
		if i > 0 {
			s.WriteString(", ")
		}
		st := r / c.stride[i] % len(vars[v].States)
		s.WriteString(ir.Quote(vars[v].States[st]))
	}
	s.WriteByte(')')
	return s.String()
}

func uniform(k int) []float64 {
	u := make([]float64, k)
	for i := range u {
		u[i] = 1 / float64(k)
	}
	return u
}
