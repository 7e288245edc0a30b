package lsp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestReadHeader: the base protocol's header part, as readHeader reads it.
// A header it accepts gives the body's length and leaves the reader at the
// body; a stream that ends before any byte is io.EOF; anything else wrong
// is an errFraming, which must not pass for io.EOF (Serve would take a
// broken stream for a closed one).
func TestReadHeader(t *testing.T) {
	const body = "{}"
	long := strings.Repeat("x", 5000)
	many := strings.Repeat("X-Padding: 0123456789abcdef\r\n", maxHeader/28+1)
	tests := []struct {
		name, in string
		want     int   // the length, if err is nil
		err      error // io.EOF, errFraming or nil
	}{
		{"CRLF", "Content-Length: 2\r\n\r\n" + body, 2, nil},
		{"bare LF", "Content-Length: 2\n\n" + body, 2, nil},
		{"mixed line ends", "Content-Length: 2\r\n\n" + body, 2, nil},
		{"Content-Type after", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body, 2, nil},
		{"Content-Type before", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n" + body, 2, nil},
		{"an unknown header", "X-Whatever: 1\r\nContent-Length: 2\r\n\r\n" + body, 2, nil},
		{"lower case", "content-length: 2\r\n\r\n" + body, 2, nil},
		{"upper case", "CONTENT-LENGTH: 2\r\n\r\n" + body, 2, nil},
		{"no space", "Content-Length:2\r\n\r\n" + body, 2, nil},
		{"spaces and tabs", "Content-Length: \t 2 \t\r\n\r\n" + body, 2, nil},
		{"zero", "Content-Length: 0\r\n\r\n", 0, nil},
		{"leading zeros", "Content-Length: 002\r\n\r\n" + body, 2, nil},
		{"the limit", fmt.Sprintf("Content-Length: %d\r\n\r\n", maxMessage), maxMessage, nil},
		{"duplicate Content-Type", "Content-Type: a\r\nContent-Type: b\r\nContent-Length: 2\r\n\r\n" + body, 2, nil},

		{"empty stream", "", 0, io.EOF},

		{"missing length", "Content-Type: application/vscode-jsonrpc\r\n\r\n" + body, 0, errFraming},
		{"empty header", "\r\n" + body, 0, errFraming},
		{"empty length", "Content-Length:\r\n\r\n" + body, 0, errFraming},
		{"bad number", "Content-Length: x\r\n\r\n" + body, 0, errFraming},
		{"negative", "Content-Length: -1\r\n\r\n" + body, 0, errFraming},
		{"plus sign", "Content-Length: +2\r\n\r\n" + body, 0, errFraming},
		{"fraction", "Content-Length: 2.0\r\n\r\n" + body, 0, errFraming},
		{"hexadecimal", "Content-Length: 0x2\r\n\r\n" + body, 0, errFraming},
		{"two numbers", "Content-Length: 2 2\r\n\r\n" + body, 0, errFraming},
		{"over the limit", fmt.Sprintf("Content-Length: %d\r\n\r\n", maxMessage+1), 0, errFraming},
		{"huge length", "Content-Length: 99999999999999999999999999999999\r\n\r\n" + body, 0, errFraming},
		{"huge then not a number", "Content-Length: 99999999999999999999x\r\n\r\n" + body, 0, errFraming},
		{"EOF mid-header", "Content-Length: 2\r\n", 0, errFraming},
		{"EOF mid-line", "Content-Len", 0, errFraming},
		{"EOF before the line end", "Content-Length: 2", 0, errFraming},
		{"duplicate length", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n" + body, 0, errFraming},
		{"conflicting lengths", "Content-Length: 2\r\ncontent-length: 3\r\n\r\n" + body, 0, errFraming},
		{"no colon", "Content-Length 2\r\n\r\n" + body, 0, errFraming},
		{"space before the colon", "Content-Length : 2\r\n\r\n" + body, 0, errFraming},
		{"empty name", ": 2\r\nContent-Length: 2\r\n\r\n" + body, 0, errFraming},
		{"continuation line", "Content-Length: 2\r\n  folded\r\n\r\n" + body, 0, errFraming},
		{"leading space", " Content-Length: 2\r\n\r\n" + body, 0, errFraming},
		{"control character", "Content-Type: a\x00b\r\nContent-Length: 2\r\n\r\n" + body, 0, errFraming},
		{"a body with no header", body, 0, errFraming},
		{"a line too long", "X-Long: " + long + "\r\nContent-Length: 2\r\n\r\n" + body, 0, errFraming},
		{"a header too long", many + "Content-Length: 2\r\n\r\n" + body, 0, errFraming},
	}
	for _, tt := range tests {
		r := bufio.NewReader(strings.NewReader(tt.in))
		n, err := readHeader(r)
		switch {
		case tt.err == nil && err != nil:
			t.Errorf("%s: readHeader = %v", tt.name, err)
		case tt.err != nil && !errors.Is(err, tt.err):
			t.Errorf("%s: readHeader = %d, %v, want an error of the kind %v", tt.name, n, err, tt.err)
		case tt.err == errFraming && errors.Is(err, io.EOF):
			t.Errorf("%s: readHeader = %v, which passes for io.EOF", tt.name, err)
		case tt.err == nil && n != tt.want:
			t.Errorf("%s: readHeader = %d, want %d", tt.name, n, tt.want)
		case tt.err == nil:
			// The reader is left at the body: every accepted case
			// ends in the body or, with no body, in the empty line.
			want := ""
			if strings.HasSuffix(tt.in, "\n"+body) {
				want = body
			}
			if rest, _ := io.ReadAll(r); string(rest) != want {
				t.Errorf("%s: after the header, %q is left, want %q", tt.name, rest, want)
			}
		}
	}
}
