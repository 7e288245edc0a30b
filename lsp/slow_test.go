package lsp

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/testrun"
	"github.com/pbl-lang/pbl/learn"
)

// TestSlowLearnStopped: a learn statement whose options ask for ages
// (a million restarts of a million iterations, never converging) is
// stopped after learnTimeout when the document is analysed, and reported
// at the statement; the whole session (open, completion, hover,
// definition, symbols, shutdown) is served within a deadline. Without the
// limit the server hung in the load, answering nothing more.
func TestSlowLearnStopped(t *testing.T) {
	dir := t.TempDir()
	csv := "X,Y,Z\ntrue,false,1\nfalse,true,2\ntrue,true,3.5\nfalse,false,4\n"
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	const model = "var H: {a, b}\nvar X, Y: bool\nH -> X\nH -> Y\n" +
		"data D = { X, Y  true, false  false, true  true, true  false, false }\n"
	tests := []struct {
		name  string
		learn string // the statements after model, the slow one on line 6
	}{
		{"em restarts", "learn from D with em(restarts = 1000000, max_iter = 1000000, tol = 0)"},
		{"em iterations", "learn from D with em(max_iter = 1000000000, tol = 0)"},
		{"gradient", "learn from D with gradient(restarts = 1000000, max_iter = 1000000, tol = 0)"},
		{"em real", "learn from \"d.csv\" with em(restarts = 1000000, max_iter = 1000000, tol = 0)\nvar Z: real\nH -> Z"},
	}
	defer func(old time.Duration) { learnTimeout = old }(learnTimeout)
	learnTimeout = 100 * time.Millisecond
	// The deadline is the plain run's; the race detector slows the
	// analysis several times over.
	deadline := 5 * time.Second
	if testrun.Race {
		deadline *= 4
	}
	uri := pathURI(filepath.Join(dir, "m.pbl"))
	for _, tt := range tests {
		src := model + tt.learn + "\n"
		done := make(chan *document, 1)
		go func() {
			Serve(bytes.NewReader(sessionOf(uri, src)), io.Discard, nil)
			done <- newDocument(uri, 1, src)
		}()
		select {
		case d := <-done:
			if len(d.errs) != 1 || !errors.Is(d.errs[0], learn.ErrCanceled) || d.errs[0].Pos.Line != 6 {
				t.Errorf("%s: errors %v, want one at line 6 that matches learn.ErrCanceled", tt.name, d.errs)
			}
		case <-time.After(deadline):
			// Wait for the session before the next case (and the
			// deferred restoring of maxEntries), which it reads.
			t.Errorf("%s: the session was not served within %v", tt.name, deadline)
			<-done
		}
	}
}

// TestHugeTableRefused: compact tables of a few hundred bytes that ask
// for more entries than the command line's --max-table default (2^27),
// one alone (2^28: 27 bool parents of a bool child), are refused at the
// distribution that would pass it when a document is analysed, rather
// than computed (seconds and gigabytes, on every change: 28 parents took
// 12.7 s and 4.2 GB), and the session is served within a deadline. Two
// tables each within the limit but not together are refused at the
// second, shown with the limit lowered to 2^20 (2^19 and 2^20 entries:
// at the default, computing the first would take half a gigabyte).
func TestHugeTableRefused(t *testing.T) {
	parents := func(n int) string {
		var names []string
		for i := range n {
			names = append(names, "A"+itoa(i))
		}
		return strings.Join(names, ", ")
	}
	many, some, more := parents(27), parents(18), parents(19)
	tests := []struct {
		name, src string
		limit     int // maxEntries, if not 0
		line      int // of the one error
	}{
		{"noisy-OR", "var " + many + ", C: bool\nP(C | " + many + ") = noisy_or(" + strings.ReplaceAll(many, ",", ": 0.5,") + ": 0.5)\n", 0, 2},
		{"formula", "var " + many + ", C: bool\nP(C | " + many + ") = " + strings.ReplaceAll(many, ",", " or") + "\n", 0, 2},
		{"lookup", "var " + many + ", C: bool\nP(C | " + many + ") = lookup { else: true }\n", 0, 2},
		{"together", "var " + more + ", C, D: bool\nP(C | " + some + ") = lookup { else: true }\nP(D | " + more + ") = lookup { else: true }\n", 1 << 20, 3},
	}
	defer func(old int) { maxEntries = old }(maxEntries)
	const deadline = 5 * time.Second
	for _, tt := range tests {
		maxEntries = infer.DefaultMaxTable
		if tt.limit != 0 {
			maxEntries = tt.limit
		}
		src := tt.src + "query P(C)\n"
		done := make(chan *document, 1)
		go func() {
			Serve(bytes.NewReader(sessionOf("file:///huge.pbl", src)), io.Discard, nil)
			done <- newDocument("file:///huge.pbl", 1, src)
		}()
		select {
		case d := <-done:
			if len(d.errs) != 1 || d.errs[0].Pos.Line != tt.line {
				t.Errorf("%s: errors %v, want one, on line %d", tt.name, d.errs, tt.line)
			}
		case <-time.After(deadline):
			t.Fatalf("%s: the session was not served within %v", tt.name, deadline)
		}
	}
}
