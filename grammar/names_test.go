package grammar_test

import (
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/grammar"
)

// TestQuote: a name is written bare when it reads back as one identifier
// or number token, quoted otherwise, and what Quote writes always scans
// back as the one token holding the name.
func TestQuote(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"Rain", "Rain"},
		{"_x1", "_x1"},
		{"été", "été"},
		{"0", "0"},
		{"-3", "-3"},
		{"007", "007"},
		{"", `""`},
		{"-", `"-"`},
		{"1x", `"1x"`},
		{"0-3_days", `"0-3_days"`},
		{"a b", `"a b"`},
		{"x٣", `"x٣"`}, // a digit, but not an ASCII one
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"1.5", `"1.5"`},
		// A slice of a time-indexed variable reads back as the same name.
		{"Rain[3]", "Rain[3]"},
		{"Rain[0]", "Rain[0]"},
		{"Rain[03]", `"Rain[03]"`},
		{"Rain[t]", `"Rain[t]"`},
		{"Rain[-1]", `"Rain[-1]"`},
		{"Rain[]", `"Rain[]"`},
		{"[3]", `"[3]"`},
		{"Rain[3]x", `"Rain[3]x"`},
		{"a b[3]", `"a b[3]"`},
	} {
		got := grammar.Quote(tc.name)
		if got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.name, got, tc.want)
		}
		if grammar.IsSliceName(tc.name) {
			// A name and its index, which the parser reads back as the
			// same name (parser's tests).
			if !strings.HasPrefix(got, tc.name[:strings.IndexByte(tc.name, '[')]) || grammar.IsIdent(tc.name) {
				t.Errorf("Quote(%q) = %s", tc.name, got)
			}
			continue
		}
		sc := grammar.NewScanner("q", got)
		tok, err := sc.Next()
		if err != nil {
			t.Errorf("Quote(%q) = %s does not scan: %v", tc.name, got, err)
			continue
		}
		if tok.Value != tc.name {
			t.Errorf("Quote(%q) = %s scans as %q", tc.name, got, tok.Value)
		}
		if end, err := sc.Next(); err != nil || !end.EOF() {
			t.Errorf("Quote(%q) = %s scans as more than one token (then %v, %v)", tc.name, got, end, err)
		}
		if got, want := grammar.IsIdent(tc.name), tc.want == tc.name && tok.Type == grammar.Ident; got != want {
			t.Errorf("IsIdent(%q) = %v, want %v", tc.name, got, want)
		}
	}
}
