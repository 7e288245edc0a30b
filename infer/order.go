package infer

import (
	"fmt"
	"math/bits"

	"github.com/pbl-lang/pbl/ir"
)

// Heuristic is a greedy elimination-order heuristic for variable
// elimination.
type Heuristic int

const (
	MinFill   Heuristic = iota // fewest fill-in edges; ties by weight, then VarID
	MinWeight                  // smallest product of neighbour cardinalities; ties by VarID
)

func (h Heuristic) String() string {
	switch h {
	case MinFill:
		return "min-fill"
	case MinWeight:
		return "min-weight"
	}
	return "?"
}

// ParseHeuristic parses "min-fill" or "min-weight" (also "minfill",
// "minweight").
func ParseHeuristic(s string) (Heuristic, error) {
	switch s {
	case "min-fill", "minfill":
		return MinFill, nil
	case "min-weight", "minweight":
		return MinWeight, nil
	}
	return 0, fmt.Errorf("unknown elimination order %q (want min-fill or min-weight)", s)
}

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset         { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool      { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int)           { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int)         { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) each(fn func(i int)) { eachBit(b, fn) }
func eachBit(b bitset, fn func(i int)) {
	for w, x := range b {
		for x != 0 {
			t := bits.TrailingZeros64(x)
			fn(w*64 + t)
			x &= x - 1
		}
	}
}

// elimOrder returns a greedy elimination order of the variables in stages:
// every variable of stages[0] first, then those of stages[1], and so on (MAP
// sums out the non-MAP variables before maximising the MAP ones). The
// interaction graph joins every two variables that share a scope in
// scopes; variables that appear in scopes but in no stage stay in the graph
// and are never eliminated. card[v] is the cardinality of VarID v.
//
// At each step the variable with the lowest score in the current stage is
// eliminated and its neighbours are joined pairwise. The score is the number
// of fill-in edges (MinFill) or the product of the neighbours'
// cardinalities (MinWeight); ties go to the lower weight and then to the
// lower VarID, so the order is deterministic. After an elimination only the
// neighbours of the eliminated variable and their neighbours can change
// score, so only those are rescored.
func elimOrder(h Heuristic, card []int, scopes [][]ir.VarID, stages ...[]ir.VarID) []ir.VarID {
	// Number the variables that occur: local index i <-> VarID ids[i].
	loc := map[ir.VarID]int{}
	var ids []ir.VarID
	add := func(v ir.VarID) int {
		if i, ok := loc[v]; ok {
			return i
		}
		loc[v] = len(ids)
		ids = append(ids, v)
		return len(ids) - 1
	}
	for _, st := range stages {
		for _, v := range st {
			add(v)
		}
	}
	for _, s := range scopes {
		for _, v := range s {
			add(v)
		}
	}
	n := len(ids)
	adj := make([]bitset, n)
	for i := range adj {
		adj[i] = newBitset(n)
	}
	for _, s := range scopes {
		for a := range s {
			for b := a + 1; b < len(s); b++ {
				x, y := loc[s[a]], loc[s[b]]
				if x != y {
					adj[x].set(y)
					adj[y].set(x)
				}
			}
		}
	}
	stage := make([]int, n)
	for i := range stage {
		stage[i] = -1
	}
	for k, st := range stages {
		for _, v := range st {
			stage[loc[v]] = k
		}
	}
	fill := make([]int, n)
	weight := make([]float64, n)
	score := func(i int) {
		w := 1.0
		f := 0
		adj[i].each(func(a int) {
			w *= float64(card[ids[a]])
			if h == MinFill {
				// Neighbours of i that are not neighbours of a (nor a itself).
				for k := range adj[i] {
					x := adj[i][k] &^ adj[a][k]
					f += bits.OnesCount64(x)
				}
				f-- // a itself
			}
		})
		fill[i] = f / 2
		weight[i] = w
	}
	for i := 0; i < n; i++ {
		if stage[i] >= 0 {
			score(i)
		}
	}
	dirty := newBitset(n)
	order := make([]ir.VarID, 0, n)
	for k := range stages {
		for {
			best := -1
			for i := 0; i < n; i++ {
				if stage[i] != k {
					continue
				}
				if best < 0 || better(h, fill[i], weight[i], ids[i], fill[best], weight[best], ids[best]) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			order = append(order, ids[best])
			stage[best] = -2 // eliminated
			// Join the neighbours pairwise and detach best.
			nb := adj[best]
			for i := range dirty {
				dirty[i] = 0
			}
			nb.each(func(a int) {
				for w := range nb {
					adj[a][w] |= nb[w]
				}
				adj[a].clear(a)
				adj[a].clear(best)
				dirty.set(a)
			})
			nb.each(func(a int) {
				for w := range dirty {
					dirty[w] |= adj[a][w]
				}
			})
			dirty.each(func(i int) {
				if stage[i] >= 0 {
					score(i)
				}
			})
		}
	}
	return order
}

// better reports whether candidate a beats candidate b.
func better(h Heuristic, fa int, wa float64, va ir.VarID, fb int, wb float64, vb ir.VarID) bool {
	if h == MinFill && fa != fb {
		return fa < fb
	}
	if wa != wb {
		return wa < wb
	}
	return va < vb
}
