package approx

import "slices"

// This file is the elimination order the cluster-based algorithms share:
// greedy min-fill on the problem's interaction graph, kept as flat
// adjacency lists.
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
// their neighbours are rescored, and a step's choice is a scan over the
// variables left, so the whole order takes O(n² + Σ d³) time and O(n + e)
// words, e the number of edges as they grow.

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
		stamp++
		nb := adj[v]
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
	for ; left > 0; left-- {
		best := -1
		for v := range n {
			if !alive[v] {
				continue
			}
			if best < 0 || fill[v] < fill[best] || fill[v] == fill[best] && len(adj[v]) < len(adj[best]) {
				best = v
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
				}
			}
			if dirty[u] {
				dirty[u] = false
				fill[u] = score(int(u))
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
