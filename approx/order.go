package approx

import "slices"

// This file is the elimination order the cluster-based algorithms share:
// greedy min-fill on the problem's interaction graph, kept as sorted
// neighbour lists (a slice of int32 per variable, no maps), which grow
// with the fill edges as variables are eliminated.
//
// The interaction (primal) graph has an edge between two variables when a
// factor mentions both. Eliminating a variable connects its remaining
// neighbours pairwise; its fill is the number of those edges not yet
// present. Min-fill eliminates, at each step, a variable of least fill
// (ties: least degree, then least index, so the order is deterministic).
// The largest neighbourhood met (plus the variable) is the order's induced
// width plus one: the largest cluster exact elimination along the order
// builds.
//
// Cost: the fill of a variable of degree d takes O(d²) with a mark array;
// after each elimination only the eliminated variable's neighbours and
// their neighbours are rescored (a variable's fill changes only if an edge
// among its neighbours appears or a neighbour goes), and each step's
// choice comes from a heap of scores whose stale entries are skipped, so
// the whole order takes O(Σ d³ + r log r) time, r the rescorings, and
// O(n + e + r) words, e the number of edges as they grow.

// MaxFillDegree is the largest degree at which MinFillOrder counts a
// variable's fill; a variable of larger degree is scored d(d−1)/2, the
// most its fill can be, so that among such variables the order is by
// least degree. Counting costs O(d²) reads of neighbour lists per
// rescoring: uncapped, a 150×150 grid's order took 71 s, capped at 32,
// 3 s; on 40×40 and 80×80 grids the cap widens the order from 58 to 61
// and from 118 to 121.
const MaxFillDegree = 32

// MinFillOrder returns a min-fill elimination order of the variables v
// with card[v] > 0 and the induced width of that order (the largest
// number of variables in a cluster, the eliminated one included, minus
// one; -1 when there are no variables). scopes lists each factor's
// variables; variables with card[v] <= 0 are ignored wherever they occur,
// so a caller drops observed variables by setting their card to 0.
func MinFillOrder(card []int, scopes [][]int) (order []int, width int) {
	n := len(card)
	adj := make([][]int32, n) // sorted neighbour lists
	for _, s := range scopes {
		for i, u := range s {
			if card[u] <= 0 {
				continue
			}
			for _, w := range s[i+1:] {
				if card[w] <= 0 || w == u {
					continue
				}
				adj[u] = insertSorted(adj[u], int32(w))
				adj[w] = insertSorted(adj[w], int32(u))
			}
		}
	}
	alive := make([]bool, n)
	left := 0
	for v := range n {
		if card[v] > 0 {
			alive[v] = true
			left++
		}
	}
	mark := make([]int32, n)
	stamp := int32(0)
	fill := make([]int, n)
	score := func(v int) int {
		nb := adj[v]
		if len(nb) > MaxFillDegree {
			return len(nb) * (len(nb) - 1) / 2 // the most it can be
		}
		stamp++
		f := 0
		for _, u := range nb {
			// Count neighbours of v that are not neighbours of u.
			stamp++
			for _, w := range adj[u] {
				mark[w] = stamp
			}
			for _, w := range nb {
				if w != u && mark[w] != stamp {
					f++
				}
			}
		}
		return f / 2
	}
	for v := range n {
		if alive[v] {
			fill[v] = score(v)
		}
	}
	width = -1
	order = make([]int, 0, left)
	dirty := make([]bool, n)
	h := &fillHeap{}
	for v := range n {
		if alive[v] {
			h.push(fillEntry{fill[v], len(adj[v]), v})
		}
	}
	for ; left > 0; left-- {
		// The least (fill, degree, index) among the entries still
		// current; an entry is stale once its variable is eliminated or
		// rescored.
		var best int
		for {
			e := h.pop()
			if alive[e.v] && e.fill == fill[e.v] && e.deg == len(adj[e.v]) {
				best = e.v
				break
			}
		}
		v := best
		order = append(order, v)
		width = max(width, len(adj[v]))
		alive[v] = false
		nb := adj[v]
		// Connect v's neighbours pairwise and drop v from their lists.
		for _, u := range nb {
			adj[u] = removeSorted(adj[u], int32(v))
		}
		for i, u := range nb {
			for _, w := range nb[i+1:] {
				adj[u] = insertSorted(adj[u], w)
				adj[w] = insertSorted(adj[w], u)
			}
		}
		adj[v] = nil
		// Rescore the neighbours and their neighbours.
		for _, u := range nb {
			dirty[u] = true
			for _, w := range adj[u] {
				dirty[w] = true
			}
		}
		for _, u := range nb {
			for _, w := range adj[u] {
				if dirty[w] {
					dirty[w] = false
					fill[w] = score(int(w))
					h.push(fillEntry{fill[w], len(adj[w]), int(w)})
				}
			}
			if dirty[u] {
				dirty[u] = false
				fill[u] = score(int(u))
				h.push(fillEntry{fill[u], len(adj[u]), int(u)})
			}
		}
	}
	return order, width
}

// insertSorted adds x to the sorted list s if it is not there.
func insertSorted(s []int32, x int32) []int32 {
	i, found := slices.BinarySearch(s, x)
	if found {
		return s
	}
	return slices.Insert(s, i, x)
}

// removeSorted removes x from the sorted list s if it is there.
func removeSorted(s []int32, x int32) []int32 {
	i, found := slices.BinarySearch(s, x)
	if !found {
		return s
	}
	return slices.Delete(s, i, i+1)
}

// fillEntry is a variable's score when it was pushed.
type fillEntry struct{ fill, deg, v int }

func (a fillEntry) less(b fillEntry) bool {
	if a.fill != b.fill {
		return a.fill < b.fill
	}
	if a.deg != b.deg {
		return a.deg < b.deg
	}
	return a.v < b.v
}

// fillHeap is a binary min-heap of scores (stale entries are skipped when
// popped, not removed).
type fillHeap struct{ es []fillEntry }

func (h *fillHeap) push(e fillEntry) {
	h.es = append(h.es, e)
	i := len(h.es) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.es[i].less(h.es[p]) {
			break
		}
		h.es[i], h.es[p] = h.es[p], h.es[i]
		i = p
	}
}

func (h *fillHeap) pop() fillEntry {
	top := h.es[0]
	last := len(h.es) - 1
	h.es[0] = h.es[last]
	h.es = h.es[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.es) && h.es[l].less(h.es[m]) {
			m = l
		}
		if r < len(h.es) && h.es[r].less(h.es[m]) {
			m = r
		}
		if m == i {
			return top
		}
		h.es[i], h.es[m] = h.es[m], h.es[i]
		i = m
	}
}
