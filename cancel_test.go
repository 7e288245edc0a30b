package pbl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pbl "github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestAnswerContextStopsReading: an answer whose Context is done stops
// before it reads a data file's rows, for a space and for a variable's
// states as hypotheses. The file's last row, 10,000 rows in, is bad:
// before, the rows were read whatever the context (the language server's
// hover read a 72 MB file for 13 s past its limit), and the answer was
// the bad row's error; now it is the context's.
func TestAnswerContextStopsReading(t *testing.T) {
	rows := func(header string, row func(i int) string, last string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range 10_000 {
			b.WriteString(row(i) + "\n")
		}
		b.WriteString(last + "\n")
		return b.String()
	}
	dir := writeFiles(t, map[string]string{
		"xd.csv": rows("x,d", func(i int) string { return fmt.Sprintf("%d,%d", i%10, i%7) }, "1,oops"),
		"ab.csv": rows("A,B", func(i int) string { return fmt.Sprintf("%d,%d", i%2, i%3%2) }, "1,7"),
	})
	tests := []struct{ name, src string }{
		{"space", "space S {\n    w in -2 .. 2 by 0.5\n    d ~ normal(w * x, 1)\n}\ndata X = \"xd.csv\"\nquery MAP(S | X)\n"},
		{"variable", "var H: {a, b}\nvar A, B: 0..1\nH -> A\nH -> B\nP(H) = [0.5, 0.5]\nP(A | H) = { a: [0.3, 0.7]  b: [0.6, 0.4] }\nP(B | H) = { a: [0.5, 0.5]  b: [0.2, 0.8] }\ndata X = \"ab.csv\"\nquery P(H | X)\n"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name+".pbl")
		m, err := pbl.LoadWith(path, []byte(tt.src), pbl.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		q := queryOf(t, m)
		if _, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{}); err == nil || errors.Is(err, context.Canceled) {
			t.Fatalf("%s: without a context: %v, want the bad row's error", tt.name, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Context: ctx}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: with a context done: %v, want context.Canceled", tt.name, err)
		}
	}
}

// TestLoadCancelStopsReading: a load whose Cancel is closed stops a learn
// statement that counts (no iterations to stop at) as it reads its data
// file, and fails with learn.ErrCanceled at the statement; before, the
// file was read whole whatever Cancel (the language server's 2 s cut did
// not bound a learn statement over a large file).
func TestLoadCancelStopsReading(t *testing.T) {
	var b strings.Builder
	b.WriteString("A,B\n")
	for i := range 10_000 {
		fmt.Fprintf(&b, "%d,%d\n", i%2, i%3%2)
	}
	dir := writeFiles(t, map[string]string{"ab.csv": b.String()})
	src := "var A, B: 0..1\nA -> B\nlearn from \"ab.csv\"\n"
	path := filepath.Join(dir, "m.pbl")
	if _, err := pbl.LoadWith(path, []byte(src), pbl.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := pbl.LoadWith(path, []byte(src), pbl.LoadOptions{Cancel: ctx.Done()})
	if !errors.Is(err, learn.ErrCanceled) || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("load with Cancel closed: %v, want learn.ErrCanceled at line 3", err)
	}
	// The file was closed: it can be removed (on every system) and the
	// directory cleaned up.
	if err := os.Remove(filepath.Join(dir, "ab.csv")); err != nil {
		t.Error(err)
	}
}

// queryOf returns the model's first query.
func queryOf(t *testing.T, m *ir.Model) ir.Query {
	t.Helper()
	for _, s := range m.Stmts {
		if s, ok := s.(*ir.QueryStmt); ok {
			return s.Query
		}
	}
	t.Fatal("no query")
	return nil
}
