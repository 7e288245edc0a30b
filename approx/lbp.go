package approx

import (
	"math"
	"slices"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// LBP is loopy belief propagation on the factor graph of p restricted to
// its evidence (the Likelihood factors multiplied in): a cluster for each
// factor (a factor whose scope lies within another's is multiplied into
// it, unary factors into their variable) and one for each variable, joined
// by edges labelled with the variable.
//
// Messages are passed in a fixed deterministic schedule: sweeps forward
// and backward along an order in which each node of a tree has one
// later neighbour (so that on a factor graph that is a tree one undamped
// sweep is exact), damped by Settings.Damping (default 0.5), until the
// largest change of a message entry is at most Settings.Tolerance (default
// 1e-8) or after Settings.MaxIter sweeps (default 1000). Messages are
// normalised after each update, so no product underflows on networks of
// thousands of variables. LogZ is the Bethe free energy at the last
// messages. Propagation takes at most half the time to Settings.Deadline
// (the rest goes to the error estimate); at the deadline or Cancel it
// returns the beliefs of the messages it has, with Stopped set.
//
// Propagation is sequential: Settings.Workers is not used, and the
// numbers are the same for any value of it.
//
// # Error estimate
//
// When the factor graph is a tree, the answer is exact (Err 0, up to
// rounding). Otherwise Err[v][s] is |b(v=s) − r(v=s)| + ε_r(v=s), where r
// is the answer of IJGP (see [IJGP]) with the i-bound Settings.IBound, or,
// when it is 0, the largest whose join graph takes at most 16 times the
// factor graph's memory (and at least 1 MiB) in the time left, and
// ε_r is IJGP's own error estimate: by the triangle inequality, a bound on
// LBP's error whenever IJGP's estimate bounds its own. When IJGP reaches
// the induced width, r is exact and Err is LBP's true error. LogZErr is
// formed in the same way. Err is +Inf where no reference could be
// computed in time.
func LBP(p *Problem, s Settings) (*Result, error) {
	r, err := propReduce(p)
	if err != nil {
		return nil, err
	}
	g, home, err := lbpGraph(r)
	if err != nil {
		return nil, err
	}
	st := newPropStopper(s)
	damp, tol, maxIter := propDefaults(s)
	// Propagation has at most half the time to the deadline; the rest is
	// the reference's.
	own := newPropStopper(s)
	if !s.Deadline.IsZero() {
		own.deadline = time.Now().Add(time.Until(s.Deadline) / 2)
	}
	iter, conv, err := g.propagate(damp, tol, maxIter, own)
	if err != nil {
		return nil, err
	}
	res := r.result(g, home)
	res.Engine, res.Iterations, res.Converged, res.Stopped = "lbp", iter, conv, st.stop()
	if math.IsInf(res.LogZ, -1) {
		return nil, ErrImpossible
	}
	if g.tree && conv {
		res.LogZLo, res.LogZHi = res.LogZ, res.LogZ
		return res, nil
	}
	// The reference: IJGP at a larger i-bound.
	rs := s
	rs.Init = nil
	if rs.IBound == 0 {
		n := 0
		for _, x := range g.psi {
			n += len(x)
		}
		rs.MaxMemory = min(propMemory(s), max(int64(16*12*n), 1<<20))
	}
	var ref *Result
	if !res.Stopped {
		ref, err = IJGP(p, rs)
		if err == ErrImpossible {
			return nil, err
		}
	}
	if ref == nil || math.IsInf(ref.LogZErr, 1) {
		propSetErr(res, math.Inf(1))
		propExactErr(r, res)
		return res, nil
	}
	for v, m := range res.Marg {
		if r.obs[v] >= 0 || !r.inFactor[v] {
			continue
		}
		for i := range m {
			res.Err[v][i] = propErrBound(math.Abs(m[i]-ref.Marg[v][i]) + ref.Err[v][i])
		}
	}
	res.LogZErr = propRound(math.Abs(res.LogZ-ref.LogZ) + ref.LogZErr)
	res.IBound = ref.IBound
	return res, nil
}

// propDefaults returns the damping, tolerance and iteration bound of s
// with their defaults.
func propDefaults(s Settings) (damp, tol float64, maxIter int) {
	damp, tol, maxIter = s.Damping, s.Tolerance, s.MaxIter
	switch {
	case damp == 0:
		damp = 0.5
	case damp < 0:
		damp = 0
	case damp >= 1:
		damp = 0.99
	}
	if !(tol > 0) {
		tol = 1e-8
	}
	if maxIter <= 0 {
		maxIter = 1000
	}
	return damp, tol, maxIter
}

// propMemory is Settings.MaxMemory with its default, 256 MiB.
func propMemory(s Settings) int64 {
	if s.MaxMemory > 0 {
		return s.MaxMemory
	}
	return 256 << 20
}

// propRound widens an error estimate by its rounding: the answers it
// compares are themselves computed to about 1e-12.
func propRound(x float64) float64 { return x*(1+1e-9) + 1e-12 }

// propErrBound is propRound capped at 1, the largest error a probability
// can have.
func propErrBound(x float64) float64 { return min(1, propRound(x)) }

// propSetErr sets every error of res to x.
func propSetErr(res *Result, x float64) {
	for _, e := range res.Err {
		for i := range e {
			e[i] = x
		}
	}
	res.LogZErr = x
}

// lbpGraph builds the factor graph of r, its clusters numbered in the
// reverse of a breadth-first order (so that a tree has each node's parent
// after it), and returns it with the cluster of each variable's node.
func lbpGraph(r *propReduced) (*clusterGraph, []int, error) {
	n := len(r.card)
	order := make([]int, len(r.fs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(r.fs[b].Vars) - len(r.fs[a].Vars) })
	var cl []cgCluster
	varCl := make([][]int32, n) // factor clusters of each variable
	unary := make([][]*factor.Factor, n)
	for _, i := range order {
		f := r.fs[i]
		if len(f.Vars) == 1 {
			v := f.Vars[0]
			unary[v] = append(unary[v], f)
			continue
		}
		host := -1
		for _, c := range varCl[f.Vars[0]] {
			if propSubset(f.Vars, cl[c].vars) {
				host = int(c)
				break
			}
		}
		if host >= 0 {
			cl[host].pot = append(cl[host].pot, f)
			continue
		}
		c := len(cl)
		cl = append(cl, cgCluster{vars: slices.Clone(f.Vars), pot: []*factor.Factor{f}})
		for _, v := range f.Vars {
			varCl[v] = append(varCl[v], int32(c))
		}
	}
	home := make([]int, n)
	var ed []cgEdge
	for v := range n {
		home[v] = -1
		if !r.inFactor[v] {
			continue
		}
		home[v] = len(cl)
		cl = append(cl, cgCluster{vars: []factor.Var{factor.Var(v)}, pot: unary[v]})
		for _, c := range varCl[v] {
			ed = append(ed, cgEdge{a: int(c), b: home[v], sep: []factor.Var{factor.Var(v)}})
		}
	}
	perm := propReverseBFS(len(cl), ed)
	cl2 := make([]cgCluster, len(cl))
	for old, nw := range perm {
		cl2[nw] = cl[old]
	}
	for i := range ed {
		ed[i].a, ed[i].b = perm[ed[i].a], perm[ed[i].b]
	}
	for v, h := range home {
		if h >= 0 {
			home[v] = perm[h]
		}
	}
	g, err := newClusterGraph(r.card, cl2, ed, nil)
	return g, home, err
}

// propSubset reports whether every variable of a is in b.
func propSubset(a, b []factor.Var) bool {
	for _, v := range a {
		if factor.IndexOf(b, v) < 0 {
			return false
		}
	}
	return true
}

// propReverseBFS returns the new number of each of n nodes: the reverse
// of a breadth-first order of the graph (components in order of their
// lowest node), in which each node of a tree has its parent numbered
// after it and its children before.
func propReverseBFS(n int, ed []cgEdge) []int {
	deg := make([]int, n+1)
	for _, e := range ed {
		deg[e.a+1]++
		deg[e.b+1]++
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	adj := make([]int32, deg[n])
	fill := slices.Clone(deg[:n])
	for _, e := range ed {
		adj[fill[e.a]] = int32(e.b)
		fill[e.a]++
		adj[fill[e.b]] = int32(e.a)
		fill[e.b]++
	}
	seen := make([]bool, n)
	bfs := make([]int, 0, n)
	for root := range n {
		if seen[root] {
			continue
		}
		seen[root] = true
		head := len(bfs)
		bfs = append(bfs, root)
		for head < len(bfs) {
			x := bfs[head]
			head++
			for _, y := range adj[deg[x]:deg[x+1]] {
				if !seen[y] {
					seen[y] = true
					bfs = append(bfs, int(y))
				}
			}
		}
	}
	perm := make([]int, n)
	for i, x := range bfs {
		perm[x] = n - 1 - i
	}
	return perm
}
