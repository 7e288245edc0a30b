package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// This file triangulates the moral graph for the junction tree: greedy
// elimination (elim.go) with several heuristics and seeded random
// tie-breaks, each giving a set of maximal cliques and a clique tree, of
// which the set with the smallest total table size is kept.

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

func (h jtHeuristic) kind() scoreKind {
	switch h {
	case jtMinWeight:
		return scoreWeight
	case jtWeightedMinFill:
		return scoreWeightedFill
	}
	return scoreFill
}

// jtSeeds are the tie-break seeds tried with every heuristic; seed 0 breaks
// ties by clique weight and then by VarID (deterministic, like VE's orders).
var jtSeeds = []uint64{0, 1, 2}

// jtMoreSeeds are the further seeds tried with min-fill and weighted
// min-fill when the best of the first runs has more than jtMoreFrom
// entries: on such a tree each evidence set costs far more than a run
// (link: 26.8 M entries with min-fill's seed 15 against 28.6 M).
var (
	jtMoreSeeds = []uint64{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	jtMoreFrom  = float64(1 << 22)
)

// triangulation is the result of one greedy elimination run.
type triangulation struct {
	heuristic jtHeuristic
	seed      uint64       // 0: ties by weight then VarID; otherwise a random tie-break seeded with it
	order     []ir.VarID   // elimination order of every discrete variable
	cliques   [][]ir.VarID // the maximal cliques, each sorted by VarID, in order of creation
	sizes     []float64    // sizes[i]: entries of cliques[i]'s table
	edges     [][2]int32   // the clique tree (a forest: one tree per connected component)
	total     float64      // Σ sizes
	width     int          // induced width: largest clique's variable count minus 1
	runs      int          // the number of runs it was chosen from
}

// String names the heuristic and the seed, e.g. "min-fill (seed 2)".
func (t *triangulation) String() string {
	if t.seed == 0 {
		return t.heuristic.String()
	}
	return fmt.Sprintf("%s (random tie-break, seed %d)", t.heuristic, t.seed)
}

// moral is the moral graph of a model's discrete variables.
type moral struct {
	ids  []ir.VarID // local index -> VarID, in VarID order
	loc  []int      // VarID -> local index, -1 outside inference
	card []float64  // card[i]: states of ids[i]
	g    *elimGraph // the graph, to be cloned by each run
}

// moralGraph returns the discrete variables that take part in inference
// and the moral graph: two variables are adjacent when they share a
// factor's scope, which for a CPT joins a child to its parents and the
// parents to each other ("marrying" them).
func moralGraph(m *ir.Model) *moral {
	mg := &moral{loc: make([]int, len(m.Vars))}
	for v := range m.Vars {
		mg.loc[v] = -1
		if m.Discrete(ir.VarID(v)) {
			mg.loc[v] = len(mg.ids)
			mg.ids = append(mg.ids, ir.VarID(v))
			mg.card = append(mg.card, float64(len(m.Vars[v].States)))
		}
	}
	var edges [][2]int32
	for _, f := range m.Factors() {
		for a, va := range f.Vars {
			for _, vb := range f.Vars[a+1:] {
				x, y := mg.loc[va], mg.loc[vb]
				if x < 0 || y < 0 {
					panic("infer: moralGraph: factor over a non-discrete variable")
				}
				edges = append(edges, [2]int32{int32(x), int32(y)})
			}
		}
	}
	mg.g = newElimGraph(scoreWeightedFill, true, mg.card, nil, edges) // every counter, for the runs to copy
	return mg
}

// overLimit is a triangulation run stopped at a clique larger than the
// table limit.
type overLimit struct {
	clique []ir.VarID
	size   float64
}

// triangulate runs greedy elimination with heuristic h on a copy of the
// moral graph and returns the maximal cliques and the clique tree. It
// gives up and returns nil as soon as the total table size exceeds bound,
// or a clique exceeds limit entries (returning that clique as well), or
// the computation is canceled.
//
// The clique tree is the elimination tree contracted to the maximal
// cliques. Eliminating v creates C_v = {v} ∪ N(v); v's parent is the first
// vertex of N(v) eliminated after it, and C_w \ {w} ⊆ C_v for every child
// w of v. So C_v is a subset of an earlier clique exactly when some child
// w has |C_w| = |C_v| + 1 (then C_v ⊂ C_w), and it is then merged into
// that child's clique; joining each clique to its parent's gives a tree
// with the running-intersection property, in time linear in Σ|C_v|.
func triangulate(h jtHeuristic, seed uint64, mg *moral, bound *sharedBound, limit float64, k *factor.Kernel) (*triangulation, *overLimit) {
	n := len(mg.ids)
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
	g := mg.g.clone(h.kind(), tie)
	t := &triangulation{heuristic: h, seed: seed, order: make([]ir.VarID, 0, n)}
	size := make([]int32, n)   // |C_v|
	parent := make([]int32, n) // parent in the elimination tree, -1 for none (yet)
	rep := make([]int32, n)    // the kept clique that holds C_v
	// The eliminated vertices with v in their clique, whose parent may be
	// v, are a list through one block: head[v], then next[i] after the
	// entry i, whose vertex is who[i] (-1 ends a list).
	head := make([]int32, n)
	var who, next []int32
	for i := range parent {
		parent[i], head[i] = -1, -1
	}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	var over *overLimit
	done := g.run([][]int32{all}, func(x int32, nb []int32) bool {
		if k.Poll() {
			return false
		}
		t.order = append(t.order, mg.ids[x])
		size[x] = int32(len(nb) + 1)
		kept := true
		for i := head[x]; i >= 0; i = next[i] {
			if w := who[i]; parent[w] < 0 {
				parent[w] = x
				if kept && size[w] == size[x]+1 {
					kept = false
					rep[x] = rep[w]
				}
			}
		}
		for _, a := range nb {
			who, next = append(who, x), append(next, head[a])
			head[a] = int32(len(who) - 1)
		}
		if !kept {
			return true
		}
		rep[x] = int32(len(t.cliques))
		vs := make([]ir.VarID, 0, len(nb)+1)
		i, _ := slices.BinarySearch(nb, x)
		for _, a := range nb[:i] {
			vs = append(vs, mg.ids[a])
		}
		vs = append(vs, mg.ids[x])
		for _, a := range nb[i:] {
			vs = append(vs, mg.ids[a])
		}
		w := g.weight[x]
		t.cliques = append(t.cliques, vs)
		t.sizes = append(t.sizes, w)
		t.width = max(t.width, len(vs)-1)
		t.total += w
		if w > limit {
			over = &overLimit{clique: vs, size: w}
			return false
		}
		return t.total <= bound.load()
	})
	if !done {
		return nil, over
	}
	for v, p := range parent {
		if p >= 0 && rep[v] != rep[p] {
			t.edges = append(t.edges, [2]int32{rep[v], rep[p]})
		}
	}
	return t, nil
}

// bestTriangulation tries every heuristic with every seed (jtSeeds, and
// jtMoreSeeds on large trees) and returns the triangulation with the
// smallest total clique-table size (the first in run order among
// equals). The runs share the work of
// the available cores; a run stops as soon as its total exceeds the best
// finished so far. The abort is strict, so every run that ties the best
// finishes, and the choice does not depend on scheduling.
//
// A run also stops at a clique of more than limit entries, which the tree
// could not hold; if every run stops so, bestTriangulation returns no
// triangulation and the smallest such clique met. It returns neither when
// k is canceled.
func bestTriangulation(m *ir.Model, limit float64, k *factor.Kernel) (*triangulation, []int, *overLimit) {
	triangulations.Add(1)
	mg := moralGraph(m)
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
	overs := make([]*overLimit, len(runs))
	bound := newBound(math.Inf(1))
	try := func(from int) {
		par.For(len(runs)-from, func(i int) {
			i += from
			t, over := triangulate(runs[i].h, runs[i].s, mg, bound, limit, k.Fork())
			if t != nil {
				results[i] = t
				bound.lower(t.total)
			}
			overs[i] = over
		})
	}
	try(0)
	if b := bound.load(); b > jtMoreFrom && !math.IsInf(b, 1) {
		n := len(runs)
		for _, h := range []jtHeuristic{jtMinFill, jtWeightedMinFill} {
			for _, s := range jtMoreSeeds {
				runs = append(runs, run{h, s})
			}
		}
		results = append(results, make([]*triangulation, len(runs)-n)...)
		overs = append(overs, make([]*overLimit, len(runs)-n)...)
		try(n)
	}
	if k.CanceledNow() {
		return nil, mg.loc, nil
	}
	var best *triangulation
	for _, t := range results {
		if t != nil && (best == nil || t.total < best.total) {
			best = t
		}
	}
	if best != nil {
		best.runs = len(runs)
	}
	if best == nil {
		var over *overLimit
		for _, o := range overs {
			if o != nil && (over == nil || o.size < over.size) {
				over = o
			}
		}
		if over != nil {
			return nil, mg.loc, over
		}
		// Only possible with no discrete variables at all.
		best = &triangulation{}
	}
	return best, mg.loc, nil
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
