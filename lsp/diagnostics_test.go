package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportedErrorAtImport: an error in an imported file is shown on
// the import statement that brings the file in (its path), naming the
// error's place; an error in a file imported by way of another, on the
// first import.
func TestImportedErrorAtImport(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ok.pbl":     "var Rain: bool\nP(Rain) = 0.2\n",
		"bad.pbl":    "var Storm: bool\nP(Storm) = 1.5\n",
		"via.pbl":    "import \"bad.pbl\"\n",
		"cycle.pbl":  "import \"cycle2.pbl\"\n",
		"cycle2.pbl": "import \"cycle.pbl\"\nvar C: bool\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, text string
		want       Range  // of the first diagnostic
		msg        string // in its message
	}{
		{"direct", "// main\nimport \"ok.pbl\"\nimport \"bad.pbl\"\nvar A: bool\n", Range{Start: Position{Line: 2, Character: 7}, End: Position{Line: 2, Character: 16}}, "bad.pbl:2:12: probability 1.5"},
		{"indirect", "// main\n\nimport \"via.pbl\"\nvar A: bool\n", Range{Start: Position{Line: 2, Character: 7}, End: Position{Line: 2, Character: 16}}, "bad.pbl:2:12: probability 1.5"},
		{"cycle", "var A: bool\nimport \"cycle2.pbl\"\n", Range{Start: Position{Line: 1, Character: 7}, End: Position{Line: 1, Character: 19}}, "import cycle"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, "cycle.pbl")
		if tt.name != "cycle" {
			path = filepath.Join(dir, "main.pbl")
		}
		d := newDocument(pathURI(path), 1, tt.text)
		diags := d.diagnostics()
		if len(diags) == 0 {
			t.Errorf("%s: no diagnostics", tt.name)
			continue
		}
		if diags[0].Range != tt.want || !strings.Contains(diags[0].Message, tt.msg) {
			t.Errorf("%s: %+v %q, want %+v and %q", tt.name, diags[0].Range, diags[0].Message, tt.want, tt.msg)
		}
	}
}
