package infer

import (
	"math"
	"slices"
)

// This file is the greedy elimination that both variable elimination's
// orders and the junction tree's triangulation run: a graph with sparse
// adjacency (a sorted neighbour list per vertex) whose vertices are
// eliminated one at a time, the one with the lowest score first, each
// elimination joining its neighbours pairwise (fill-in). The scores are
// kept exact incrementally, from counters that each fill-in edge and each
// elimination update, and the candidates wait in a heap, so that an
// elimination costs time in its degree and in the fill-in edges it adds,
// never in the number of vertices: a star of 20,000 leaves or a grid
// triangulates in milliseconds.

// scoreKind is what a greedy elimination minimises.
type scoreKind int

const (
	scoreFill         scoreKind = iota // fewest fill-in edges, then the smallest weight
	scoreWeight                        // smallest weight
	scoreWeightedFill                  // smallest Σ card(a)·card(b) over fill-in edges (a, b), then the smallest weight
	scoreTie                           // the smallest tie-break: the order the tie-breaks give, whatever the graph
)

// weightInf is the number of neighbours of at least two states from which
// a weight is +Inf in float64 (2^1024 overflows), whatever their order.
const weightInf = 1024

// elimGraph is an undirected graph under greedy elimination. Vertices are
// 0..n-1; adj[v] is sorted and may still hold eliminated vertices, which
// are skipped and dropped when they make up half of the list.
type elimGraph struct {
	kind scoreKind
	self bool      // the weight includes the vertex's own cardinality (a clique's size) rather than only its neighbours'
	card []float64 // card[v]: number of states
	tie  []uint64  // tie[v]: the tie-break after score and weight (then v itself)

	adj   [][]int32
	stale []int32 // eliminated entries in adj[v]
	alive []bool
	deg   []int32   // alive neighbours
	big   []int32   // alive neighbours with at least two states
	tri   []int64   // edges among the alive neighbours
	s1    []float64 // Σ card over the alive neighbours (weighted fill only)
	s2    []float64 // Σ card² over them
	wtri  []float64 // Σ card(a)·card(b) over edges (a, b) among them

	score  []float64
	weight []float64
	heap   elimHeap
	dirty  []int32 // vertices whose counters changed in the current step
	mark   []uint8 // mark[v]: v is in dirty: 1 for its score, 2 for its weight and score
	buf    []int32 // scratch
}

// newElimGraph returns the graph over n vertices with the given
// cardinalities and edges (each pair once or more, in any order; loops are
// ignored).
func newElimGraph(kind scoreKind, self bool, card []float64, tie []uint64, edges [][2]int32) *elimGraph {
	n := len(card)
	g := &elimGraph{kind: kind, self: self, card: card, tie: tie,
		adj: make([][]int32, n), stale: make([]int32, n), alive: make([]bool, n),
		deg: make([]int32, n), big: make([]int32, n), tri: make([]int64, n),
		score: make([]float64, n), weight: make([]float64, n), mark: make([]uint8, n)}
	// Adjacency lists in one block, sorted and without duplicates.
	cnt := make([]int32, n+1)
	for _, e := range edges {
		if e[0] != e[1] {
			cnt[e[0]+1]++
			cnt[e[1]+1]++
		}
	}
	for v := range n {
		cnt[v+1] += cnt[v]
	}
	block := make([]int32, cnt[n])
	fill := slices.Clone(cnt[:n])
	for _, e := range edges {
		if a, b := e[0], e[1]; a != b {
			block[fill[a]] = b
			fill[a]++
			block[fill[b]] = a
			fill[b]++
		}
	}
	for v := range n {
		l := block[cnt[v]:cnt[v+1]:cnt[v+1]]
		slices.Sort(l)
		g.adj[v] = slices.Compact(l)
	}
	g.copyCounters()
	return g
}

// clone returns an independent copy of g before any elimination, with
// another kind and tie-break. g must keep every counter (kind
// scoreWeightedFill).
func (g *elimGraph) clone(kind scoreKind, tie []uint64) *elimGraph {
	n := len(g.card)
	h := &elimGraph{kind: kind, self: g.self, card: g.card, tie: tie,
		adj: make([][]int32, n), stale: make([]int32, n), alive: make([]bool, n),
		deg: make([]int32, n), big: make([]int32, n), tri: make([]int64, n),
		score: make([]float64, n), weight: make([]float64, n), mark: make([]uint8, n)}
	total := 0
	for _, l := range g.adj {
		total += len(l)
	}
	block := make([]int32, 0, total)
	for v, l := range g.adj {
		start := len(block)
		block = append(block, l...)
		h.adj[v] = block[start:len(block):len(block)]
	}
	// The counters of a graph before any elimination do not depend on the
	// kind: copy them.
	copy(h.alive, g.alive)
	copy(h.deg, g.deg)
	copy(h.big, g.big)
	copy(h.tri, g.tri)
	if kind == scoreWeightedFill {
		h.s1, h.s2, h.wtri = slices.Clone(g.s1), slices.Clone(g.s2), slices.Clone(g.wtri)
	}
	return h
}

// copyCounters computes every counter from the adjacency lists.
func (g *elimGraph) copyCounters() {
	n := len(g.card)
	weighted := g.kind == scoreWeightedFill
	if weighted {
		g.s1, g.s2, g.wtri = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	for v := range n {
		g.alive[v] = true
		g.deg[v] = int32(len(g.adj[v]))
		for _, a := range g.adj[v] {
			if g.card[a] >= 2 {
				g.big[v]++
			}
			if weighted {
				g.s1[v] += g.card[a]
				g.s2[v] += g.card[a] * g.card[a]
			}
		}
	}
	if g.kind == scoreWeight {
		return
	}
	// Triangles: for every edge (a, b) with a < b, the common neighbours.
	for a := range n {
		for _, b := range g.adj[a] {
			if int(b) <= a {
				continue
			}
			g.common(int32(a), b, func(w int32) {
				// Each triangle (a, b, w) is met once per edge; count the
				// edge (a, b) among w's neighbours.
				g.tri[w]++
				if weighted {
					g.wtri[w] += g.card[a] * g.card[b]
				}
			})
		}
	}
}

// has reports whether a and b are adjacent (both alive).
func (g *elimGraph) has(a, b int32) bool {
	if !g.alive[b] {
		return false
	}
	_, ok := slices.BinarySearch(g.adj[a], b)
	return ok
}

// common calls fn for every alive common neighbour of a and b.
func (g *elimGraph) common(a, b int32, fn func(w int32)) {
	if len(g.adj[a]) > len(g.adj[b]) {
		a, b = b, a
	}
	for _, w := range g.adj[a] {
		if g.alive[w] && w != b && g.has(b, w) {
			fn(w)
		}
	}
}

// neighbours returns the alive neighbours of v, sorted, in a slice that
// stays valid until the next call.
func (g *elimGraph) neighbours(v int32) []int32 {
	g.compact(v)
	g.buf = g.buf[:0]
	for _, a := range g.adj[v] {
		if g.alive[a] {
			g.buf = append(g.buf, a)
		}
	}
	return g.buf
}

// compact drops the eliminated vertices from adj[v] when they are half of
// it, so that walking the list costs at most twice its alive part.
func (g *elimGraph) compact(v int32) {
	if g.stale[v] == 0 || int(g.stale[v])*2 < len(g.adj[v]) {
		return
	}
	l := g.adj[v][:0]
	for _, a := range g.adj[v] {
		if g.alive[a] {
			l = append(l, a)
		}
	}
	g.adj[v], g.stale[v] = l, 0
}

// touch marks v's score (level 1) or its neighbourhood, weight and score
// (level 2) as changed.
func (g *elimGraph) touch(v int32, level uint8) {
	if g.mark[v] == 0 {
		g.dirty = append(g.dirty, v)
	}
	g.mark[v] = max(g.mark[v], level)
}

// addEdge joins the alive, non-adjacent vertices a and b.
func (g *elimGraph) addEdge(a, b int32) {
	ca, cb := g.card[a], g.card[b]
	if g.kind != scoreWeight {
		k, sc := int64(0), 0.0
		g.common(a, b, func(w int32) {
			k++
			g.tri[w]++
			if g.kind == scoreWeightedFill {
				g.wtri[w] += ca * cb
				sc += g.card[w]
			}
			g.touch(w, 1)
		})
		g.tri[a] += k
		g.tri[b] += k
		if g.kind == scoreWeightedFill {
			g.wtri[a] += cb * sc
			g.wtri[b] += ca * sc
			g.s1[a] += cb
			g.s2[a] += cb * cb
			g.s1[b] += ca
			g.s2[b] += ca * ca
		}
	}
	g.insert(a, b)
	g.insert(b, a)
	g.deg[a]++
	g.deg[b]++
	if cb >= 2 {
		g.big[a]++
	}
	if ca >= 2 {
		g.big[b]++
	}
	g.touch(a, 2)
	g.touch(b, 2)
}

// insert adds b to a's sorted list.
func (g *elimGraph) insert(a, b int32) {
	i, ok := slices.BinarySearch(g.adj[a], b)
	if ok {
		panic("infer: elimGraph.insert: the edge exists")
	}
	g.adj[a] = slices.Insert(g.adj[a], i, b)
}

// eliminate joins the alive neighbours nb of x pairwise and removes x,
// leaving in g.dirty the vertices whose score may have changed.
func (g *elimGraph) eliminate(x int32, nb []int32) {
	for i, a := range nb {
		for _, b := range nb[i+1:] {
			if !g.has(a, b) {
				g.addEdge(a, b)
			}
		}
	}
	// nb is now a clique: each a in nb loses x and the edges from x to
	// the other d-1 members of nb.
	d := int64(len(nb))
	cx := g.card[x]
	s := 0.0
	if g.kind == scoreWeightedFill {
		for _, b := range nb {
			s += g.card[b]
		}
	}
	g.alive[x] = false
	for _, a := range nb {
		g.deg[a]--
		g.stale[a]++
		if cx >= 2 {
			g.big[a]--
		}
		if g.kind != scoreWeight {
			g.tri[a] -= d - 1
		}
		if g.kind == scoreWeightedFill {
			g.s1[a] -= cx
			g.s2[a] -= cx * cx
			g.wtri[a] -= cx * (s - g.card[a])
		}
		g.touch(a, 2)
	}
}

// rescore computes v's score and weight from its counters and neighbours.
// The weight is multiplied up in increasing vertex order, so that it is
// the same float64 however v's neighbourhood came about.
func (g *elimGraph) rescore(v int32) {
	g.reweigh(v)
	g.rescoreOnly(v)
}

// rescoreOnly computes v's score from its counters and its weight, for a
// vertex whose neighbourhood (and so weight) has not changed.
func (g *elimGraph) rescoreOnly(v int32) {
	switch g.kind {
	case scoreFill:
		d := int64(g.deg[v])
		g.score[v] = float64(d*(d-1)/2 - g.tri[v])
	case scoreWeight:
		g.score[v] = g.weight[v]
	case scoreWeightedFill:
		g.score[v] = (g.s1[v]*g.s1[v]-g.s2[v])/2 - g.wtri[v]
	case scoreTie:
		g.score[v] = float64(g.tie[v])
	}
}

// reweigh computes v's weight.
func (g *elimGraph) reweigh(v int32) {
	w := 1.0
	if g.self {
		w = g.card[v]
	}
	if g.big[v] >= weightInf {
		w = math.Inf(1)
	} else {
		g.compact(v)
		for _, a := range g.adj[v] {
			if g.alive[a] {
				w *= g.card[a]
			}
		}
	}
	g.weight[v] = w
}

// less orders candidates: score, then weight, then tie, then vertex.
func (g *elimGraph) less(a, b int32) bool {
	switch {
	case g.score[a] != g.score[b]:
		return g.score[a] < g.score[b]
	case g.weight[a] != g.weight[b]:
		return g.weight[a] < g.weight[b]
	case g.tie[a] != g.tie[b]:
		return g.tie[a] < g.tie[b]
	}
	return a < b
}

// run eliminates the vertices of stages[0] in greedy order, then those of
// stages[1], and so on; vertices in no stage stay. Before eliminating a
// vertex it calls visit with the vertex and its alive neighbours (sorted;
// the slice is reused), and it stops, returning false, when visit does.
// It returns true when every stage is done.
func (g *elimGraph) run(stages [][]int32, visit func(v int32, nb []int32) bool) bool {
	inStage := make([]int32, len(g.card))
	for i := range inStage {
		inStage[i] = -1
	}
	for k, st := range stages {
		for _, v := range st {
			inStage[v] = int32(k)
		}
	}
	g.heap = elimHeap{g: g, pos: make([]int32, len(g.card))}
	for i := range g.heap.pos {
		g.heap.pos[i] = -1
	}
	// Small graphs scan their candidates for the best; a heap pays off
	// from a few hundred vertices on. Both take the minimum of the same
	// total order (less), so the order is the same.
	scan := len(g.card) <= scanVertices
	for k, st := range stages {
		for _, v := range st {
			if g.alive[v] && inStage[v] == int32(k) && g.heap.pos[v] < 0 {
				g.rescore(v)
				g.heap.push(v, scan)
			}
		}
		for g.heap.len() > 0 {
			var x int32
			if scan {
				x = g.heap.popScan()
			} else {
				x = g.heap.pop()
			}
			nb := g.neighbours(x)
			if !visit(x, nb) {
				return false
			}
			g.eliminate(x, nb)
			for _, v := range g.dirty {
				level := g.mark[v]
				g.mark[v] = 0
				if g.alive[v] && g.heap.pos[v] >= 0 {
					if level == 2 {
						g.rescore(v)
					} else {
						g.rescoreOnly(v)
					}
					if !scan {
						g.heap.fix(v)
					}
				}
			}
			g.dirty = g.dirty[:0]
		}
	}
	return true
}

// scanVertices is the number of vertices up to which run scans its
// candidates rather than keeping them in a heap.
const scanVertices = 256

// elimHeap is a binary min-heap of vertices ordered by elimGraph.less,
// with each vertex's position so that a rescored vertex moves in place.
type elimHeap struct {
	g   *elimGraph
	h   []int32
	pos []int32 // pos[v]: index of v in h, or -1
}

func (h *elimHeap) len() int { return len(h.h) }

// push adds v; with unordered, h is a plain list for popScan.
func (h *elimHeap) push(v int32, unordered bool) {
	h.pos[v] = int32(len(h.h))
	h.h = append(h.h, v)
	if !unordered {
		h.up(len(h.h) - 1)
	}
}

// popScan removes and returns the least vertex of an unordered list.
func (h *elimHeap) popScan() int32 {
	best := 0
	for i := 1; i < len(h.h); i++ {
		if h.g.less(h.h[i], h.h[best]) {
			best = i
		}
	}
	v := h.h[best]
	last := len(h.h) - 1
	h.swap(best, last)
	h.h = h.h[:last]
	h.pos[v] = -1
	return v
}

func (h *elimHeap) pop() int32 {
	v := h.h[0]
	last := len(h.h) - 1
	h.swap(0, last)
	h.h = h.h[:last]
	h.pos[v] = -1
	if last > 0 {
		h.down(0)
	}
	return v
}

func (h *elimHeap) fix(v int32) {
	i := int(h.pos[v])
	if !h.down(i) {
		h.up(i)
	}
}

func (h *elimHeap) swap(i, j int) {
	h.h[i], h.h[j] = h.h[j], h.h[i]
	h.pos[h.h[i]] = int32(i)
	h.pos[h.h[j]] = int32(j)
}

func (h *elimHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.g.less(h.h[i], h.h[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down sifts i down and reports whether it moved.
func (h *elimHeap) down(i int) bool {
	start := i
	n := len(h.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.g.less(h.h[r], h.h[l]) {
			c = r
		}
		if !h.g.less(h.h[c], h.h[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}
