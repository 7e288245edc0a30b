// Package grammar defines the syntax of pbl: a hand-written lexer that
// implements participle's lexer interface, and the participle grammar as
// annotated structs. It holds no meaning; package ir gives the tree its
// semantics. The EBNF printed by Parser().String() is kept as a golden file
// (testdata/grammar.ebnf) and reproduced in docs/language.md.
package grammar
