package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// classifyTestModel is a model whose posterior P(C | X=x) is 0.8 on the class
// matching x and 0.1 on the others.
const classifyTestModel = `var C: {a, b, c}
var X: {x1, x2, x3}
C -> X
P(C) = normalize [1, 1, 1]
P(X | C) = { a: [0.8, 0.1, 0.1]  b: [0.1, 0.8, 0.1]  c: [0.1, 0.1, 0.8] }
`

// classifyTestData holds rows whose confusion matrix is, by hand,
// a: 3 1 0; b: 0 1 1; c: 1 0 2 (the row without X is a tie, predicted a).
const classifyTestData = `C,X
a,x1
a,x1
a,x2
b,x2
b,x3
c,x3
c,x3
c,x1
a,
,x1
`

func TestClassifyExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	model := write("model.pbl", classifyTestModel)
	csv := write("data.csv", classifyTestData)
	nb := write("nb.pbl", "naive_bayes C given X\n")
	empty := write("empty.csv", "C,X\n")
	unlabelled := write("unlabelled.csv", "C,X\n,x1\n")
	for _, tc := range []struct {
		args []string
		want int
		err  string // a substring of stderr
	}{
		{[]string{"classify", model, "--target", "C", "--data", csv}, 0, ""},
		{[]string{"classify", "--json", "--target=X", model, "--data", csv}, 0, ""},
		{[]string{"classify", nb, "--target", "C", "--data", csv, "--cv", "2", "--method", "bayes", "--alpha", "0.5"}, 0, ""},
		{[]string{"classify", model, "--data", csv}, 2, "--target VAR is required"},
		{[]string{"classify", model, "--target", "C"}, 2, "--data CSV is required"},
		{[]string{"classify", "--target", "C", "--data", csv}, 2, "want one model file"},
		{[]string{"classify", model, model, "--target", "C", "--data", csv}, 2, "want one model file"},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--cv", "1"}, 2, "want K ≥ 2"},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--cv", "-3"}, 2, "want K ≥ 2"},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--cv", "x"}, 2, "invalid value"},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--method", "bayes"}, 2, "--method applies only with --cv"},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--cv", "2", "--method", "baye"}, 2, `did you mean "bayes"`},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--cv", "2", "--alpha", "2"}, 2, "--alpha applies to --method bayes"},
		{[]string{"classify", model, "--target", "Cc", "--data", csv}, 1, `no variable "Cc" (its discrete variables: C, X)`},
		{[]string{"classify", "nosuch.pbl", "--target", "C", "--data", csv}, 1, "nosuch.pbl"},
		{[]string{"classify", model, "--target", "C", "--data", filepath.Join(dir, "nosuch.csv")}, 1, "nosuch.csv"},
		{[]string{"classify", model, "--target", "C", "--data", empty}, 1, "no data rows"},
		{[]string{"classify", model, "--target", "C", "--data", unlabelled}, 1, "no row could be scored"},
		{[]string{"classify", nb, "--target", "C", "--data", csv}, 1, "learn them first"},
		{[]string{"classify", nb, "--target", "C", "--data", csv, "--cv", "20"}, 1, "cannot make 20 folds from 9 labelled rows"},
		{[]string{"classify", model, "--target", "C", "--data", csv, "--predictions", filepath.Join(dir, "no", "p.csv")}, 1, "p.csv"},
	} {
		code, stdout, stderr := runPBL(tc.args...)
		if code != tc.want || !strings.Contains(stderr, tc.err) {
			t.Errorf("pbl %s: exit %d, stderr %q; want exit %d, stderr containing %q", strings.Join(tc.args, " "), code, stderr, tc.want, tc.err)
		}
		if code != 0 && stdout != "" {
			t.Errorf("pbl %s failed but printed %q", strings.Join(tc.args, " "), stdout)
		}
	}
}

// TestClassifyJSON checks the JSON report against the hand-computed
// confusion matrix and its consistency.
func TestClassifyJSON(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.pbl")
	csv := filepath.Join(dir, "data.csv")
	os.WriteFile(model, []byte(classifyTestModel), 0o644)
	os.WriteFile(csv, []byte(classifyTestData), 0o644)
	code, stdout, stderr := runPBL("classify", model, "--target", "C", "--data", csv, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Rows, Scored, Skipped, Unlabelled int
		Accuracy                          float64
		LogLoss                           float64 `json:"log_loss"`
		Confusion                         struct {
			Classes []string
			Matrix  [][]int
		}
		PerClass map[string]struct {
			Precision, Recall, F1 float64
			Support               int
		} `json:"per_class"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	want := [][]int{{3, 1, 0}, {0, 1, 1}, {1, 0, 2}}
	if strings.Join(got.Confusion.Classes, ",") != "a,b,c" || !sameMatrix(got.Confusion.Matrix, want) {
		t.Errorf("confusion %v %v, want [a b c] %v", got.Confusion.Classes, got.Confusion.Matrix, want)
	}
	if got.Rows != 10 || got.Scored != 9 || got.Unlabelled != 1 || got.Skipped != 0 {
		t.Errorf("rows %d, scored %d, unlabelled %d, skipped %d; want 10, 9, 1, 0", got.Rows, got.Scored, got.Unlabelled, got.Skipped)
	}
	if got.Accuracy != 6.0/9 {
		t.Errorf("accuracy %v, want 6/9", got.Accuracy)
	}
	if b := got.PerClass["b"]; b.Precision != 0.5 || b.Recall != 0.5 || b.F1 != 0.5 || b.Support != 2 {
		t.Errorf("class b: %+v", b)
	}
}

func sameMatrix(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}
