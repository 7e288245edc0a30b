package lsp

import "testing"

// TestSymbolRangesContainNames: LSP requires a symbol's selectionRange
// (its name) to lie inside its range (the declaration); VS Code rejects
// the whole outline otherwise. A declaration may put its names on later
// lines than its keyword.
func TestSymbolRangesContainNames(t *testing.T) {
	texts := []string{
		"var A,\n    B: bool\nvar\n  C: bool\nP(A) = 0.5\n",
		"data\n  D = { x\n 1 }\nspace\nH { w in 0 .. 1 by 0.5 }\n",
		"var A: bool\nmixture\n  M of A\n",
	}
	before := func(a, b Position) bool { return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character }
	for _, text := range texts {
		d := newDocument("file:///s.pbl", 1, text)
		syms := d.symbols()
		if len(syms) == 0 {
			t.Errorf("%q: no symbols", text)
		}
		for _, s := range syms {
			if !before(s.Range.Start, s.SelectionRange.Start) || !before(s.SelectionRange.End, s.Range.End) {
				t.Errorf("%q: %s's name %+v is outside its declaration %+v", text, s.Name, s.SelectionRange, s.Range)
			}
		}
	}
}
