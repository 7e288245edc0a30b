package lsp

import (
	"os"
	"strings"
)

// definition returns where the variable (or data set, space, mixture)
// named at byte offset off is declared: from the model when the text
// loads (so across imports), else from this document's declarations. It
// returns an empty list when there is none.
func (d *document) definition(off int) []Location {
	word, _ := d.text.wordAt(off)
	if word == "" {
		return []Location{}
	}
	if m := d.model; m != nil {
		if v, ok := m.Lookup(word); ok && v.Pos.IsValid() {
			if v.Pos.File == "" || v.Pos.File == d.path {
				return []Location{{URI: d.uri, Range: d.text.tokenRange(d.text.fromPos(v.Pos.Line, v.Pos.Col))}}
			}
			// In an imported file: its column, in runes, converted to
			// UTF-16 units from the file's text; the line's start when
			// the file cannot be read.
			uri := pathURI(v.Pos.File)
			src, err := os.ReadFile(v.Pos.File)
			if err != nil {
				p := Position{Line: v.Pos.Line - 1}
				return []Location{{URI: uri, Range: Range{Start: p, End: p}}}
			}
			// Editors do not show a byte order mark: count without it.
			t := newText(strings.TrimPrefix(string(src), "\ufeff"))
			return []Location{{URI: uri, Range: t.tokenRange(t.fromPos(v.Pos.Line, v.Pos.Col))}}
		}
	}
	for _, x := range d.decls {
		if x.name == word {
			return []Location{{URI: d.uri, Range: Range{Start: d.text.position(x.off), End: d.text.position(x.end)}}}
		}
	}
	return []Location{}
}
