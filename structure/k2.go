package structure

import (
	"math"
	"slices"
	"time"
)

// K2Search is Cooper and Herskovits' K2 (Mitchell §6.11.6): given an
// ordering of the variables, each variable in turn takes as parents,
// greedily, the predecessor in the ordering that most increases its family
// score, until no predecessor increases it or it has MaxParents parents.
// Required edges start as parents (and must agree with the ordering);
// forbidden edges are never added. With the K2 score this is the original
// algorithm; any decomposable score may be used.
func K2Search(s *Scorer, opt Options) (*Result, error) {
	t0 := time.Now()
	n := len(s.D.Names)
	if err := CheckScore(s.D, s.Kind); err != nil {
		return nil, err
	}
	opt.Forbid = withRealForbidden(s.D, opt.Forbid)
	order := opt.Order
	if len(order) != n {
		return nil, errorf(ErrInvalidArgument, "the ordering has %d variables, the data %d", len(order), n)
	}
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for k, v := range order {
		if v < 0 || v >= n || pos[v] >= 0 {
			return nil, errorf(ErrInvalidArgument, "the ordering names a variable twice or not at all")
		}
		pos[v] = k
	}
	con, err := newConstraints(n, &opt)
	if err != nil {
		return nil, err
	}
	g := NewDAG(s.D.Names)
	for _, e := range opt.Require {
		if pos[e[0]] > pos[e[1]] {
			return nil, edgeErr(e[0], e[1], ErrAgainstOrder, "the required edge %s -> %s goes against the ordering", g.Names[e[0]], g.Names[e[1]])
		}
		if err := g.AddEdge(e[0], e[1]); err != nil {
			return nil, err
		}
	}
	iters := 0
	w := opt.workers()
	for k, v := range order {
		cur := s.Family(v, g.Parents[v])
		gains := make([]float64, k)
		for opt.MaxParents == 0 || len(g.Parents[v]) < opt.MaxParents {
			ps := g.Parents[v]
			parallelFor(w, k, func(c int) {
				z := order[c]
				if slices.Contains(ps, z) || con.forb[z*n+v] {
					gains[c] = math.Inf(-1)
					return
				}
				more := append(slices.Clone(ps), z)
				slices.Sort(more)
				gains[c] = s.Family(v, more) - cur
			})
			best := -1
			for c := range gains {
				if best < 0 || gains[c] > gains[best] {
					best = c
				}
			}
			if best < 0 || !(gains[best] > 1e-10*(1+math.Abs(cur))) {
				break
			}
			if err := g.AddEdge(order[best], v); err != nil {
				panic("structure: K2: " + err.Error())
			}
			cur += gains[best]
			iters++
			if opt.Progress != nil {
				opt.Progress(iters, cur)
			}
		}
	}
	return &Result{DAG: g, Score: s.Total(g), Iterations: iters, Seconds: time.Since(t0).Seconds()}, nil
}
