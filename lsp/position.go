package lsp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A text is a document's content with its line starts, for converting
// between byte offsets, pbl's positions (one-based line and column, the
// column counted in runes) and LSP's (zero-based line, UTF-16 units).
type text struct {
	src   string
	lines []int // byte offset of each line's start
	bom   int   // the length of a UTF-8 byte order mark at the start: 0 or 3
}

func newText(src string) *text {
	t := &text{src: src, lines: []int{0}}
	if strings.HasPrefix(src, "\ufeff") {
		// pbl's columns on the first line count from after it (as the
		// lexer skips it); LSP's count it, as it is in the client's text.
		t.bom = len("\ufeff")
	}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// line returns line i (zero-based) without its newline, or "".
func (t *text) line(i int) string {
	if i < 0 || i >= len(t.lines) {
		return ""
	}
	end := len(t.src)
	if i+1 < len(t.lines) {
		end = t.lines[i+1] - 1
	}
	return strings.TrimSuffix(t.src[t.lines[i]:end], "\r")
}

// offset returns the byte offset of an LSP position, clamped to the text.
func (t *text) offset(p Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(t.lines) {
		return len(t.src)
	}
	start := t.lines[p.Line]
	s := t.line(p.Line)
	units := 0
	for i, r := range s {
		if units >= p.Character {
			return start + i
		}
		units += utf16.RuneLen(r)
		if units < 0 { // an invalid rune counts as one unit
			units = 1
		}
	}
	return start + len(s)
}

// position returns the LSP position of a byte offset.
func (t *text) position(off int) Position {
	off = min(max(off, 0), len(t.src))
	line := 0
	lo, hi := 0, len(t.lines)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if t.lines[mid] <= off {
			line, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return Position{Line: line, Character: utf16Len(t.src[t.lines[line]:off])}
}

// fromPos returns the byte offset of pbl's position (line and column from
// one, the column in runes), clamped to its line.
func (t *text) fromPos(line, col int) int {
	i := line - 1
	if i < 0 {
		return 0
	}
	if i >= len(t.lines) {
		return len(t.src)
	}
	s := t.line(i)
	off := t.lines[i]
	if i == 0 {
		s, off = s[min(t.bom, len(s)):], t.bom
	}
	for n := 1; n < col && len(s) > 0; n++ {
		_, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		off += size
	}
	return off
}

// tokenRange returns the range of the word or symbol at byte offset off:
// an identifier or number, a quoted string, or one character; an empty
// range at the end of the text.
func (t *text) tokenRange(off int) Range {
	end := off
	switch {
	case end >= len(t.src):
	case isWordByte(t.src[end]):
		for end < len(t.src) && isWordByte(t.src[end]) {
			end++
		}
	case t.src[end] == '"':
		end++
		for end < len(t.src) && t.src[end] != '"' && t.src[end] != '\n' {
			end++
		}
		if end < len(t.src) && t.src[end] == '"' {
			end++
		}
	case t.src[end] == '\n':
	default:
		_, size := utf8.DecodeRuneInString(t.src[end:])
		end += size
	}
	return Range{Start: t.position(off), End: t.position(end)}
}

// wordAt returns the identifier around byte offset off and its start, or
// "" if there is none.
func (t *text) wordAt(off int) (string, int) {
	start, end := max(off, t.bom), max(off, t.bom)
	for start > t.bom && isWordByte(t.src[start-1]) {
		start--
	}
	for end < len(t.src) && isWordByte(t.src[end]) {
		end++
	}
	if start == end || isDigitByte(t.src[start]) {
		return "", start
	}
	return t.src[start:end], start
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigitByte(c) || c >= utf8.RuneSelf
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if k := utf16.RuneLen(r); k > 0 {
			n += k
		} else {
			n++
		}
	}
	return n
}
