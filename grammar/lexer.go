package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scanner produces tokens from src. pos is the position of src[pos.Offset].
type Scanner struct {
	src string
	pos Position

	atEnd bool // the last error is a block comment that the input ended in
}

// Unterminated reports whether the scanner's last error was a block
// comment still open at the end of the input: more input may complete it.
func (s *Scanner) Unterminated() bool { return s.atEnd }

// advance moves past n bytes that contain no newline and are ASCII.
func (s *Scanner) advance(n int) {
	s.pos.Offset += n
	s.pos.Column += n
}

// Next returns the next token. Lexical errors are *Error, positioned.
func (s *Scanner) Next() (Token, error) {
	if err := s.skipSpace(); err != nil {
		return Token{}, err
	}
	src, i := s.src, s.pos.Offset
	start := s.pos
	if i >= len(src) {
		return Token{Type: EOF, Pos: start}, nil
	}
	c := src[i]
	switch {
	case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf:
		j := i
		for j < len(src) {
			c := src[j]
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				j++
				continue
			}
			if c < utf8.RuneSelf {
				break
			}
			r, size := utf8.DecodeRuneInString(src[j:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) && j > i) {
				break
			}
			j += size
		}
		if j == i {
			r, _ := utf8.DecodeRuneInString(src[i:])
			return Token{}, lexErrorf(start, "unexpected character %q", r)
		}
		s.pos.Offset = j
		s.pos.Column += utf8.RuneCountInString(src[i:j])
		return Token{Type: Ident, Value: src[i:j], Pos: start}, nil
	case '0' <= c && c <= '9' || c == '.' && i+1 < len(src) && isDigit(src[i+1]) ||
		c == '-' && i+1 < len(src) && (isDigit(src[i+1]) || src[i+1] == '.' && i+2 < len(src) && isDigit(src[i+2])):
		j := scanNumber(src, i)
		s.advance(j - i)
		return Token{Type: Number, Value: src[i:j], Pos: start}, nil
	case c == '"':
		return s.scanString()
	}
	n := 1
	switch c {
	case '-':
		if followedBy(src, i, '>') {
			n = 2
		}
	case '.':
		if !followedBy(src, i, '.') {
			return Token{}, lexErrorf(start, "unexpected \".\"")
		}
		n = 2
	case '<':
		if followedBy(src, i, '=') {
			n = 2
		} else if i+2 < len(src) && src[i+1] == '-' && src[i+2] == '>' {
			n = 3 // <->, a bidirected edge
		}
	case '=', '>':
		if followedBy(src, i, '=') {
			n = 2
		}
	case '!':
		if !followedBy(src, i, '=') {
			return Token{}, lexErrorf(start, "unexpected \"!\" (did you mean !=?)")
		}
		n = 2
	case '(', ')', '{', '}', '[', ']', ',', ':', ';', '|', '*', '?', '+', '/', '^', '~':
	default:
		r, _ := utf8.DecodeRuneInString(src[i:])
		return Token{}, lexErrorf(start, "unexpected character %q", r)
	}
	s.advance(n)
	return Token{Type: Punct, Value: src[i : i+n], Pos: start}, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber returns the end of the number starting at src[i]:
// -?digits(.digits)?([eE][+-]?digits)? or -?.digits(...). A "." not
// followed by a digit is not part of the number, so 0..5 lexes as 0 .. 5.
func scanNumber(src string, i int) int {
	j := i
	if src[j] == '-' {
		j++
	}
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j = k
		}
	}
	return j
}

// scanString scans a double-quoted string with Go escapes. The token's
// value is the unquoted text.
func (s *Scanner) scanString() (Token, error) {
	src, i := s.src, s.pos.Offset
	start := s.pos
	j := i + 1
	escaped := false
	for ; j < len(src); j++ {
		c := src[j]
		if c == '\n' {
			break
		}
		if c == '\\' {
			escaped = true
			j++
			continue
		}
		if c == '"' {
			text := src[i+1 : j]
			if escaped {
				u, err := strconv.Unquote(src[i : j+1])
				if err != nil {
					return Token{}, lexErrorf(start, "invalid escape in string %s", src[i:j+1])
				}
				text = u
			}
			s.pos.Offset = j + 1
			s.pos.Column += utf8.RuneCountInString(src[i : j+1])
			return Token{Type: String, Value: text, Pos: start}, nil
		}
	}
	return Token{}, lexErrorf(start, "string not terminated")
}

// skipSpace skips white space and comments.
func (s *Scanner) skipSpace() error {
	src := s.src
	for s.pos.Offset < len(src) {
		c := src[s.pos.Offset]
		switch {
		case c == '\n':
			s.pos.Offset++
			s.pos.Line++
			s.pos.Column = 1
		case c == ' ' || c == '\t' || c == '\r':
			s.advance(1)
		case c == '/' && s.pos.Offset+1 < len(src) && src[s.pos.Offset+1] == '/':
			j := s.pos.Offset
			for j < len(src) && src[j] != '\n' {
				j++
			}
			s.pos.Column += utf8.RuneCountInString(src[s.pos.Offset:j])
			s.pos.Offset = j
		case c == '/' && s.pos.Offset+1 < len(src) && src[s.pos.Offset+1] == '*':
			start := s.pos
			s.advance(2)
			for {
				if s.pos.Offset >= len(src) {
					s.atEnd = true
					return lexErrorf(start, "comment not terminated")
				}
				if src[s.pos.Offset] == '*' && s.pos.Offset+1 < len(src) && src[s.pos.Offset+1] == '/' {
					s.advance(2)
					break
				}
				if src[s.pos.Offset] == '\n' {
					s.pos.Offset++
					s.pos.Line++
					s.pos.Column = 1
				} else {
					_, size := utf8.DecodeRuneInString(src[s.pos.Offset:])
					s.pos.Offset += size
					s.pos.Column++
				}
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(src[s.pos.Offset:])
			if !unicode.IsSpace(r) {
				return nil
			}
			s.pos.Offset += size
			s.pos.Column++
		default:
			return nil
		}
	}
	return nil
}

// TokenName names a token type for messages.
func TokenName(t TokenType) string {
	switch t {
	case EOF:
		return "end of file"
	case Ident:
		return "name"
	case Number:
		return "number"
	case String:
		return "string"
	case Punct:
		return "punctuation"
	}
	return fmt.Sprintf("token %d", t)
}

// lexErrorf returns a positioned lexical error.
func lexErrorf(pos Position, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Pos: pos}
}

// NewScanner returns a scanner over src. Comments (// to end of line,
// /* ... */) and white space are skipped; newlines are not significant.
//
// A UTF-8 byte order mark at the start of src is skipped, as editors that
// write one do not show it: the first token is still at column 1 (its
// Offset counts the mark's 3 bytes). Anywhere else U+FEFF is an unexpected
// character.
func NewScanner(filename, src string) *Scanner {
	pos := Position{Filename: filename, Line: 1, Column: 1}
	if strings.HasPrefix(src, byteOrderMark) {
		pos.Offset = len(byteOrderMark)
	}
	return &Scanner{src: src, pos: pos}
}

// byteOrderMark is U+FEFF in UTF-8.
const byteOrderMark = "\ufeff"

// NewScannerAt returns a scanner of src that starts at pos, a position in
// src (its Offset, and the Line and Column there) such as a token's: it
// scans the same tokens, at the same positions, as a scanner from the
// start does from there.
func NewScannerAt(src string, pos Position) *Scanner {
	return &Scanner{src: src, pos: pos}
}

// followedBy reports whether the byte after src[i] is b.
func followedBy(src string, i int, b byte) bool { return i+1 < len(src) && src[i+1] == b }
