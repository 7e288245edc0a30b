package bif

import (
	"strconv"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/ir"
)

// maxTableEntries bounds the size of one CPT. A `default` row lets a few
// bytes of input describe an arbitrarily large table; the largest table in
// the bnlearn repository has well under a million entries.
const maxTableEntries = 1 << 22

// maxRowPos is the largest number of rows for which row positions are kept
// (for the positions of row-sum errors reported by ir.Builder.Finish).
const maxRowPos = 1 << 20

// maxHints is the number of undeclared names for which a similar name is
// looked for.
const maxHints = 100

// ReadFile reads the BIF model in the file at path, which may be
// gzip-compressed. An error reading the file is returned as is; errors in
// its contents are an ir.ErrorList, as for [Read].
func ReadFile(path string) (*ir.Model, error) { return importer.ReadFile(path, Read) }

// Read parses a BIF (Bayesian Interchange Format, the bnlearn repository's
// text format) model. src may be gzip-compressed (detected by its magic
// bytes, so "x.bif.gz" works). Errors are an ir.ErrorList of *ir.Error
// positioned in filename (line:col, 1-based, rune columns); for compressed
// input the positions refer to the decompressed text.
func Read(filename string, src []byte) (m *ir.Model, err error) {
	defer importer.Recover(filename, "BIF", &m, &err)
	if importer.IsGzip(src) {
		src, err = importer.Gunzip(src)
		if err != nil {
			return nil, ir.ErrorList{ir.Errorf(ir.Pos{File: filename, Line: 1}, "%v", err)}
		}
	}
	p := newParser(filename, src)
	p.parseFile()
	return p.finish()
}

// parser reads a BIF file in one pass, declaring variables on the builder
// as their blocks end and filling each CPT directly from its rows.
type parser struct {
	s   *scanner
	tok token
	b   *ir.Builder

	lastErrOff int // offset of the token of the last error, to report one error per token

	broken    map[string]bool // variables whose block was too damaged to declare
	hasBlock  []bool          // hasBlock[v]: some probability block is for v
	pending   []pendingRef    // references to names not declared at the time
	stateMaps map[ir.VarID]map[string]int
	rowToks   []token // state tokens of the current row, for messages
}

// pendingRef is a reference to a variable that was not declared when it
// was read; at the end it is reported as undeclared or as declared too late.
type pendingRef struct {
	pos   ir.Pos
	name  string
	child bool // the child of a probability block
}

func newParser(filename string, src []byte) *parser {
	p := &parser{b: ir.NewBuilder(filename), lastErrOff: -1, broken: map[string]bool{}}
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
	p.b.Errorf(p.s.pos(t), format, args...)
}

func (p *parser) found() string { return p.s.describe(p.tok) }

// is reports whether the current token is the word w.
func (p *parser) is(w string) bool {
	return p.tok.kind == tWord && string(p.s.bytes(p.tok)) == w
}

func (p *parser) isName() bool { return p.tok.kind == tWord || p.tok.kind == tString }

// atKeyword reports whether the current token starts a block.
func (p *parser) atKeyword() bool {
	return p.is("variable") || p.is("probability") || p.is("network")
}

// atBlockStart reports whether the current token is a block keyword at the
// start of a line: the place to stop when a block is missing its "}".
func (p *parser) atBlockStart() bool { return p.tok.bol && p.atKeyword() }

// skipToBlock skips up to the next block keyword that starts a line or is
// outside any braces. It skips at least one token unless the current one is
// a keyword; the callers that call it on the block keyword itself have
// consumed that.
func (p *parser) skipToBlock() {
	if p.atKeyword() {
		return // the next block begins here
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
		if p.atKeyword() && (p.tok.bol || depth <= 0) {
			return
		}
	}
}

// skipStmt skips to the end of the current statement inside a block: past
// the next ";", or up to the "}" that closes the block or a block keyword
// that starts a line.
func (p *parser) skipStmt() {
	depth := 0
	for {
		switch p.tok.kind {
		case tEOF:
			return
		case tSemi:
			if depth == 0 {
				p.next()
				return
			}
		case tLBrace:
			depth++
		case tRBrace:
			if depth == 0 {
				return
			}
			depth--
		case tWord:
			if p.tok.bol && p.atKeyword() {
				return
			}
		}
		p.next()
	}
}

// expect consumes a token of kind k, or reports `expected k after what`.
func (p *parser) expect(k tokKind, after string) bool {
	if p.tok.kind != k {
		p.errorf(p.tok, "expected %s after %s, found %s", kindText[k], after, p.found())
		return false
	}
	p.next()
	return true
}

func (p *parser) parseFile() {
	for p.tok.kind != tEOF {
		switch {
		case p.is("network"):
			p.parseNetwork()
		case p.is("variable"):
			p.parseVariable()
		case p.is("probability"):
			p.parseProbability()
		default:
			p.errorf(p.tok, `expected "variable" or "probability", found %s`, p.found())
			p.skipToBlock()
		}
	}
}

// parseNetwork parses `network NAME { property ...; }`. The name and the
// properties are not kept.
func (p *parser) parseNetwork() {
	p.next()
	if !p.isName() {
		p.errorf(p.tok, `expected the network name after "network", found %s`, p.found())
		p.skipToBlock()
		return
	}
	p.next()
	if !p.expect(tLBrace, "the network name") {
		p.skipToBlock()
		return
	}
	for {
		switch {
		case p.tok.kind == tRBrace:
			p.next()
			return
		case p.tok.kind == tEOF || p.atBlockStart():
			p.errorf(p.tok, `expected "}" at the end of the network block, found %s`, p.found())
			return
		case p.is("property"):
			p.skipStmt()
		default:
			p.errorf(p.tok, `expected "property" or "}" in the network block, found %s`, p.found())
			p.skipStmt()
		}
	}
}

// parseVariable parses
//
//	variable NAME { type discrete [ N ] { S1, S2, ... }; property ...; }
func (p *parser) parseVariable() {
	p.next()
	if !p.isName() {
		p.errorf(p.tok, `expected a variable name after "variable", found %s`, p.found())
		p.skipToBlock()
		return
	}
	nameTok := p.tok
	name := p.s.name(nameTok)
	p.next()
	if p.tok.kind != tLBrace {
		p.errorf(p.tok, `expected "{" after the variable name %q, found %s`, name, p.found())
		p.broken[name] = true
		p.skipToBlock()
		return
	}
	p.next()
	var states []string
	typed, bad := false, false
loop:
	for {
		switch {
		case p.tok.kind == tRBrace:
			p.next()
			break loop
		case p.tok.kind == tEOF || p.atBlockStart():
			p.errorf(p.tok, `expected "}" at the end of the block of variable %q, found %s`, name, p.found())
			break loop
		case p.is("type"):
			if typed {
				p.errorf(p.tok, "variable %q has a second type", name)
				p.skipStmt()
				continue
			}
			typed = true
			var ok bool
			states, ok = p.parseType(name)
			bad = bad || !ok
		case p.is("property"):
			p.skipStmt()
		default:
			p.errorf(p.tok, `expected "type", "property" or "}" in the block of variable %q, found %s`, name, p.found())
			p.skipStmt()
		}
	}
	if !typed {
		p.errorf(nameTok, "variable %q has no type (expected type discrete [ n ] { ... };)", name)
		bad = true
	}
	if bad {
		p.broken[name] = true
		return
	}
	if _, exists := p.b.Model().Lookup(name); exists {
		p.b.AddVar(p.s.pos(nameTok), name, ir.Enum, states, 0) // reports the redeclaration
		return
	}
	if _, ok := p.b.AddVar(p.s.pos(nameTok), name, ir.Enum, states, 0); !ok {
		p.broken[name] = true
		return
	}
	p.hasBlock = append(p.hasBlock, false)
}

// parseType parses `type discrete [ N ] { S1, S2, ... };` and returns the
// states; ok is false if they are unusable.
func (p *parser) parseType(name string) (states []string, ok bool) {
	p.next()
	if !p.is("discrete") {
		if p.tok.kind == tWord {
			p.errorf(p.tok, "variable %q has type %s: only discrete variables are supported", name, p.found())
		} else {
			p.errorf(p.tok, `expected "discrete" after "type", found %s`, p.found())
		}
		p.skipStmt()
		return nil, false
	}
	p.next()
	if !p.expect(tLBrack, `"discrete"`) {
		p.skipStmt()
		return nil, false
	}
	countTok := p.tok
	count := -1
	if p.tok.kind == tWord {
		if n, err := strconv.Atoi(string(p.s.bytes(p.tok))); err == nil && n >= 0 {
			count = n
		} else {
			p.errorf(p.tok, "malformed number of states %s", p.found())
		}
		p.next()
	} else {
		p.errorf(p.tok, `expected the number of states after "[", found %s`, p.found())
		p.skipStmt()
		return nil, false
	}
	if !p.expect(tRBrack, "the number of states") || !p.expect(tLBrace, `"]"`) {
		p.skipStmt()
		return nil, false
	}
	seen := map[string]bool{}
	ok = true
	for p.tok.kind != tRBrace {
		switch {
		case p.isName():
			s := p.s.name(p.tok)
			if seen[s] {
				p.errorf(p.tok, "state %q of variable %q is listed twice", s, name)
				ok = false
			}
			seen[s] = true
			states = append(states, s)
			p.next()
		case p.tok.kind == tComma:
			p.next()
		default:
			p.errorf(p.tok, `expected a state name or "}" in the states of variable %q, found %s`, name, p.found())
			p.skipStmt()
			return nil, false
		}
	}
	p.next()
	if count >= 0 && count != len(states) {
		p.errorf(countTok, "variable %q is declared with %d states but lists %d", name, count, len(states))
	}
	if count < 0 {
		ok = false
	}
	if p.tok.kind != tSemi {
		p.errorf(p.tok, `expected ";" after the states of variable %q, found %s`, name, p.found())
		p.skipStmt()
	} else {
		p.next()
	}
	return states, ok
}

// lookup resolves a variable name read from t. A name that is not declared
// is remembered (and reported at the end); a name whose own block was
// broken is silently unusable.
func (p *parser) lookup(t token, child bool) (ir.VarID, bool) {
	name := p.s.name(t)
	if v, ok := p.b.Model().Lookup(name); ok {
		return v.ID, true
	}
	if !p.broken[name] {
		p.pending = append(p.pending, pendingRef{p.s.pos(t), name, child})
	}
	return 0, false
}

// stateIndex returns the index of the state spelled by t in v, or -1.
func (p *parser) stateIndex(v ir.VarID, t token) int {
	vr := p.b.Model().Vars[v]
	var b []byte
	if t.kind == tString {
		b = []byte(p.s.name(t))
	} else {
		b = p.s.bytes(t)
	}
	if len(vr.States) <= 8 {
		for i, s := range vr.States {
			if s == string(b) {
				return i
			}
		}
		return -1
	}
	m := p.stateMaps[v]
	if m == nil {
		if p.stateMaps == nil {
			p.stateMaps = map[ir.VarID]map[string]int{}
		}
		m = make(map[string]int, len(vr.States))
		for i, s := range vr.States {
			m[s] = i
		}
		p.stateMaps[v] = m
	}
	if i, ok := m[string(b)]; ok {
		return i
	}
	return -1
}

// finish reports what can only be known at the end of the file and
// validates the model.
func (p *parser) finish() (*ir.Model, error) {
	m := p.b.Model()
	var names []string
	for i, r := range p.pending {
		if v, ok := m.Lookup(r.name); ok {
			p.b.Errorf(r.pos, "variable %q is used before its declaration at %s", r.name, v.Pos)
			if r.child && !p.hasBlock[v.ID] {
				// Not also "has no probability block".
				p.hasBlock[v.ID] = true
				p.b.SetCPT(r.pos, v.ID, nil, uniform(len(v.States)), nil)
			}
		} else {
			// Suggestions cost time in the number of variables; a file
			// with this many unknown names needs no more of them.
			h := ""
			if i < maxHints {
				if names == nil {
					names = m.Names()
				}
				h = hint(r.name, names)
			}
			p.b.Errorf(r.pos, "undeclared variable %q%s", r.name, h)
		}
	}
	for v, has := range p.hasBlock {
		if !has {
			x := m.Vars[v]
			p.b.Errorf(x.Pos, "variable %q has no probability block", x.Name)
			p.b.SetCPT(x.Pos, x.ID, nil, uniform(len(x.States)), nil)
		}
	}
	return p.b.Finish()
}
