package structure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/pbl-lang/pbl/internal/par"
)

// Options configures the searches.
type Options struct {
	MaxParents int      // the most parents of a variable; 0 means no limit
	Tabu       int      // hill climbing: the tabu tenure (see [HillClimb]); 0 stops at the first local maximum
	Patience   int      // hill climbing: the moves made without improving the best score before a climb stops; 0 means 5×Tabu
	Restarts   int      // hill climbing: restarts from the best graph perturbed by random moves
	Perturb    int      // the random moves (deletions and reversals) of a restart; 0 means 1 + n/4 for n variables
	Starts     []Start  // hill climbing without a start graph: the graphs climbed from; nil means [DefaultStarts]
	Seed       uint64   // the seed of the perturbations
	MaxIter    int      // the most moves per climb; 0 means no limit
	Require    [][2]int // edges every graph has (from, to)
	Forbid     [][2]int // edges no graph has
	Order      []int    // K2: the ordering of the variables, parents before children
	Workers    int      // goroutines scoring moves; 0 means GOMAXPROCS. The result does not depend on it.

	// Progress, if not nil, is called after each move, from the search's
	// goroutine.
	Progress func(iter int, score float64)
}

// Result is a learned graph.
type Result struct {
	DAG        *DAG
	Score      float64 // the total score of DAG
	Iterations int     // the moves made (hill climbing) or parents added (K2)
	Seconds    float64
}

// moveKind is a hill-climbing move.
type moveKind int

const (
	moveAdd moveKind = iota
	moveDelete
	moveReverse
)

func (k moveKind) String() string { return [...]string{"add", "delete", "reverse"}[k] }

type move struct {
	kind     moveKind
	from, to int // the edge from -> to added, deleted or reversed
	delta    float64
}

// constraints are the required and forbidden edges as matrices.
type constraints struct {
	n         int
	req, forb []bool // [from*n+to]
}

func newConstraints(n int, opt *Options) (*constraints, error) {
	c := &constraints{n: n, req: make([]bool, n*n), forb: make([]bool, n*n)}
	for _, e := range opt.Require {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n || e[0] == e[1] {
			return nil, edgeErr(e[0], e[1], ErrNoSuchVariable, "required edge %d -> %d: no such edge", e[0], e[1])
		}
		c.req[e[0]*n+e[1]] = true
	}
	for _, e := range opt.Forbid {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n || e[0] == e[1] {
			return nil, edgeErr(e[0], e[1], ErrNoSuchVariable, "forbidden edge %d -> %d: no such edge", e[0], e[1])
		}
		if c.req[e[0]*n+e[1]] {
			return nil, edgeErr(e[0], e[1], ErrRequiredAndForbidden, "edge %d -> %d is both required and forbidden", e[0], e[1])
		}
		c.forb[e[0]*n+e[1]] = true
	}
	return c, nil
}

// workers returns the number of goroutines to use.
func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// parallelFor calls fn(0..n-1) on up to w goroutines.
func parallelFor(w, n int, fn func(i int)) {
	par.Workers(w, n, func(_, i int) { fn(i) })
}

// climber is the state of a hill climb: the graph, its family scores and
// the change of score of toggling each parent of each variable.
type climber struct {
	s    *Scorer
	opt  *Options
	con  *constraints
	g    *DAG
	n    int
	fam  []float64 // fam[j] = score(j, Pa_j)
	tog  []float64 // tog[i*n+j] = score(j, Pa_j with i toggled) − fam[j]; −Inf if not allowed
	bufs [][]int32 // per-target row indices of the current family
	hash uint64    // Zobrist hash of g's edges
	keys []uint64  // keys[i*n+j]: the hash of edge i -> j
}

func newClimber(s *Scorer, g *DAG, opt *Options, con *constraints) *climber {
	n := g.N()
	c := &climber{s: s, opt: opt, con: con, g: g, n: n, fam: make([]float64, n), tog: make([]float64, n*n), bufs: make([][]int32, n), keys: make([]uint64, n*n)}
	rng := rand.New(rand.NewPCG(0x5eed, 0xface))
	for i := range c.keys {
		c.keys[i] = rng.Uint64()
	}
	for _, e := range g.Edges() {
		c.hash ^= c.keys[e[0]*n+e[1]]
	}
	all := make([]int, n)
	for j := range all {
		all[j] = j
	}
	c.refresh(all)
	return c
}

// refresh recomputes the family scores and toggles of the targets.
func (c *climber) refresh(targets []int) {
	n, w := c.n, c.opt.workers()
	// The current families first, with each target's row indices.
	parallelFor(w, len(targets), func(t int) {
		j := targets[t]
		c.fam[j] = c.s.Family(j, c.g.Parents[j])
		if !c.s.realFamily(j, c.g.Parents[j]) {
			c.bufs[j] = familyIndex(c.s.D, j, c.g.Parents[j], c.bufs[j])
		} else {
			c.bufs[j] = nil
		}
	})
	parallelFor(w, len(targets)*n, func(t int) {
		j, i := targets[t/n], t%n
		c.tog[i*n+j] = c.toggle(i, j)
	})
}

// toggle returns the change of j's family score when i is added to or
// removed from its parents, or −Inf if that is not allowed.
func (c *climber) toggle(i, j int) float64 {
	if i == j {
		return math.Inf(-1)
	}
	ps := c.g.Parents[j]
	k, in := slices.BinarySearch(ps, i)
	if in {
		if c.con.req[i*c.n+j] {
			return math.Inf(-1)
		}
		rest := slices.Delete(slices.Clone(ps), k, k+1)
		return c.s.Family(j, rest) - c.fam[j]
	}
	if c.con.forb[i*c.n+j] || (c.opt.MaxParents > 0 && len(ps) >= c.opt.MaxParents) {
		return math.Inf(-1)
	}
	more := slices.Insert(slices.Clone(ps), k, i)
	return c.s.addFamily(j, more, c.bufs[j], i) - c.fam[j]
}

// addFamily is Family(child, parents) for sorted parents, looked up in
// the cache or counted and cached. When base is not nil, parents are the
// family whose row indices are base plus the parent extra (see
// countScore).
func (s *Scorer) addFamily(child int, parents []int, base []int32, extra int) float64 {
	key := familyKey(child, parents)
	s.mu.Lock()
	v, ok := s.cache[key]
	s.mu.Unlock()
	if ok {
		return v
	}
	if s.D.HasReal() && s.realFamily(child, parents) {
		v = s.gaussFamily(child, parents)
	} else {
		v = s.countScore(child, parents, base, extra)
	}
	s.mu.Lock()
	s.cache[key] = v
	s.Counted++
	s.mu.Unlock()
	return v
}

// reach returns the reachability matrix of g: r[a*n+b] when there is a
// directed path from a to b (r[a*n+a] is true).
func reach(g *DAG) []bool {
	n := g.N()
	r := make([]bool, n*n)
	ch := g.Children()
	stack := make([]int, 0, n)
	for a := 0; a < n; a++ {
		r[a*n+a] = true
		stack = append(stack[:0], a)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range ch[v] {
				if !r[a*n+c] {
					r[a*n+c] = true
					stack = append(stack, c)
				}
			}
		}
	}
	return r
}

// moves calls fn for every legal move of the current graph, in a fixed
// order (by target, then source; add or delete before reverse).
func (c *climber) moves(fn func(m move)) {
	n, g := c.n, c.g
	r := reach(g)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			if i == j {
				continue
			}
			d := c.tog[i*n+j]
			if !g.HasEdge(i, j) {
				if !math.IsInf(d, -1) && !r[j*n+i] {
					fn(move{moveAdd, i, j, d})
				}
				continue
			}
			if math.IsInf(d, -1) {
				continue // required
			}
			fn(move{moveDelete, i, j, d})
			// Reverse i -> j: j -> i must be allowed, and no other path
			// may lead from i to j.
			back := c.tog[j*n+i]
			if math.IsInf(back, -1) {
				continue
			}
			ok := true
			for _, p := range g.Parents[j] {
				if p != i && r[i*n+p] {
					ok = false
					break
				}
			}
			if ok {
				fn(move{moveReverse, i, j, d + back})
			}
		}
	}
}

// hashAfter returns the hash of the graph after m.
func (c *climber) hashAfter(m move) uint64 {
	h := c.hash ^ c.keys[m.from*c.n+m.to]
	if m.kind == moveReverse {
		h ^= c.keys[m.to*c.n+m.from]
	}
	return h
}

// apply makes move m and refreshes the families it changed.
func (c *climber) apply(m move) {
	g := c.g
	c.hash = c.hashAfter(m)
	switch m.kind {
	case moveAdd:
		if err := g.AddEdge(m.from, m.to); err != nil {
			panic("structure: " + err.Error())
		}
		c.refresh([]int{m.to})
	case moveDelete:
		g.RemoveEdge(m.from, m.to)
		c.refresh([]int{m.to})
	case moveReverse:
		g.RemoveEdge(m.from, m.to)
		if err := g.AddEdge(m.to, m.from); err != nil {
			panic("structure: " + err.Error())
		}
		c.refresh([]int{m.to, m.from})
	}
}

func (c *climber) total() float64 {
	t := 0.0
	for _, f := range c.fam {
		t += f
	}
	return t
}

// climb runs a tabu search from the current graph and returns the best
// graph seen, its score and the moves made. Each step makes the best move
// that is not tabu: a move is tabu if it leads to one of the last Tabu
// graphs, or if it changes a pair of variables that one of the last Tabu
// moves changed, unless it leads to a graph better than the best so far.
// While moves improve the score this is plain hill climbing; at a local
// maximum it goes on with the best move, even a worsening one, and stops
// after Patience moves without a new best.
func (c *climber) climb(iter0 int) (*DAG, float64, int) {
	n := c.n
	best, bestScore := c.g.Clone(), c.total()
	cur := bestScore
	tabu := []uint64{c.hash}
	isTabu := func(h uint64) bool { return slices.Contains(tabu, h) }
	until := make([]int, n*n) // until[a*n+b], a < b: the pair is tabu while iters < until
	patience := c.opt.Patience
	if patience <= 0 {
		patience = 5 * c.opt.Tabu
	}
	stale, iters := 0, 0
	for c.opt.MaxIter == 0 || iters < c.opt.MaxIter {
		var pick move
		found := false
		eps := 1e-10 * (1 + math.Abs(cur))
		c.moves(func(m move) {
			if found && !(m.delta > pick.delta) {
				return
			}
			a, b := min(m.from, m.to), max(m.from, m.to)
			if until[a*n+b] > iters && !(cur+m.delta > bestScore+eps) {
				return
			}
			if !isTabu(c.hashAfter(m)) {
				pick, found = m, true
			}
		})
		if !found {
			break
		}
		if !(pick.delta > eps) && (c.opt.Tabu == 0 || stale >= patience) {
			break
		}
		c.apply(pick)
		iters++
		cur = c.total()
		if c.opt.Tabu > 0 {
			tabu = append(tabu, c.hash)
			if len(tabu) > c.opt.Tabu {
				tabu = tabu[1:]
			}
			a, b := min(pick.from, pick.to), max(pick.from, pick.to)
			until[a*n+b] = iters + c.opt.Tabu
		}
		if cur > bestScore+eps {
			best, bestScore, stale = c.g.Clone(), cur, 0
		} else {
			stale++
		}
		if c.opt.Progress != nil {
			c.opt.Progress(iter0+iters, cur)
		}
	}
	return best, bestScore, iters
}

// HillClimb searches for the graph of highest score by moves that add,
// delete or reverse one edge. It climbs from start if start is not nil,
// else from each of opt.Starts in turn (by default the Chow–Liu tree and
// the DAG the PC algorithm estimates; see [DefaultStarts]),
// each made to respect the constraints by [Admit]. Each climb is a tabu
// search (see climber.climb): greedy steps to a local maximum, then the
// best non-tabu moves, worsening or not, until Patience moves have not
// found a better graph. Restarts then perturb the best graph found so far
// by Perturb random legal moves (deletions and reversals, or additions if
// the graph has no edge) and climb again. The best graph of all is
// returned (the first found, on a tie). Ties between moves go to the
// first in a fixed order (by target, then source), and every score is a
// function of counts, so the result depends on the seed but not on the
// number of workers.
func HillClimb(s *Scorer, start *DAG, opt Options) (*Result, error) {
	t0 := time.Now()
	n := len(s.D.Names)
	if err := CheckScore(s.D, s.Kind); err != nil {
		return nil, err
	}
	opt.Forbid = withRealForbidden(s.D, opt.Forbid)
	con, err := newConstraints(n, &opt)
	if err != nil {
		return nil, err
	}
	var starts []*DAG
	if start != nil {
		g := start.Clone()
		for _, e := range opt.Require {
			if !g.HasEdge(e[0], e[1]) {
				if err := g.AddEdge(e[0], e[1]); err != nil {
					return nil, fmt.Errorf("required edges: %w", err)
				}
			}
		}
		for _, e := range opt.Forbid {
			if g.HasEdge(e[0], e[1]) {
				return nil, edgeErr(e[0], e[1], ErrForbiddenEdge, "the starting graph has the forbidden edge %s -> %s", g.Names[e[0]], g.Names[e[1]])
			}
		}
		if opt.MaxParents > 0 {
			for v, ps := range g.Parents {
				if len(ps) > opt.MaxParents {
					return nil, &MaxParentsError{Var: g.Names[v], Parents: len(ps), Limit: opt.MaxParents}
				}
			}
		}
		starts = []*DAG{g}
	} else {
		kinds := opt.Starts
		if kinds == nil {
			kinds = DefaultStarts
		}
		for _, k := range kinds {
			gs, err := startGraphs(s, k, opt)
			if err != nil {
				return nil, err
			}
			starts = append(starts, gs...)
		}
		if len(starts) == 0 {
			return nil, errorf(ErrInvalidArgument, "no start graph")
		}
	}
	var best *DAG
	bestScore, iters := math.Inf(-1), 0
	better := func(sc float64) bool {
		return best == nil || sc > bestScore+1e-10*(1+math.Abs(bestScore))
	}
	for _, g := range starts {
		c := newClimber(s, g, &opt, con)
		g2, sc, it := c.climb(iters)
		iters += it
		if better(sc) {
			best, bestScore = g2, sc
		}
	}
	perturb := opt.Perturb
	if perturb <= 0 {
		perturb = 1 + n/4
	}
	for r := 1; r <= opt.Restarts; r++ {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(r)))
		c := newClimber(s, best.Clone(), &opt, con)
		for range perturb {
			// Deleting and reversing edges: random additions would
			// mostly be undone at once by the climb.
			var legal, adds []move
			c.moves(func(m move) {
				if m.kind == moveAdd {
					adds = append(adds, m)
				} else {
					legal = append(legal, m)
				}
			})
			if len(legal) == 0 {
				legal = adds
			}
			if len(legal) == 0 {
				break
			}
			c.apply(legal[rng.IntN(len(legal))])
			iters++
		}
		g2, sc, it := c.climb(iters)
		iters += it
		if better(sc) {
			best, bestScore = g2, sc
		}
	}
	return &Result{DAG: best, Score: s.Total(best), Iterations: iters, Seconds: time.Since(t0).Seconds()}, nil
}
