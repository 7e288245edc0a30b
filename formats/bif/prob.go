package bif

import (
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/formats/internal/textscan"
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
}

// title renders c for a message, as P(X | A, B); c.ok must be true. It is
// built only for messages: building it for every block cost 5% of reading
// pigs.bif.
func (p *parser) title(c *cpt) string { return importer.CPTTitle(p.B.Model(), c.child, c.parents) }

// parseProbability parses
//
//	probability ( X | A, B ) { (a1, b1) 0.1, 0.9; ... default 0.5, 0.5; }
//	probability ( X ) { table 0.2, 0.8; }
func (p *parser) parseProbability() {
	p.Next()
	if !p.expect('(', `"probability"`) {
		p.skipToBlock()
		return
	}
	if !p.blockName("a variable name", `"("`) {
		return
	}
	childTok := p.Tok
	p.Next()
	parentToks := p.parentToks[:0] // a buffer shared by the blocks
	defer func() { p.parentToks = parentToks[:0] }()
	bar := false
	for p.Tok.Kind != ')' {
		switch {
		case p.isName():
			parentToks = append(parentToks, p.Tok)
		case p.Tok.Kind == ',':
		case p.Tok.Kind == '|' && !bar && len(parentToks) == 0:
			bar = true
		default:
			p.Errorf(p.Tok, `expected a parent name or ")" in probability ( %s ... ), found %s`, p.S.Text(childTok), p.Found())
			p.claim(childTok)
			p.skipToBlock()
			return
		}
		p.Next()
	}
	p.Next()

	// Resolve the header.
	c := &cpt{ok: true}
	child, childOK := p.lookup(childTok, true)
	c.ok = childOK
	c.child = child
	if childOK {
		if p.hasBlock[child] {
			// ir.Builder.SetCPT reports the second block; only parse this one.
			c.ok = false
			p.B.SetCPT(p.S.At(childTok), child, nil, importer.Uniform(p.card(child)), nil)
			childOK = false
		}
		p.hasBlock[child] = true
	}
	// A name listed twice: blocks have few parents, so names are compared
	// in place; a map for more (it cost 5% of reading pigs.bif for all).
	var seen map[string]bool
	if len(parentToks) > 16 {
		seen = map[string]bool{p.S.Text(childTok): true}
	}
	for i, t := range parentToks {
		dup := false
		if seen != nil {
			name := p.S.Text(t)
			dup = seen[name]
			seen[name] = true
		} else {
			for _, u := range parentToks[:i] {
				dup = dup || p.sameName(t, u)
			}
		}
		if p.sameName(t, childTok) {
			p.Errorf(t, "%q cannot be a parent of itself", p.S.Text(t))
			c.ok = false
			continue
		}
		if dup {
			p.Errorf(t, "parent %q is listed twice", p.S.Text(t))
			c.ok = false
			continue
		}
		v, ok := p.lookup(t, false)
		if !ok {
			c.ok = false
			continue
		}
		c.parents = append(c.parents, v)
	}
	if c.ok {
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
			p.Errorf(childTok, "the table of %s is too large (more than %d entries)", p.title(c), maxTableEntries)
			c.ok = false
		} else {
			c.vals = make([]float64, c.rows*c.k)
			c.seen = p.seenBuf(c.rows)
			if c.rows <= maxRowPos {
				c.rowPos = make([]ir.Pos, c.rows)
			}
		}
	}
	if !p.expect('{', "the variables of the probability block") {
		p.skipToBlock()
		c.bad = true
		p.endCPT(c, childTok, childOK, textscan.Token{})
		return
	}
	for {
		switch {
		case p.Tok.Kind == '}':
			end := p.Tok
			p.Next()
			p.endCPT(c, childTok, childOK, end)
			return
		case p.Tok.Kind == textscan.EOF || p.atBlockStart():
			p.badCPT(c, p.Tok, `expected "}" at the end of the probability block for %q, found %s`, p.S.Text(childTok), p.Found())
			p.endCPT(c, childTok, childOK, p.Tok)
			return
		case p.Tok.Kind == '(':
			p.parseRow(c)
		case p.Is("default"):
			p.parseDefault(c)
		case p.Is("table"):
			p.parseTable(c)
		case p.Is("property"):
			p.skipStmt()
		default:
			p.badCPT(c, p.Tok, `expected a row "( ... )", "table", "default" or "}" in the probability block for %q, found %s`, p.S.Text(childTok), p.Found())
			p.skipStmt()
		}
	}
}

// sameName reports whether the name tokens a and b spell the same name.
func (p *parser) sameName(a, b textscan.Token) bool {
	if a.Kind == textscan.Word && b.Kind == textscan.Word {
		return string(p.S.Bytes(a)) == string(p.S.Bytes(b))
	}
	return p.S.Text(a) == p.S.Text(b)
}

// seenBuf returns n cleared flags, from a buffer shared by the blocks (a
// block's flags are used only while it is read).
func (p *parser) seenBuf(n int) []bool {
	if cap(p.seen) < n {
		p.seen = make([]bool, n)
	}
	p.seen = p.seen[:n]
	clear(p.seen)
	return p.seen
}

func (p *parser) card(v ir.VarID) int { return len(p.B.Model().Vars[v].States) }

// claim records that the variable named by t has a probability block, one
// whose header was too broken to read, so that it is not also reported as
// having none.
func (p *parser) claim(t textscan.Token) {
	if v, ok := p.B.Model().Lookup(p.S.Text(t)); ok && !p.hasBlock[v.ID] {
		p.hasBlock[v.ID] = true
		p.B.SetCPT(p.S.At(t), v.ID, nil, importer.Uniform(len(v.States)), nil)
	}
}

// rowText renders the parent states of the current row, e.g. (yes, "<5").
func (p *parser) rowText() string {
	var s strings.Builder
	s.WriteByte('(')
	for i, t := range p.rowToks {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(ir.Quote(p.S.Text(t)))
	}
	s.WriteByte(')')
	return s.String()
}

// parseRow parses `( a, b ) v1, v2, ... ;`.
func (p *parser) parseRow(c *cpt) {
	lp := p.Tok
	p.Next()
	p.rowToks = p.rowToks[:0]
	good := c.ok
	r := 0
	for p.Tok.Kind != ')' {
		switch {
		case p.isName():
			i := len(p.rowToks)
			p.rowToks = append(p.rowToks, p.Tok)
			if !c.ok {
				break
			}
			if i >= len(c.parents) {
				if i == len(c.parents) {
					p.Errorf(p.Tok, "too many states in a row of %s: expected %d", p.title(c), len(c.parents))
				}
				good = false
				break
			}
			pv := c.parents[i]
			st := p.stateIndex(pv, p.Tok)
			if st < 0 {
				v := p.B.Model().Vars[pv]
				name := p.S.Text(p.Tok)
				p.Errorf(p.Tok, "unknown state %q of %q%s", name, v.Name, ir.StateHint(v, name))
				good = false
				break
			}
			r += st * c.stride[i]
		case p.Tok.Kind == ',':
		default:
			p.badCPT(c, p.Tok, `expected a state name or ")" in a row of the probability block, found %s`, p.Found())
			p.skipStmt()
			return
		}
		p.Next()
	}
	if c.ok && len(p.rowToks) < len(c.parents) {
		p.Errorf(p.Tok, "row %s of %s has %s, expected %d", p.rowText(), p.title(c), ir.Plural(len(p.rowToks), "state"), len(c.parents))
		good = false
	}
	p.Next()
	if good && c.seen[r] {
		msg := fmt.Sprintf("duplicate row %s of %s", p.rowText(), p.title(c))
		if c.rowPos != nil {
			msg += fmt.Sprintf(" (first at %s)", c.rowPos[r])
		}
		p.Errorf(lp, "%s", msg)
		good = false
	}
	if c.table && c.ok {
		p.Errorf(lp, "%s has both a table and rows", p.title(c))
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
		c.rowPos[r] = p.S.At(lp)
	}
}

func (p *parser) rowTextIf(c *cpt) string {
	if !c.ok {
		return p.rowText()
	}
	return p.rowText() + " of " + p.title(c)
}

// parseValues parses `v1, v2, ... ;` and stores the first want values
// with set, if the block is ok. It returns the number of values read and
// whether the syntax was right; a wrong count has been reported.
func (p *parser) parseValues(c *cpt, want int, set func(j int, x float64), what func() string) (int, bool) {
	n := 0
	var extra textscan.Token
	for p.Tok.Kind != ';' {
		switch p.Tok.Kind {
		case textscan.Word:
			x, ok := importer.ParseNumber(p.S.Bytes(p.Tok))
			if !ok {
				p.badCPT(c, p.Tok, "malformed number %s", p.Found())
			} else if c.ok && n < want {
				set(n, x)
			}
			if n == want {
				extra = p.Tok
			}
			n++
		case ',':
		default:
			p.Errorf(p.Tok, `expected ";" after the probabilities of %s, found %s`, what(), p.Found())
			p.skipStmt()
			return n, false
		}
		p.Next()
	}
	if c.ok && n != want {
		t := p.Tok
		if n > want {
			t = extra
		}
		p.Errorf(t, "%s has %s, expected %d", what(), ir.Plural(n, "probability"), want)
	}
	p.Next()
	return n, true
}

// badCPT reports an error at t in c's block and marks c as not to be
// built.
func (p *parser) badCPT(c *cpt, t textscan.Token, format string, args ...any) {
	p.Errorf(t, format, args...)
	c.bad = true
}

// parseDefault parses `default v1, v2, ... ;`: the distribution of the
// child for every parent configuration without a row.
func (p *parser) parseDefault(c *cpt) {
	t := p.Tok
	p.Next()
	if c.def {
		p.badCPT(c, t, "second default row in the probability block")
	}
	if c.table && c.ok {
		p.badCPT(c, t, "%s has both a table and a default row", p.title(c))
	}
	c.def = true
	c.defPos = p.S.At(t)
	c.defVals = make([]float64, c.k)
	n, ok := p.parseValues(c, c.k, func(j int, x float64) { c.defVals[j] = x }, func() string {
		if c.ok {
			return "the default row of " + p.title(c)
		}
		return "the default row"
	})
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
	t := p.Tok
	p.Next()
	if c.table {
		p.badCPT(c, t, "second table in the probability block")
	} else if c.ok && (c.given > 0 || c.def) {
		p.badCPT(c, t, "%s has both rows and a table", p.title(c))
	}
	c.table = true
	c.tablePos = p.S.At(t)
	n, ok := p.parseValues(c, c.rows*c.k, func(j int, x float64) {
		c.vals[(j%c.rows)*c.k+j/c.rows] = x
	}, func() string {
		if c.ok {
			return "the table of " + p.title(c)
		}
		return "the table"
	})
	if !ok || n != c.rows*c.k {
		c.bad = true
	}
}

// endCPT completes a probability block whose "}" is end (or a zero token
// if the block ended early): it checks for missing rows, fills default
// rows and gives the child its CPT. A child whose block is unusable gets
// a placeholder, so that it is not also reported as lacking a block; the
// model is not returned anyway, as an error has been reported.
func (p *parser) endCPT(c *cpt, childTok textscan.Token, childOK bool, end textscan.Token) {
	if !childOK {
		return
	}
	pos := p.S.At(childTok)
	if !c.ok || c.bad {
		p.B.SetCPT(pos, c.child, nil, importer.Uniform(p.card(c.child)), nil)
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
				msg = fmt.Sprintf(`%s has no probabilities (expected "table ...;")`, p.title(c))
			} else {
				msg = fmt.Sprintf("%s has no row for %s", p.title(c), p.config(c, first))
				if missing > 1 {
					msg += " (and " + ir.Plural(missing-1, "more missing row") + ")"
				}
			}
			p.Errorf(end, "%s", msg)
			p.B.SetCPT(pos, c.child, nil, importer.Uniform(p.card(c.child)), nil)
			return
		}
	} else if c.rowPos != nil {
		for r := range c.rowPos {
			c.rowPos[r] = c.tablePos
		}
	}
	p.B.SetCPT(pos, c.child, c.parents, c.vals, c.rowPos)
}

// config renders the parent configuration of row r, e.g. (yes, no).
func (p *parser) config(c *cpt, r int) string {
	vars := p.B.Model().Vars
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
