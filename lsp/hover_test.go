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

// TestHoverTimeIndexed: hovering over a time-indexed variable's name
// describes the slice it names (Rain[2]), or the template (Rain[t],
// Rain[t-1]) by the first slice with its numbers; a query naming slices
// shows its answer (Russell and Norvig's 0.818).
func TestHoverTimeIndexed(t *testing.T) {
	src, err := os.ReadFile("../examples/umbrella.pbl")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src) + "query P(Rain[2] | Umbrella[1]=true)\n"
	d := newDocument("file:///umbrella.pbl", 1, text)
	if len(d.errs) > 0 {
		t.Fatalf("the model fails: %v", d.errs)
	}
	for _, c := range []struct{ at, want string }{
		{"Rain[t-1] -> Rain[t]", "**Rain[t]**: time-indexed, slices 0..8 unrolled; its template applies from slice 1"},
		{"P(Rain[t] | Rain[t-1]) = {", "Rain[1]=true"},
		{"query P(Rain[2] |", "**Rain[2]**: bool"},
		{"Rain[8] |", "parents: Rain[7]"},
	} {
		i := strings.Index(text, c.at)
		if i < 0 {
			t.Fatalf("%q not in the example", c.at)
		}
		if strings.HasPrefix(c.at, "query ") || strings.HasPrefix(c.at, "P(") {
			i += strings.Index(c.at, "Rain")
		}
		h := d.hover(i + 1)
		if h == nil || !strings.Contains(h.Contents.Value, c.want) {
			t.Errorf("hover at %q: %+v, want %q", c.at, h, c.want)
		}
	}
}
