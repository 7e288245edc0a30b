// Package pgrammar builds participle parsers from the grammar that package
// grammar states in its structs' tags. pbl itself parses with the
// hand-written parser of package parser and does not link participle;
// this package's users are tests: the grammar's golden EBNF and the
// differential tests and fuzzers that check that the hand-written parser
// builds the tree participle builds, positions included.
package pgrammar
