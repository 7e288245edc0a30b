package lsp

import "errors"

// formatSource is the formatter: package format's Source.
var formatSource = func(filename string, src []byte) ([]byte, error) {
	return nil, errors.New("formatting is not available yet")
}

// format returns the edits that give the document its canonical layout:
// one edit replacing the whole text, or none when it is already formatted.
// A text with a syntax error is an error (the client keeps the text).
func (d *document) format() ([]TextEdit, error) {
	out, err := formatSource(d.path, []byte(d.text.src))
	if err != nil {
		return nil, err
	}
	if string(out) == d.text.src {
		return []TextEdit{}, nil
	}
	end := d.text.position(len(d.text.src))
	return []TextEdit{{Range: Range{End: end}, NewText: string(out)}}, nil
}
