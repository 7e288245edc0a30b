// Package grammar defines the syntax of pbl: its tokens and hand-written
// scanner, and the syntax tree as structs whose tags state the grammar in
// participle's notation. It holds no meaning; package ir gives the tree
// its semantics. pbl parses with the hand-written parser of package
// parser; package grammar/pgrammar builds a participle parser from the
// tags, for tests only (pbl does not link participle), and the EBNF it
// prints is kept as a golden file (testdata/grammar.ebnf) and reproduced
// in docs/language.md.
package grammar
