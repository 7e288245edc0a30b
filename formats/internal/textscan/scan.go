package textscan

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// Kind is the kind of a token: [EOF], [Word], [String], [Illegal], or for
// punctuation the punctuation byte itself.
type Kind uint8

const (
	EOF     Kind = iota
	Word         // a run of name characters: a keyword, a name or a number
	String       // a double-quoted string
	Illegal      // a control character
)

// String renders k for an error message: `end of file`, `name`, `"{"`.
func (k Kind) String() string {
	switch k {
	case EOF:
		return "end of file"
	case Word:
		return "name"
	case String:
		return "string"
	case Illegal:
		return "character"
	}
	return `"` + string(rune(k)) + `"`
}

// Token is a token of the source. It refers to the source by offsets, so
// that scanning allocates nothing.
//
// Off and End are grouped in a Span so that Token has four fields: the
// compiler keeps a struct of at most four fields in registers, and
// scanning NET files was 15-20% slower with a fifth.
type Token struct {
	Kind Kind
	BOL  bool // first token on its line
	Span      // the bytes of the token (for a String, including the quotes)
	Line int  // 1-based line of Off
}

// Span is a byte range of the source.
type Span struct{ Off, End int }

// Comment is a form of comment: from Open to Close, or to the end of the
// line if Close is "". Comments do not nest.
type Comment struct{ Open, Close string }

// class is the lexical class of a byte.
type class uint8

const (
	cWord    class = iota // part of a word
	cSpace                // white space other than a newline
	cNewline              // \n
	cPunct                // a token of its own
	cQuote                // starts a string
	cComment              // may start a comment; part of a word otherwise
	cIllegal              // a control character
)

// Syntax is the lexical syntax of a format: its punctuation and its
// comments. A reader may declare its syntax as a literal,
//
//	var syntax = &textscan.Syntax{Punct: "{}();", Comments: []textscan.Comment{{Open: "%"}}}
//
// which costs nothing at start-up: the table of byte classes is built on
// first use (or by [NewSyntax]), and a bad punctuation or comment opener
// panics then. A Syntax must not be changed once used.
type Syntax struct {
	Punct    string    // the bytes that are tokens of their own
	Comments []Comment // the forms of comment

	once  sync.Once
	class [256]class // built by table
}

// NewSyntax returns the syntax whose punctuation is the bytes of punct and
// whose comments are comments, its table built.
func NewSyntax(punct string, comments ...Comment) *Syntax {
	syn := &Syntax{Punct: punct, Comments: comments}
	syn.table()
	return syn
}

// table returns the byte classes of syn, building them on first use.
func (syn *Syntax) table() *[256]class {
	syn.once.Do(syn.build)
	return &syn.class
}

func (syn *Syntax) build() {
	for c := 0; c < 0x20; c++ {
		syn.class[c] = cIllegal
	}
	syn.class[0x7f] = cIllegal
	for _, c := range []byte(" \t\r\f\v") {
		syn.class[c] = cSpace
	}
	syn.class['\n'] = cNewline
	syn.class['"'] = cQuote
	for _, c := range []byte(syn.Punct) {
		if syn.class[c] != cWord || c >= utf8.RuneSelf {
			panic("textscan: bad punctuation " + strconv.QuoteRune(rune(c)))
		}
		syn.class[c] = cPunct
	}
	for _, cm := range syn.Comments {
		if cm.Open == "" || syn.class[cm.Open[0]] != cWord && syn.class[cm.Open[0]] != cComment {
			panic("textscan: bad comment opener " + strconv.Quote(cm.Open))
		}
		syn.class[cm.Open[0]] = cComment
	}
}

// IsWord reports whether s reads back as a single word: it is not empty,
// and has no white space, punctuation, quote, control character or
// comment opener.
func (syn *Syntax) IsWord(s string) bool {
	if s == "" {
		return false
	}
	class := syn.table()
	for i := 0; i < len(s); i++ {
		switch class[s[i]] {
		case cWord:
		case cComment:
			if syn.commentAt([]byte(s[i:])) != nil {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// commentAt returns the comment that begins src, or nil.
func (syn *Syntax) commentAt(src []byte) *Comment {
	for i := range syn.Comments {
		cm := &syn.Comments[i]
		if len(src) >= len(cm.Open) && string(src[:len(cm.Open)]) == cm.Open {
			return cm
		}
	}
	return nil
}

// Scanner splits a source into tokens. Lexical errors (unterminated
// comments and strings) are reported through errf.
type Scanner struct {
	syn       *Syntax
	src       []byte
	file      string
	bom       int // the length of the byte order mark: 0 or 3
	off       int
	line      int // the 1-based line of off
	lineStart int // the offset of the first byte of that line
	errf      func(pos ir.Pos, format string, args ...any)

	lines    []int // offsets of the first byte of each line, built by Pos up to linesEnd
	linesEnd int

	// Column cache for positions: ccol is the rune column of offset coff,
	// on line cline, which starts at offset cstart. Positions are mostly
	// asked for in order, so columns are computed incrementally and a long
	// line costs linear time.
	cline, cstart, coff, ccol int
}

// NewScanner returns a scanner of src, in the syntax syn, whose positions
// are in file.
func NewScanner(syn *Syntax, file string, src []byte, errf func(ir.Pos, string, ...any)) *Scanner {
	syn.table()
	s := &Scanner{syn: syn, src: src, file: file, line: 1, errf: errf}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.bom = 3 // UTF-8 byte order mark
		s.off, s.lineStart = s.bom, s.bom
	}
	return s
}

// newline records that a line starts at off.
func (s *Scanner) newline(off int) {
	s.line++
	s.lineStart = off
}

// Next returns the next token. The offset is kept in a local variable
// while scanning (3% fewer instructions than the field on pigs.bif).
func (s *Scanner) Next() Token {
	src, class := s.src, &s.syn.class // built by NewScanner
	off := s.off
	bol := off == s.lineStart
skip:
	for off < len(src) {
		switch class[src[off]] {
		case cSpace:
			off++
		case cNewline:
			off++
			s.newline(off)
			bol = true
		case cComment:
			s.off = off
			if !s.skipComment() {
				break skip
			}
			off = s.off
		default:
			break skip
		}
	}
	t := Token{BOL: bol, Span: Span{Off: off}, Line: s.line}
	if off >= len(src) {
		s.off = off
		t.Kind, t.End = EOF, off
		return t
	}
	c := src[off]
	off++
	switch class[c] {
	case cPunct:
		t.Kind = Kind(c)
	case cQuote:
		t.Kind = String
		for {
			if off >= len(src) || src[off] == '\n' {
				s.off = off
				s.errf(s.At(t), "unterminated string")
				break
			}
			c := src[off]
			off++
			if c == '"' {
				break
			}
			if c == '\\' && off < len(src) && (src[off] == '"' || src[off] == '\\') {
				off++
			}
		}
	case cIllegal:
		t.Kind = Illegal
	default:
		t.Kind = Word
	word:
		for off < len(src) {
			switch class[src[off]] {
			case cWord:
			case cComment:
				if s.syn.commentAt(src[off:]) != nil {
					break word
				}
			default:
				break word
			}
			off++
		}
	}
	s.off = off
	t.End = off
	return t
}

// skipComment skips the comment at the current offset and reports
// whether there was one. A comment that runs to the end of its line stops
// before the newline.
func (s *Scanner) skipComment() bool {
	cm := s.syn.commentAt(s.src[s.off:])
	if cm == nil {
		return false
	}
	start, line := s.off, s.line
	s.off += len(cm.Open)
	if cm.Close == "" {
		if i := bytes.IndexByte(s.src[s.off:], '\n'); i >= 0 {
			s.off += i
		} else {
			s.off = len(s.src)
		}
		return true
	}
	end := len(s.src)
	if i := bytes.Index(s.src[s.off:], []byte(cm.Close)); i >= 0 {
		end = s.off + i
	}
	for {
		i := bytes.IndexByte(s.src[s.off:end], '\n')
		if i < 0 {
			break
		}
		s.off += i + 1
		s.newline(s.off)
	}
	if end == len(s.src) {
		s.off = end
		s.errf(s.posIn(line, start), "unterminated comment")
	} else {
		s.off = end + len(cm.Close)
	}
	return true
}

// Bytes returns the source text of t.
func (s *Scanner) Bytes(t Token) []byte { return s.src[t.Off:t.End] }

// Text returns what t spells: a word itself, or the contents of a string
// with \" and \\ unescaped.
func (s *Scanner) Text(t Token) string {
	b := s.src[t.Off:t.End]
	if t.Kind != String {
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

// Describe renders t for an error message: `"0.5"`, `")"`, `end of file`.
// A word or string longer than 40 bytes is cut short.
func (s *Scanner) Describe(t Token) string {
	switch t.Kind {
	case Word, String:
		b := s.src[t.Off:t.End]
		if len(b) > 40 {
			n := 37 // cut at a rune boundary
			for n > 0 && !utf8.RuneStart(b[n]) {
				n--
			}
			return strconv.Quote(string(b[:n]) + "...")
		}
		if t.Kind == String {
			return string(b)
		}
		return strconv.Quote(string(b))
	case Illegal:
		return "character " + strconv.QuoteRune(rune(s.src[t.Off]))
	}
	return t.Kind.String()
}
