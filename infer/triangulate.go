package infer

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// This file triangulates the moral graph for the junction tree: greedy
// elimination with several heuristics and seeded random tie-breaks, each
// giving a set of maximal cliques, of which the set with the smallest total
// table size is kept.

// jtHeuristic is a greedy triangulation heuristic.
type jtHeuristic int

const (
	jtMinFill         jtHeuristic = iota // fewest fill-in edges
	jtMinWeight                          // smallest clique table (product of the cardinalities of v and its neighbours)
	jtWeightedMinFill                    // smallest Σ card(a)·card(b) over the fill-in edges (a, b)
)

func (h jtHeuristic) String() string {
	switch h {
	case jtMinFill:
		return "min-fill"
	case jtMinWeight:
		return "min-weight"
	case jtWeightedMinFill:
		return "weighted-min-fill"
	}
	return "?"
}

// jtSeeds are the tie-break seeds tried with every heuristic; seed 0 breaks
// ties by clique weight and then by VarID (deterministic, like VE's orders).
var jtSeeds = []uint64{0, 1, 2}

// triangulation is the result of one greedy elimination run.
type triangulation struct {
	heuristic jtHeuristic
	seed      uint64       // 0: ties by weight then VarID; otherwise a random tie-break seeded with it
	order     []ir.VarID   // elimination order of every discrete variable
	cliques   [][]ir.VarID // the maximal cliques, each sorted by VarID, in order of creation
	sizes     []float64    // sizes[i]: entries of cliques[i]'s table
	total     float64      // Σ sizes
	width     int          // induced width: largest clique's variable count minus 1
}

// String names the heuristic and the seed, e.g. "min-fill (seed 2)".
func (t *triangulation) String() string {
	if t.seed == 0 {
		return t.heuristic.String()
	}
	return fmt.Sprintf("%s (random tie-break, seed %d)", t.heuristic, t.seed)
}

// moralGraph returns the discrete variables that take part in inference
// (ids, in VarID order; loc maps VarID to local index or -1), their
// cardinalities and the moral graph: two variables are adjacent when they
// share a factor's scope, which for a CPT joins a child to its parents and
// the parents to each other ("marrying" them).
func moralGraph(m *ir.Model) (ids []ir.VarID, loc []int, card []float64, adj []bitset) {
	loc = make([]int, len(m.Vars))
	for v := range m.Vars {
		loc[v] = -1
		if m.Discrete(ir.VarID(v)) {
			loc[v] = len(ids)
			ids = append(ids, ir.VarID(v))
			card = append(card, float64(len(m.Vars[v].States)))
		}
	}
	n := len(ids)
	adj = make([]bitset, n)
	for i := range adj {
		adj[i] = newBitset(n)
	}
	for _, f := range m.Factors() {
		for a, va := range f.Vars {
			for _, vb := range f.Vars[a+1:] {
				x, y := loc[va], loc[vb]
				if x < 0 || y < 0 {
					panic("infer: moralGraph: factor over a non-discrete variable")
				}
				if x != y {
					adj[x].set(y)
					adj[y].set(x)
				}
			}
		}
	}
	return ids, loc, card, adj
}

// triangulate runs greedy elimination with heuristic h on a copy of the
// graph adj (local indices, cardinalities card) and returns the maximal
// cliques. It gives up and returns nil as soon as the total table size
// exceeds bound.
func triangulate(h jtHeuristic, seed uint64, ids []ir.VarID, card []float64, adj0 []bitset, bound *sharedBound) *triangulation {
	n := len(ids)
	adj := make([]bitset, n)
	words := len(newBitset(n))
	store := make([]uint64, n*words)
	for i := range adj {
		adj[i] = store[i*words : (i+1)*words : (i+1)*words]
		copy(adj[i], adj0[i])
	}
	// tie[i] breaks ties between equal scores and weights.
	tie := make([]uint64, n)
	if seed == 0 {
		for i := range tie {
			tie[i] = uint64(i)
		}
	} else {
		rng := rand.New(rand.NewPCG(seed, 0x6a74))
		for i := range tie {
			tie[i] = rng.Uint64()
		}
	}
	score := make([]float64, n)
	weight := make([]float64, n)
	// rescore computes i's weight (the table size of i and its neighbours)
	// and score. With N the neighbours of i, S = Σ_{a∈N} card(a) and
	// in(a) = Σ card(b) over b ∈ N adjacent to a, the fill-in edges at a
	// number |N| - 1 - |N ∩ adj(a)| and weigh card(a)·(S - card(a) - in(a));
	// each fill edge is counted from both ends.
	rescore := func(i int) {
		nb := adj[i]
		w := card[i]
		sum := 0.0
		deg := 0
		eachBit(nb, func(a int) {
			w *= card[a]
			sum += card[a]
			deg++
		})
		f := 0.0
		if h != jtMinWeight {
			eachBit(nb, func(a int) {
				c, in := 0, 0.0
				for k := range nb {
					y := nb[k] & adj[a][k]
					if h == jtMinFill {
						c += bits.OnesCount64(y)
						continue
					}
					for y != 0 {
						in += card[k*64+bits.TrailingZeros64(y)]
						y &= y - 1
					}
				}
				if h == jtMinFill {
					f += float64(deg - 1 - c)
				} else {
					f += card[a] * (sum - card[a] - in)
				}
			})
			f /= 2
		} else {
			f = w
		}
		score[i], weight[i] = f, w
	}
	for i := range n {
		rescore(i)
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	t := &triangulation{heuristic: h, seed: seed, order: make([]ir.VarID, 0, n)}
	// byVar[i] lists the kept cliques (indexes into t.cliques) that contain
	// local variable i; a new clique C_v can only be a subset of a kept
	// clique created earlier that contains v.
	byVar := make([][]int32, n)
	var cl []bitset
	dirty := newBitset(n)
	grew := newBitset(n)
	cur := newBitset(n)
	for range n {
		best := -1
		for i := range n {
			if !alive[i] {
				continue
			}
			if best < 0 || score[i] < score[best] ||
				score[i] == score[best] && (weight[i] < weight[best] || weight[i] == weight[best] && tie[i] < tie[best]) {
				best = i
			}
		}
		t.order = append(t.order, ids[best])
		alive[best] = false
		nb := adj[best]
		copy(cur, nb)
		cur.set(best)
		maximal := true
		for _, k := range byVar[best] {
			if subset(cur, cl[k]) {
				maximal = false
				break
			}
		}
		if maximal {
			c := slices.Clone(cur)
			k := int32(len(cl))
			cl = append(cl, c)
			eachBit(c, func(i int) { byVar[i] = append(byVar[i], k) })
			t.total += weight[best]
			if t.total > bound.load() {
				return nil
			}
		}
		// Join the neighbours pairwise and detach best. The neighbours'
		// scores change; so may the score of a vertex adjacent to two
		// neighbours that were just joined, so the neighbours of every
		// neighbour that gained an edge are rescored too.
		clear(dirty)
		copy(grew, dirty)
		eachBit(nb, func(a int) {
			gained := false
			for w := range nb {
				x := nb[w] &^ adj[a][w]
				if w == a>>6 {
					x &^= 1 << (uint(a) & 63)
				}
				if x != 0 {
					gained = true
				}
				adj[a][w] |= nb[w]
			}
			adj[a].clear(a)
			adj[a].clear(best)
			dirty.set(a)
			if gained {
				grew.set(a)
			}
		})
		if h != jtMinWeight {
			eachBit(grew, func(a int) {
				for w := range dirty {
					dirty[w] |= adj[a][w]
				}
			})
		}
		eachBit(dirty, func(i int) {
			if alive[i] {
				rescore(i)
			}
		})
	}
	for _, c := range cl {
		var vs []ir.VarID
		size := 1.0
		eachBit(c, func(i int) {
			vs = append(vs, ids[i])
			size *= card[i]
		})
		t.cliques = append(t.cliques, vs)
		t.sizes = append(t.sizes, size)
		t.width = max(t.width, len(vs)-1)
	}
	return t
}

// subset reports whether a ⊆ b.
func subset(a, b bitset) bool {
	for i, x := range a {
		if x&^b[i] != 0 {
			return false
		}
	}
	return true
}

// bestTriangulation tries every heuristic with every seed and returns the
// triangulation with the smallest total clique-table size (the first in
// heuristic, then seed order, among equals). The runs share the work of
// the available cores; a run stops as soon as its total exceeds the best
// finished so far. The abort is strict, so every run that ties the best
// finishes, and the choice does not depend on scheduling.
func bestTriangulation(m *ir.Model) (*triangulation, []int) {
	triangulations.Add(1)
	ids, loc, card, adj := moralGraph(m)
	type run struct {
		h jtHeuristic
		s uint64
	}
	var runs []run
	for _, h := range []jtHeuristic{jtMinFill, jtMinWeight, jtWeightedMinFill} {
		for _, s := range jtSeeds {
			runs = append(runs, run{h, s})
		}
	}
	results := make([]*triangulation, len(runs))
	bound := newBound(math.Inf(1))
	par.For(len(runs), func(i int) {
		if t := triangulate(runs[i].h, runs[i].s, ids, card, adj, bound); t != nil {
			results[i] = t
			bound.lower(t.total)
		}
	})
	var best *triangulation
	for _, t := range results {
		if t != nil && (best == nil || t.total < best.total) {
			best = t
		}
	}
	if best == nil {
		// Only possible with no discrete variables at all.
		best = &triangulation{}
	}
	return best, loc
}

// triangulations counts the calls of bestTriangulation, so that tests can
// tell whether a junction tree was triangulated again.
var triangulations atomic.Int64

// sharedBound is the smallest total table size found so far, shared by
// concurrent triangulation runs.
type sharedBound struct{ bits atomic.Uint64 }

func newBound(x float64) *sharedBound {
	b := &sharedBound{}
	b.bits.Store(math.Float64bits(x))
	return b
}

func (b *sharedBound) load() float64 { return math.Float64frombits(b.bits.Load()) }

// lower sets the bound to x if x is smaller.
func (b *sharedBound) lower(x float64) {
	for {
		old := b.bits.Load()
		if !(x < math.Float64frombits(old)) || b.bits.CompareAndSwap(old, math.Float64bits(x)) {
			return
		}
	}
}
