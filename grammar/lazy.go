package grammar

import (
	"iter"

	"github.com/alecthomas/participle/v2/lexer"
)

// LazyStmts are a file's variable declarations and distributions, in
// source order, kept by their positions only (a few bytes each, where
// their trees take 15–20 times their source): VarDecls and Dists parse
// each again, from the source that the parser has already checked, when
// the caller reaches it, so that one statement's tree lives at a time.
// parser.ParseLean makes them.
type LazyStmts struct {
	at      []lazyAt
	varDecl func(lexer.Position) *VarDecl
	dist    func(lexer.Position) *Dist
	file    string
}

// lazyAt is a statement's position, in 32-bit numbers.
type lazyAt struct {
	off, line, col int32
	dist           bool
}

// NewLazyStmts returns an empty list for the file named file, whose
// statements varDecl and dist parse again from a position.
func NewLazyStmts(file string, varDecl func(lexer.Position) *VarDecl, dist func(lexer.Position) *Dist) *LazyStmts {
	return &LazyStmts{varDecl: varDecl, dist: dist, file: file}
}

// Add appends the statement at pos: a distribution if dist, else a
// variable declaration. pos's offset, line and column must fit in 32 bits.
func (s *LazyStmts) Add(pos lexer.Position, dist bool) {
	s.at = append(s.at, lazyAt{int32(pos.Offset), int32(pos.Line), int32(pos.Column), dist})
}

// Len returns the number of statements.
func (s *LazyStmts) Len() int { return len(s.at) }

func (s *LazyStmts) pos(a lazyAt) lexer.Position {
	return lexer.Position{Filename: s.file, Offset: int(a.off), Line: int(a.line), Column: int(a.col)}
}

// VarDecls yields the variable declarations, each parsed again, in source
// order.
func (s *LazyStmts) VarDecls() iter.Seq[*VarDecl] {
	return func(yield func(*VarDecl) bool) {
		for _, a := range s.at {
			if !a.dist && !yield(s.varDecl(s.pos(a))) {
				return
			}
		}
	}
}

// Dists yields the distributions, each parsed again, in source order.
func (s *LazyStmts) Dists() iter.Seq[*Dist] {
	return func(yield func(*Dist) bool) {
		for _, a := range s.at {
			if a.dist && !yield(s.dist(s.pos(a))) {
				return
			}
		}
	}
}

// All yields every statement, parsed again, in source order, with its
// position.
func (s *LazyStmts) All() iter.Seq2[lexer.Position, Stmt] {
	return func(yield func(lexer.Position, Stmt) bool) {
		for _, a := range s.at {
			var st Stmt
			if a.dist {
				st = s.dist(s.pos(a))
			} else {
				st = s.varDecl(s.pos(a))
			}
			if !yield(s.pos(a), st) {
				return
			}
		}
	}
}
