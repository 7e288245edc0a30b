package grammar_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/grammar/pgrammar"
)

var update = flag.Bool("update", false, "update golden files")

// TestEBNF keeps the grammar's EBNF as a golden file, so that every change
// to the grammar shows up in review.
func TestEBNF(t *testing.T) {
	got := pgrammar.Parser().String() + "\n\n" + pgrammar.QueryParser().String() + "\n"
	const golden = "testdata/grammar.ebnf"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("grammar changed; got:\n%s\nwant:\n%s\n(run go test ./grammar -update if intended)", got, want)
	}
}

// TestLanguageDocGrammar keeps docs/language.md's grammar identical to the
// golden EBNF.
func TestLanguageDocGrammar(t *testing.T) {
	golden, err := os.ReadFile("testdata/grammar.ebnf")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	file, _, _ := strings.Cut(string(golden), "\n\n")
	if !strings.Contains(string(doc), "```ebnf\n"+file+"\n```") {
		t.Errorf("docs/language.md's grammar differs from testdata/grammar.ebnf; copy it in:\n%s", file)
	}
}
