package hugin

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// maxHints is the number of undeclared names for which a similar name is
// looked for; maxListed bounds the errors of one kind reported for one
// potential (malformed numbers, rows of the wrong length).
const (
	maxHints  = 100
	maxListed = 10
)

// ReadFile reads the Hugin NET model in the file at path. An error reading
// the file is returned as is; errors in its contents are an ir.ErrorList,
// as for [Read].
func ReadFile(path string) (*ir.Model, error) { return importer.ReadFile(path, Read) }

// Read parses a model in the Hugin NET format. Errors are an ir.ErrorList
// of *ir.Error positioned in filename (line:col, 1-based, rune columns).
func Read(filename string, src []byte) (m *ir.Model, err error) {
	defer importer.Recover(filename, "NET", &m, &err)
	p := newParser(filename, src)
	p.parseFile()
	return p.finish()
}

// nodeDecl is a node block as read.
type nodeDecl struct {
	nameTok   token
	name      string
	states    []string
	hasStates bool   // a states attribute was read
	statesOK  bool   // and it was well formed
	damaged   bool   // the block had an error: the node is unusable
	kind      string // "" for a discrete chance node, else what it is: "a decision node", ...
}

// potDecl is a potential block as read. Its nodes are resolved once the
// whole file has been read, so that potentials may precede their nodes.
type potDecl struct {
	kw      token   // the word "potential"
	head    []token // the nodes before "|"
	tail    []token // the nodes after "|"
	broken  bool    // a syntax error in the header or data: not built
	hasData bool
	dataTok token     // the word "data"
	vals    []float64 // every value of data, in order
	valOff  []int     // offset of each value, for row positions
	badNums []token   // the first maxListed values that are not numbers
	nbad    int       // the number of values that are not numbers
	groups  []group   // lists holding values and no lists, in order
}

// group is a parenthesised list of data values with no list inside.
type group struct {
	open  token // its "("
	depth int   // 0 for the outermost list
	n     int   // the number of values
}

// parser reads a NET file in one pass into node and potential
// declarations, then builds the model from them.
type parser struct {
	s   *scanner
	tok token
	b   *ir.Builder

	lastErrOff int // offset of the token of the last error, to report one error per token

	nodes []*nodeDecl
	pots  []*potDecl
}

func newParser(filename string, src []byte) *parser {
	p := &parser{b: ir.NewBuilder(filename), lastErrOff: -1}
	p.s = newScanner(filename, src, p.b.Errorf)
	p.next()
	return p
}

func (p *parser) next() {
	p.tok = p.s.next()
	for p.tok.kind == tIllegal {
		p.errorf(p.tok, "unexpected %s", p.s.describe(p.tok))
		p.tok = p.s.next()
	}
}

// errorf reports an error at t, unless one was already reported there.
func (p *parser) errorf(t token, format string, args ...any) {
	if t.off == p.lastErrOff {
		return
	}
	p.lastErrOff = t.off
	p.b.Errorf(p.s.at(t), format, args...)
}

func (p *parser) found() string { return p.s.describe(p.tok) }

// is reports whether the current token is the word w.
func (p *parser) is(w string) bool {
	return p.tok.kind == tWord && string(p.s.bytes(p.tok)) == w
}

// nodeWords are the words that may begin a node declaration.
var nodeWords = map[string]bool{
	"node": true, "discrete": true, "continuous": true,
	"chance": true, "decision": true, "utility": true, "function": true,
}

// atElement reports whether the current token begins a node or potential.
func (p *parser) atElement() bool {
	if p.tok.kind != tWord {
		return false
	}
	w := string(p.s.bytes(p.tok))
	return w == "potential" || nodeWords[w]
}

// atElementStart reports whether the current token begins a node or a
// potential at the start of a line: the place to stop when a block is
// missing its "}".
func (p *parser) atElementStart() bool { return p.tok.bol && p.atElement() }

// skipToElement skips to the next word that begins an element at the
// start of a line or outside any braces. It skips at least one token
// unless the current one begins an element.
func (p *parser) skipToElement() {
	if p.atElement() {
		return
	}
	depth := 0
	for {
		switch p.tok.kind {
		case tEOF:
			return
		case tLBrace:
			depth++
		case tRBrace:
			depth--
		}
		p.next()
		if p.atElement() && (p.tok.bol || depth <= 0) {
			return
		}
	}
}

// skipAttr skips to the end of the current attribute: past the next ";"
// outside parentheses, or up to the "}" that closes the block or an
// element that starts a line.
func (p *parser) skipAttr() {
	depth := 0
	for {
		switch p.tok.kind {
		case tEOF:
			return
		case tSemi:
			if depth <= 0 {
				p.next()
				return
			}
		case tLParen:
			depth++
		case tRParen:
			depth--
		case tRBrace:
			return
		case tWord:
			if p.atElementStart() {
				return
			}
		}
		p.next()
	}
}

func (p *parser) parseFile() {
	if p.is("net") {
		p.parseNet()
	} else if p.is("class") {
		p.errorf(p.tok, "classes (object-oriented networks) are not supported; expected a net { ... } block")
		p.next()
		p.skipToElement()
	}
	for p.tok.kind != tEOF {
		switch {
		case p.is("potential"):
			p.parsePotential()
		case p.atElement():
			p.parseNode()
		case p.is("net"):
			p.errorf(p.tok, "a second net block")
			p.next()
			p.skipToElement()
		default:
			p.errorf(p.tok, `expected "node" or "potential", found %s`, p.found())
			p.skipToElement()
		}
	}
}

// parseNet parses the header `net { attributes }`, whose attributes are
// skipped.
func (p *parser) parseNet() {
	p.next()
	if p.tok.kind != tLBrace {
		p.errorf(p.tok, `expected "{" after "net", found %s`, p.found())
		p.skipToElement()
		return
	}
	p.next()
	p.parseAttrs("the net block", func(token) bool { return false })
}

// parseAttrs parses `name = value;` attributes up to the "}" that closes a
// block, and consumes it. For each attribute, after its "=", attr is
// called with the name; if it returns false the value is skipped.
func (p *parser) parseAttrs(block string, attr func(name token) bool) {
	for {
		switch {
		case p.tok.kind == tRBrace:
			p.next()
			return
		case p.tok.kind == tEOF || p.atElementStart():
			p.errorf(p.tok, `expected "}" at the end of %s, found %s`, block, p.found())
			return
		case p.tok.kind != tWord:
			p.errorf(p.tok, `expected an attribute (name = value;) or "}" in %s, found %s`, block, p.found())
			p.skipAttr()
			continue
		}
		name := p.tok
		p.next()
		if p.tok.kind != tEq {
			p.errorf(p.tok, `expected "=" after the attribute name %s, found %s`, p.s.describe(name), p.found())
			p.skipAttr()
			continue
		}
		p.next()
		if attr(name) {
			continue
		}
		p.skipValue(name)
	}
}

// skipValue skips an attribute value that is not interpreted: anything up
// to a ";" outside parentheses, which it consumes.
func (p *parser) skipValue(name token) {
	var open []token
	for {
		switch p.tok.kind {
		case tLParen:
			open = append(open, p.tok)
		case tRParen:
			if len(open) == 0 {
				p.errorf(p.tok, `unexpected ")" in the value of %s`, p.s.describe(name))
				p.skipAttr()
				return
			}
			open = open[:len(open)-1]
		case tSemi:
			if len(open) == 0 {
				p.next()
				return
			}
			p.unclosed(open[len(open)-1])
			p.skipAttr()
			return
		case tEOF, tLBrace, tRBrace:
			if len(open) > 0 {
				p.unclosed(open[len(open)-1])
			} else {
				p.errorf(p.tok, `expected ";" after the value of %s, found %s`, p.s.describe(name), p.found())
			}
			if p.tok.kind == tLBrace {
				p.skipToElement()
			}
			return
		case tWord:
			if p.atElementStart() {
				if len(open) > 0 {
					p.unclosed(open[len(open)-1])
				} else {
					p.errorf(p.tok, `expected ";" after the value of %s, found %s`, p.s.describe(name), p.found())
				}
				return
			}
		}
		p.next()
	}
}

// unclosed reports a "(" that is not closed, at the "(".
func (p *parser) unclosed(open token) {
	p.errorf(open, `unterminated parenthesis: this "(" is not closed (found %s)`, p.found())
}

// expectSemi consumes the ";" that ends an attribute.
func (p *parser) expectSemi(what string) {
	if p.tok.kind == tSemi {
		p.next()
		return
	}
	p.errorf(p.tok, `expected ";" after %s, found %s`, what, p.found())
	p.skipAttr()
}

// parseNode parses
//
//	[discrete|continuous] [chance|decision|utility|function] node NAME { attributes }
//
// where "node" may be left out after decision and utility.
func (p *parser) parseNode() {
	first := p.tok
	var words []string
	for p.tok.kind == tWord && nodeWords[string(p.s.bytes(p.tok))] && !p.is("node") {
		words = append(words, string(p.s.bytes(p.tok)))
		p.next()
	}
	if p.is("node") {
		p.next()
	} else if n := len(words); n == 0 || (words[n-1] != "decision" && words[n-1] != "utility") {
		p.errorf(p.tok, `expected "node" after %q, found %s`, strings.Join(words, " "), p.found())
		p.skipToElement()
		return
	}
	d := &nodeDecl{}
	for _, w := range words {
		switch w {
		case "continuous":
			d.kind = "a continuous node"
		case "decision", "utility", "function":
			if d.kind == "" {
				d.kind = "a " + w + " node"
			}
		}
	}
	if p.tok.kind != tWord {
		p.errorf(p.tok, "expected a node name, found %s", p.found())
		p.skipToElement()
		return
	}
	d.nameTok = p.tok
	d.name = p.s.text(p.tok)
	p.next()
	if d.kind != "" {
		p.errorf(first, "node %q is %s: only discrete chance nodes are supported", d.name, d.kind)
	}
	p.nodes = append(p.nodes, d)
	if p.tok.kind != tLBrace {
		p.errorf(p.tok, `expected "{" after the node name %q, found %s`, d.name, p.found())
		p.skipToElement()
		return
	}
	p.next()
	seen := false
	nerrs := len(p.b.Errs)
	defer func() { d.damaged = len(p.b.Errs) > nerrs }()
	p.parseAttrs(fmt.Sprintf("node %q", d.name), func(name token) bool {
		if string(p.s.bytes(name)) != "states" || d.kind != "" {
			return false
		}
		if seen {
			p.errorf(name, "node %q has a second states attribute", d.name)
			d.statesOK = false
			return false
		}
		seen, d.hasStates = true, true
		d.states, d.statesOK = p.parseStates(d.name)
		return true
	})
}

// parseStates parses the value `( "s1" "s2" ... );` of a states attribute.
func (p *parser) parseStates(node string) ([]string, bool) {
	if p.tok.kind != tLParen {
		p.errorf(p.tok, `expected "(" after "states =", found %s`, p.found())
		p.skipAttr()
		return nil, false
	}
	open := p.tok
	p.next()
	var states []string
	seen := map[string]bool{}
	ok := true
	for p.tok.kind != tRParen {
		switch p.tok.kind {
		case tString:
			s := p.s.text(p.tok)
			if seen[s] {
				p.errorf(p.tok, "state %q of node %q is listed twice", s, node)
				ok = false
			}
			seen[s] = true
			states = append(states, s)
		case tComma:
		case tWord:
			if p.atElementStart() {
				p.unclosed(open)
				return nil, false
			}
			if ok {
				p.errorf(p.tok, "expected a state name in double quotes, found %s", p.found())
			}
			ok = false
		default:
			p.unclosed(open)
			p.skipAttr()
			return nil, false
		}
		p.next()
	}
	p.next()
	p.expectSemi("the states")
	return states, ok
}

// parsePotential parses
//
//	potential ( X | A B ... ) { data = ( ... ); attributes }
func (p *parser) parsePotential() {
	d := &potDecl{kw: p.tok}
	p.next()
	if p.tok.kind != tLParen {
		p.errorf(p.tok, `expected "(" after "potential", found %s`, p.found())
		p.skipToElement()
		return
	}
	open := p.tok
	p.next()
	bar := false
header:
	for {
		switch p.tok.kind {
		case tRParen:
			p.next()
			break header
		case tWord:
			if p.atElementStart() {
				p.unclosed(open)
				return
			}
			if bar {
				d.tail = append(d.tail, p.tok)
			} else {
				d.head = append(d.head, p.tok)
			}
		case tComma:
		case tBar:
			if bar {
				p.errorf(p.tok, `a second "|" in potential ( ... )`)
				d.broken = true
			}
			bar = true
		default:
			if p.tok.kind == tString {
				p.errorf(p.tok, "expected a node name, found %s (node names are not quoted)", p.found())
				d.broken = true
				if bar {
					d.tail = append(d.tail, p.tok)
				} else {
					d.head = append(d.head, p.tok)
				}
				break
			}
			p.unclosed(open)
			p.skipToElement()
			return
		}
		p.next()
	}
	p.pots = append(p.pots, d)
	if p.tok.kind != tLBrace {
		p.errorf(p.tok, `expected "{" after potential ( ... ), found %s`, p.found())
		d.broken = true
		p.skipToElement()
		return
	}
	p.next()
	p.parseAttrs("the potential", func(name token) bool {
		if string(p.s.bytes(name)) != "data" {
			return false
		}
		if d.hasData {
			p.errorf(name, "a second data attribute in the potential")
			d.broken = true
			return false
		}
		d.hasData, d.dataTok = true, name
		p.parseData(d)
		return true
	})
}

// parseData parses the value of a data attribute: numbers in nested
// parentheses, followed by ";". The grouping is recorded, not checked: the
// numbers are checked against the potential once its nodes are known.
func (p *parser) parseData(d *potDecl) {
	if p.tok.kind != tLParen {
		p.errorf(p.tok, `expected "(" after "data =", found %s`, p.found())
		d.broken = true
		p.skipAttr()
		return
	}
	type frame struct {
		open   token
		n      int  // values directly inside
		nested bool // a list directly inside
	}
	var stack []frame
	for {
		switch p.tok.kind {
		case tLParen:
			if len(stack) > 0 {
				stack[len(stack)-1].nested = true
			}
			stack = append(stack, frame{open: p.tok})
		case tRParen:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.n > 0 && !f.nested {
				d.groups = append(d.groups, group{open: f.open, depth: len(stack), n: f.n})
			}
			if len(stack) == 0 {
				p.next()
				p.expectSemi("the data")
				return
			}
		case tWord, tString:
			if p.tok.kind == tWord && p.atElementStart() {
				p.unclosed(stack[len(stack)-1].open)
				d.broken = true
				return
			}
			x, ok := 0.0, false
			if p.tok.kind == tWord {
				x, ok = importer.ParseNumber(p.s.bytes(p.tok))
			}
			if !ok {
				if d.nbad < maxListed {
					d.badNums = append(d.badNums, p.tok)
				}
				d.nbad++
			}
			d.vals = append(d.vals, x)
			d.valOff = append(d.valOff, p.tok.off)
			stack[len(stack)-1].n++
		case tComma:
		default:
			p.unclosed(stack[len(stack)-1].open)
			d.broken = true
			p.skipAttr()
			return
		}
		p.next()
	}
}

// finish resolves the potentials against the nodes, builds the model and
// validates it.
func (p *parser) finish() (*ir.Model, error) {
	b := p.b
	// Declare the nodes. decls maps every name declared to its first
	// declaration; a name in decls whose variable is not in the model is
	// unusable, and was reported as such.
	decls := make(map[string]*nodeDecl, len(p.nodes))
	var names []string
	for _, d := range p.nodes {
		names = append(names, d.name)
		if prev, dup := decls[d.name]; dup {
			p.b.Errorf(p.s.at(d.nameTok), "node %q is declared twice (first at %s)", d.name, p.s.at(prev.nameTok))
			continue
		}
		decls[d.name] = d
		if d.kind != "" || d.damaged || d.hasStates && !d.statesOK {
			continue // reported already
		}
		if len(d.states) == 0 {
			p.b.Errorf(p.s.at(d.nameTok), `node %q has no states (give them as states = ( "a" "b" );)`, d.name)
			continue
		}
		b.AddVar(p.s.at(d.nameTok), d.name, ir.Enum, d.states, 0)
	}
	if len(p.nodes) == 0 && len(b.Errs) == 0 {
		b.Errorf(p.s.at(p.tok), "the file declares no nodes")
	}
	m := b.Model()
	hints := 0
	// lookup resolves a node named in a potential; ok is false if the name
	// is undeclared (reported here) or unusable (reported before).
	lookup := func(t token) (ir.VarID, bool) {
		name := p.s.text(t)
		if v, ok := m.Lookup(name); ok {
			return v.ID, true
		}
		if _, declared := decls[name]; declared {
			return 0, false
		}
		h := ""
		if hints < maxHints {
			hints++
			if s := spell.Nearest(name, names); s != "" {
				h = fmt.Sprintf(" (did you mean %q?)", s)
			}
		}
		p.b.Errorf(p.s.at(t), "undeclared node %q%s", name, h)
		return 0, false
	}
	potOf := make([]*potDecl, len(m.Vars)) // the first potential of each variable
	for _, d := range p.pots {
		if len(d.head) != 1 {
			if len(d.head) == 0 {
				p.b.Errorf(p.s.at(d.kw), "the potential names no node before %q", "|")
			} else {
				p.b.Errorf(p.s.at(d.head[1]), "the potential names %d nodes before %q; only potentials of one node are supported", len(d.head), "|")
			}
			continue
		}
		child, ok := lookup(d.head[0])
		if !ok {
			continue
		}
		if prev := potOf[child]; prev != nil {
			p.b.Errorf(p.s.at(d.head[0]), "second potential for %q (first at %s)", m.Vars[child].Name, p.s.at(prev.kw))
			continue
		}
		potOf[child] = d
		p.buildCPT(d, child, lookup)
	}
	for v, d := range potOf {
		if d == nil {
			x := m.Vars[v]
			p.b.Errorf(x.Pos, "node %q has no potential (give it one with potential ( %s | ... ) { data = ( ... ); })", x.Name, x.Name)
			b.SetCPT(x.Pos, x.ID, nil, uniform(len(x.States)), nil)
		}
	}
	return b.Finish()
}

// buildCPT checks the data of potential d for child and sets its CPT. A
// potential that cannot be used gives child a uniform table, so that
// child is not also reported as having none.
func (p *parser) buildCPT(d *potDecl, child ir.VarID, lookup func(token) (ir.VarID, bool)) {
	b := p.b
	m := b.Model()
	at := p.s.at(d.kw)
	fallback := func() { b.SetCPT(at, child, nil, uniform(len(m.Vars[child].States)), nil) }
	if d.broken {
		fallback() // reported already
		return
	}
	ok := true
	var parents []ir.VarID
	seen := map[string]bool{m.Vars[child].Name: true}
	for _, t := range d.tail {
		name := p.s.text(t)
		if seen[name] {
			if name == m.Vars[child].Name {
				p.b.Errorf(p.s.at(t), "%q cannot be a parent of itself", name)
			} else {
				p.b.Errorf(p.s.at(t), "parent %q is listed twice", name)
			}
			ok = false
			continue
		}
		seen[name] = true
		v, found := lookup(t)
		if !found {
			ok = false
			continue
		}
		parents = append(parents, v)
	}
	for _, t := range d.badNums {
		p.b.Errorf(p.s.at(t), "malformed number %s", p.s.describe(t))
	}
	if d.nbad > len(d.badNums) {
		p.b.Errorf(p.s.at(d.badNums[len(d.badNums)-1]), "and %d more malformed numbers in this potential", d.nbad-len(d.badNums))
	}
	if !ok || d.nbad > 0 {
		fallback()
		return
	}
	if !d.hasData {
		p.b.Errorf(at, "the potential of %q has no data (expected data = ( ... );)", m.Vars[child].Name)
		fallback()
		return
	}
	title := cptTitle(m, child, parents)
	k := len(m.Vars[child].States)
	rows := 1
	for _, v := range parents {
		rows = satMul(rows, len(m.Vars[v].States))
	}
	want := satMul(rows, k)
	ok = true
	// Lists of values at the innermost level of the full nesting are rows.
	row, listed := 0, 0
	a := make([]int, len(parents))
	for _, g := range d.groups {
		if g.depth != len(parents) {
			continue
		}
		if g.n != k && listed < maxListed {
			listed++
			what := "an extra row of " + title
			if len(parents) == 0 {
				what = "the data of " + title
			} else if row < rows {
				what = rowName(m, parents, rowAssignment(m, parents, row, a), title)
			}
			p.b.Errorf(p.s.at(g.open), "%s has %d values, expected %d", what, g.n, k)
			ok = false
		}
		row++
	}
	if len(d.vals) != want && (ok || row != rows) {
		detail := ""
		if len(parents) > 0 {
			detail = fmt.Sprintf(" (%d parent configurations × %d states)", rows, k)
		}
		p.b.Errorf(p.s.at(d.dataTok), "the data of %s has %d values, expected %s%s", title, len(d.vals), countText(want), detail)
		ok = false
	}
	for _, g := range d.groups {
		if ok && g.depth > len(parents) {
			p.b.Errorf(p.s.at(g.open), "the data of %s is nested %d levels deep, expected at most %d", title, g.depth+1, len(parents)+1)
			ok = false
		}
	}
	if !ok {
		fallback()
		return
	}
	var rowPos []ir.Pos
	if !rowsValid(d.vals, k) {
		// Only then are row positions needed, for ir.Builder.Finish's
		// messages; finding them costs time on long lines.
		rowPos = make([]ir.Pos, len(d.vals)/k)
		for r := range rowPos {
			rowPos[r] = p.s.pos(d.valOff[r*k])
		}
	}
	b.SetCPT(at, child, parents, d.vals, rowPos)
}

// rowsValid reports whether every row of k values is a distribution in
// the sense of ir.Builder.Finish.
func rowsValid(vals []float64, k int) bool {
	for r := 0; r+k <= len(vals); r += k {
		sum := 0.0
		for _, x := range vals[r : r+k] {
			if !(x >= 0 && x <= 1) {
				return false
			}
			sum += x
		}
		if !(math.Abs(sum-1) <= ir.RowTolerance) {
			return false
		}
	}
	return true
}

// satMul returns a·b, or math.MaxInt if that overflows.
func satMul(a, b int) int {
	if b != 0 && a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

func countText(n int) string {
	if n == math.MaxInt {
		return "more than " + strconv.Itoa(math.MaxInt)
	}
	return strconv.Itoa(n)
}

// rowAssignment writes into a the parent states of row r (row-major, the
// last parent fastest) and returns a.
func rowAssignment(m *ir.Model, parents []ir.VarID, r int, a []int) []int {
	for i := len(parents) - 1; i >= 0; i-- {
		c := len(m.Vars[parents[i]].States)
		a[i] = r % c
		r /= c
	}
	return a
}

// cptTitle renders P(X | A, B) as ir.Builder's messages do.
func cptTitle(m *ir.Model, child ir.VarID, parents []ir.VarID) string {
	var s strings.Builder
	s.WriteString("P(")
	s.WriteString(ir.Quote(m.Vars[child].Name))
	for i, v := range parents {
		if i == 0 {
			s.WriteString(" | ")
		} else {
			s.WriteString(", ")
		}
		s.WriteString(ir.Quote(m.Vars[v].Name))
	}
	s.WriteString(")")
	return s.String()
}

// rowName renders `row (yes, no) of P(X | A, B)`.
func rowName(m *ir.Model, parents []ir.VarID, a []int, title string) string {
	if len(parents) == 0 {
		return title
	}
	parts := make([]string, len(parents))
	for i, v := range parents {
		parts[i] = ir.Quote(m.Vars[v].States[a[i]])
	}
	return "row (" + strings.Join(parts, ", ") + ") of " + title
}

func uniform(k int) []float64 {
	u := make([]float64, k)
	for i := range u {
		u[i] = 1 / float64(k)
	}
	return u
}
