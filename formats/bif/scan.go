package bif

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tWord            // a run of name characters: a keyword, a name or a number
	tString          // a double-quoted name
	tLBrace          // {
	tRBrace          // }
	tLParen          // (
	tRParen          // )
	tLBrack          // [
	tRBrack          // ]
	tComma           // ,
	tSemi            // ;
	tBar             // |
	tIllegal         // a control character
)

var kindText = [...]string{
	tEOF:     "end of file",
	tWord:    "name",
	tString:  "string",
	tLBrace:  `"{"`,
	tRBrace:  `"}"`,
	tLParen:  `"("`,
	tRParen:  `")"`,
	tLBrack:  `"["`,
	tRBrack:  `"]"`,
	tComma:   `","`,
	tSemi:    `";"`,
	tBar:     `"|"`,
	tIllegal: "character",
}

// token is a token of the source. It refers to the source by offsets, so
// that scanning allocates nothing.
type token struct {
	kind      tokKind
	bol       bool // first token on its line
	off, end  int  // byte range of the token (for tString, including the quotes)
	line      int  // 1-based line of off
	lineStart int  // offset of the first byte of that line
}

// isDelim reports whether c ends a word. Words are maximal runs of any
// other bytes, so names such as "<5", "5-12", "12+", ">=7.5" and
// "Asy/Patch" (all in bnlearn's child.bif) are single words.
var isDelim [256]bool

func init() {
	for _, c := range []byte(" \t\n\r\f\v{}()[],;|\"") {
		isDelim[c] = true
	}
	for c := 0; c < 0x20; c++ {
		isDelim[c] = true
	}
	isDelim[0x7f] = true
}

// scanner splits a BIF source into tokens. Lexical errors (unterminated
// comments and strings, control characters) are reported through errf.
type scanner struct {
	src       []byte
	file      string
	off       int
	line      int
	lineStart int
	errf      func(pos ir.Pos, format string, args ...any)

	// Column cache for pos: col is the rune column of offset coff, on the
	// line starting at cline. Tokens are mostly asked for in order, so
	// columns are computed incrementally and a long line costs linear time.
	cline, coff, ccol int
}

func newScanner(file string, src []byte, errf func(ir.Pos, string, ...any)) *scanner {
	s := &scanner{src: src, file: file, line: 1, errf: errf, cline: -1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3 // UTF-8 byte order mark
		s.lineStart = 3
	}
	return s
}

// posAt returns the position of offset off on the line that starts at
// lineStart (line number line).
func (s *scanner) posAt(line, lineStart, off int) ir.Pos {
	if s.cline != lineStart || off < s.coff {
		s.cline, s.coff, s.ccol = lineStart, lineStart, 1
	}
	s.ccol += utf8.RuneCount(s.src[s.coff:off])
	s.coff = off
	return ir.Pos{File: s.file, Line: line, Col: s.ccol}
}

// pos returns the position of the start of t.
func (s *scanner) pos(t token) ir.Pos { return s.posAt(t.line, t.lineStart, t.off) }

// next returns the next token.
func (s *scanner) next() token {
	src := s.src
	bol := s.off == s.lineStart
	for s.off < len(src) {
		c := src[s.off]
		switch {
		case c == '\n':
			s.off++
			s.line++
			s.lineStart = s.off
			bol = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.off++
			continue
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '/':
			for s.off < len(src) && src[s.off] != '\n' {
				s.off++
			}
			continue
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '*':
			start, line, lineStart := s.off, s.line, s.lineStart
			s.off += 2
			closed := false
			for s.off < len(src) {
				if src[s.off] == '*' && s.off+1 < len(src) && src[s.off+1] == '/' {
					s.off += 2
					closed = true
					break
				}
				if src[s.off] == '\n' {
					s.line++
					s.lineStart = s.off + 1
				}
				s.off++
			}
			if !closed {
				s.errf(s.posAt(line, lineStart, start), "unterminated comment")
			}
			continue
		}
		break
	}
	t := token{bol: bol, off: s.off, line: s.line, lineStart: s.lineStart}
	if s.off >= len(src) {
		t.kind, t.end = tEOF, s.off
		return t
	}
	c := src[s.off]
	s.off++
	switch c {
	case '{':
		t.kind = tLBrace
	case '}':
		t.kind = tRBrace
	case '(':
		t.kind = tLParen
	case ')':
		t.kind = tRParen
	case '[':
		t.kind = tLBrack
	case ']':
		t.kind = tRBrack
	case ',':
		t.kind = tComma
	case ';':
		t.kind = tSemi
	case '|':
		t.kind = tBar
	case '"':
		t.kind = tString
		for {
			if s.off >= len(src) || src[s.off] == '\n' {
				s.errf(s.pos(t), "unterminated string")
				break
			}
			c := src[s.off]
			s.off++
			if c == '"' {
				break
			}
			if c == '\\' && s.off < len(src) && (src[s.off] == '"' || src[s.off] == '\\') {
				s.off++
			}
		}
	default:
		if isDelim[c] {
			t.kind = tIllegal
			break
		}
		t.kind = tWord
		for s.off < len(src) {
			c := src[s.off]
			if isDelim[c] || c == '/' && s.off+1 < len(src) && (src[s.off+1] == '/' || src[s.off+1] == '*') {
				break
			}
			s.off++
		}
	}
	t.end = s.off
	return t
}

// bytes returns the source text of t.
func (s *scanner) bytes(t token) []byte { return s.src[t.off:t.end] }

// name returns the name that t spells: the word itself, or the contents of
// a quoted string with \" and \\ unescaped.
func (s *scanner) name(t token) string {
	b := s.src[t.off:t.end]
	if t.kind != tString {
		return string(b)
	}
	b = b[1:]
	if len(b) > 0 && b[len(b)-1] == '"' {
		b = b[:len(b)-1]
	}
	str := string(b)
	if strings.IndexByte(str, '\\') >= 0 {
		str = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(str)
	}
	return str
}

// describe renders t for an error message: `"0.5"`, `")"`, `end of file`.
func (s *scanner) describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tWord, tString:
		b := s.src[t.off:t.end]
		if t.kind == tString && len(b) <= 40 {
			return string(b)
		}
		if len(b) > 40 {
			// Cut at a rune boundary.
			n := 37
			for n > 0 && !utf8.RuneStart(b[n]) {
				n--
			}
			return strconv.Quote(string(b[:n]) + "...")
		}
		return strconv.Quote(string(b))
	case tIllegal:
		return "character " + strconv.QuoteRune(rune(s.src[t.off]))
	}
	return kindText[t.kind]
}
