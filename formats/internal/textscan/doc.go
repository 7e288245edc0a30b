// Package textscan is the lexical layer and the reading scaffold shared by
// the readers of the free-form text formats, BIF and Hugin NET.
//
// # Tokens
//
// A [Syntax] says which bytes are punctuation and which comments a format
// has; everything else follows the rules the two formats share:
//
//   - Spaces, tabs, carriage returns, form feeds, vertical tabs and
//     newlines separate tokens, as do comments. A UTF-8 byte order mark at
//     the start of the source is skipped.
//   - Each punctuation byte is a token of its own, whose [Kind] is the
//     byte itself: a reader writes p.Tok.Kind == '{'.
//   - A double-quoted [String] runs to the next unescaped quote on its
//     line, with \" and \\ as its escapes; a string that reaches the end of
//     its line is unterminated.
//   - A [Word] is a maximal run of any other bytes: a keyword, a name or a
//     number, told apart by the reader from where it stands. A word ends
//     where a comment begins.
//   - Any other control character is an [Illegal] token of one byte.
//
// A [Token] refers to the source by offsets and carries its line, so that
// scanning allocates nothing and a token's position costs no search;
// [Scanner.Pos] finds the line of any other offset already scanned by
// indexing the lines on first use. Columns count runes, and are computed
// incrementally from the last position asked for, so that positions asked
// for in order cost linear time even on a very long line.
//
// # Reading
//
// A reader embeds a [Parser], which holds the scanner, the current token
// and the [ir.Builder] that collects the model and its errors. The parser
// reports at most one error per token (a reader that fails to recover
// from one error does not report the same token again), reports illegal
// characters itself, and skips to the next top-level element after a
// syntax error with [Parser.SkipTo].
//
// Lexical errors (unterminated strings and comments) are reported to the
// builder at the start of the string or comment.
package textscan
