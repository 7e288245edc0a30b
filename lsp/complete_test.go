package lsp

import (
	"strings"
	"testing"
)

// TestCompleteStatesAsWritten: a state completed after "X=" is offered as
// it must be written, quoted when it is not an identifier or an integer
// ("+", "no cancer"), so that accepting it leaves a text that parses; the
// client filters it by the state's name.
func TestCompleteStatesAsWritten(t *testing.T) {
	model := "var H: {cancer, \"no cancer\"}\nvar Test: {\"+\", \"-\"}\nvar N: 0..3\nvar \"odd name\": {on, off}\n" +
		"P(H) = [0.008, 0.992]\nP(Test | H) = { cancer: [0.98, 0.02]  \"no cancer\": [0.03, 0.97] }\nP(N) = [0.1, 0.2, 0.3, 0.4]\nP(\"odd name\") = [0.5, 0.5]\n"
	d := newDocument("file:///c.pbl", 1, model)
	if len(d.errs) > 0 {
		t.Fatal(d.errs)
	}
	tests := []struct {
		typed string // the last line, typed so far
		want  []CompletionItem
	}{
		{"query P(H | Test=", []CompletionItem{{Label: `"+"`, FilterText: "+"}, {Label: `"-"`, FilterText: "-"}}},
		{"query P(H=", []CompletionItem{{Label: "cancer"}, {Label: `"no cancer"`, FilterText: "no cancer"}}},
		{"query P(H = no", []CompletionItem{{Label: `"no cancer"`, FilterText: "no cancer"}}},
		{"query P(N=", []CompletionItem{{Label: "0"}, {Label: "1"}, {Label: "2"}, {Label: "3"}}},
		{"query P(H | \"odd name\" = ", []CompletionItem{{Label: "on"}, {Label: "off"}}}, // a quoted name, as the REPL completes it
	}
	for _, tt := range tests {
		d.update(model + tt.typed)
		got := d.complete(len(d.text.src))
		if len(got) != len(tt.want) {
			t.Errorf("%q: %+v, want %+v", tt.typed, got, tt.want)
			continue
		}
		for i, w := range tt.want {
			if got[i].Label != w.Label || got[i].FilterText != w.FilterText || got[i].Kind != KindValue || !strings.Contains(got[i].Detail, "{") && !strings.Contains(got[i].Detail, "..") {
				t.Errorf("%q: item %d is %+v, want %+v", tt.typed, i, got[i], w)
			}
		}
	}
}
