package lsp

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDefinitionInImportColumns: a declaration found in an imported file
// is located in that file's UTF-16 columns, as LSP counts them, not in
// pbl's columns of runes: an emoji before the name is two units.
func TestDefinitionInImportColumns(t *testing.T) {
	dir := t.TempDir()
	base := "/* 😀 */ var Ünï: bool\nP(Ünï) = 0.5\n"
	if err := os.WriteFile(filepath.Join(dir, "base.pbl"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.pbl")
	d := newDocument(pathURI(main), 1, "import \"base.pbl\"\nquery P(Ünï)\n")
	if len(d.errs) > 0 {
		t.Fatal(d.errs)
	}
	locs := d.definition(d.text.offset(Position{Line: 1, Character: 9}))
	// "/* 😀 */ var " is 3 + 2 + 4 + 4 = 13 units; Ünï is 3.
	want := Location{URI: pathURI(filepath.Join(dir, "base.pbl")), Range: Range{Start: Position{Line: 0, Character: 13}, End: Position{Line: 0, Character: 16}}}
	if len(locs) != 1 || locs[0] != want {
		t.Errorf("definition of Ünï: %+v, want %+v", locs, want)
	}
}
