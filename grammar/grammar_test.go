package grammar_test

import (
	"flag"
	"os"
	"testing"

	"github.com/pbl-lang/pbl/grammar"
)

var update = flag.Bool("update", false, "update golden files")

// TestEBNF keeps the grammar's EBNF as a golden file, so that every change
// to the grammar shows up in review.
func TestEBNF(t *testing.T) {
	got := grammar.Parser.String() + "\n\n" + grammar.QueryParser.String() + "\n"
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
