//go:build unix

package lsp

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/internal/input"
)

// TestNamedPipeNotRead: a data file that is a named pipe is reported, not
// read, by the language server: opening it would wait for a writer, and
// the server, answering one message at a time, would hang. A learn
// statement's data (when the document is analysed), and a space's and a
// variable's hypotheses' data (on hover over a query) are checked.
func TestNamedPipeNotRead(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"d.csv", "e.csv", "f.csv"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	uri := pathURI(filepath.Join(dir, "m.pbl"))
	const src = "var H: {a, b}\nvar X, Y: bool\nH -> X\nH -> Y\n" +
		"learn from \"d.csv\" with em(max_iter = 10)\n"
	const space = "space S {\n    w0, w1 in -1 .. 1 by 0.5\n    d ~ normal(w0 + w1 * x, 1)\n}\n" +
		"data D = \"e.csv\"\nquery ML(S | D)\n"
	const varHyp = "var H: {a, b}\nvar X: bool\nH -> X\ndata D = \"f.csv\"\nquery P(H | D)\n"
	type result struct {
		d *document
		h *Hover
	}
	done := make(chan result, 2)
	go func() {
		done <- result{d: newDocument(uri, 1, src)}
	}()
	for _, src := range []string{space, varHyp} {
		go func() {
			d := newDocument(uri, 1, src)
			line := strings.Count(src, "\n") - 1
			done <- result{d: d, h: d.hover(d.text.offset(Position{Line: line, Character: 1}))}
		}()
	}
	for range 3 {
		select {
		case r := <-done:
			if r.h == nil { // the learn statement
				if len(r.d.errs) != 1 || !errors.Is(r.d.errs[0], input.ErrNotRegular) || r.d.errs[0].Pos.Line != 5 {
					t.Errorf("errors %v, want one at line 5 that matches input.ErrNotRegular", r.d.errs)
				}
				continue
			}
			if len(r.d.errs) != 0 {
				t.Errorf("the space's document: errors %v", r.d.errs)
			}
			if !strings.Contains(r.h.Contents.Value, "not a regular file") {
				t.Errorf("hover over a query on a named pipe: %q, want it to say the file is not regular", r.h.Contents.Value)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the document was not analysed within 10s: the server waited on a named pipe")
		}
	}
}
