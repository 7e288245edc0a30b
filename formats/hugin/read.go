package hugin

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/formats/internal/textscan"
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
func Read(filename string, src []byte) (*ir.Model, error) {
	return importer.Read(filename, "NET", src, parse)
}

// parse reads src, decompressed, as Read.
func parse(filename string, src []byte) (*ir.Model, error) {
	p := newParser(filename, src)
	p.parseFile()
	return p.finish()
}

// nodeDecl is a node block as read.
type nodeDecl struct {
	nameTok   textscan.Token
	name      string
	states    []string
	hasStates bool   // a states attribute was read
	statesOK  bool   // and it was well formed
	damaged   bool   // the block had an error: the node is unusable
	kind      string // "" for a supported node, else what it is: "a function node", ...
	cont      bool   // a continuous chance node
	decision  bool   // a (discrete) decision node
	utility   bool   // a utility node: not a variable, but a utility table
}

// potDecl is a potential block as read. Its nodes are resolved once the
// whole file has been read, so that potentials may precede their nodes.
type potDecl struct {
	kw      textscan.Token   // the word "potential"
	head    []textscan.Token // the nodes before "|"
	tail    []textscan.Token // the nodes after "|"
	broken  bool             // a syntax error in the header or data: not built
	hasData bool
	dataTok textscan.Token   // the word "data"
	vals    []float64        // every value of data, in order
	valOff  []int            // offset of each value, for row positions
	badNums []textscan.Token // the first maxListed values that are not numbers
	nbad    int              // the number of values that are not numbers
	groups  []group          // lists holding values and no lists, in order
	normals []normalItem     // the normal ( MEAN, VARIANCE ) items of data, in order
}

// group is a parenthesised list of data values with no list inside.
type group struct {
	open  textscan.Token // its "("
	depth int            // 0 for the outermost list
	n     int            // the number of values
}

// syntax is NET's lexical syntax. Words are maximal runs of bytes other
// than these, so that a number such as 1.5e-3 and a name such as
// N0_7muVerMo are single words; what a word means depends on where it
// appears.
var syntax = &textscan.Syntax{Punct: "{}()=;|,", Comments: []textscan.Comment{{Open: "%"}}}

// parser reads a NET file in one pass into node and potential
// declarations, then builds the model from them.
type parser struct {
	textscan.Parser

	nodes []*nodeDecl
	pots  []*potDecl
}

func newParser(filename string, src []byte) *parser {
	p := &parser{}
	p.Init(syntax, filename, src)
	return p
}

// isNodeWord reports whether w may begin a node declaration.
func isNodeWord(w string) bool {
	switch w {
	case "node", "discrete", "continuous", "chance", "decision", "utility", "function":
		return true
	}
	return false
}

// atElement reports whether the current token begins a node or potential.
func (p *parser) atElement() bool {
	if p.Tok.Kind != textscan.Word {
		return false
	}
	w := string(p.S.Bytes(p.Tok))
	return w == "potential" || isNodeWord(w)
}

// atElementStart reports whether the current token begins a node or a
// potential at the start of a line: the place to stop when a block is
// missing its "}".
func (p *parser) atElementStart() bool { return p.Tok.BOL && p.atElement() }

// skipToElement skips to the next word that begins an element at the
// start of a line or outside any braces. It skips at least one token
// unless the current one begins an element.
func (p *parser) skipToElement() { p.SkipTo(p.atElement) }

// skipAttr skips to the end of the current attribute: past the next ";"
// outside parentheses, or up to the "}" that closes the block or an
// element that starts a line.
func (p *parser) skipAttr() { p.SkipStmt('(', ')', p.atElement) }

func (p *parser) parseFile() {
	if p.Is("net") {
		p.parseNet()
	} else if p.Is("class") {
		p.Errorf(p.Tok, "classes (object-oriented networks) are not supported; expected a net { ... } block")
		p.Next()
		p.skipToElement()
	}
	for p.Tok.Kind != textscan.EOF {
		switch {
		case p.Is("potential"):
			p.parsePotential()
		case p.atElement():
			p.parseNode()
		case p.Is("net"):
			p.Errorf(p.Tok, "a second net block")
			p.Next()
			p.skipToElement()
		default:
			p.Errorf(p.Tok, `expected "node" or "potential", found %s`, p.Found())
			p.skipToElement()
		}
	}
}

// parseNet parses the header `net { attributes }`, whose attributes are
// skipped.
func (p *parser) parseNet() {
	p.Next()
	if p.Tok.Kind != '{' {
		p.Errorf(p.Tok, `expected "{" after "net", found %s`, p.Found())
		p.skipToElement()
		return
	}
	p.Next()
	p.parseAttrs("the net block", func(textscan.Token) bool { return false })
}

// parseAttrs parses `name = value;` attributes up to the "}" that closes a
// block, and consumes it. For each attribute, after its "=", attr is
// called with the name; if it returns false the value is skipped.
func (p *parser) parseAttrs(block string, attr func(name textscan.Token) bool) {
	for {
		switch {
		case p.Tok.Kind == '}':
			p.Next()
			return
		case p.Tok.Kind == textscan.EOF || p.atElementStart():
			p.Errorf(p.Tok, `expected "}" at the end of %s, found %s`, block, p.Found())
			return
		case p.Tok.Kind != textscan.Word:
			p.Errorf(p.Tok, `expected an attribute (name = value;) or "}" in %s, found %s`, block, p.Found())
			p.skipAttr()
			continue
		}
		name := p.Tok
		p.Next()
		if p.Tok.Kind != '=' {
			p.Errorf(p.Tok, `expected "=" after the attribute name %s, found %s`, p.S.Describe(name), p.Found())
			p.skipAttr()
			continue
		}
		p.Next()
		if attr(name) {
			continue
		}
		p.skipValue(name)
	}
}

// skipValue skips an attribute value that is not interpreted: anything up
// to a ";" outside parentheses, which it consumes.
func (p *parser) skipValue(name textscan.Token) {
	var open []textscan.Token
	for {
		switch p.Tok.Kind {
		case '(':
			open = append(open, p.Tok)
		case ')':
			if len(open) == 0 {
				p.Errorf(p.Tok, `unexpected ")" in the value of %s`, p.S.Describe(name))
				p.skipAttr()
				return
			}
			open = open[:len(open)-1]
		case ';':
			if len(open) == 0 {
				p.Next()
				return
			}
			p.unclosed(open[len(open)-1])
			p.skipAttr()
			return
		case textscan.EOF, '{', '}':
			if len(open) > 0 {
				p.unclosed(open[len(open)-1])
			} else {
				p.Errorf(p.Tok, `expected ";" after the value of %s, found %s`, p.S.Describe(name), p.Found())
			}
			if p.Tok.Kind == '{' {
				p.skipToElement()
			}
			return
		case textscan.Word:
			if p.atElementStart() {
				if len(open) > 0 {
					p.unclosed(open[len(open)-1])
				} else {
					p.Errorf(p.Tok, `expected ";" after the value of %s, found %s`, p.S.Describe(name), p.Found())
				}
				return
			}
		}
		p.Next()
	}
}

// unclosed reports a "(" that is not closed, at the "(".
func (p *parser) unclosed(open textscan.Token) {
	p.Errorf(open, `unterminated parenthesis: this "(" is not closed (found %s)`, p.Found())
}

// expectSemi consumes the ";" that ends an attribute.
func (p *parser) expectSemi(what string) {
	if p.Tok.Kind == ';' {
		p.Next()
		return
	}
	p.Errorf(p.Tok, `expected ";" after %s, found %s`, what, p.Found())
	p.skipAttr()
}

// parseNode parses
//
//	[discrete|continuous] [chance|decision|utility|function] node NAME { attributes }
//
// where "node" may be left out after decision and utility.
func (p *parser) parseNode() {
	first := p.Tok
	var words []string
	for p.Tok.Kind == textscan.Word && isNodeWord(string(p.S.Bytes(p.Tok))) && !p.Is("node") {
		words = append(words, string(p.S.Bytes(p.Tok)))
		p.Next()
	}
	if p.Is("node") {
		p.Next()
	} else if n := len(words); n == 0 || (words[n-1] != "decision" && words[n-1] != "utility") {
		p.Errorf(p.Tok, `expected "node" after %q, found %s`, strings.Join(words, " "), p.Found())
		p.skipToElement()
		return
	}
	d := &nodeDecl{}
	role := "" // the first of decision, utility and function
	for _, w := range words {
		switch w {
		case "continuous":
			d.cont = true
		case "decision", "utility", "function":
			if role == "" {
				role = w
			}
		}
	}
	switch {
	case role == "function" || d.cont && role != "":
		d.kind = "a " + role + " node"
		if d.cont {
			d.kind = "a continuous " + role + " node"
		}
	case role == "decision":
		d.decision = true
	case role == "utility":
		d.utility = true
	}
	if p.Tok.Kind != textscan.Word {
		p.Errorf(p.Tok, "expected a node name, found %s", p.Found())
		p.skipToElement()
		return
	}
	d.nameTok = p.Tok
	d.name = p.S.Text(p.Tok)
	p.Next()
	if d.kind != "" {
		p.Errorf(first, "node %q is %s: only chance nodes (discrete or continuous), discrete decision nodes and utility nodes are supported", d.name, d.kind)
	}
	p.nodes = append(p.nodes, d)
	if p.Tok.Kind != '{' {
		p.Errorf(p.Tok, `expected "{" after the node name %q, found %s`, d.name, p.Found())
		p.skipToElement()
		return
	}
	p.Next()
	seen := false
	nerrs := len(p.B.Errs)
	defer func() { d.damaged = len(p.B.Errs) > nerrs }()
	p.parseAttrs(fmt.Sprintf("node %q", d.name), func(name textscan.Token) bool {
		if string(p.S.Bytes(name)) != "states" || d.kind != "" || d.cont || d.utility {
			return false
		}
		if seen {
			p.Errorf(name, "node %q has a second states attribute", d.name)
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
	if p.Tok.Kind != '(' {
		p.Errorf(p.Tok, `expected "(" after "states =", found %s`, p.Found())
		p.skipAttr()
		return nil, false
	}
	open := p.Tok
	p.Next()
	var states []string
	seen := map[string]bool{}
	ok := true
	for p.Tok.Kind != ')' {
		switch p.Tok.Kind {
		case textscan.String:
			s := p.S.Text(p.Tok)
			if seen[s] {
				p.Errorf(p.Tok, "state %q of node %q is listed twice", s, node)
				ok = false
			}
			seen[s] = true
			states = append(states, s)
		case ',':
		case textscan.Word:
			if p.atElementStart() {
				p.unclosed(open)
				return nil, false
			}
			if ok {
				p.Errorf(p.Tok, "expected a state name in double quotes, found %s", p.Found())
			}
			ok = false
		default:
			p.unclosed(open)
			p.skipAttr()
			return nil, false
		}
		p.Next()
	}
	p.Next()
	p.expectSemi("the states")
	return states, ok
}

// parsePotential parses
//
//	potential ( X | A B ... ) { data = ( ... ); attributes }
func (p *parser) parsePotential() {
	d := &potDecl{kw: p.Tok}
	p.Next()
	if p.Tok.Kind != '(' {
		p.Errorf(p.Tok, `expected "(" after "potential", found %s`, p.Found())
		p.skipToElement()
		return
	}
	open := p.Tok
	p.Next()
	bar := false
header:
	for {
		switch p.Tok.Kind {
		case ')':
			p.Next()
			break header
		case textscan.Word:
			if p.atElementStart() {
				p.unclosed(open)
				return
			}
			if bar {
				d.tail = append(d.tail, p.Tok)
			} else {
				d.head = append(d.head, p.Tok)
			}
		case ',':
		case '|':
			if bar {
				p.Errorf(p.Tok, `a second "|" in potential ( ... )`)
				d.broken = true
			}
			bar = true
		default:
			if p.Tok.Kind == textscan.String {
				p.Errorf(p.Tok, "expected a node name, found %s (node names are not quoted)", p.Found())
				d.broken = true
				if bar {
					d.tail = append(d.tail, p.Tok)
				} else {
					d.head = append(d.head, p.Tok)
				}
				break
			}
			p.unclosed(open)
			p.skipToElement()
			return
		}
		p.Next()
	}
	p.pots = append(p.pots, d)
	if p.Tok.Kind != '{' {
		p.Errorf(p.Tok, `expected "{" after potential ( ... ), found %s`, p.Found())
		d.broken = true
		p.skipToElement()
		return
	}
	p.Next()
	p.parseAttrs("the potential", func(name textscan.Token) bool {
		if string(p.S.Bytes(name)) != "data" {
			return false
		}
		if d.hasData {
			p.Errorf(name, "a second data attribute in the potential")
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
	if p.Tok.Kind != '(' {
		p.Errorf(p.Tok, `expected "(" after "data =", found %s`, p.Found())
		d.broken = true
		p.skipAttr()
		return
	}
	type frame struct {
		open   textscan.Token
		n      int  // values directly inside
		nested bool // a list directly inside
	}
	var stack []frame
	for {
		switch p.Tok.Kind {
		case '(':
			if len(stack) > 0 {
				stack[len(stack)-1].nested = true
			}
			stack = append(stack, frame{open: p.Tok})
		case ')':
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.n > 0 && !f.nested {
				d.groups = append(d.groups, group{open: f.open, depth: len(stack), n: f.n})
			}
			if len(stack) == 0 {
				p.Next()
				p.expectSemi("the data")
				return
			}
		case textscan.Word, textscan.String:
			if p.Tok.Kind == textscan.Word && p.atElementStart() {
				p.unclosed(stack[len(stack)-1].open)
				d.broken = true
				return
			}
			if p.Is("normal") {
				if !p.parseNormal(d) {
					d.broken = true
					return
				}
				stack[len(stack)-1].n++
				continue
			}
			x, ok := 0.0, false
			if p.Tok.Kind == textscan.Word {
				x, ok = importer.ParseNumber(p.S.Bytes(p.Tok))
			}
			if !ok {
				if d.nbad < maxListed {
					d.badNums = append(d.badNums, p.Tok)
				}
				d.nbad++
			}
			d.vals = append(d.vals, x)
			d.valOff = append(d.valOff, p.Tok.Off)
			stack[len(stack)-1].n++
		case ',':
		default:
			p.unclosed(stack[len(stack)-1].open)
			d.broken = true
			p.skipAttr()
			return
		}
		p.Next()
	}
}

// finish resolves the potentials against the nodes, builds the model and
// validates it.
func (p *parser) finish() (*ir.Model, error) {
	b := p.B
	// Declare the nodes. decls maps every name declared to its first
	// declaration; a name in decls whose variable is not in the model is
	// unusable, and was reported as such.
	decls := make(map[string]*nodeDecl, len(p.nodes))
	var names []string
	for _, d := range p.nodes {
		names = append(names, d.name)
		if prev, dup := decls[d.name]; dup {
			p.B.Errorf(p.S.At(d.nameTok), "node %q is declared twice (first at %s)", d.name, p.S.At(prev.nameTok))
			continue
		}
		decls[d.name] = d
		if d.kind != "" || d.damaged || d.hasStates && !d.statesOK {
			continue // reported already
		}
		if d.cont {
			b.AddVar(p.S.At(d.nameTok), d.name, ir.Real, nil, 0)
			continue
		}
		if d.utility {
			continue // a table, built from its potential below
		}
		if len(d.states) == 0 {
			p.B.Errorf(p.S.At(d.nameTok), `node %q has no states (give them as states = ( "a" "b" );)`, d.name)
			continue
		}
		if d.decision {
			b.AddDecision(p.S.At(d.nameTok), d.name, ir.Enum, d.states, 0)
			continue
		}
		b.AddVar(p.S.At(d.nameTok), d.name, ir.Enum, d.states, 0)
	}
	if len(p.nodes) == 0 && len(b.Errs) == 0 {
		b.Errorf(p.S.At(p.Tok), "the file declares no nodes")
	}
	m := b.Model()
	hints := 0
	// lookup resolves a node named in a potential; ok is false if the name
	// is undeclared (reported here) or unusable (reported before).
	lookup := func(t textscan.Token) (ir.VarID, bool) {
		name := p.S.Text(t)
		if v, ok := m.Lookup(name); ok {
			return v.ID, true
		}
		if d, declared := decls[name]; declared {
			if d.utility && !d.damaged {
				p.B.Errorf(p.S.At(t), "the utility node %q cannot be a parent: a utility has no children", name)
			}
			return 0, false
		}
		h := ""
		if hints < maxHints {
			hints++
			h = importer.Hint(name, names)
		}
		p.B.Errorf(p.S.At(t), "undeclared node %q%s", name, h)
		return 0, false
	}
	potOf := make([]*potDecl, len(m.Vars)) // the first potential of each variable
	utilPot := map[*nodeDecl]*potDecl{}    // the first potential of each utility node
	for _, d := range p.pots {
		if len(d.head) != 1 {
			if len(d.head) == 0 {
				p.B.Errorf(p.S.At(d.kw), "the potential names no node before %q", "|")
			} else {
				p.B.Errorf(p.S.At(d.head[1]), "the potential names %d nodes before %q; only potentials of one node are supported", len(d.head), "|")
			}
			continue
		}
		if u := decls[p.S.Text(d.head[0])]; u != nil && u.utility {
			if prev := utilPot[u]; prev != nil {
				p.B.Errorf(p.S.At(d.head[0]), "second potential for %q (first at %s)", u.name, p.S.At(prev.kw))
				continue
			}
			utilPot[u] = d
			continue
		}
		child, ok := lookup(d.head[0])
		if !ok {
			continue
		}
		if prev := potOf[child]; prev != nil {
			p.B.Errorf(p.S.At(d.head[0]), "second potential for %q (first at %s)", m.Vars[child].Name, p.S.At(prev.kw))
			continue
		}
		potOf[child] = d
		if m.Vars[child].Decision {
			p.buildInformation(d, child, lookup)
			continue
		}
		p.buildCPT(d, child, lookup)
	}
	// The utilities, in the order of their nodes.
	for _, u := range p.nodes {
		if !u.utility || decls[u.name] != u || u.damaged {
			continue
		}
		d := utilPot[u]
		if d == nil {
			p.B.Errorf(p.S.At(u.nameTok), "utility node %q has no potential (give it one with potential ( %s | ... ) { data = ( ... ); })", u.name, u.name)
			continue
		}
		p.buildUtility(d, u.name, lookup)
	}
	for v, d := range potOf {
		if d == nil && m.Vars[v].Decision {
			continue // taken knowing nothing
		}
		if d == nil {
			x := m.Vars[v]
			if !x.Discrete() {
				p.B.Errorf(x.Pos, "node %q has no potential (give it one with potential ( %s | ... ) { data = ( normal ( 0, 1 ) ); })", x.Name, x.Name)
				b.SetGaussian(x.Pos, x.ID, nil, []float64{0}, []float64{1})
				continue
			}
			p.B.Errorf(x.Pos, "node %q has no potential (give it one with potential ( %s | ... ) { data = ( ... ); })", x.Name, x.Name)
			b.SetCPT(x.Pos, x.ID, nil, importer.Uniform(len(x.States)), nil)
		}
	}
	return b.Finish()
}

// buildCPT checks the data of potential d for child and sets its CPT. A
// potential that cannot be used gives child a uniform table, so that
// child is not also reported as having none.
func (p *parser) buildCPT(d *potDecl, child ir.VarID, lookup func(textscan.Token) (ir.VarID, bool)) {
	b := p.B
	m := b.Model()
	at := p.S.At(d.kw)
	fallback := func() { b.SetCPT(at, child, nil, importer.Uniform(len(m.Vars[child].States)), nil) }
	if !m.Vars[child].Discrete() {
		fallback = func() { b.SetGaussian(at, child, nil, []float64{0}, []float64{1}) }
	}
	if d.broken {
		fallback() // reported already
		return
	}
	parents, ok := p.parents(d, m.Vars[child].Name, lookup)
	if !ok {
		fallback()
		return
	}
	if !d.hasData {
		p.B.Errorf(at, "the potential of %q has no data (expected data = ( ... );)", m.Vars[child].Name)
		fallback()
		return
	}
	if !m.Vars[child].Discrete() {
		p.buildGaussian(d, child, parents)
		return
	}
	for i, v := range parents {
		if !m.Vars[v].Discrete() {
			p.B.Errorf(p.S.At(d.tail[i]), "the discrete node %q has the continuous parent %q: a discrete child of a continuous parent is not supported", m.Vars[child].Name, m.Vars[v].Name)
			fallback()
			return
		}
	}
	if len(d.normals) > 0 {
		p.B.Errorf(p.S.At(d.normals[0].kw), "normal ( ... ) in the potential of the discrete node %q: its data lists probabilities", m.Vars[child].Name)
		fallback()
		return
	}
	if !p.checkData(d, parents, len(m.Vars[child].States), importer.CPTTitle(m, child, parents)) {
		fallback()
		return
	}
	k := len(m.Vars[child].States)
	var rowPos []ir.Pos
	if !rowsValid(d.vals, k) {
		// Only then are row positions needed, for ir.Builder.Finish's
		// messages; finding them costs time on long lines.
		rowPos = make([]ir.Pos, len(d.vals)/k)
		for r := range rowPos {
			rowPos[r] = p.S.Pos(d.valOff[r*k])
		}
	}
	b.SetCPT(at, child, parents, d.vals, rowPos)
}

// parents resolves the nodes after "|" in potential d of the node named
// child, and reports malformed numbers in its data; ok is false if either
// had errors.
func (p *parser) parents(d *potDecl, child string, lookup func(textscan.Token) (ir.VarID, bool)) (parents []ir.VarID, ok bool) {
	ok = true
	seen := map[string]bool{child: true}
	for _, t := range d.tail {
		name := p.S.Text(t)
		if seen[name] {
			if name == child {
				p.B.Errorf(p.S.At(t), "%q cannot be a parent of itself", name)
			} else {
				p.B.Errorf(p.S.At(t), "parent %q is listed twice", name)
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
		p.B.Errorf(p.S.At(t), "malformed number %s", p.S.Describe(t))
	}
	if d.nbad > len(d.badNums) {
		p.B.Errorf(p.S.At(d.badNums[len(d.badNums)-1]), "and %s in this potential", ir.Plural(d.nbad-len(d.badNums), "more malformed number"))
	}
	return parents, ok && d.nbad == 0
}

// buildInformation gives the decision child the nodes listed after "|" in
// its potential d as its information parents. The data, if any, is an
// initial policy for HUGIN's single policy updating, which pbl does not
// need: it is read (its numbers must be well formed) and dropped.
func (p *parser) buildInformation(d *potDecl, child ir.VarID, lookup func(textscan.Token) (ir.VarID, bool)) {
	if d.broken {
		return // reported already
	}
	m := p.B.Model()
	parents, ok := p.parents(d, m.Vars[child].Name, lookup)
	if !ok {
		return
	}
	for i, v := range parents {
		if !m.Vars[v].Discrete() {
			p.B.Errorf(p.S.At(d.tail[i]), "the decision node %q has the continuous parent %q: a decision is taken knowing discrete nodes", m.Vars[child].Name, m.Vars[v].Name)
			return
		}
	}
	p.B.SetInformation(p.S.At(d.kw), child, parents)
}

// buildUtility checks potential d of the utility node name and adds its
// table: one number per configuration of the parents, nested one list per
// parent but the last, whose states are the innermost lists.
func (p *parser) buildUtility(d *potDecl, name string, lookup func(textscan.Token) (ir.VarID, bool)) {
	if d.broken {
		return // reported already
	}
	m := p.B.Model()
	at := p.S.At(d.kw)
	parents, ok := p.parents(d, name, lookup)
	if !ok {
		return
	}
	for i, v := range parents {
		if !m.Vars[v].Discrete() {
			p.B.Errorf(p.S.At(d.tail[i]), "the utility node %q has the continuous parent %q: a utility table is over discrete nodes", name, m.Vars[v].Name)
			return
		}
	}
	if len(parents) == 0 {
		p.B.AddUtility(at, name, nil, d.vals) // refused: no parents
		return
	}
	if !d.hasData {
		p.B.Errorf(at, "the potential of the utility node %q has no data (expected data = ( ... );)", name)
		return
	}
	if len(d.normals) > 0 {
		p.B.Errorf(p.S.At(d.normals[0].kw), "normal ( ... ) in the potential of the utility node %q: its data lists utilities", name)
		return
	}
	n := len(parents) - 1
	names := make([]string, len(parents))
	for i, v := range parents {
		names[i] = ir.Quote(m.Vars[v].Name)
	}
	title := "utility " + strconv.Quote(name) + "(" + strings.Join(names, ", ") + ")"
	if !p.checkData(d, parents[:n], len(m.Vars[parents[n]].States), title) {
		return
	}
	p.B.AddUtility(at, name, parents, d.vals)
}

// checkData checks the values of potential d, a table of rows of k values,
// one row per configuration of parents (the last fastest), against their
// count and nesting, and reports what is wrong. title names the table in
// the messages.
func (p *parser) checkData(d *potDecl, parents []ir.VarID, k int, title string) bool {
	m := p.B.Model()
	rows := 1
	for _, v := range parents {
		rows = satMul(rows, len(m.Vars[v].States))
	}
	want := satMul(rows, k)
	ok := true
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
			p.B.Errorf(p.S.At(g.open), "%s has %s, expected %d", what, ir.Plural(g.n, "value"), k)
			ok = false
		}
		row++
	}
	if len(d.vals) != want && (ok || row != rows) {
		detail := ""
		if len(parents) > 0 {
			detail = " (" + ir.Plural(rows, "parent configuration") + " × " + ir.Plural(k, "state") + ")"
		}
		p.B.Errorf(p.S.At(d.dataTok), "the data of %s has %s, expected %s%s", title, ir.Plural(len(d.vals), "value"), countText(want), detail)
		ok = false
	}
	for _, g := range d.groups {
		if ok && g.depth > len(parents) {
			p.B.Errorf(p.S.At(g.open), "the data of %s is nested %d levels deep, expected at most %d", title, g.depth+1, len(parents)+1)
			ok = false
		}
	}
	return ok
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
