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

// TestByteOrderMark: a document (or an imported file) that starts with a
// UTF-8 byte order mark. In the document the client sent, the mark is a
// character (char 0) and pbl's columns count from after it; an imported
// file read from disk is counted without it, as editors show it.
func TestByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "base.pbl"), []byte("\ufeffvar Pear: bool\nP(Pear) = 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "\ufeffvar Apple: bool\nimport \"base.pbl\"\nP(Apple) = 0.5\nquery P(Apple, Pear)\n"
	d := newDocument(pathURI(filepath.Join(dir, "main.pbl")), 1, src)
	if len(d.errs) > 0 {
		t.Fatal(d.errs)
	}
	// Apple on line 0 is chars 5..10 (the mark, then "var ").
	apple := Range{Start: Position{Line: 0, Character: 5}, End: Position{Line: 0, Character: 10}}
	if locs := d.definition(d.text.offset(Position{Line: 3, Character: 9})); len(locs) != 1 || locs[0].Range != apple {
		t.Errorf("definition of Apple: %+v, want %+v", locs, apple)
	}
	if w, _ := d.text.wordAt(d.text.offset(Position{Line: 0, Character: 6})); w != "Apple" {
		t.Errorf("word at line 0, char 6: %q, want Apple", w)
	}
	if w, _ := d.text.wordAt(d.text.offset(Position{Line: 0, Character: 1})); w != "var" {
		t.Errorf("word at line 0, char 1: %q, want var", w)
	}
	pear := Range{Start: Position{Line: 0, Character: 4}, End: Position{Line: 0, Character: 8}}
	if locs := d.definition(d.text.offset(Position{Line: 3, Character: 16})); len(locs) != 1 || locs[0].Range != pear {
		t.Errorf("definition of Pear in the imported file: %+v, want %+v", locs, pear)
	}
	// An error on the first line is placed after the mark.
	bad := newDocument(pathURI(filepath.Join(dir, "bad.pbl")), 1, "\ufeffvar A: bool $\n")
	diags := bad.diagnostics()
	if len(diags) == 0 || diags[0].Range.Start != (Position{Line: 0, Character: 13}) {
		t.Errorf("diagnostics %+v, want the first at line 0, char 13 (the $)", diags)
	}
}
