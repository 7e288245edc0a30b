package structure

import (
	"fmt"
	"slices"
)

// A CPDAG is a partially directed graph: the completed partially directed
// acyclic graph of an equivalence class of DAGs (what [CPDAGOf] returns,
// and what [PC] estimates). A directed edge a -> b is in every DAG of the
// class; an undirected edge a -- b is a -> b in some and b -> a in others.
//
// It is stored as pcalg's adjacency matrix: mark(a, b) is true when there
// is an edge between a and b with no arrowhead at a; a -> b is mark(a, b)
// and not mark(b, a), a -- b is both.
type CPDAG struct {
	Names []string
	Tests int // the conditional-independence tests PC ran (0 for CPDAGOf)

	n    int
	mark []bool // mark[a*n+b]
}

// NewCPDAG returns the empty graph over the given variables.
func NewCPDAG(names []string) *CPDAG {
	n := len(names)
	return &CPDAG{Names: slices.Clone(names), n: n, mark: make([]bool, n*n)}
}

// N returns the number of variables.
func (c *CPDAG) N() int { return c.n }

// Clone returns a deep copy of c.
func (c *CPDAG) Clone() *CPDAG {
	d := *c
	d.mark = slices.Clone(c.mark)
	return &d
}

func (c *CPDAG) m(a, b int) bool { return c.mark[a*c.n+b] }

// Adjacent reports whether a and b are joined by an edge.
func (c *CPDAG) Adjacent(a, b int) bool { return c.m(a, b) || c.m(b, a) }

// IsDirected reports whether a -> b is a directed edge.
func (c *CPDAG) IsDirected(a, b int) bool { return c.m(a, b) && !c.m(b, a) }

// IsUndirected reports whether a -- b is an undirected edge.
func (c *CPDAG) IsUndirected(a, b int) bool { return c.m(a, b) && c.m(b, a) }

// SetUndirected joins a and b by an undirected edge.
func (c *CPDAG) SetUndirected(a, b int) {
	c.mark[a*c.n+b], c.mark[b*c.n+a] = true, true
}

// SetDirected joins a and b by the directed edge a -> b.
func (c *CPDAG) SetDirected(a, b int) {
	c.mark[a*c.n+b], c.mark[b*c.n+a] = true, false
}

// Remove removes the edge between a and b, if any.
func (c *CPDAG) Remove(a, b int) {
	c.mark[a*c.n+b], c.mark[b*c.n+a] = false, false
}

// Directed returns the directed edges as (from, to) pairs, sorted.
func (c *CPDAG) Directed() [][2]int {
	var es [][2]int
	for a := range c.n {
		for b := range c.n {
			if c.IsDirected(a, b) {
				es = append(es, [2]int{a, b})
			}
		}
	}
	return es
}

// Undirected returns the undirected edges as pairs (a, b) with a < b,
// sorted.
func (c *CPDAG) Undirected() [][2]int {
	var es [][2]int
	for a := range c.n {
		for b := a + 1; b < c.n; b++ {
			if c.IsUndirected(a, b) {
				es = append(es, [2]int{a, b})
			}
		}
	}
	return es
}

// NumEdges returns the number of edges, directed or not.
func (c *CPDAG) NumEdges() int {
	k := 0
	for a := range c.n {
		for b := a + 1; b < c.n; b++ {
			if c.Adjacent(a, b) {
				k++
			}
		}
	}
	return k
}

// String renders the edges, one "a -> b" or "a -- b" a line, directed
// first.
func (c *CPDAG) String() string {
	var s []byte
	for _, e := range c.Directed() {
		s = fmt.Appendf(s, "%s -> %s\n", c.Names[e[0]], c.Names[e[1]])
	}
	for _, e := range c.Undirected() {
		s = fmt.Appendf(s, "%s -- %s\n", c.Names[e[0]], c.Names[e[1]])
	}
	return string(s)
}

// CPDAGOf returns the CPDAG of d's Markov equivalence class: d's skeleton
// with the edges of its v-structures (a -> c <- b, a and b not adjacent)
// directed, then Meek's rules R1–R3 applied until none applies. Meek
// (1995) showed that the result is the CPDAG: an edge is directed exactly
// when every DAG equivalent to d directs it the same way.
func CPDAGOf(d *DAG) *CPDAG {
	c := NewCPDAG(d.Names)
	for to, ps := range d.Parents {
		for _, from := range ps {
			c.SetUndirected(from, to)
		}
	}
	for v, ps := range d.Parents {
		for i, a := range ps {
			for _, b := range ps[i+1:] {
				if !d.HasEdge(a, b) && !d.HasEdge(b, a) {
					c.SetDirected(a, v)
					c.SetDirected(b, v)
				}
			}
		}
	}
	c.meek()
	return c
}

// meek applies Meek's orientation rules R1–R3 to the undirected edges
// until none applies, scanning the edges in index order:
//
//	R1: a -> b -- c, a and c not adjacent      ⇒ b -> c
//	R2: a -> b -> c, a -- c                    ⇒ a -> c
//	R3: a -- b, a -- c -> b, a -- d -> b,
//	    c and d not adjacent                   ⇒ a -> b
func (c *CPDAG) meek() {
	n := c.n
	for changed := true; changed; {
		changed = false
		for a := range n {
			for b := range n {
				if a != b && c.IsUndirected(a, b) && c.orientable(a, b) {
					c.SetDirected(a, b)
					changed = true
				}
			}
		}
	}
}

// orientable reports whether one of Meek's rules directs the undirected
// edge a -- b as a -> b.
func (c *CPDAG) orientable(a, b int) bool {
	n := c.n
	// R1: some x -> a with x and b not adjacent.
	for x := range n {
		if x != b && c.IsDirected(x, a) && !c.Adjacent(x, b) {
			return true
		}
	}
	// R2: a -> x -> b.
	for x := range n {
		if c.IsDirected(a, x) && c.IsDirected(x, b) {
			return true
		}
	}
	// R3: a -- x -> b and a -- y -> b, x and y not adjacent.
	for x := range n {
		if !c.IsUndirected(a, x) || !c.IsDirected(x, b) {
			continue
		}
		for y := x + 1; y < n; y++ {
			if c.IsUndirected(a, y) && c.IsDirected(y, b) && !c.Adjacent(x, y) {
				return true
			}
		}
	}
	return false
}

// DAG returns a DAG in c's class, for parameter learning: c's directed
// edges kept and its undirected edges directed by Dor and Tarsi's (1992)
// consistent extension — repeatedly remove a variable x that has no
// outgoing directed edge and whose undirected neighbours are each adjacent
// to all of x's other neighbours, directing its undirected edges into x.
// When no such variable remains (c, estimated from data, has no consistent
// extension) the rest of the undirected edges are directed from the lower
// index to the higher; any edge, directed or not, that would close a cycle
// is added the other way round. So every adjacency of c is an edge of the
// result.
func (c *CPDAG) DAG() *DAG {
	d, _ := c.Extension()
	return d
}

// Extension returns [CPDAG.DAG]'s graph and whether it is a consistent
// extension of c: it has c's skeleton and v-structures and directs every
// directed edge of c the same way.
func (c *CPDAG) Extension() (*DAG, bool) {
	n := c.n
	g := c.Clone()
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	var orient [][2]int // the undirected edges' directions, in order
	for left := n; left > 0; left-- {
		x := -1
		for v := range n {
			if alive[v] && g.sinkCandidate(v, alive) {
				x = v
				break
			}
		}
		if x < 0 {
			break
		}
		for y := range n {
			if alive[y] && g.IsUndirected(x, y) {
				orient = append(orient, [2]int{y, x})
			}
		}
		alive[x] = false
	}
	consistent := true
	for v := range n {
		if alive[v] {
			consistent = false
		}
	}
	d := NewDAG(c.Names)
	add := func(a, b int) {
		if d.AddEdge(a, b) != nil {
			consistent = false
			d.AddEdge(b, a)
		}
	}
	for _, e := range c.Directed() {
		add(e[0], e[1])
	}
	for _, e := range orient {
		add(e[0], e[1])
	}
	for _, e := range c.Undirected() {
		if !d.HasEdge(e[0], e[1]) && !d.HasEdge(e[1], e[0]) {
			add(e[0], e[1])
		}
	}
	return d, consistent
}

// sinkCandidate reports whether x, among the alive variables, has no
// outgoing directed edge and each of its undirected neighbours is
// adjacent to all its other neighbours.
func (c *CPDAG) sinkCandidate(x int, alive []bool) bool {
	n := c.n
	for y := range n {
		if alive[y] && c.IsDirected(x, y) {
			return false
		}
	}
	for y := range n {
		if !alive[y] || !c.IsUndirected(x, y) {
			continue
		}
		for z := range n {
			if z != y && alive[z] && c.Adjacent(x, z) && !c.Adjacent(y, z) {
				return false
			}
		}
	}
	return true
}
