package format_test

import (
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/format"
)

// TestCommentsEverywhere puts a comment, of each kind, in each gap
// between two tokens of the golden inputs and of the examples (every
// seventh gap of those), and checks that the formatted text keeps every
// comment, in order, and formats to itself.
func TestCommentsEverywhere(t *testing.T) {
	type every struct {
		input
		every int
	}
	var inputs []every
	for _, in := range goldenInputs(t) {
		inputs = append(inputs, every{in, 1})
	}
	for _, in := range examples(t) {
		inputs = append(inputs, every{in, 7})
	}
	comments := []string{" /* c */", " // c\n", "\n// c\n", "\n\n/* c\n c */\n\n"} // after a space: a / before them would start the comment
	for _, in := range inputs {
		starts := format.TokenStarts(in.src)
		if starts == nil {
			t.Fatalf("%s does not lex", in.name)
		}
		for i := 0; i < len(starts); i += in.every {
			for _, c := range comments {
				at := starts[i]
				src := slices.Concat(in.src[:at:at], []byte(c), in.src[at:])
				want := format.Comments(src)
				out, err := format.Source("f.pbl", src)
				if err != nil {
					t.Errorf("%s with %q before token %d: %v", in.name, c, i, err)
					continue
				}
				if got := format.Comments(out); !slices.Equal(got, want) {
					t.Errorf("%s with %q before token %d: comments\n%q\nbecame\n%q", in.name, c, i, want, got)
					continue
				}
				again, err := format.Source("f.pbl", out)
				if err != nil || string(again) != string(out) {
					t.Errorf("%s with %q before token %d: not idempotent (%v):\n%s\nformatted again:\n%s", in.name, c, i, err, out, again)
				}
			}
		}
	}
}
