package lsp

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHoverQueryTimeLimit: a hover answers a query only within a time
// limit, so that the editor's session (which answers one message at a
// time) never waits on a query that takes seconds. A million hypotheses
// over a hundred rows take far more than a millisecond.
func TestHoverQueryTimeLimit(t *testing.T) {
	var src strings.Builder
	src.WriteString("space H {\n    w0, w1 in -5 .. 5 by 0.01\n    d ~ normal(w0 + w1 * x, 1)\n}\ndata D = {\n    x, d\n")
	for i := range 100 {
		x := float64(i) / 10
		src.WriteString("    " + ftoa(x) + ", " + ftoa(1.3+0.7*x) + "\n")
	}
	src.WriteString("}\nquery P(H | D)\n")
	d := newDocument("file:///slow.pbl", 1, src.String())
	if len(d.errs) > 0 {
		t.Fatalf("the model fails: %v", d.errs)
	}
	defer func(old time.Duration) { hoverTimeout = old }(hoverTimeout)
	hoverTimeout = time.Nanosecond
	line := strings.Count(src.String(), "\n") - 1 // the query's, from zero
	start := time.Now()
	h := d.hover(d.text.offset(Position{Line: line, Character: 1}))
	if h == nil || !strings.Contains(h.Contents.Value, "longer than") {
		t.Fatalf("hover over a slow query within 1ns: %+v, want a note that it takes longer", h)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the hover took %v with a limit of 1ns", el)
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// TestHoverDecisionQuery: hovering over a query about decisions shows its
// answer: the oil wildcatter's MEU 22.5 (by hand, examples/oil.pbl), its
// policies with the impossible configurations marked, and MEU(| Oil=wet)
// = 50 (drilling knowing the oil is there; aGrUM's number).
func TestHoverDecisionQuery(t *testing.T) {
	src, err := os.ReadFile("../examples/oil.pbl")
	if err != nil {
		t.Fatal(err)
	}
	d := newDocument("file:///oil.pbl", 1, string(src))
	if len(d.errs) > 0 {
		t.Fatalf("the model fails: %v", d.errs)
	}
	lines := strings.Split(string(src), "\n")
	for _, c := range []struct{ query, want string }{
		{"query MEU()", "MEU() = 22.5"},
		{"query policy(Drill)", "Test=no, Result=closed: (impossible)"},
		{"query MEU(| Oil=wet)", "MEU(| Oil=wet) = 50"},
	} {
		line := slices.Index(lines, c.query)
		if line < 0 {
			t.Fatalf("oil.pbl has no line %q", c.query)
		}
		h := d.hover(d.text.offset(Position{Line: line, Character: 7}))
		if h == nil || !strings.Contains(h.Contents.Value, c.want) {
			t.Errorf("hover over %s: %+v, want %q", c.query, h, c.want)
		}
	}
}
