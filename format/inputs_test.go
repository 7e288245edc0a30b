package format_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// input is a test's source text and the name it is reported by.
type input struct {
	name string
	src  []byte
}

// examples returns the examples (../examples/*.pbl), failing if there are
// fewer than five: the tests that read them would check nothing.
func examples(tb testing.TB) []input {
	tb.Helper()
	files, err := filepath.Glob("../examples/*.pbl")
	if err != nil || len(files) < 5 {
		tb.Fatalf("want the examples, found %d (%v)", len(files), err)
	}
	var out []input
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, input{file, src})
	}
	return out
}

// goldenInputs returns the in.pbl of each golden file, testdata/*.txtar,
// named by the golden file.
func goldenInputs(tb testing.TB) []input {
	tb.Helper()
	files, _ := filepath.Glob("testdata/*.txtar")
	var out []input
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, input{file, section(a, "in.pbl")})
	}
	return out
}
