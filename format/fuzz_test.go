package format_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/parser"
)

// FuzzSource checks that the formatter accepts exactly what the parser
// accepts, that what it returns has no white space ending a line, keeps
// the comments, formats to itself,
// is what the text with its spacing squeezed formats to, and (inside
// Source) parses to the same tree. Seeds: the examples and the golden
// inputs.
func FuzzSource(f *testing.F) {
	for _, in := range append(examples(f), goldenInputs(f)...) {
		f.Add(in.src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, perr := parser.Parse("f.pbl", src)
		out, err := format.Source("f.pbl", src)
		if (perr == nil) != (err == nil) {
			t.Fatalf("the parser says %v, the formatter %v", perr, err)
		}
		if err != nil {
			if err.Error() != perr.Error() {
				t.Fatalf("the formatter's error %v is not the parser's %v", err, perr)
			}
			return
		}
		if line, ok := trailingSpace(out); ok {
			t.Fatalf("white space ends the line %q of\n%s", line, out)
		}
		if got := format.Comments(out); !slices.Equal(got, format.Comments(src)) {
			t.Fatalf("the comments\n%q\nbecame\n%q", format.Comments(src), got)
		}
		mangled, err := format.Source("f.pbl", format.Mangle(src))
		if err != nil || !bytes.Equal(mangled, out) {
			t.Fatalf("with its spacing squeezed the text formats differently (%v):\n%s\nnot\n%s", err, mangled, out)
		}
		again, err := format.Source("f.pbl", out)
		if err != nil {
			t.Fatalf("the formatted text fails: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%s\nformatted again:\n%s", out, again)
		}
	})
}
