package infer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// DefaultMaxMemory is the default limit on the memory a junction tree may
// use: its clique tables, their working copies, separators and index maps
// (8 GiB).
const DefaultMaxMemory = 8 << 30

func (o Options) maxMemory() int64 {
	if o.MaxMemory <= 0 {
		return DefaultMaxMemory
	}
	return o.MaxMemory
}

// JTree is a junction tree compiled from a model: the cliques of a
// triangulation of its moral graph, joined into a tree, with the model's
// factors multiplied into the clique tables and the index maps of every
// separator precomputed. It answers any number of queries; each new
// evidence set costs one calibration. A JTree is safe for concurrent use
// (each query takes a private workspace).
//
// A tree is its structure, which depends only on the model's graph and
// numbers of states, and its numbers. [JTree.WithModel] gives another
// model with the same structure (the next step of EM, say) a tree that
// shares the structure and costs one product of factors.
type JTree struct {
	*jtStructure
	m       *ir.Model
	init    []float64     // the product of the factors assigned to each clique, rescaled
	initExp int           // Π (init tables) = Π factors · 2^-initExp (exact)
	konst   factor.Scaled // product of the model's constant (empty-scope) factors
	lost    bool          // a product in init fell below the normal range: answer by exact VE
	initLo  []float64     // initLo[c]: a lower bound of the smallest nonzero entry of clique c's initial table

	zmu sync.Mutex
	z   factor.Scaled // the partition function (no evidence), once zok
	zok bool

	mu   sync.Mutex
	free []*jtWork // idle workspaces

	clean jtClean // the collect messages without evidence (jtclean.go)
}

// jtStructure is everything in a junction tree that does not depend on the
// model's numbers: the triangulation, the cliques and the clique tree, the
// index maps, and which clique each factor multiplies into. It is never
// modified after it is built, and shared by the trees WithModel derives.
type jtStructure struct {
	tri *triangulation

	bayes  bool         // the model is a Bayesian network (its factors are families)
	card   []int        // card[v]: v's number of states when compiled, 0 for a real variable
	scopes [][]ir.VarID // scopes[i]: the scope of the model's factor i (ir.Model.Factors order)
	cfac   [][]int32    // cfac[c]: the factors multiplied into clique c, in factor order
	konstF []int32      // the factors with an empty scope (constants), in factor order

	cvars   [][]ir.VarID // cvars[c]: clique c's variables, sorted by VarID
	ccard   [][]int
	cstride [][]int
	off     []int // clique c's table is [off[c], off[c+1]) of the flat arrays

	order   []int32   // cliques in breadth-first order from the root order[0]
	parent  []int32   // parent[c], -1 for the root
	kids    [][]int32 // kids[c]: c's children, in order
	sepOff  []int     // the separator between c and parent[c] is [sepOff[c], sepOff[c]+sepLen[c]) of the separator buffer
	sepLen  []int     //
	sepTot  int       // total separator entries
	maxSep  int       // entries of the largest separator
	maxVars int       // variables of the largest clique (by variables)
	maxBlk  int       // entries of the largest block

	// The blocked index maps (jtedge.go).
	nin  []int    // nin[c]: clique c's inner variables (its last ones)
	blk  []int    // blk[c]: entries of a block of clique c
	up   []sepMap // up[c]: clique c onto the separator towards its parent
	down []sepMap // down[c]: parent[c] onto that separator

	varCl [][]varPos // varCl[v]: the cliques holding v, and v's position in each
	cut   jtChunks   // the tree cut for the parallel passes (jtpar.go)

	home    []int32 // home[v]: the smallest clique containing v, or -1 for a variable outside inference
	isHome  []bool  // isHome[c]: c is some variable's home
	hstride []int   // hstride[v]: v's stride in home[v]
	hcard   []int   // hcard[v]: v's cardinality

	fam    []family // fam[v]: where v's family posterior is read
	maxFam int      // entries of the largest family table

	memory int64 // bytes of the compiled tree and one workspace
	limit  int64 // the memory limit it was compiled under (Options.MaxMemory): what memory leaves of it may keep collect tables (jtclean.go)
}

// family says where the posterior of a variable's family (its factor
// m.Factor(v), over (parents..., v)) is read off a calibrated tree.
type family struct {
	clique int32   // the smallest clique containing the family, the one its factor multiplies into; -1 if v has no family
	n      int     // entries of the family table
	idx    []int32 // idx[i]: the family entry of the clique's entry i; nil when the clique is the family in the same layout
}

// jtWork is the per-query state of a junction tree: working copies of the
// clique tables and separators, and what they currently hold.
type jtWork struct {
	lo     []float64 // lo[c]: a lower bound on clique c's smallest nonzero entry
	pot    []float64 // clique tables
	sep    []float64 // separators: the collect messages
	dsep   []float64 // separators: the distribute messages, as ratios new/old
	smin   []float64 // smin[c]: the smallest nonzero entry of the collect message c sent (normalised)
	tmin   []float64 // tmin[c]: the smallest nonzero ratio c received in distribute
	cexp   []int     // cexp[c]: the exponent taken off the message c sent
	clost  []bool    // clost[c]: a product in clique c fell below the normal range
	fast   []bool    // fast[c]: c's last collect took the unchecked path (collectClique)
	scaled []bool    // scaled[c]: c's last collect rescaled its table (send)
	skip   []bool    // skip[c]: c's collect copies its message without evidence (jtclean.go)
	fill   bool      // the distribute pass may fill the kept collect tables (jtclean.go)
	dirty  []bool    // markSkip's scratch: the restricted cliques and their ancestors
	chosen []int     // max-product traceback: chosen entry of each clique
	obs    []int     // the evidence loaded (VarID-indexed state or -1)
	state  jtState
	z      float64 // after a collect: the root's sum (or max) ...
	exp    int     // ... times 2^exp is P(e) (or the max), before konst
	lost   bool    // a product of the calibration fell below the normal range: answer by exact VE
	loaded bool    // pot holds the initial tables with the evidence (load), rather than init being read with the restrictions

	// The evidence as restrictions of cliques (jtedge.go).
	fixHead []int32 // fixHead[c]: c's first entry in fixes, -1 for none
	fixes   []jtFix
	fixed   []int32 // the cliques with a restriction

	par jtPar // the parallel calibration's state (jtpar.go)
}

type jtState int

const (
	jtEmpty      jtState = iota
	jtCollected          // sum-product collect done: z, exp valid
	jtCalibrated         // sum-product collect and distribute done
	jtHomes              // sum-product collect and distribute done, only the home cliques' tables written
	jtMaxed              // max-product collect done
)

// jtPlan is a compilation before any table is allocated: the chosen
// triangulation and the clique tree.
type jtPlan struct {
	tri     *triangulation
	loc     []int // VarID -> local index (moralGraph), -1 outside inference
	cliques [][]ir.VarID
	parent  []int32
	order   []int32
	sepVars [][]ir.VarID // sepVars[c]: separator between c and parent[c]
	assign  []int32      // assign[i]: the clique factor i (of m.Factors) multiplies into, -1 for a constant
	entries float64      // clique-table entries
	sepEnt  float64      // separator entries
	memory  float64      // bytes
	largest int          // index of the largest clique
}

// plan triangulates m and builds the clique tree: a maximum spanning tree
// (Kruskal) of the clique graph weighted by the number of shared
// variables, which for the maximal cliques of a chordal graph has the
// running-intersection property, or, when the clique graph has too many
// edges, the elimination tree (see triangulate). There is one root:
// cliques in different connected components are joined by empty
// separators. A triangulation run stops at a clique over limit entries;
// plan returns the *TooLargeError when every run does, and the error of
// kind ErrCanceled when k is canceled.
func plan(m *ir.Model, limit float64, k *factor.Kernel) (*jtPlan, error) {
	tri, loc, over := bestTriangulation(m, limit, k)
	if k.CanceledNow() {
		return nil, ErrCanceled
	}
	if over != nil {
		return nil, cliqueTooLarge(m, over.clique, over.size, limit)
	}
	p := &jtPlan{tri: tri, loc: loc, cliques: tri.cliques}
	if len(p.cliques) == 0 {
		p.cliques = [][]ir.VarID{nil} // a model without discrete variables: one empty clique
	}
	k0 := len(p.cliques)
	n := 0
	for _, l := range loc {
		if l >= 0 {
			n++
		}
	}
	byVar := make([][]int32, n)
	for c, vs := range p.cliques {
		for _, v := range vs {
			byVar[loc[v]] = append(byVar[loc[v]], int32(c))
		}
	}
	uf := make([]int32, k0)
	for i := range uf {
		uf[i] = int32(i)
	}
	find := func(x int32) int32 {
		for uf[x] != x {
			uf[x] = uf[uf[x]]
			x = uf[x]
		}
		return x
	}
	adj := make([][]int32, k0)
	link := func(a, b int32) {
		uf[find(a)] = find(b)
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	if pairs := cliquePairs(byVar); pairs <= kruskalPairs {
		// Kruskal: a maximum spanning tree of the clique graph, weighted
		// by the number of shared variables, the heaviest edges first
		// (ties in the order the pairs are met).
		type edge struct {
			w    int
			a, b int32
		}
		var edges []edge
		stamp := make([]int32, k0)
		for i := range stamp {
			stamp[i] = -1
		}
		for a := range k0 {
			for _, v := range p.cliques[a] {
				for _, b := range byVar[loc[v]] {
					if int(b) > a && stamp[b] != int32(a) {
						stamp[b] = int32(a)
						edges = append(edges, edge{countCommon(p.cliques[a], p.cliques[b]), int32(a), b})
					}
				}
			}
		}
		slices.SortStableFunc(edges, func(x, y edge) int { return y.w - x.w })
		for _, e := range edges {
			if find(e.a) != find(e.b) {
				link(e.a, e.b)
			}
		}
	} else {
		// Too many pairs (a variable in thousands of cliques): the
		// triangulation's elimination tree, also a maximum spanning tree
		// (every clique tree of a chordal graph has the same separators),
		// found in linear time.
		for _, e := range tri.edges {
			link(e[0], e[1])
		}
	}
	for c := 1; c < k0; c++ {
		if find(int32(c)) != find(0) {
			link(0, int32(c))
		}
	}
	sizes := make([]float64, k0)
	for c := range k0 {
		sizes[c] = cliqueSize(m, p.cliques[c])
		p.entries += sizes[c]
		if sizes[c] > sizes[p.largest] {
			p.largest = c
		}
	}
	// Breadth-first from the centre of the tree.
	root := centre(adj, sizes)
	p.parent = make([]int32, k0)
	p.parent[root] = -1
	p.order = append(make([]int32, 0, k0), root)
	seen := make([]bool, k0)
	seen[root] = true
	for i := 0; i < len(p.order); i++ {
		c := p.order[i]
		for _, d := range adj[c] {
			if !seen[d] {
				seen[d] = true
				p.parent[d] = c
				p.order = append(p.order, d)
			}
		}
	}
	p.sepVars = make([][]ir.VarID, k0)
	maps := 0.0
	for c := range k0 {
		if pa := p.parent[c]; pa >= 0 {
			p.sepVars[c] = intersectSorted(p.cliques[c], p.cliques[pa])
			p.sepEnt += cliqueSize(m, p.sepVars[c])
			maps += mapSize(m, p.cliques[c], sizes[c]) + mapSize(m, p.cliques[pa], sizes[pa])
		}
	}
	// Each factor multiplies into the smallest clique that contains its
	// scope (the first such, in clique order), found among the cliques of
	// the scope's variable that is in fewest. A family's posterior is read
	// off that clique through an index map, unless the clique is the
	// family in the same layout.
	fs := m.Factors()
	p.assign = make([]int32, len(fs))
	for i, f := range fs {
		p.assign[i] = -1
		if len(f.Vars) == 0 {
			continue
		}
		few := byVar[loc[f.Vars[0]]]
		for _, v := range f.Vars[1:] {
			if l := byVar[loc[v]]; len(l) < len(few) {
				few = l
			}
		}
		for _, c := range few {
			if best := p.assign[i]; (best < 0 || sizes[c] < sizes[best]) && containsAll(p.cliques[c], f.Vars) {
				p.assign[i] = c
			}
		}
		if p.assign[i] < 0 {
			panic("infer: Compile: no clique contains a factor's scope")
		}
	}
	for _, i := range families(m, fs) {
		if i >= 0 && !slices.Equal(p.cliques[p.assign[i]], fs[i].Vars) {
			maps += sizes[p.assign[i]]
		}
	}
	// init and pot (8 bytes each per entry), the two messages of every
	// separator, and the int32 index maps (separators and families).
	p.memory = 16*p.entries + 16*p.sepEnt + 4*maps
	return p, nil
}

// centre returns the clique of the tree adj (with clique sizes sizes) from
// which the heaviest path to a leaf, in entries, is lightest: the root
// from which a calibration on several cores waits least on a chain of
// cliques (the first such clique, in index order).
func centre(adj [][]int32, sizes []float64) int32 {
	k := len(adj)
	// Rooted at 0: down[c] is the heaviest path from c down to a leaf.
	parent := make([]int32, k)
	order := append(make([]int32, 0, k), 0)
	parent[0] = -1
	for i := 0; i < len(order); i++ {
		c := order[i]
		for _, d := range adj[c] {
			if d != parent[c] {
				parent[d] = c
				order = append(order, d)
			}
		}
	}
	down := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		c := order[i]
		down[c] += sizes[c]
		if pa := parent[c]; pa >= 0 {
			down[pa] = max(down[pa], down[c])
		}
	}
	// up[c]: the heaviest path from c's parent away from c.
	up := make([]float64, k)
	best, bestC := math.Inf(1), int32(0)
	for _, c := range order {
		b1, b2 := up[c], 0.0 // the two heaviest paths leaving c, other than through itself
		for _, d := range adj[c] {
			if d == parent[c] {
				continue
			}
			if x := down[d]; x > b1 {
				b1, b2 = x, b1
			} else if x > b2 {
				b2 = x
			}
		}
		if far := sizes[c] + b1; far < best || far == best && c < bestC {
			best, bestC = far, c
		}
		for _, d := range adj[c] {
			if d == parent[c] {
				continue
			}
			other := b1
			if down[d] == b1 {
				other = b2
			}
			up[d] = sizes[c] + other
		}
	}
	return bestC
}

// mapSize is the number of entries of a blocked map (jtedge.go) of the
// clique over vs, of size entries, onto a separator.
func mapSize(m *ir.Model, vs []ir.VarID, size float64) float64 {
	blk := 1.0
	for i := len(vs) - 1; i >= 0 && blk < blockMin; i-- {
		blk *= float64(len(m.Vars[vs[i]].States))
	}
	return blk + size/blk
}

// kruskalPairs is the most pairs of cliques sharing a variable for which
// plan builds the clique tree by Kruskal's algorithm.
var kruskalPairs = float64(1 << 20)

// cliquePairs returns the number of pairs of cliques that share a
// variable, counted once per shared variable, from the cliques of each
// variable (byVar).
func cliquePairs(byVar [][]int32) float64 {
	n := 0.0
	for _, l := range byVar {
		n += float64(len(l)) * float64(len(l)-1) / 2
	}
	return n
}

// countCommon returns the number of variables common to a and b, both
// sorted.
func countCommon(a, b []ir.VarID) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// intersectSorted returns the variables common to a and b, both sorted.
func intersectSorted(a, b []ir.VarID) []ir.VarID {
	var out []ir.VarID
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// families returns, for every variable v of m, the index in fs (m's
// factors) of v's family factor m.Factor(v), or -1 if v has none.
func families(m *ir.Model, fs []*ir.Factor) []int {
	out := make([]int, len(m.Vars))
	i := 0
	for v := range out {
		out[v] = -1
		f := m.Factor(ir.VarID(v))
		if f == nil {
			continue
		}
		for i < len(fs) && fs[i] != f {
			i++
		}
		if i == len(fs) {
			panic("infer: a family is not among the model's factors, in variable order")
		}
		out[v] = i
	}
	return out
}

// cliqueSize returns the number of entries of a table over vs, as a float64
// (which does not overflow).
func cliqueSize(m *ir.Model, vs []ir.VarID) float64 {
	s := 1.0
	for _, v := range vs {
		s *= float64(len(m.Vars[v].States))
	}
	return s
}

// check refuses a plan whose largest clique exceeds MaxTable entries or
// whose memory exceeds MaxMemory, before anything is allocated. The error,
// if any, is a *TooLargeError.
func (p *jtPlan) check(m *ir.Model, opt Options) error {
	big := p.cliques[p.largest]
	size := cliqueSize(m, big)
	if limit := cliqueLimit(opt); size > limit {
		return cliqueTooLarge(m, big, size, limit)
	}
	if limit := opt.maxMemory(); p.memory > float64(limit) {
		e := &TooLargeError{What: OversizeMemory, Vars: slices.Clone(big), Size: p.memory, Limit: limit, Instead: VE}
		e.msg = fmt.Sprintf("junction tree needs %s of memory (%s clique-table entries; the largest clique has %s (%s) and %s entries), more than the limit of %s; "+
			"use variable elimination", bytesString(p.memory), sizeFloat(p.entries), ir.Plural(len(big), "variable"), varList(m, big), sizeFloat(size), bytesString(float64(limit)))
		return e
	}
	return nil
}

// cliqueLimit is the most entries a clique may have under opt.
func cliqueLimit(opt Options) float64 {
	return float64(min(opt.maxTable(), ir.MaxTableSize-1))
}

// cliqueTooLarge returns the refusal of a clique over vs of size entries.
func cliqueTooLarge(m *ir.Model, vs []ir.VarID, size, limit float64) error {
	e := &TooLargeError{What: OversizeClique, Vars: slices.Clone(vs), Size: size, Limit: int64(limit), Instead: VE}
	e.msg = fmt.Sprintf("junction tree needs a clique over %s (%s) with %s entries, more than the limit of %d; "+
		"use variable elimination or raise the table limit", ir.Plural(len(vs), "variable"), varList(m, vs), sizeFloat(size), int64(limit))
	return e
}

func sizeFloat(x float64) string {
	if x < 1<<53 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func bytesString(b float64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(b/(1<<20), 'f', 1, 64) + " MiB"
	case b >= 1<<10:
		return strconv.FormatFloat(b/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}

// Compile builds the junction tree of m's discrete variables. It tries every
// triangulation heuristic (min-fill, min-weight, weighted-min-fill, each
// with seeded random tie-breaks), keeps the one with the smallest total
// clique-table size, and refuses, before allocating anything, a tree whose
// largest clique exceeds opt.MaxTable entries or whose memory exceeds
// opt.MaxMemory. That refusal is an *ir.Error at the model's file whose
// Err is a *[TooLargeError]. A tree needs every factor: a Bayesian network
// with discrete variables still to be learned is refused with the kind
// ir.ErrNoDistribution. Closing opt.Cancel stops the compilation with an
// error of kind [ErrCanceled].
func Compile(m *ir.Model, opt Options) (*JTree, error) {
	if m == nil {
		panic("infer: Compile: nil model")
	}
	if u := unlearned(m); len(u) > 0 {
		return nil, &ir.Error{Pos: ir.Pos{File: m.Source}, Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
	}
	if hasDiscreteChildOfReal(m) {
		return nil, hybridRefusal(ir.Pos{File: m.Source}, m, "")
	}
	pos := ir.Pos{File: m.Source}
	k := factor.NewKernel(opt.Cancel)
	p, err := plan(m, cliqueLimit(opt), k)
	if err == nil {
		err = p.check(m, opt)
	}
	if errors.Is(err, ErrCanceled) {
		return nil, canceled(pos)
	}
	if err != nil {
		return nil, at(pos, err)
	}
	t := build(m, p, opt.maxMemory(), k)
	if k.Poll() {
		return nil, canceled(pos)
	}
	return t, nil
}

// build allocates and fills the tables of a checked plan, under the memory
// limit limit.
func build(m *ir.Model, p *jtPlan, limit int64, k *factor.Kernel) *JTree {
	fs := m.Factors()
	s, fillMaps := structure(m, fs, p)
	s.limit = limit
	// The initial tables and the index maps are independent of each
	// other: compute them on every core, a clique's at a time.
	t, exps := s.newTree(m, fs)
	lost := make([]bool, len(s.cvars))
	par.For(len(s.cvars), func(c int) {
		kc := k.Fork()
		if kc.Poll() {
			return
		}
		exps[c] = t.fill(kc, fs, c)
		lost[c] = kc.Lost
		fillMaps(c)
	})
	t.sumExps(exps, lost)
	return t
}

// structure computes the structure of a checked plan for m, whose factors
// are fs: the cliques' layouts, the home clique of every variable, the
// clique of every factor, and the index maps of the separators and the
// families. The maps are allocated but left for the caller to fill in, on
// every core: fillMaps(c) fills those over clique c's entries (the
// separator towards its parent, and the families read off c).
func structure(m *ir.Model, fs []*ir.Factor, p *jtPlan) (t *jtStructure, fillMaps func(c int)) {
	k := len(p.cliques)
	t = &jtStructure{tri: p.tri, bayes: m.IsBayesNet(), order: p.order, parent: p.parent, memory: int64(p.memory)}
	nv := len(m.Vars)
	t.card = make([]int, nv)
	for v := range t.card {
		if m.Discrete(ir.VarID(v)) {
			t.card[v] = len(m.Vars[v].States)
		}
	}
	t.cvars = p.cliques
	t.ccard = make([][]int, k)
	t.cstride = make([][]int, k)
	t.off = make([]int, k+1)
	for c, vs := range p.cliques {
		card := make([]int, len(vs))
		str := make([]int, len(vs))
		s := 1
		for i := len(vs) - 1; i >= 0; i-- {
			card[i] = len(m.Vars[vs[i]].States)
			str[i] = s
			s *= card[i]
		}
		t.ccard[c], t.cstride[c] = card, str
		t.off[c+1] = t.off[c] + s
	}
	// Variables: the home clique of each is the smallest that contains it.
	t.home = make([]int32, nv)
	t.hstride = make([]int, nv)
	t.hcard = make([]int, nv)
	for v := range t.home {
		t.home[v] = -1
	}
	size := func(c int32) int { return t.off[c+1] - t.off[c] }
	for c, vs := range p.cliques {
		for i, v := range vs {
			if h := t.home[v]; h < 0 || size(int32(c)) < size(h) {
				t.home[v], t.hstride[v], t.hcard[v] = int32(c), t.cstride[c][i], t.ccard[c][i]
			}
		}
	}
	t.isHome = make([]bool, k)
	for _, c := range t.home {
		if c >= 0 {
			t.isHome[c] = true
		}
	}
	// Every factor multiplies into the clique the plan assigned it.
	t.scopes = make([][]ir.VarID, len(fs))
	t.cfac = make([][]int32, k)
	for i, f := range fs {
		t.scopes[i] = f.Vars
		if c := p.assign[i]; c >= 0 {
			t.cfac[c] = append(t.cfac[c], int32(i))
		} else {
			t.konstF = append(t.konstF, int32(i))
		}
	}
	// Families: the clique of each family factor, and the index map from
	// that clique to the family's layout.
	t.fam = make([]family, nv)
	var withMap []int32 // the families that need a map
	fi := families(m, fs)
	for v, i := range fi {
		t.fam[v].clique = -1
		if i < 0 {
			continue
		}
		c := p.assign[i]
		t.fam[v] = family{clique: c, n: len(fs[i].Vals)}
		t.maxFam = max(t.maxFam, len(fs[i].Vals))
		if !slices.Equal(t.cvars[c], fs[i].Vars) {
			withMap = append(withMap, int32(v))
		}
	}
	// The clique tree's children, the blocks of every clique, and the
	// cliques of every variable.
	t.kids = make([][]int32, k)
	for _, c := range t.order[1:] {
		t.kids[t.parent[c]] = append(t.kids[t.parent[c]], c)
	}
	t.nin = make([]int, k)
	t.blk = make([]int, k)
	t.varCl = make([][]varPos, nv)
	for c, vs := range p.cliques {
		t.maxVars = max(t.maxVars, len(vs))
		t.nin[c], t.blk[c] = blockOf(t.ccard[c])
		t.maxBlk = max(t.maxBlk, t.blk[c])
		for i, v := range vs {
			t.varCl[v] = append(t.varCl[v], varPos{int32(c), int32(i)})
		}
	}
	t.cut = t.cutTree()
	// The separators.
	t.sepOff = make([]int, k)
	t.sepLen = make([]int, k)
	t.up = make([]sepMap, k)
	t.down = make([]sepMap, k)
	sstrs := make([][]int, k)
	for c := range k {
		if p.parent[c] < 0 {
			continue
		}
		sv := p.sepVars[c]
		sstr := make([]int, len(sv))
		s := 1
		for i := len(sv) - 1; i >= 0; i-- {
			sstr[i] = s
			s *= len(m.Vars[sv[i]].States)
		}
		sstrs[c] = sstr
		t.sepOff[c], t.sepLen[c] = t.sepTot, s
		t.sepTot += s
		t.maxSep = max(t.maxSep, s)
	}
	// Every map lives in one block: one allocation, however many maps.
	n := 0
	for c := range k {
		if pa := p.parent[c]; pa >= 0 {
			n += t.sepMapLen(c) + t.sepMapLen(int(pa))
		}
	}
	for _, v := range withMap {
		n += size(t.fam[v].clique)
	}
	block := make([]int32, n)
	next := func(n int) []int32 {
		out := block[:n:n]
		block = block[n:]
		return out
	}
	for c := range k {
		if pa := p.parent[c]; pa >= 0 {
			t.up[c], block = t.cutSepMap(c, block)
			t.down[c], block = t.cutSepMap(int(pa), block)
		}
	}
	// The families read off each clique through a map, grouped by clique.
	slices.SortStableFunc(withMap, func(a, b int32) int { return int(t.fam[a].clique - t.fam[b].clique) })
	famAt := make([]int, k+1) // the families of clique c are withMap[famAt[c]:famAt[c+1]]
	for _, v := range withMap {
		t.fam[v].idx = next(size(t.fam[v].clique))
		famAt[t.fam[v].clique+1]++
	}
	for c := range k {
		famAt[c+1] += famAt[c]
	}
	return t, func(c int) {
		if pa := p.parent[c]; pa >= 0 {
			t.fillSepMap(&t.up[c], c, p.sepVars[c], sstrs[c])
			t.fillSepMap(&t.down[c], int(pa), p.sepVars[c], sstrs[c])
		}
		for _, v := range withMap[famAt[c]:famAt[c+1]] {
			f := fs[fi[v]]
			sepMapTo(t.fam[v].idx, t.cvars[c], t.ccard[c], f.Vars, f.Stride)
		}
	}
}

// withNumbers returns the tree of structure t for m, whose factors fs have
// the scopes t was built for: it multiplies each clique's factors into its
// initial table (on every core) and rescales it.
func (t *jtStructure) withNumbers(m *ir.Model, fs []*ir.Factor) *JTree {
	jt, exps := t.newTree(m, fs)
	lost := make([]bool, len(exps))
	par.For(len(exps), func(c int) {
		k := factor.NewKernel(nil)
		exps[c] = jt.fill(k, fs, c)
		lost[c] = k.Lost
	})
	jt.sumExps(exps, lost)
	return jt
}

// newTree returns the tree of structure t for m, whose factors are fs,
// with its constant factor and its initial tables allocated but not yet
// filled in (fill), and room for the tables' exponents.
func (t *jtStructure) newTree(m *ir.Model, fs []*ir.Factor) (*JTree, []int) {
	k := len(t.cvars)
	jt := &JTree{jtStructure: t, m: m, konst: factor.Scaled{M: 1, E: 0}, init: make([]float64, t.off[k]), initLo: make([]float64, k)}
	for _, i := range t.konstF {
		jt.konst = jt.konst.MulFloat(fs[i].Vals[0])
	}
	return jt, make([]int, k)
}

// fill multiplies clique c's factors (of fs) into its initial table,
// rescales it, and returns the exponent taken off, and records a lower
// bound of the table's smallest nonzero entry in initLo[c]. The factors
// enter scaled (see scaled), and many factors are multiplied in a few at
// a time (factor.MultiplyInto), so that no product overflows; a product that
// falls below the normal range is recorded in k.
func (t *JTree) fill(k *factor.Kernel, fs []*ir.Factor, c int) int {
	e := 0
	in := make([]*ir.Factor, len(t.cfac[c]))
	mins := make([]float64, len(in))
	for j, i := range t.cfac[c] {
		g, x, mn := factor.Prepare(k, fs[i])
		in[j], e, mins[j] = g, e+x, mn
	}
	dst := &ir.Factor{Vars: t.cvars[c], Card: t.ccard[c], Stride: t.cstride[c], Vals: t.init[t.off[c]:t.off[c+1]]}
	n := min(len(in), factor.MaxInputs)
	factor.CombineChecked(k, dst, in[:n], factor.OpSum, nil, factor.ProductMayFlush(mins[:n]))
	x := factor.Rescale(k, dst)
	e += x
	if n < len(in) {
		e += factor.MultiplyInto(k, dst, in[n:])
		t.initLo[c] = factor.MinNonzero(dst.Vals)
		return e
	}
	// Every nonzero entry is a product of nonzero entries of the factors,
	// so the product of their smallest bounds it from below (0 if that
	// underflows: calibration then checks every product of the clique).
	lo := math.Ldexp(1, -x)
	for _, mn := range mins {
		if !math.IsInf(mn, 1) {
			lo *= mn
		}
	}
	t.initLo[c] = lo
	return e
}

// sumExps sets the exponent of the initial tables from each one's, and
// records whether filling any of them lost digits (lost[c]).
func (t *JTree) sumExps(exps []int, lost []bool) {
	for c, e := range exps {
		t.initExp += e
		t.lost = t.lost || lost[c]
	}
}

// WithModel returns a junction tree for m that shares t's structure (its
// triangulation, cliques, clique tree and index maps: nothing is
// triangulated or indexed again) and holds m's numbers, at the cost of one
// product of m's factors into the clique tables. It is the way to answer
// on many models that differ only in their numbers, such as the steps of
// EM. m must have the variables, with the same numbers of states, and the
// factor scopes (ir.Model.Factors) of the model t was compiled from, and be
// a Bayesian network if and only if that model is; otherwise WithModel
// returns an error, whose kind is ir.ErrNoDistribution if m has variables
// still to be learned. The new tree has its own workspaces; t is
// unchanged.
func (t *JTree) WithModel(m *ir.Model) (*JTree, error) {
	if m == nil {
		panic("infer: WithModel: nil model")
	}
	s := t.jtStructure
	if len(m.Vars) != len(s.card) {
		return nil, fmt.Errorf("the model has %d variables; the junction tree was compiled for %d", len(m.Vars), len(s.card))
	}
	for v, x := range m.Vars {
		c := 0
		if m.Discrete(ir.VarID(v)) {
			c = len(x.States)
		}
		if c != s.card[v] {
			return nil, fmt.Errorf("%s has %d states; the junction tree was compiled for %d", ir.Quote(x.Name), c, s.card[v])
		}
	}
	if u := unlearned(m); len(u) > 0 {
		return nil, &ir.Error{Pos: ir.Pos{File: m.Source}, Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
	}
	switch {
	case s.bayes && !m.IsBayesNet():
		return nil, errors.New("the model is a Markov network; the junction tree was compiled for a Bayesian network")
	case !s.bayes && m.IsBayesNet():
		return nil, errors.New("the model is a Bayesian network; the junction tree was compiled for a Markov network")
	}
	fs := m.Factors()
	if len(fs) != len(s.scopes) {
		return nil, fmt.Errorf("the model has %d factors; the junction tree was compiled for %d", len(fs), len(s.scopes))
	}
	for i, f := range fs {
		if !slices.Equal(f.Vars, s.scopes[i]) {
			return nil, fmt.Errorf("factor %d of the model is over (%s); the junction tree was compiled for (%s)", i+1, varList2(m, f.Vars), varList2(m, s.scopes[i]))
		}
	}
	return s.withNumbers(m, fs), nil
}

// containsAll reports whether every variable of vs is in the sorted clique c.
func containsAll(c, vs []ir.VarID) bool {
	for _, v := range vs {
		if _, ok := slices.BinarySearch(c, v); !ok {
			return false
		}
	}
	return true
}

// sepMapTo writes into out, for every entry of a table over vars
// (cardinalities card, row-major), the offset of its restriction to the
// separator sv (strides sstr) — the index map that message passing
// follows — and returns out. The restriction may be to any subset of vars
// in any layout: a family's map is made the same way. out must have one
// entry per entry of the table.
func sepMapTo(out []int32, vars []ir.VarID, card []int, sv []ir.VarID, sstr []int) []int32 {
	n := len(vars)
	// Scratch on the stack for cliques of up to 32 variables.
	var buf [64]int
	scratch := buf[:]
	if 2*n > len(buf) {
		scratch = make([]int, 2*n)
	}
	str := scratch[:n:n] // separator stride of each clique variable, 0 if not in sv
	cnt := scratch[n : 2*n]
	size := 1
	for i, v := range vars {
		str[i] = 0
		if j := factor.IndexOf(sv, v); j >= 0 {
			str[i] = sstr[j]
		}
		size *= card[i]
	}
	if len(out) != size {
		panic("infer: sepMapTo: the map's length is not the table's")
	}
	if n == 0 {
		out[0] = 0
		return out
	}
	// The last variable varies fastest: fill each run of its states in a
	// tight loop, and step the other variables with an odometer.
	last, lastStr := card[n-1], int32(str[n-1])
	off := 0
	for i := 0; i < size; i += last {
		o := int32(off)
		run := out[i : i+last]
		for j := range run {
			run[j] = o
			o += lastStr
		}
		for d := n - 2; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < card[d] {
				off += str[d]
				break
			}
			cnt[d] = 0
			off -= (card[d] - 1) * str[d]
		}
	}
	return out
}

// get returns an idle workspace, allocating one if there is none.
func (t *JTree) get() *jtWork {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.free); n > 0 {
		w := t.free[n-1]
		t.free = t.free[:n-1]
		return w
	}
	k := len(t.cvars)
	nfix := 0
	for _, l := range t.varCl {
		nfix += len(l)
	}
	w := &jtWork{
		lo:      make([]float64, k),
		pot:     make([]float64, len(t.init)),
		sep:     make([]float64, t.sepTot),
		dsep:    make([]float64, t.sepTot),
		smin:    make([]float64, k),
		tmin:    make([]float64, k),
		cexp:    make([]int, k),
		clost:   make([]bool, k),
		fast:    make([]bool, k),
		scaled:  make([]bool, k),
		skip:    make([]bool, k),
		dirty:   make([]bool, k),
		chosen:  make([]int, k),
		obs:     make([]int, len(t.m.Vars)),
		fixHead: make([]int32, k),
		fixes:   make([]jtFix, 0, nfix),
		fixed:   make([]int32, 0, k),
	}
	for c := range w.fixHead {
		w.fixHead[c] = -1
	}
	return w
}

// put returns a workspace to the idle list.
func (t *JTree) put(w *jtWork) {
	t.mu.Lock()
	t.free = append(t.free, w)
	t.mu.Unlock()
}

// The compile cache: Answer with the JT engine (or Auto choosing it)
// compiles each model once. Entries are keyed by the model pointer and the
// limits: a built model is never modified, so its pointer names its
// numbers too. Failures are cached, so Auto does not retry them.
type jtKey struct {
	m         *ir.Model
	maxTable  int
	maxMemory int64
}

type jtEntry struct {
	key jtKey
	t   *JTree
	err error
}

// jtCacheSize is the number of compiled models kept.
const jtCacheSize = 8

var jtCache struct {
	sync.Mutex
	entries []*jtEntry // most recently used last
}

// cachedCompile returns the junction tree of m for opt, compiling it at
// most once per model and limits. A canceled compilation is not cached.
func cachedCompile(m *ir.Model, opt Options) (*JTree, error) {
	key := jtKey{m, opt.maxTable(), opt.maxMemory()}
	jtCache.Lock()
	defer jtCache.Unlock()
	for i, e := range jtCache.entries {
		if e.key == key {
			// The most recently used last, moved in place: a query
			// on a cached tree allocates nothing here.
			copy(jtCache.entries[i:], jtCache.entries[i+1:])
			jtCache.entries[len(jtCache.entries)-1] = e
			return e.t, e.err
		}
	}
	t, err := Compile(m, opt)
	if errors.Is(err, ErrCanceled) {
		return nil, err
	}
	jtCache.entries = slices.DeleteFunc(jtCache.entries, func(e *jtEntry) bool { return e.key == key })
	if len(jtCache.entries) >= jtCacheSize {
		jtCache.entries = jtCache.entries[1:]
	}
	jtCache.entries = append(jtCache.entries, &jtEntry{key, t, err})
	return t, err
}

// Explain describes the junction tree Compile would build for m without
// allocating its tables: the triangulation heuristic chosen, the
// elimination order (its length if long), the induced width, the number of
// cliques, the largest clique and the total table size, and whether the
// limits of opt allow it.
func Explain(m *ir.Model, opt Options) (string, error) {
	if m == nil {
		panic("infer: Explain: nil model")
	}
	p, err := plan(m, math.Inf(1), factor.NewKernel(opt.Cancel))
	if err != nil {
		return "", at(ir.Pos{File: m.Source}, err)
	}
	return p.explain(m, p.check(m, opt)), nil
}

// Explain describes t as the package-level Explain does.
func (t *JTree) Explain() string {
	p := &jtPlan{tri: t.tri, cliques: t.cvars, entries: float64(len(t.init)), sepEnt: float64(t.sepTot), memory: float64(t.memory)}
	for c := range t.cvars {
		if t.off[c+1]-t.off[c] > t.off[p.largest+1]-t.off[p.largest] {
			p.largest = c
		}
	}
	return p.explain(t.m, nil)
}

func (p *jtPlan) explain(m *ir.Model, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "junction tree\n")
	fmt.Fprintf(&b, "  triangulation: %s (smallest total table size of %d heuristic runs)\n", p.tri, max(p.tri.runs, 3*len(jtSeeds)))
	if len(p.tri.order) <= 40 {
		fmt.Fprintf(&b, "  elimination order: %s\n", varList2(m, p.tri.order))
	} else {
		fmt.Fprintf(&b, "  elimination order: %s, starting %s\n", ir.Plural(len(p.tri.order), "variable"), varList(m, p.tri.order))
	}
	fmt.Fprintf(&b, "  induced width: %d\n", p.tri.width)
	fmt.Fprintf(&b, "  cliques: %d\n", len(p.cliques))
	big := p.cliques[p.largest]
	fmt.Fprintf(&b, "  largest clique: %s (%s), %s entries\n", ir.Plural(len(big), "variable"), varList(m, big), sizeFloat(cliqueSize(m, big)))
	fmt.Fprintf(&b, "  total clique-table size: %s entries (separators %s)\n", sizeFloat(p.entries), sizeFloat(p.sepEnt))
	fmt.Fprintf(&b, "  memory: %s\n", bytesString(p.memory))
	if err != nil {
		fmt.Fprintf(&b, "  refused: %v\n", err)
	}
	return b.String()
}

// varList2 names every variable of vs.
func varList2(m *ir.Model, vs []ir.VarID) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = ir.Quote(m.Vars[v].Name)
	}
	return strings.Join(s, ", ")
}
