package format

import "github.com/pbl-lang/pbl/grammar"

// Comments returns the text of src's comments in order, or nil if src
// does not lex.
func Comments(src []byte) []string {
	_, comments, err := scan("f.pbl", string(src))
	if err != nil {
		return nil
	}
	var cs []string
	for _, c := range comments {
		cs = append(cs, c.text)
	}
	return cs
}

// TokenStarts returns the offset of each token of src, EOF's included.
func TokenStarts(src []byte) []int {
	toks, _, err := scan("f.pbl", string(src))
	if err != nil {
		return nil
	}
	starts := make([]int, len(toks))
	for i, t := range toks {
		starts[i] = int(t.start)
	}
	return starts
}

// Mangle rewrites src with the same tokens and comments, on the same
// lines (blank lines tripled), but with the horizontal spacing squeezed:
// no indentation, one space between words. The layout decisions that
// follow the source (a table on one line, a comment on its own line or
// after code, blank lines) see the same input, so Mangle(src) formats as
// src does.
func Mangle(src []byte) []byte {
	toks, comments, err := scan("f.pbl", string(src))
	if err != nil {
		return nil
	}
	var b []byte
	prevLine := int32(0)
	for _, t := range toks {
		nl := t.line > prevLine && prevLine > 0
		for _, c := range comments[t.cfirst : t.cfirst+t.cn] {
			switch {
			case c.trailing && len(b) > 0:
				b = append(b, ' ')
			case c.blankBefore:
				b = append(b, "\n\n\n"...)
			case len(b) > 0:
				b = append(b, '\n')
			}
			b = append(b, c.text...)
			nl = !c.block || c.lineAfter
		}
		if t.is(grammar.EOF) {
			break
		}
		switch {
		case nl && t.blankBefore:
			b = append(b, "\n\n\n"...)
		case nl:
			b = append(b, '\n')
		case len(b) > 0:
			b = append(b, ' ')
		}
		b = append(b, t.text...)
		prevLine = t.line
	}
	return append(b, '\n')
}
