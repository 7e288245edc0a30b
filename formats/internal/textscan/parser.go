package textscan

import "github.com/pbl-lang/pbl/ir"

// Parser is the scaffold of a reader: the scanner, the current token, and
// the builder that collects the model and the errors. A reader embeds it
// and calls Init.
type Parser struct {
	S   *Scanner
	Tok Token       // the current token, never Illegal
	B   *ir.Builder // positions are in the file being read

	lastErrOff int // offset of the token of the last error, to report one error per token
}

// Init starts reading src, in the syntax syn, as the file filename, and
// moves to its first token.
func (p *Parser) Init(syn *Syntax, filename string, src []byte) {
	p.B = ir.NewBuilder(filename)
	p.S = NewScanner(syn, filename, src, p.B.Errorf)
	p.lastErrOff = -1
	p.Next()
}

// Next moves to the next token, reporting and skipping illegal characters.
func (p *Parser) Next() {
	p.Tok = p.S.Next()
	for p.Tok.Kind == Illegal {
		p.Errorf(p.Tok, "unexpected %s", p.S.Describe(p.Tok))
		p.Tok = p.S.Next()
	}
}

// Errorf reports an error at t, unless one was already reported there.
func (p *Parser) Errorf(t Token, format string, args ...any) {
	if t.Off == p.lastErrOff {
		return
	}
	p.lastErrOff = t.Off
	p.B.Errorf(p.S.At(t), format, args...)
}

// Found renders the current token for an error message.
func (p *Parser) Found() string { return p.S.Describe(p.Tok) }

// Is reports whether the current token is the word w.
func (p *Parser) Is(w string) bool {
	return p.Tok.Kind == Word && string(p.S.Bytes(p.Tok)) == w
}

// SkipTo skips to the next token at which at is true and that starts a
// line or stands outside any braces: the start of the next element after
// a syntax error. It skips at least one token unless at is true at the
// current one.
func (p *Parser) SkipTo(at func() bool) {
	if at() {
		return
	}
	depth := 0
	for {
		switch p.Tok.Kind {
		case EOF:
			return
		case '{':
			depth++
		case '}':
			depth--
		}
		p.Next()
		if at() && (p.Tok.BOL || depth <= 0) {
			return
		}
	}
}

// SkipStmt skips to the end of the current statement inside a block: past
// the next ";" outside the brackets open and close, or up to the "}" that
// closes the block (outside those brackets, or anywhere if they are not
// braces) or a word that starts a line and at which atStart is true.
func (p *Parser) SkipStmt(open, close Kind, atStart func() bool) {
	depth := 0
	for {
		switch k := p.Tok.Kind; {
		case k == EOF:
			return
		case k == ';' && depth <= 0:
			p.Next()
			return
		case k == '}' && depth <= 0:
			return
		case k == open:
			depth++
		case k == close:
			depth--
		case k == '}':
			return
		case k == Word && p.Tok.BOL && atStart():
			return
		}
		p.Next()
	}
}
