package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHoverCompleteWithErrors: on a document opened with an error (no
// model of it ever loaded), hover over a declared variable shows its
// states, parents and table, and completion after "X=" offers its
// states, whatever the error and wherever it is — a line being typed, a
// bracket left open, a row that does not sum to 1, an undeclared
// variable, a bad import, a learn statement's bad data file. Before,
// hover said nothing and completion offered no state: the server had
// only the last model that loaded, and there was none.
func TestHoverCompleteWithErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.pbl"), []byte("var Q: bool\nP(Q) = [0.5, 0.6]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("Rain,Nope\ntrue,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const model = "var Rain: {light, heavy}\nvar Wet: bool\nRain -> Wet\nP(Rain) = [0.25, 0.75]\nP(Wet | Rain) = { light: 0.4  heavy: 0.9 }\n"
	tests := []struct {
		name        string
		before      string // before the model
		after       string // after it
		wantDist    bool   // the hover shows Wet's table
		wantParents bool
	}{
		{"a line being typed", "", "query P(Wet | Rain=\n", true, true},
		{"a word that is no statement", "", "quer\n", true, true},
		{"an unclosed bracket then more", "", "query P(Wet | Rain=light\nvar Other: bool\nP(Other) = 0.5\n", true, true},
		{"a table not closed", "", "var X: bool\nP(X | Rain) = {\n    light: 0.5\nquery P(X)\n", true, true},
		{"an unterminated string", "", "query P(Wet | Rain=\"light)\n", true, true},
		{"a syntax error before", "var Early: bool\nP(Early) = [0.5, 0.5, \n", "", true, true},
		{"a row not summing to 1", "", "var Y: bool\nP(Y | Wet) = { true: [0.5, 0.6]  false: [0.5, 0.5] }\n", true, true},
		{"an undeclared variable", "", "query P(Wet | Thunder=true)\n", true, true},
		{"the distribution in error", "", "", false, true},
		{"a bad import", "import \"bad.pbl\"\n", "", true, true},
		{"a missing import", "import \"none.pbl\"\n", "", true, true},
		{"bad data to learn from", "", "learn from \"bad.csv\"\n", true, true},
		{"a typo at the start", "vra Early: bool\n", "", true, true},
		{"a stray closing brace", "", "}\nquery P(Wet)\n", true, true},
		{"a space in error", "", "space S {\n    w in 0 .. 1 by 0\n    d ~ normal(w, 1)\n}\ndata X = {\n    d\n    1\n}\nquery P(S | X)\n", true, true},
		{"an unclosed space", "", "space S {\n    w in 0 .. 1 by 0.5\nquery P(Wet)\n", true, true},
		{"CRLF line ends", "", "query P(Wet | Rain=\n", true, true},
	}
	uri := pathURI(filepath.Join(dir, "m.pbl"))
	for _, tt := range tests {
		src := tt.before + model + tt.after
		if tt.name == "the distribution in error" {
			src = strings.Replace(src, "light: 0.4", "light: 1.4", 1)
		}
		if tt.name == "CRLF line ends" {
			src = strings.ReplaceAll(src, "\n", "\r\n")
		}
		// Wet's line in the model (from zero), and a line to type on.
		wetLine := strings.Count(tt.before, "\n") + 1
		s := &session{t: t}
		s.send("initialize", map[string]any{}, true)
		s.send("textDocument/didOpen", DidOpenTextDocumentParams{TextDocument: TextDocumentItem{URI: uri, LanguageID: "pbl", Version: 1, Text: src}}, false)
		hoverID := s.send("textDocument/hover", pos(uri, wetLine, 5), true)
		rainID := s.send("textDocument/hover", pos(uri, wetLine-1, 5), true)
		s.send("textDocument/didChange", DidChangeTextDocumentParams{
			TextDocument:   VersionedTextDocumentIdentifier{URI: uri, Version: 2},
			ContentChanges: []TextDocumentContentChangeEvent{{Text: src + "query P(Wet | Rain="}},
		}, false)
		lines := strings.Count(src, "\n")
		completeID := s.send("textDocument/completion", pos(uri, lines, len("query P(Wet | Rain=")), true)
		s.send("shutdown", nil, true)
		s.send("exit", nil, false)
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(s.diags) == 0 || len(s.diags[0].Diagnostics) == 0 {
			t.Errorf("%s: the document has no error: %+v", tt.name, s.diags)
		} else if tt.name == "bad data to learn from" {
			// The data file's error is shown on the statement that
			// names the file (it was on the text's first character).
			if r := s.diags[0].Diagnostics[0].Range; r.Start.Line != 5 || r.Start.Character != len("learn from ") {
				t.Errorf("%s: the data's error is at %+v, want on the file's name, line 5", tt.name, r.Start)
			}
		}
		var wet, rain *Hover
		s.result(hoverID, &wet)
		s.result(rainID, &rain)
		switch {
		case wet == nil:
			t.Errorf("%s: hover over Wet: nothing", tt.name)
		case !strings.Contains(wet.Contents.Value, "**Wet**: {true, false}") && !strings.Contains(wet.Contents.Value, "**Wet**: bool"):
			t.Errorf("%s: hover over Wet: %q, want its states", tt.name, wet.Contents.Value)
		case tt.wantParents && !strings.Contains(wet.Contents.Value, "parents: Rain"):
			t.Errorf("%s: hover over Wet: %q, want its parent Rain", tt.name, wet.Contents.Value)
		case tt.wantDist && !strings.Contains(wet.Contents.Value, "0.4"):
			t.Errorf("%s: hover over Wet: %q, want its table", tt.name, wet.Contents.Value)
		}
		if rain == nil || !strings.Contains(rain.Contents.Value, "**Rain**: {light, heavy}") {
			t.Errorf("%s: hover over Rain: %+v, want its states", tt.name, rain)
		}
		var list CompletionList
		s.result(completeID, &list)
		var labels []string
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		if strings.Join(labels, ",") != "light,heavy" {
			t.Errorf("%s: completion after Rain=: %v, want light, heavy", tt.name, labels)
		}
	}
}
