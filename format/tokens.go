package format

import (
	"fmt"
	"math"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// token is one token of the source and where to find the comments before
// it. The token stream, not the syntax tree, is what the printer writes:
// the tree says where lines break and what aligns, the stream gives each
// token's text as written and the comments between tokens. (A token is
// kept small: a large network has a million of them.)
type token struct {
	text        string // as written (a string with its quotes and escapes)
	start, line int32  // offset and 1-based line of the token's first byte
	cfirst, cn  int32  // the comments before the token: comments[cfirst : cfirst+cn]
	typ         int8   // grammar.Ident, Number, String, Punct or EOF
	blankBefore bool   // an empty line separates the token from what precedes it (a token or a comment)
}

// is reports whether the token is of type tt.
func (t *token) is(tt grammar.TokenType) bool { return grammar.TokenType(t.typ) == tt }

// comment is a // or /* */ comment.
type comment struct {
	text        string
	trailing    bool // it starts on the line where the previous token ends
	blankBefore bool // an empty line separates it from the previous token or comment
	lineAfter   bool // what follows it (a token or a comment) starts on a later line
	block       bool // a /* */ comment
}

// scan returns src's tokens, the last one EOF, and their comments. It
// scans with grammar's scanner (src has parsed, so it has no lexical
// error) and reads the comments from the gaps between tokens, which hold
// only white space and comments.
func scan(filename string, src string) ([]token, []comment, error) {
	if len(src) > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%s: too large to format (%d bytes)", filename, len(src))
	}
	sc := grammar.NewScanner(filename, src)
	toks := make([]token, 0, count(filename, src))
	var comments []comment
	prevEnd := 0 // offset after the previous token
	for {
		t, err := sc.Next()
		if err != nil {
			return nil, nil, err
		}
		tok := token{typ: int8(t.Type), line: int32(t.Pos.Line)}
		start := t.Pos.Offset
		if t.Type == grammar.EOF {
			start = len(src)
		}
		cs, blank := gap(src[prevEnd:start])
		tok.cfirst, tok.cn, tok.blankBefore = int32(len(comments)), int32(len(cs)), blank
		comments = append(comments, cs...)
		end := start
		switch t.Type {
		case grammar.EOF:
		case grammar.String:
			end = stringEnd(src, start)
		default:
			end = start + len(t.Value)
		}
		tok.text = src[start:end]
		tok.start = int32(start)
		toks = append(toks, tok)
		if t.Type == grammar.EOF {
			return toks, comments, nil
		}
		prevEnd = end
	}
}

// gap reads the comments of a gap between two tokens, and whether an empty
// line precedes the token that ends it.
func gap(s string) (cs []comment, blank bool) {
	newlines := 0    // since the previous token or comment
	sawLine := false // a newline since the previous token
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\n':
			newlines++
			sawLine = true
			i++
		case c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			var j int
			block := s[i+1] == '*'
			if block {
				j = i + 2 + strings.Index(s[i+2:], "*/") + 2
			} else {
				j = i + strings.IndexByte(s[i:]+"\n", '\n')
			}
			if n := len(cs); n > 0 {
				cs[n-1].lineAfter = newlines > 0
			}
			cs = append(cs, comment{
				text:        commentText(s[i:j]),
				trailing:    !sawLine,
				blankBefore: newlines >= 2,
				block:       block,
			})
			// A block comment's own newlines count as a line break
			// after the previous token, not as blank lines.
			if strings.Contains(s[i:j], "\n") {
				sawLine = true
			}
			newlines = 0
			i = j
		default:
			i++ // white space
		}
	}
	if n := len(cs); n > 0 {
		cs[n-1].lineAfter = newlines > 0
	}
	return cs, newlines >= 2
}

// commentText returns a comment as the output writes it: every line,
// a /* */ comment's inner lines too, without the white space that ends it
// (which CRLF line endings leave as a \r), and LF line endings.
func commentText(c string) string {
	if !strings.Contains(c, "\n") {
		return strings.TrimRight(c, " \t\r\f\v")
	}
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r\f\v")
	}
	return strings.Join(lines, "\n")
}

// stringEnd returns the offset after the quoted string starting at
// src[i], a valid string with Go escapes on one line.
func stringEnd(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// count returns the number of src's tokens, EOF's included: a first pass
// that saves growing the tokens' slice (many times over for the tables of
// a large network).
func count(filename, src string) int {
	sc := grammar.NewScanner(filename, src)
	n := 1
	for {
		t, err := sc.Next()
		if err != nil || t.Type == grammar.EOF {
			return n
		}
		n++
	}
}
