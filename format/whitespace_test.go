package format_test

import (
	"bytes"
	"testing"

	"github.com/pbl-lang/pbl/format"
)

// TestNoTrailingWhitespace: no line of the output ends in white space,
// not even a line inside a /* */ comment, whose lines keep their text
// and indentation otherwise.
func TestNoTrailingWhitespace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"var A: bool /* one   \n  two\t\n */\nP(A) = 0.5\n", "var A: bool  /* one\n  two\n */\nP(A) = 0.5\n"},
		{"/* a \t\r\n\r\n   b  \r\n*/\nvar A: bool\n", "/* a\n\n   b\n*/\nvar A: bool\n"},
		{"var A: bool\n// tail   \t\nP(A) = 0.5", "var A: bool\n// tail\nP(A) = 0.5\n"},
	}
	checkFormats(t, tests)
}

// checkFormats checks that each in formats to its want, with no white
// space ending a line.
func checkFormats(t *testing.T, tests []struct{ in, want string }) {
	t.Helper()
	for _, tt := range tests {
		got, err := format.Source("m.pbl", []byte(tt.in))
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%q formats to\n%q, want\n%q", tt.in, got, tt.want)
		}
		if line, ok := trailingSpace(got); ok {
			t.Errorf("%q: white space ends the line %q", tt.in, line)
		}
	}
}

// trailingSpace returns the first line of out that ends in white space.
func trailingSpace(out []byte) (string, bool) {
	for line := range bytes.Lines(out) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > 0 && bytes.ContainsAny(line[len(line)-1:], " \t\r\f\v") {
			return string(line), true
		}
	}
	return "", false
}

// TestInlineBlockComment: a /* */ comment among the words of a line is
// set off by a space on each side, whatever the spacing around the word
// after it.
func TestInlineBlockComment(t *testing.T) {
	tests := []struct{ in, want string }{
		{"var A: bool\nP /* a */ (A) = 0.5\n", "var A: bool\nP /* a */ (A) = 0.5\n"},
		{"var A: bool\nP/*a*/(A) = 0.5\n", "var A: bool\nP /*a*/ (A) = 0.5\n"},
		{"var A: bool\nP(A /* a */) = 0.5\n", "var A: bool\nP(A /* a */) = 0.5\n"},
		{"var A: {x, y}\nP(A) = [/* p */0.5, 0.5]\n", "var A: {x, y}\nP(A) = [/* p */ 0.5, 0.5]\n"},
		{"var A: {x, y}\nP(A) = [0.5 /* p */, 0.5]\n", "var A: {x, y}\nP(A) = [0.5 /* p */, 0.5]\n"},
	}
	checkFormats(t, tests)
}
