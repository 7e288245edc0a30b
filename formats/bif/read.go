package bif

import (
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/formats/internal/textscan"
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
func Read(filename string, src []byte) (*ir.Model, error) {
	return importer.Read(filename, "BIF", src, parse)
}

// parse reads src, decompressed, as Read.
func parse(filename string, src []byte) (*ir.Model, error) {
	p := newParser(filename, src)
	p.parseFile()
	return p.finish()
}

// syntax is BIF's lexical syntax. Words are maximal runs of bytes other
// than these, so names such as "<5", "5-12", "12+", ">=7.5" and
// "Asy/Patch" (all in bnlearn's child.bif) are single words.
var syntax = &textscan.Syntax{Punct: "{}()[],;|", Comments: []textscan.Comment{{Open: "//"}, {Open: "/*", Close: "*/"}}}

// parser reads a BIF file in one pass, declaring variables on the builder
// as their blocks end and filling each CPT directly from its rows.
type parser struct {
	textscan.Parser

	broken    map[string]bool // variables whose block was too damaged to declare
	hasBlock  []bool          // hasBlock[v]: some probability block is for v
	pending   []pendingRef    // references to names not declared at the time
	stateMaps map[ir.VarID]map[string]int
	rowToks   []textscan.Token // state tokens of the current row, for messages

	parentToks []textscan.Token // buffers shared by the probability blocks
	seen       []bool
}

// pendingRef is a reference to a variable that was not declared when it
// was read; at the end it is reported as undeclared or as declared too late.
type pendingRef struct {
	pos   ir.Pos
	name  string
	child bool // the child of a probability block
}

func newParser(filename string, src []byte) *parser {
	p := &parser{broken: map[string]bool{}}
	p.Init(syntax, filename, src)
	return p
}

func (p *parser) isName() bool { return p.Tok.Kind == textscan.Word || p.Tok.Kind == textscan.String }

// atKeyword reports whether the current token starts a block.
func (p *parser) atKeyword() bool {
	return p.Is("variable") || p.Is("probability") || p.Is("network")
}

// atBlockStart reports whether the current token is a block keyword at the
// start of a line: the place to stop when a block is missing its "}".
func (p *parser) atBlockStart() bool { return p.Tok.BOL && p.atKeyword() }

// skipToBlock skips up to the next block keyword that starts a line or is
// outside any braces. It skips at least one token unless the current one is
// a keyword; the callers that call it on the block keyword itself have
// consumed that.
func (p *parser) skipToBlock() { p.SkipTo(p.atKeyword) }

// skipStmt skips to the end of the current statement inside a block: past
// the next ";", or up to the "}" that closes the block or a block keyword
// that starts a line.
func (p *parser) skipStmt() { p.SkipStmt('{', '}', p.atKeyword) }

// blockName reports whether the current token is a name; if it is not,
// it reports that what was expected after after, and skips to the next
// block.
func (p *parser) blockName(what, after string) bool {
	if p.isName() {
		return true
	}
	p.Errorf(p.Tok, "expected %s after %s, found %s", what, after, p.Found())
	p.skipToBlock()
	return false
}

// expect consumes a token of kind k, or reports `expected k after what`.
func (p *parser) expect(k textscan.Kind, after string) bool {
	if p.Tok.Kind != k {
		p.Errorf(p.Tok, "expected %s after %s, found %s", k, after, p.Found())
		return false
	}
	p.Next()
	return true
}

func (p *parser) parseFile() {
	for p.Tok.Kind != textscan.EOF {
		switch {
		case p.Is("network"):
			p.parseNetwork()
		case p.Is("variable"):
			p.parseVariable()
		case p.Is("probability"):
			p.parseProbability()
		default:
			p.Errorf(p.Tok, `expected "variable" or "probability", found %s`, p.Found())
			p.skipToBlock()
		}
	}
}

// parseNetwork parses `network NAME { property ...; }`. The name and the
// properties are not kept.
func (p *parser) parseNetwork() {
	p.Next()
	if !p.blockName("the network name", `"network"`) {
		return
	}
	p.Next()
	if !p.expect('{', "the network name") {
		p.skipToBlock()
		return
	}
	for {
		switch {
		case p.Tok.Kind == '}':
			p.Next()
			return
		case p.Tok.Kind == textscan.EOF || p.atBlockStart():
			p.Errorf(p.Tok, `expected "}" at the end of the network block, found %s`, p.Found())
			return
		case p.Is("property"):
			p.skipStmt()
		default:
			p.Errorf(p.Tok, `expected "property" or "}" in the network block, found %s`, p.Found())
			p.skipStmt()
		}
	}
}

// parseVariable parses
//
//	variable NAME { type discrete [ N ] { S1, S2, ... }; property ...; }
func (p *parser) parseVariable() {
	p.Next()
	if !p.blockName("a variable name", `"variable"`) {
		return
	}
	nameTok := p.Tok
	name := p.S.Text(nameTok)
	p.Next()
	if p.Tok.Kind != '{' {
		p.Errorf(p.Tok, `expected "{" after the variable name %q, found %s`, name, p.Found())
		p.broken[name] = true
		p.skipToBlock()
		return
	}
	p.Next()
	var states []string
	typed, bad := false, false
loop:
	for {
		switch {
		case p.Tok.Kind == '}':
			p.Next()
			break loop
		case p.Tok.Kind == textscan.EOF || p.atBlockStart():
			p.Errorf(p.Tok, `expected "}" at the end of the block of variable %q, found %s`, name, p.Found())
			break loop
		case p.Is("type"):
			if typed {
				p.Errorf(p.Tok, "variable %q has a second type", name)
				p.skipStmt()
				continue
			}
			typed = true
			var ok bool
			states, ok = p.parseType(name)
			bad = bad || !ok
		case p.Is("property"):
			p.skipStmt()
		default:
			p.Errorf(p.Tok, `expected "type", "property" or "}" in the block of variable %q, found %s`, name, p.Found())
			p.skipStmt()
		}
	}
	if !typed {
		p.Errorf(nameTok, "variable %q has no type (expected type discrete [ n ] { ... };)", name)
		bad = true
	}
	if bad {
		p.broken[name] = true
		return
	}
	if _, exists := p.B.Model().Lookup(name); exists {
		p.B.AddVar(p.S.At(nameTok), name, ir.Enum, states, 0) // reports the redeclaration
		return
	}
	if _, ok := p.B.AddVar(p.S.At(nameTok), name, ir.Enum, states, 0); !ok {
		p.broken[name] = true
		return
	}
	p.hasBlock = append(p.hasBlock, false)
}

// parseType parses `type discrete [ N ] { S1, S2, ... };` and returns the
// states; ok is false if they are unusable.
func (p *parser) parseType(name string) (states []string, ok bool) {
	p.Next()
	if !p.Is("discrete") {
		if p.Tok.Kind == textscan.Word {
			p.Errorf(p.Tok, "variable %q has type %s: only discrete variables are supported", name, p.Found())
		} else {
			p.Errorf(p.Tok, `expected "discrete" after "type", found %s`, p.Found())
		}
		p.skipStmt()
		return nil, false
	}
	p.Next()
	if !p.expect('[', `"discrete"`) {
		p.skipStmt()
		return nil, false
	}
	countTok := p.Tok
	count := -1
	if p.Tok.Kind == textscan.Word {
		if n, err := strconv.Atoi(string(p.S.Bytes(p.Tok))); err == nil && n >= 0 {
			count = n
		} else {
			p.Errorf(p.Tok, "malformed number of states %s", p.Found())
		}
		p.Next()
	} else {
		p.Errorf(p.Tok, `expected the number of states after "[", found %s`, p.Found())
		p.skipStmt()
		return nil, false
	}
	if !p.expect(']', "the number of states") || !p.expect('{', `"]"`) {
		p.skipStmt()
		return nil, false
	}
	// States listed twice: compared in place while they are few, through a
	// map past 16 (a map per variable was 5% of reading pigs.bif).
	var seen map[string]bool
	states = make([]string, 0, min(max(count, 0), 64))
	ok = true
	for p.Tok.Kind != '}' {
		switch {
		case p.isName():
			s := p.S.Text(p.Tok)
			if seen == nil && len(states) == 16 {
				seen = make(map[string]bool, 32)
				for _, x := range states {
					seen[x] = true
				}
			}
			var dup bool
			if seen != nil {
				dup = seen[s]
				seen[s] = true
			} else {
				dup = slices.Contains(states, s)
			}
			if dup {
				p.Errorf(p.Tok, "state %q of variable %q is listed twice", s, name)
				ok = false
			}
			states = append(states, s)
			p.Next()
		case p.Tok.Kind == ',':
			p.Next()
		default:
			p.Errorf(p.Tok, `expected a state name or "}" in the states of variable %q, found %s`, name, p.Found())
			p.skipStmt()
			return nil, false
		}
	}
	p.Next()
	if count >= 0 && count != len(states) {
		p.Errorf(countTok, "variable %q is declared with %s but lists %d", name, ir.Plural(count, "state"), len(states))
	}
	if count < 0 {
		ok = false
	}
	if p.Tok.Kind != ';' {
		p.Errorf(p.Tok, `expected ";" after the states of variable %q, found %s`, name, p.Found())
		p.skipStmt()
	} else {
		p.Next()
	}
	return states, ok
}

// lookup resolves a variable name read from t. A name that is not declared
// is remembered (and reported at the end); a name whose own block was
// broken is silently unusable.
func (p *parser) lookup(t textscan.Token, child bool) (ir.VarID, bool) {
	if t.Kind == textscan.Word {
		// The name is not kept: the conversion does not allocate.
		if v, ok := p.B.Model().Lookup(string(p.S.Bytes(t))); ok {
			return v.ID, true
		}
	}
	name := p.S.Text(t)
	if v, ok := p.B.Model().Lookup(name); ok {
		return v.ID, true
	}
	if !p.broken[name] {
		p.pending = append(p.pending, pendingRef{p.S.At(t), name, child})
	}
	return 0, false
}

// stateIndex returns the index of the state spelled by t in v, or -1.
func (p *parser) stateIndex(v ir.VarID, t textscan.Token) int {
	vr := p.B.Model().Vars[v]
	var b []byte
	if t.Kind == textscan.String {
		b = []byte(p.S.Text(t))
	} else {
		b = p.S.Bytes(t)
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
	m := p.B.Model()
	var names []string
	for i, r := range p.pending {
		if v, ok := m.Lookup(r.name); ok {
			p.B.Errorf(r.pos, "variable %q is used before its declaration at %s", r.name, v.Pos)
			if r.child && !p.hasBlock[v.ID] {
				// Not also "has no probability block".
				p.hasBlock[v.ID] = true
				p.B.SetCPT(r.pos, v.ID, nil, importer.Uniform(len(v.States)), nil)
			}
		} else {
			// Suggestions cost time in the number of variables; a file
			// with this many unknown names needs no more of them.
			h := ""
			if i < maxHints {
				if names == nil {
					names = m.Names()
				}
				h = importer.Hint(r.name, names)
			}
			p.B.Errorf(r.pos, "undeclared variable %q%s", r.name, h)
		}
	}
	for v, has := range p.hasBlock {
		if !has {
			x := m.Vars[v]
			p.B.Errorf(x.Pos, "variable %q has no probability block", x.Name)
			p.B.SetCPT(x.Pos, x.ID, nil, importer.Uniform(len(x.States)), nil)
		}
	}
	return p.B.Finish()
}
