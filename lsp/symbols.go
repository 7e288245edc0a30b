package lsp

// symbols returns the document's declarations, found from its tokens (so
// a file with errors keeps its outline), in source order.
func (d *document) symbols() []DocumentSymbol {
	out := make([]DocumentSymbol, 0, len(d.decls))
	for _, x := range d.decls {
		sel := Range{Start: d.text.position(x.off), End: d.text.position(x.end)}
		whole := Range{Start: Position{Line: x.line}, End: d.text.position(x.stmtEnd)}
		out = append(out, DocumentSymbol{Name: x.name, Detail: x.detail, Kind: x.kind, Range: whole, SelectionRange: sel})
	}
	return out
}
