package approx

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// minFillTestWidth eliminates along order on the graph of scopes, independently
// of MinFillOrder's bookkeeping (an adjacency matrix), and returns the
// induced width.
func minFillTestWidth(card []int, scopes [][]int, order []int) int {
	n := len(card)
	adj := make([][]bool, n)
	for v := range adj {
		adj[v] = make([]bool, n)
	}
	for _, s := range scopes {
		for _, u := range s {
			for _, w := range s {
				if u != w && card[u] > 0 && card[w] > 0 {
					adj[u][w] = true
				}
			}
		}
	}
	gone := make([]bool, n)
	width := -1
	for _, v := range order {
		var nb []int
		for u := range n {
			if adj[v][u] && !gone[u] {
				nb = append(nb, u)
			}
		}
		width = max(width, len(nb))
		for _, a := range nb {
			for _, b := range nb {
				if a != b {
					adj[a][b] = true
				}
			}
		}
		gone[v] = true
	}
	return width
}

func TestMinFillOrder(t *testing.T) {
	grid := func(n int) (card []int, scopes [][]int) {
		card = make([]int, n*n)
		for v := range card {
			card[v] = 2
		}
		for i := range n {
			for j := range n {
				if j+1 < n {
					scopes = append(scopes, []int{i*n + j, i*n + j + 1})
				}
				if i+1 < n {
					scopes = append(scopes, []int{i*n + j, (i+1)*n + j})
				}
			}
		}
		return card, scopes
	}
	g5c, g5s := grid(5)
	g8c, g8s := grid(8)
	tests := []struct {
		name   string
		card   []int
		scopes [][]int
		width  int // the best width, which min-fill finds on these
	}{
		{"empty", nil, nil, -1},
		{"isolated", []int{2, 3}, nil, 0},
		{"chain", []int{2, 2, 2, 2}, [][]int{{0, 1}, {1, 2}, {2, 3}}, 1},
		{"star", []int{2, 2, 2, 2, 2}, [][]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}}, 1},
		{"cycle", []int{2, 2, 2, 2, 2}, [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}}, 2},
		{"clique", []int{2, 2, 2, 2}, [][]int{{0, 1, 2, 3}}, 3},
		{"observed middle", []int{2, 0, 2}, [][]int{{0, 1}, {1, 2}, {0, 2}}, 1},
		{"grid 5", g5c, g5s, 5},
		{"grid 8", g8c, g8s, 10}, // greedy min-fill misses the best width, 8
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order, width := MinFillOrder(tt.card, tt.scopes)
			var free []int
			for v, c := range tt.card {
				if c > 0 {
					free = append(free, v)
				}
			}
			got := slices.Sorted(slices.Values(order))
			if !slices.Equal(got, free) {
				t.Fatalf("order %v is not a permutation of %v", order, free)
			}
			if w := minFillTestWidth(tt.card, tt.scopes, order); w != width {
				t.Errorf("reported width %d, elimination along the order gives %d", width, w)
			}
			if width > tt.width {
				t.Errorf("width %d, want at most %d", width, tt.width)
			}
		})
	}
}

// minFillReference is min-fill written plainly on an adjacency matrix, every
// variable rescored at every step, with MinFillOrder's tie-breaking (least
// fill, then least degree, then least index).
func minFillReference(card []int, scopes [][]int) []int {
	n := len(card)
	adj := make([][]bool, n)
	for v := range adj {
		adj[v] = make([]bool, n)
	}
	for _, s := range scopes {
		for _, u := range s {
			for _, w := range s {
				if u != w && card[u] > 0 && card[w] > 0 {
					adj[u][w] = true
				}
			}
		}
	}
	gone := make([]bool, n)
	var order []int
	for {
		best, bf, bd := -1, 0, 0
		for v := range n {
			if gone[v] || card[v] <= 0 {
				continue
			}
			var nb []int
			for u := range n {
				if adj[v][u] && !gone[u] {
					nb = append(nb, u)
				}
			}
			f := 0
			for i, a := range nb {
				for _, b := range nb[i+1:] {
					if !adj[a][b] || len(nb) > MaxFillDegree {
						f++
					}
				}
			}
			if best < 0 || f < bf || f == bf && len(nb) < bd {
				best, bf, bd = v, f, len(nb)
			}
		}
		if best < 0 {
			return order
		}
		for u := range n {
			for w := range n {
				if u != w && adj[best][u] && adj[best][w] && !gone[u] && !gone[w] {
					adj[u][w] = true
				}
			}
		}
		gone[best] = true
		order = append(order, best)
	}
}

// TestMinFillOrderRandom: on random graphs the order is plain min-fill's,
// the reported width is the one elimination along the order gives, and the
// order is deterministic.
func TestMinFillOrderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 50 {
		n := 1 + r.IntN(30)
		card := make([]int, n)
		for v := range card {
			card[v] = r.IntN(4) // some 0: left out
		}
		var scopes [][]int
		for range r.IntN(3 * n) {
			k := 1 + r.IntN(min(4, n))
			scopes = append(scopes, r.Perm(n)[:k])
		}
		order, width := MinFillOrder(card, scopes)
		if w := minFillTestWidth(card, scopes, order); w != width {
			t.Fatalf("trial %d: reported width %d, elimination gives %d", trial, width, w)
		}
		if want := minFillReference(card, scopes); !slices.Equal(order, want) {
			t.Fatalf("trial %d: order %v, plain min-fill gives %v", trial, order, want)
		}
		again, _ := MinFillOrder(card, scopes)
		if !slices.Equal(order, again) {
			t.Fatalf("trial %d: two orders %v and %v", trial, order, again)
		}
	}
}
