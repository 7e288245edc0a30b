package parser_test

import (
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/loc"
	"github.com/pbl-lang/pbl/parser"
)

// TestErrors checks the syntax errors annotated in testdata/errors.pbl.
func TestErrors(t *testing.T) {
	const filename = "testdata/errors.pbl"
	chunkedfile.Check(t, filename, func(chunk *chunkedfile.Chunk) error {
		_, err := parser.Parse(filename, []byte(chunk.Source))
		return err
	})
}

func TestQueryErrors(t *testing.T) {
	for _, test := range []struct{ input, want string }{
		{``, `query:1:1: expected a query such as P(X | Y=y), MPE(...), MAP(...) or indep(...), found end of file`},
		{`X`, `query:1:1: expected a query such as P(X | Y=y), MPE(...), MAP(...) or indep(...), found "X"`},
		{`P X`, `query:1:1: expected a query such as P(X | Y=y), MPE(...), MAP(...) or indep(...), found "P"`},
		{`P(X) P(Y)`, `query:1:6: unexpected "P" after the query`},
		{`P(X | Y=y`, `query:1:10: expected ")" to close the query, found end of file`},
		{"P(X |\n Y=\"y)", `query:2:4: string not terminated`},
		{`P(X) // fine */`, ``},
	} {
		_, err := parser.ParseQuery("query", test.input)
		got := ""
		if err != nil {
			got = err.Error()
			if _, ok := err.(loc.ErrorList); !ok {
				t.Errorf("ParseQuery(%q) returned a %T, want a loc.ErrorList", test.input, err)
			}
		}
		if got != test.want {
			t.Errorf("ParseQuery(%q): got error %q, want %q", test.input, got, test.want)
		}
	}
}
