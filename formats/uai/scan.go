package uai

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// token is a maximal run of non-space bytes.
type token struct {
	text      []byte // nil at the end of the file
	line, col int    // 1-based; col counts runes
}

func (t token) eof() bool { return t.text == nil }

// scanner splits a file into whitespace-separated tokens, keeping the
// position of each.
type scanner struct {
	file      string
	src       []byte
	off       int
	line, col int // position of src[off]
	errs      ir.ErrorList
}

// newScanner returns a scanner of src. A UTF-8 byte order mark at its
// start is skipped (the first token is still at column 1).
func newScanner(file string, src []byte) *scanner {
	s := &scanner{file: file, src: src, line: 1, col: 1}
	if len(src) >= 3 && src[0] == 0xef && src[1] == 0xbb && src[2] == 0xbf {
		s.off = 3
	}
	return s
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// next returns the next token, or a token with nil text at the end of the
// file, positioned just after the last byte.
func (s *scanner) next() token {
	for s.off < len(s.src) && isSpace(s.src[s.off]) {
		if s.src[s.off] == '\n' {
			s.line, s.col = s.line+1, 1
		} else {
			s.col++
		}
		s.off++
	}
	t := token{line: s.line, col: s.col}
	start := s.off
	for s.off < len(s.src) && !isSpace(s.src[s.off]) {
		if !utf8.RuneStart(s.src[s.off]) {
			s.off++ // a continuation byte: same rune, same column
			continue
		}
		s.col++
		s.off++
	}
	if s.off > start {
		t.text = s.src[start:s.off:s.off]
	}
	return t
}

// remaining returns an upper bound on the number of tokens left.
func (s *scanner) remaining() int { return (len(s.src)-s.off)/2 + 1 }

func (s *scanner) pos(t token) ir.Pos { return ir.Pos{File: s.file, Line: t.line, Col: t.col} }

func (s *scanner) errorf(t token, format string, args ...any) {
	s.errs.Add(s.pos(t), format, args...)
}

// describe renders a token for messages: quoted, shortened if long, or
// "end of file".
func describe(t token) string {
	if t.eof() {
		return "end of file"
	}
	const max = 24
	if utf8.RuneCount(t.text) > max {
		r := []rune(string(t.text))
		return strconv.Quote(string(r[:max]) + "...")
	}
	return strconv.Quote(string(t.text))
}

// parseCount parses a non-negative decimal integer of at most limit, the
// form of every count, cardinality, index and state in UAI files. It
// returns -1 if t is not one, and -2 if it is one larger than limit.
func parseCount(t token, limit int) int {
	if len(t.text) == 0 {
		return -1
	}
	n, over := 0, false
	for _, c := range t.text {
		if c < '0' || c > '9' {
			return -1
		}
		if n > (math.MaxInt-9)/10 {
			over = true // too large even to hold; keep checking the digits
			continue
		}
		n = n*10 + int(c-'0')
	}
	if over || n > limit {
		return -2
	}
	return n
}

// isDecimal reports whether b is a decimal floating-point number: an
// optional sign, digits with an optional fraction (at least one digit in
// all), and an optional exponent. It rejects what strconv.ParseFloat also
// takes but no UAI file means: inf, nan, hexadecimal and underscores.
func isDecimal(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(b)
}

// parseNumber parses a decimal number. It returns a message saying what is
// wrong, or "".
func parseNumber(t token) (float64, string) {
	if !isDecimal(t.text) {
		return 0, "want a number, found " + describe(t)
	}
	x, err := strconv.ParseFloat(string(t.text), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, "number " + describe(t) + " is out of range"
	}
	return x, ""
}
