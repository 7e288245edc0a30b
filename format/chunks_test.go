package format_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/parser"
)

// TestOtherSources formats source written for other purposes: the chunks
// of the parser's and the IR's annotated error files (odd layouts, a
// comment on nearly every line) and the pbl blocks of the documentation.
// Each that parses must format to a text that keeps its comments, formats
// to itself, is what the text with its spacing squeezed formats to, and
// means the same (or fails to load with the same errors).
func TestOtherSources(t *testing.T) {
	type source struct {
		name string
		src  []byte
	}
	var sources []source
	for _, file := range []string{"../parser/testdata/errors.pbl", "../ir/testdata/errors.pbl"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, chunk := range strings.Split(string(b), "\n---\n") {
			sources = append(sources, source{fmt.Sprintf("%s, chunk %d", file, i), []byte(chunk)})
		}
	}
	docs, _ := filepath.Glob("../docs/*.md")
	docs = append(docs, "../README.md")
	block := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	for _, file := range docs {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllSubmatch(b, -1) {
			sources = append(sources, source{file, m[1]})
		}
	}
	parsed := 0
	for _, s := range sources {
		f, err := parser.Parse("m.pbl", s.src)
		if err != nil {
			continue // not pbl, or a syntax error on purpose
		}
		parsed++
		out, err := format.Source("m.pbl", s.src)
		if err != nil {
			t.Errorf("%s: %v\n%s", s.name, err, s.src)
			continue
		}
		if got, want := format.Comments(out), format.Comments(s.src); !slices.Equal(got, want) {
			t.Errorf("%s: comments %q became %q", s.name, want, got)
		}
		if again, err := format.Source("m.pbl", out); err != nil || !bytes.Equal(again, out) {
			t.Errorf("%s: not idempotent (%v):\n%s\nagain:\n%s", s.name, err, out, again)
		}
		if squeezed, err := format.Source("m.pbl", format.Mangle(s.src)); err != nil || !bytes.Equal(squeezed, out) {
			t.Errorf("%s: squeezed, formats differently (%v):\n%s\nnot\n%s", s.name, err, squeezed, out)
		}
		if !hugeRange(f) {
			checkMeaning(t, filepath.Join(t.TempDir(), "m.pbl"), s.src)
		}
	}
	if parsed < 50 {
		t.Errorf("only %d of %d sources parse: the test reads the wrong files", parsed, len(sources))
	}
	t.Logf("%d of %d sources parse and format", parsed, len(sources))
}

// hugeRange reports whether f declares a variable with over 10,000
// integer states, which takes seconds to load (twice for the check of
// meaning): the IR's tests cover those.
func hugeRange(f *grammar.File) bool {
	for _, s := range f.Stmts {
		if d, ok := s.(*grammar.VarDecl); ok && d.Type != nil && d.Type.Lo != nil {
			lo, err1 := strconv.Atoi(*d.Type.Lo)
			hi, err2 := strconv.Atoi(*d.Type.Hi)
			if err1 != nil || err2 != nil || hi-lo > 10000 {
				return true
			}
		}
	}
	return false
}
