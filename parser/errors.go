package parser

import "errors"

// ErrIncomplete is the kind (loc.Error.Err) of a syntax error found because
// the input ended: at the end of input, or in a block comment still open
// there. More input may complete it; the REPL reads on.
var ErrIncomplete = errors.New("the input ends before the statement does")

// ErrSourceChanged is the kind of the error of a lazy statement that
// ParseLeanFrom's reader no longer holds as it was first parsed: the file
// changed while it was loaded.
var ErrSourceChanged = errors.New("the source changed while it was loaded")
