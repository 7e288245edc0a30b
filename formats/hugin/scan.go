package hugin

import (
	"sort"
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
	tString          // a double-quoted string
	tLBrace          // {
	tRBrace          // }
	tLParen          // (
	tRParen          // )
	tEq              // =
	tSemi            // ;
	tBar             // |
	tComma           // ,
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
	tEq:      `"="`,
	tSemi:    `";"`,
	tBar:     `"|"`,
	tComma:   `","`,
	tIllegal: "character",
}

// token is a token of the source, referring to it by offsets so that
// scanning allocates nothing. Its line is found from the scanner's table of
// line starts when a position is needed.
type token struct {
	kind     tokKind
	bol      bool // first token on its line
	off, end int  // byte range (for tString, including the quotes)
}

// isDelim reports whether c ends a word. Words are maximal runs of other
// bytes, so that a number such as 1.5e-3 and a name such as N0_7muVerMo
// are single words; what a word means depends on where it appears.
var isDelim [256]bool

func init() {
	for _, c := range []byte(" \t\n\r\f\v{}()=;|,\"%") {
		isDelim[c] = true
	}
	for c := 0; c < 0x20; c++ {
		isDelim[c] = true
	}
	isDelim[0x7f] = true
}

// scanner splits a NET source into tokens. Lexical errors (unterminated
// strings) are reported through errf.
type scanner struct {
	src   []byte
	file  string
	off   int
	lines []int // offsets of the first byte of each line scanned so far
	errf  func(pos ir.Pos, format string, args ...any)

	// Column cache for pos: col is the rune column of offset coff, on the
	// line starting at cline. Positions are mostly asked for in order, so
	// a long line costs linear time overall.
	cline, coff, ccol int
}

func newScanner(file string, src []byte, errf func(ir.Pos, string, ...any)) *scanner {
	s := &scanner{src: src, file: file, lines: []int{0}, errf: errf, cline: -1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3 // UTF-8 byte order mark
		s.lines[0] = 3
	}
	return s
}

// pos returns the position of offset off, which must have been scanned.
func (s *scanner) pos(off int) ir.Pos {
	line := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) // 1-based line
	if line == 0 {
		line = 1
	}
	start := s.lines[line-1]
	if off < start {
		off = start // inside a byte order mark
	}
	if s.cline != start || off < s.coff {
		s.cline, s.coff, s.ccol = start, start, 1
	}
	s.ccol += utf8.RuneCount(s.src[s.coff:off])
	s.coff = off
	return ir.Pos{File: s.file, Line: line, Col: s.ccol}
}

// at returns the position of the start of t.
func (s *scanner) at(t token) ir.Pos { return s.pos(t.off) }

// newline records that a line starts at off.
func (s *scanner) newline(off int) {
	if off > s.lines[len(s.lines)-1] {
		s.lines = append(s.lines, off)
	}
}

// next returns the next token.
func (s *scanner) next() token {
	src := s.src
	bol := s.off == s.lines[len(s.lines)-1]
	for s.off < len(src) {
		c := src[s.off]
		switch {
		case c == '\n':
			s.off++
			s.newline(s.off)
			bol = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.off++
			continue
		case c == '%':
			for s.off < len(src) && src[s.off] != '\n' {
				s.off++
			}
			continue
		}
		break
	}
	t := token{bol: bol, off: s.off}
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
	case '=':
		t.kind = tEq
	case ';':
		t.kind = tSemi
	case '|':
		t.kind = tBar
	case ',':
		t.kind = tComma
	case '"':
		t.kind = tString
		for {
			if s.off >= len(src) || src[s.off] == '\n' {
				s.errf(s.at(t), "unterminated string")
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
		for s.off < len(src) && !isDelim[src[s.off]] {
			s.off++
		}
	}
	t.end = s.off
	return t
}

// bytes returns the source text of t.
func (s *scanner) bytes(t token) []byte { return s.src[t.off:t.end] }

// text returns what t spells: a word itself, or the contents of a string
// with \" and \\ unescaped.
func (s *scanner) text(t token) string {
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
	case tWord, tString:
		b := s.src[t.off:t.end]
		if len(b) > 40 {
			n := 37 // cut at a rune boundary
			for n > 0 && !utf8.RuneStart(b[n]) {
				n--
			}
			return strconv.Quote(string(b[:n]) + "...")
		}
		if t.kind == tString {
			return string(b)
		}
		return strconv.Quote(string(b))
	case tIllegal:
		return "character " + strconv.QuoteRune(rune(s.src[t.off]))
	}
	return kindText[t.kind]
}
