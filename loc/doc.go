// Package loc holds what every stage of pbl says about a place in a
// source file: its position ([Pos]), an error at a position ([Error],
// [Errorf]) and the errors of a file reported together ([ErrorList]).
//
// It is the bottom of the pipeline, as go/token is below go/parser: it
// imports nothing of pbl, so that package parser reports positioned
// errors without depending on the semantic layer (package ir), and ir,
// the formats and the commands report theirs with the same types.
// Package ir keeps the names ir.Pos, ir.Error and ir.ErrorList as aliases
// of these types (the same types, not copies: errors.As with *ir.Error
// finds a *loc.Error); new code names them here.
//
// Its name: not token, since grammar.Token is pbl's lexical token (and
// grammar.Position the scanner's offset, line and column, which
// parser.Pos turns into a [Pos]); not source, taken by formats/source
// (the .pbl writer), which some files import beside it; not pos, the
// name of countless variables holding a [Pos].
//
// An [Error]'s Err is its kind — a sentinel such as parser.ErrIncomplete
// or infer.ErrImpossible, or a typed error — tested with errors.Is and
// errors.As through Unwrap, which [ErrorList] also implements; no code
// looks at the message's text.
package loc
