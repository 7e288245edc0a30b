// Package parser turns pbl source text into a syntax tree (package grammar).
// Its entry points are [Parse] for files and [ParseQuery] for a single
// query typed on the command line or in the REPL. Every error is an
// *loc.Error positioned at file:line:col; an error because the input
// ended before the statement did (a REPL reads on) has the kind
// [ErrIncomplete].
package parser
