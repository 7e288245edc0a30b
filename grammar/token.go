package grammar

import "fmt"

// Position is where a token or node starts in a source: byte offset, and
// line and column (in characters) counted from 1. Its fields are those of
// participle's lexer.Position, in the same order, so that a participle
// parser built from this grammar (package grammar/pgrammar, for tests)
// fills the Pos fields of the tree directly, while pbl itself does not
// link participle.
type Position struct {
	Filename string
	Offset   int
	Line     int
	Column   int
}

// String is file:line:col, or line:col without a file name.
func (p Position) String() string {
	if p.Filename == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// TokenType is the kind of a [Token]; its values are participle's
// conventions (EOF is -1, the others count down from -2).
type TokenType int

// Token types produced by [Scanner].
const (
	EOF    TokenType = -1 - iota
	Ident            // Storm, true, query, _x1
	Number           // 0.4, -3, 1e-6, .5
	String           // "0-3_days" (Value holds the unquoted text)
	Punct            // -> .. == ( ) { } [ ] , : ; = | * ? + - / ^ ~ < > <= >= !=
)

// A Token is a token of pbl's syntax: its type, its text (a string's
// unquoted value) and where it starts.
type Token struct {
	Type  TokenType
	Value string
	Pos   Position
}

// EOF reports whether t is the end of the input.
func (t Token) EOF() bool { return t.Type == EOF }

// Error is a lexical error: a character or a token that cannot start or
// end as written, at its position.
type Error struct {
	Msg string
	Pos Position
}

// Error is "file:line:col: message" (leaving out what the position
// lacks).
func (e *Error) Error() string {
	at := ""
	if e.Pos.Filename != "" {
		at = e.Pos.Filename + ":"
	}
	if e.Pos.Line != 0 || e.Pos.Column != 0 {
		at += fmt.Sprintf("%d:%d:", e.Pos.Line, e.Pos.Column)
	}
	if at == "" {
		return e.Msg
	}
	return at + " " + e.Msg
}
