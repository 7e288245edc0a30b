package format

import (
	"fmt"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/parser"
)

// Source returns src in its canonical layout. A syntax error is the
// parser's: an ir.ErrorList holding one *ir.Error positioned in filename
// (errors.As finds it). Any other error is a bug in the formatter, which
// refuses to return text that does not parse to the same syntax tree.
func Source(filename string, src []byte) ([]byte, error) {
	f, err := parser.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	out, err := print(filename, string(src), f)
	if err != nil {
		return nil, err
	}
	back, err := parser.Parse(filename, out)
	if err != nil {
		return nil, fmt.Errorf("format: internal error: the formatted text does not parse: %w", err)
	}
	if d := diffTrees(f, back); d != "" {
		return nil, fmt.Errorf("format: internal error: the formatted text parses differently (%s)", d)
	}
	return out, nil
}

// print lays out f, parsed from src.
func print(filename, src string, f *grammar.File) (out []byte, err error) {
	toks, comments, err := scan(filename, src)
	if err != nil {
		return nil, err
	}
	p := &printer{toks: toks, comments: comments, sep: sepNewline}
	defer func() {
		// A bug, never the input's fault: the input has parsed. No
		// input may crash the caller (the language server, say).
		if r := recover(); r != nil {
			if ie, ok := r.(internalError); ok {
				err = fmt.Errorf("format: internal error: %s", ie.msg)
				return
			}
			err = fmt.Errorf("format: internal error: %v", r)
		}
	}()
	p.file(f)
	if p.i != len(toks)-1 {
		p.fail("%d tokens left over", len(toks)-1-p.i)
	}
	return render(p.lines), nil
}
