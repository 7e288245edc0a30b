package pbl_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
)

// TestRunLearn: a file's learn statements run when it is loaded, in
// order, each on the model the previous one learned, from an inline table
// and from a CSV file (relative to the model file); its queries see the
// last model; Run prints nothing for them; their errors are positioned
// (in the data, or at the statement) and returned by Load.
func TestRunLearn(t *testing.T) {
	dir := t.TempDir()
	csv := "A,B\na1,x\na1,y\na1,y\na2,x\n"
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `var A: {a1, a2}
var B: {x, y}
A -> B
data t = {
    A, B
    a1, x
    a2, y
    a2, y
}
learn A from t
query P(B | A)
learn B from "d.csv" with bayes(alpha = 1)
query P(A)
expect P(B=y | A=a1) == 0.6 within 1e-12
`
	path := filepath.Join(dir, "m.pbl")
	m, err := pbl.Load(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if errs := pbl.Run(m, &out, pbl.RunOptions{}); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := `P(B | A)
  A   |  B  p
  a1  |  x  0.4
  a1  |  y  0.6
  a2  |  x  0.6666666667
  a2  |  y  0.3333333333

P(A)
  A   p
  a1  0.3333333333
  a2  0.6666666667
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// Errors: a bad cell in the CSV (positioned in the CSV), a missing file
	// and a missing column (positioned at the statement), all reported.
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("A,B\na1,z\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nob.csv"), []byte("A\na1\n"), 0o644)
	src = "var A: {a1, a2}\nvar B: {x, y}\nA -> B\nlearn from \"bad.csv\"\nlearn from \"none.csv\"\nlearn from \"nob.csv\"\n"
	_, err = pbl.Load(path, []byte(src))
	var errs ir.ErrorList
	if !errors.As(err, &errs) {
		t.Fatalf("Load: %v, want an ir.ErrorList", err)
	}
	text := errs.Error() + "\n" + errs.Lines()
	for _, want := range []string{"bad.csv:2:4: unknown state \"z\" for B", "m.pbl:5:1: cannot read", "m.pbl:6:1: the data has no column for B"} {
		if !strings.Contains(text, want) {
			t.Errorf("errors lack %q:\n%s", want, text)
		}
	}
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Errorf("the missing file's error is not an *os.PathError underneath: %v", err)
	}
}
