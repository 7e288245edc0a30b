package grammar

import (
	"iter"
)

// LazyStmts are a file's variable declarations and distributions, in
// source order, kept by their positions only (a few bytes each, where
// their trees take 15–20 times their source): VarDecls and Dists parse
// each again, from the source that the parser has already checked, when
// the caller reaches it, so that one statement's tree lives at a time.
// parser.ParseLean and parser.ParseLeanFrom make them.
type LazyStmts struct {
	at      []lazyAt
	varDecl func(LazyAt, bool) (*VarDecl, error)
	dist    func(LazyAt, bool) (*Dist, error)
	file    string
	err     error
}

// LazyAt is where a lazy statement is, as its parse again needs it.
type LazyAt struct {
	Pos Position // its first token's
	End int      // the offset just past its text: where the next token starts
	Sum uint32   // a checksum of its text, if the parser keeps one, else 0
}

// lazyAt is a LazyAt in 32-bit numbers.
type lazyAt struct {
	off, end, line, col int32
	sum                 uint32
	dist                bool
}

// NewLazyStmts returns an empty list for the file named file, whose
// statements varDecl and dist parse again: with reuse true, into the
// memory of the tree they returned before, which is no longer in use. An
// error they return (the source cannot be read again, or has changed)
// ends the iteration, and Err returns it.
func NewLazyStmts(file string, varDecl func(at LazyAt, reuse bool) (*VarDecl, error), dist func(at LazyAt, reuse bool) (*Dist, error)) *LazyStmts {
	return &LazyStmts{varDecl: varDecl, dist: dist, file: file}
}

// Add appends the statement at at: a distribution if dist, else a
// variable declaration. Its offsets, line and column must fit in 32 bits.
func (s *LazyStmts) Add(at LazyAt, dist bool) {
	p := at.Pos
	s.at = append(s.at, lazyAt{int32(p.Offset), int32(at.End), int32(p.Line), int32(p.Column), at.Sum, dist})
}

// Len returns the number of statements.
func (s *LazyStmts) Len() int { return len(s.at) }

// Err returns the error that ended an iteration, if one did.
func (s *LazyStmts) Err() error { return s.err }

func (s *LazyStmts) pos(a lazyAt) Position {
	return Position{Filename: s.file, Offset: int(a.off), Line: int(a.line), Column: int(a.col)}
}

func (s *LazyStmts) lazyAt(a lazyAt) LazyAt {
	return LazyAt{Pos: s.pos(a), End: int(a.end), Sum: a.sum}
}

// parse parses a's statement again, reusing the memory of the tree it
// parsed before if reuse; ok is false after an error (kept for Err), and
// for every statement once there was one.
func (s *LazyStmts) parse(a lazyAt, reuse bool) (st Stmt, ok bool) {
	if s.err != nil {
		return nil, false
	}
	var err error
	if a.dist {
		var d *Dist
		d, err = s.dist(s.lazyAt(a), reuse)
		st = d
	} else {
		var d *VarDecl
		d, err = s.varDecl(s.lazyAt(a), reuse)
		st = d
	}
	if err != nil {
		s.err = err
		return nil, false
	}
	return st, true
}

// VarDecls yields the variable declarations, each parsed again, in source
// order. Each tree is valid only until the loop's body returns: the next
// one is parsed into its memory. (Iterations must not be nested.)
func (s *LazyStmts) VarDecls() iter.Seq[*VarDecl] {
	return func(yield func(*VarDecl) bool) {
		for _, a := range s.at {
			if a.dist {
				continue
			}
			st, ok := s.parse(a, true)
			if !ok || !yield(st.(*VarDecl)) {
				return
			}
		}
	}
}

// Dists yields the distributions, each parsed again, in source order. Each
// tree is valid only until the loop's body returns, as VarDecls'.
func (s *LazyStmts) Dists() iter.Seq[*Dist] {
	return func(yield func(*Dist) bool) {
		for _, a := range s.at {
			if !a.dist {
				continue
			}
			st, ok := s.parse(a, true)
			if !ok || !yield(st.(*Dist)) {
				return
			}
		}
	}
}

// All yields every statement, parsed again, in source order, with its
// position. The trees stay valid.
func (s *LazyStmts) All() iter.Seq2[Position, Stmt] {
	return func(yield func(Position, Stmt) bool) {
		for _, a := range s.at {
			st, ok := s.parse(a, false)
			if !ok || !yield(s.pos(a), st) {
				return
			}
		}
	}
}
