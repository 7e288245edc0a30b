package grammar

import (
	"errors"
	"testing"
)

// TestScannerByteOrderMark checks that a UTF-8 byte order mark at the
// start is skipped without moving the columns, and is an error elsewhere.
func TestScannerByteOrderMark(t *testing.T) {
	for _, tc := range []struct {
		src    string
		first  Position // of the first token, or of the error
		errMsg string
	}{
		{"\ufeffStorm -> Rain", Position{Filename: "f", Offset: 3, Line: 1, Column: 1}, ""},
		{"\ufeff\nStorm", Position{Filename: "f", Offset: 4, Line: 2, Column: 1}, ""},
		{"Storm", Position{Filename: "f", Offset: 0, Line: 1, Column: 1}, ""},
		{"\ufeff\ufeffStorm", Position{Filename: "f", Offset: 3, Line: 1, Column: 1}, "unexpected character '\\ufeff'"},
		{"Storm \ufeff", Position{Filename: "f", Offset: 6, Line: 1, Column: 7}, "unexpected character '\\ufeff'"},
	} {
		s := NewScanner("f", tc.src)
		tok, err := s.Next()
		if tc.errMsg == "" && err == nil && tok.Value == "Storm" {
			if tok.Pos != tc.first {
				t.Errorf("%q: first token at %+v, want %+v", tc.src, tok.Pos, tc.first)
			}
			continue
		}
		if tc.errMsg != "" && err == nil { // the error may come after a token
			tok, err = s.Next()
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: token %v, error %v; want the token Storm or an *Error", tc.src, tok, err)
			continue
		}
		if tc.errMsg == "" || e.Msg != tc.errMsg || e.Pos != tc.first {
			t.Errorf("%q: error %q at %+v, want %q at %+v", tc.src, e.Msg, e.Pos, tc.errMsg, tc.first)
		}
	}
}
