package parser

import "github.com/pbl-lang/pbl/grammar"

// pool hands out the nodes of the statements that ParseLean checks and
// drops (variable declarations and distributions): reset after each, it
// reuses their memory, where new nodes cost a large model's first parse
// about 14 times its source in allocations. Only the common forms take
// their nodes from it (names, rows, vectors); the others allocate.
type pool struct {
	dists   arena[grammar.Dist]
	bodies  arena[grammar.Body]
	decls   arena[grammar.VarDecl]
	types   arena[grammar.Type]
	names   arena[grammar.Name]
	rows    arena[grammar.Row]
	values  arena[grammar.Value]
	nameSl  arena[*grammar.Name]
	rowSl   arena[*grammar.Row]
	strSl   arena[string]
	nameBuf []*grammar.Name // scratch of names()
	rowBuf  []*grammar.Row  // scratch of rows()
	strBuf  []string        // scratch of a vector
}

// reset makes the nodes handed out free for reuse: none may be in use.
func (q *pool) reset() {
	q.dists.reset()
	q.bodies.reset()
	q.decls.reset()
	q.types.reset()
	q.names.reset()
	q.rows.reset()
	q.values.reset()
	q.nameSl.reset()
	q.rowSl.reset()
	q.strSl.reset()
}

// arena hands out zeroed Ts, and slices of them, from chunks that grow
// until one holds what a statement takes.
type arena[T any] struct {
	cur []T // the chunk being handed out: cur[:len(cur)] are
}

// alloc returns k zeroed Ts, with capacity k.
func (a *arena[T]) alloc(k int) []T {
	n := len(a.cur)
	if n+k > cap(a.cur) {
		a.cur = make([]T, 0, max(2*cap(a.cur), k, 16))
		n = 0
	}
	a.cur = a.cur[:n+k]
	s := a.cur[n : n+k : n+k]
	clear(s)
	return s
}

// new returns a zeroed T.
func (a *arena[T]) new() *T { return &a.alloc(1)[0] }

// copyOf returns a copy of s in the arena.
func (a *arena[T]) copyOf(s []T) []T {
	out := a.alloc(len(s))
	copy(out, s)
	return out
}

// reset hands the current chunk out again from its start (earlier
// chunks, outgrown, are left to the collector).
func (a *arena[T]) reset() { a.cur = a.cur[:0] }
