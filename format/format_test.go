package format_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/loc"
	"github.com/pbl-lang/pbl/parser"
)

var update = flag.Bool("update", false, "update golden files")

// TestGolden formats the in.pbl of each testdata/*.txtar and compares the
// result with its out.pbl (rewritten by -update); the result formats to
// itself.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, want, outAt := section(a, "in.pbl"), section(a, "out.pbl"), -1
			for i, f := range a.Files {
				if f.Name == "out.pbl" {
					outAt = i
				}
			}
			got, err := format.Source("in.pbl", in)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if outAt < 0 {
					a.Files = append(a.Files, txtar.File{Name: "out.pbl"})
					outAt = len(a.Files) - 1
				}
				a.Files[outAt].Data = got
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			again, err := format.Source("out.pbl", got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, got) {
				t.Errorf("formatting is not idempotent: formatted again:\n%s", again)
			}
		})
	}
}

func section(a *txtar.Archive, name string) []byte {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// TestSyntaxError checks that a syntax error is the parser's, positioned.
func TestSyntaxError(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
	}{
		{"var A: bool\nP(A) = \n", 3, 1},
		{"var A: {x, y\n", 2, 1},
		{"var A: bool\nA -> B -> \"unterminated\n", 2, 11},
		{"var A: bool /* open\n", 1, 13},
		{"P(A) = { a: 0.1 ", 1, 17},
	}
	for _, tt := range tests {
		out, err := format.Source("m.pbl", []byte(tt.src))
		if out != nil {
			t.Errorf("%q: got output %q with an error", tt.src, out)
		}
		var e *loc.Error
		if !errors.As(err, &e) {
			t.Errorf("%q: got %v, want a *loc.Error", tt.src, err)
			continue
		}
		if e.Pos.File != "m.pbl" || e.Pos.Line != tt.line || e.Pos.Col != tt.col {
			t.Errorf("%q: error at %v, want m.pbl:%d:%d", tt.src, e.Pos, tt.line, tt.col)
		}
		_, perr := parser.Parse("m.pbl", []byte(tt.src))
		if perr == nil || perr.Error() != err.Error() {
			t.Errorf("%q: got %v, want the parser's %v", tt.src, err, perr)
		}
	}
}

// TestExamplesFormatted: the examples are kept formatted (pbl fmt -w
// examples formats them).
func TestExamplesFormatted(t *testing.T) {
	for _, in := range examples(t) {
		out, err := format.Source(in.name, in.src)
		if err != nil {
			t.Errorf("%s: %v", in.name, err)
			continue
		}
		if !bytes.Equal(out, in.src) {
			t.Errorf("%s is not formatted: run pbl fmt -w examples", in.name)
		}
	}
}

// TestLineEndings: CRLF line endings, in code and in comments, become LF.
func TestLineEndings(t *testing.T) {
	src := "var A: bool\r\n/* a\r\n   b */\r\nP(A) = 0.5  // c\r\n\r\n\r\nquery P(A)\r\n"
	want := "var A: bool\n/* a\n   b */\nP(A) = 0.5  // c\n\nquery P(A)\n"
	got, err := format.Source("m.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
