package structure

import (
	"context"
	"gonum.org/v1/gonum/mat"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/pbl-lang/pbl/internal/par"
)

// PCOptions are the settings of [PC].
type PCOptions struct {
	Alpha float64 // the tests' significance level; 0 means 0.05
	Test  CITest  // G2 (the zero value), Chi2 or FisherZ

	// Corr and Rows, for FisherZ (whose PC takes no columns, cols and
	// card nil): the correlation matrix of the variables, indexed as
	// names, and the number of rows it comes from (see [Correlation]).
	Corr    *mat.SymDense
	Rows    int
	MaxCond int // the largest conditioning set tried; 0 means no limit
	Workers int // goroutines running tests; 0 means GOMAXPROCS. The result does not depend on it

	// Require lists edges (from, to) the result has: their pairs are
	// never tested for independence and they are directed as given.
	// Forbid lists edges it does not have: a pair forbidden both ways is
	// not adjacent from the start (and, having no separating set, takes
	// part in no v-structure); a pair forbidden one way only is tested as
	// usual and, if it stays adjacent, directed the other way. Both
	// directions are set after the v-structures and before Meek's rules,
	// and win over a v-structure that disagrees.
	Require, Forbid [][2]int
}

// PC estimates the CPDAG of the network that generated the data by the
// PC algorithm (Spirtes, Glymour and Scheines 2000) in its
// order-independent "stable" form (Colombo and Maathuis 2014):
//
//	func PC(ctx context.Context, cols [][]int32, card []int, names []string, opt PCOptions) (*CPDAG, error)
//
// cols[v][r] is the state of variable v in row r (column-major, as
// [Data.Cols]; < 0 for a missing cell), card[v] its number of states and
// names[v] its name; the names must be distinct.
//
// # Skeleton
//
// It starts from the complete undirected graph. At level l = 0, 1, 2, …
// it first freezes every variable's adjacency set, then, for every edge
// a -- b still present, tests a ⊥ b | S for the subsets S of size l of
// frozen adj(a) \ {b}, then of frozen adj(b) \ {a} (a subset tested once),
// and removes the edge at the first test whose p-value exceeds
// opt.Alpha, recording S as the separating set. Because the sets are
// frozen for the level, the edges of one level are tested independently
// of each other — on opt.Workers goroutines — and the skeleton does not
// depend on the order of the variables. It stops when no edge has l other
// neighbours at either end, or after level opt.MaxCond.
//
// # Orientation
//
// For every unshielded triple a -- c -- b (a and b not adjacent) with c
// not in the separating set of a and b, both edges are directed into c;
// the triples are found first and the edges directed afterwards, and an
// edge two triples would direct opposite ways stays undirected. The
// required and forbidden edges of opt then direct their pairs (see
// [PCOptions]), and Meek's rules R1–R3 direct what they imply (see
// [CPDAGOf]).
//
// Which separating set is found first, and so the v-structures, would
// depend on the order of the variables; PC runs on the variables sorted
// by name, so that the result depends only on the data and the names,
// not on the columns' order, nor on the number of workers.
//
// The tests use the available cases (see [Tester]). [CPDAG.DAG] chooses a
// DAG of the result for parameter learning; [CPDAG.Undirected] lists the
// edges the data could not orient.
func PC(ctx context.Context, cols [][]int32, card []int, names []string, opt PCOptions) (*CPDAG, error) {
	gs, err := pcLevels(ctx, cols, card, names, opt, nil)
	if err != nil {
		return nil, err
	}
	return gs[0], nil
}

// pcLevels runs PC as [PC] does and returns its result at the end of each
// level in levels (the CPDAG PC gives with opt.MaxCond at that level, at
// the cost of one run), then the final result; a level the search does
// not reach gives the final result.
func pcLevels(ctx context.Context, cols [][]int32, card []int, names []string, opt PCOptions, levels []int) ([]*CPDAG, error) {
	n := len(names)
	if opt.Test == FisherZ {
		if opt.Corr == nil || opt.Corr.SymmetricDim() != n || opt.Rows <= 0 {
			return nil, errorf(ErrInvalidArgument, "structure: PC: Fisher's z test needs the %d variables' correlation matrix and its number of rows", n)
		}
	} else if len(cols) != n || len(card) != n {
		return nil, errorf(ErrInvalidArgument, "structure: PC: %d columns and %d cardinalities for %d names", len(cols), len(card), n)
	}
	for v := 1; v < n && opt.Test != FisherZ; v++ {
		if len(cols[v]) != len(cols[0]) {
			return nil, errorf(ErrInvalidArgument, "structure: PC: column %q has %d rows, column %q %d", names[v], len(cols[v]), names[0], len(cols[0]))
		}
	}
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, errorf(ErrInvalidArgument, "structure: PC: alpha %v is not between 0 and 1", alpha)
	}
	// perm[i] is the original index of the i-th variable by name.
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		if names[a] < names[b] {
			return -1
		}
		if names[a] > names[b] {
			return 1
		}
		return 0
	})
	for i := 1; i < n; i++ {
		if names[perm[i]] == names[perm[i-1]] {
			return nil, errorf(ErrInvalidArgument, "structure: PC: variable %q appears twice", names[perm[i]])
		}
	}
	pcols := make([][]int32, n)
	pcard := make([]int, n)
	var pcorr *mat.SymDense
	if opt.Test == FisherZ {
		pcorr = mat.NewSymDense(n, nil)
		for i, v := range perm {
			for j := i; j < n; j++ {
				pcorr.SetSym(i, j, opt.Corr.At(v, perm[j]))
			}
		}
	} else {
		for i, v := range perm {
			pcols[i], pcard[i] = cols[v], card[v]
		}
	}
	p := &pcRun{n: n, cols: pcols, card: pcard, alpha: alpha, test: opt.Test, corr: pcorr, rows: opt.Rows, req: make([]bool, n*n), forb: make([]bool, n*n)}
	inv := make([]int, n) // inv[v]: v's position in name order
	for i, v := range perm {
		inv[v] = i
	}
	for k, list := range [][][2]int{opt.Require, opt.Forbid} {
		for _, e := range list {
			if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n || e[0] == e[1] {
				return nil, edgeErr(e[0], e[1], ErrNoSuchVariable, "structure: PC: edge %d -> %d: no such edge", e[0], e[1])
			}
			a, b := inv[e[0]], inv[e[1]]
			if k == 0 {
				p.req[a*n+b] = true
			} else {
				p.forb[a*n+b] = true
			}
		}
	}
	for i := range p.req {
		if p.req[i] && p.forb[i] {
			a, b := perm[i/n], perm[i%n]
			return nil, edgeErr(a, b, ErrRequiredAndForbidden, "structure: PC: the edge %s -> %s is both required and forbidden", names[a], names[b])
		}
		if a, b := i/n, i%n; p.req[i] && p.req[b*n+a] {
			return nil, edgeErr(perm[a], perm[b], ErrCycle, "structure: PC: the edges %s -> %s and back are both required", names[perm[a]], names[perm[b]])
		}
	}
	p.workers = opt.Workers
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	// result orients the skeleton found so far, back in the caller's order.
	result := func() *CPDAG {
		g := p.orient()
		out := NewCPDAG(names)
		out.Tests = int(p.tests.Load())
		for a := range n {
			for b := range n {
				if g.m(a, b) {
					out.mark[perm[a]*n+perm[b]] = true
				}
			}
		}
		return out
	}
	snaps := make([]*CPDAG, len(levels))
	after := func(l int) {
		for i, want := range levels {
			if want == l {
				snaps[i] = result()
			}
		}
	}
	if err := p.skeleton(ctx, opt.MaxCond, after); err != nil {
		return nil, err
	}
	final := result()
	for i := range snaps {
		if snaps[i] == nil {
			snaps[i] = final
		}
	}
	return append(snaps, final), nil
}

// pcRun is one run of PC on the variables in name order.
type pcRun struct {
	n       int
	cols    [][]int32
	card    []int
	alpha   float64
	test    CITest
	workers int
	corr    *mat.SymDense // FisherZ: the correlation matrix, in name order
	rows    int

	req    []bool  // req[a*n+b]: a -> b is required
	forb   []bool  // forb[a*n+b]: a -> b is forbidden
	adj    []bool  // adj[a*n+b]: a and b adjacent
	sepset [][]int // sepset[a*n+b], a < b: the separating set, when the edge was removed
	sepped []bool  // sepped[a*n+b], a < b: the edge was removed
	tests  atomic.Int64
}

// pcEdge is one edge's work at one level: its ends and the outcome.
type pcEdge struct {
	a, b    int
	removed bool
	sep     []int
}

// skeleton runs the levels of the stable skeleton search, calling after
// with each level's number once its removals are made.
func (p *pcRun) skeleton(ctx context.Context, maxCond int, after func(l int)) error {
	n := p.n
	p.adj = make([]bool, n*n)
	p.sepset = make([][]int, n*n)
	p.sepped = make([]bool, n*n)
	for a := range n {
		for b := range n {
			p.adj[a*n+b] = a != b && !(p.forb[a*n+b] && p.forb[b*n+a])
		}
	}
	for l := 0; maxCond <= 0 || l <= maxCond; l++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		nbrs := make([][]int, n)
		for a := range n {
			for b := range n {
				if p.adj[a*n+b] {
					nbrs[a] = append(nbrs[a], b)
				}
			}
		}
		var work []pcEdge
		for a := range n {
			for _, b := range nbrs[a] {
				if b > a && !p.req[a*n+b] && !p.req[b*n+a] && (len(nbrs[a])-1 >= l || len(nbrs[b])-1 >= l) {
					work = append(work, pcEdge{a: a, b: b})
				}
			}
		}
		if len(work) == 0 {
			break
		}
		if err := p.level(ctx, work, nbrs, l); err != nil {
			return err
		}
		for _, e := range work {
			if e.removed {
				p.adj[e.a*n+e.b], p.adj[e.b*n+e.a] = false, false
				p.sepset[e.a*n+e.b] = e.sep
				p.sepped[e.a*n+e.b] = true
			}
		}
		after(l)
	}
	return nil
}

// level tests the edges of one level on p.workers goroutines; each edge's
// outcome goes to its own slot of work.
func (p *pcRun) level(ctx context.Context, work []pcEdge, nbrs [][]int, l int) error {
	w := min(p.workers, len(work))
	errs := make([]error, max(w, 1))
	testers := make([]*Tester, len(errs))
	par.Workers(w, len(work), func(g, i int) {
		if errs[g] != nil {
			return // this worker has stopped
		}
		if err := ctx.Err(); err != nil {
			errs[g] = err
			return
		}
		if testers[g] == nil {
			testers[g] = NewTester(p.cols, p.card, p.test)
			testers[g].Corr, testers[g].Rows = p.corr, p.rows
		}
		errs[g] = p.testEdge(testers[g], &work[i], nbrs, l)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// testEdge tests a ⊥ b | S for the l-subsets S of adj(a) \ {b}, then of
// adj(b) \ {a} not already tried, stopping at the first independence.
func (p *pcRun) testEdge(t *Tester, e *pcEdge, nbrs [][]int, l int) error {
	a, b := e.a, e.b
	from := func(v, other int) []int {
		var c []int
		for _, x := range nbrs[v] {
			if x != other {
				c = append(c, x)
			}
		}
		return c
	}
	ca := from(a, b)
	cb := from(b, a)
	sets := [][]int{ca, cb}
	z := make([]int, l)
	for k, cand := range sets {
		if len(cand) < l {
			continue
		}
		idx := make([]int, l)
		for i := range idx {
			idx[i] = i
		}
		for {
			for i, j := range idx {
				z[i] = cand[j]
			}
			skip := false
			if k == 1 {
				// A subset of adj(a) \ {b} was tested already.
				skip = true
				for _, v := range z {
					if _, ok := slices.BinarySearch(ca, v); !ok {
						skip = false
						break
					}
				}
			}
			if !skip {
				r, err := t.Test(a, b, z)
				if err != nil {
					return err
				}
				p.tests.Add(1)
				if r.P > p.alpha {
					e.removed = true
					e.sep = slices.Clone(z)
					return nil
				}
			}
			if !nextSubset(idx, len(cand)) {
				break
			}
		}
	}
	return nil
}

// nextSubset advances idx, an increasing list of indices below n, to the
// next subset of its size in lexicographic order, and reports whether
// there was one.
func nextSubset(idx []int, n int) bool {
	k := len(idx)
	i := k - 1
	for i >= 0 && idx[i] == n-k+i {
		i--
	}
	if i < 0 {
		return false
	}
	idx[i]++
	for j := i + 1; j < k; j++ {
		idx[j] = idx[j-1] + 1
	}
	return true
}

// orient directs the v-structures of the skeleton and applies Meek's
// rules.
func (p *pcRun) orient() *CPDAG {
	n := p.n
	g := &CPDAG{n: n, mark: slices.Clone(p.adj)}
	into := make([]bool, n*n) // into[a*n+c]: some triple directs a -> c
	for c := range n {
		for a := range n {
			if !p.adj[a*n+c] {
				continue
			}
			for b := a + 1; b < n; b++ {
				if !p.adj[b*n+c] || p.adj[a*n+b] || !p.sepped[a*n+b] {
					continue // not an unshielded triple, or a and b forbidden from the start
				}
				if !slices.Contains(p.sepset[a*n+b], c) {
					into[a*n+c], into[b*n+c] = true, true
				}
			}
		}
	}
	for a := range n {
		for c := range n {
			if into[a*n+c] && !into[c*n+a] {
				g.SetDirected(a, c)
			}
		}
	}
	for a := range n {
		for b := range n {
			switch {
			case !p.adj[a*n+b]:
			case p.req[a*n+b]:
				g.SetDirected(a, b)
			case p.forb[a*n+b] && !p.forb[b*n+a]:
				g.SetDirected(b, a)
			}
		}
	}
	g.meek()
	return g
}
