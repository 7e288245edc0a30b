package lsp

import "github.com/pbl-lang/pbl/format"

// format returns the edits that give the document its canonical layout
// (format.Source, as pbl fmt): one edit replacing the whole text, or none
// when it is already formatted. A text with a syntax error is an error
// (the client keeps the text).
func (d *document) format() ([]TextEdit, error) {
	out, err := format.Source(d.path, []byte(d.text.src))
	if err != nil {
		return nil, err
	}
	if string(out) == d.text.src {
		return []TextEdit{}, nil
	}
	end := d.text.position(len(d.text.src))
	return []TextEdit{{Range: Range{End: end}, NewText: string(out)}}, nil
}
