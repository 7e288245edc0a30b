package structure

import (
	"math"
	"time"
)

// MutualInformation returns the empirical mutual information (in nats)
// of variables a and b, from the rows where both are observed.
func MutualInformation(d *Data, a, b int) float64 {
	ra, rb := d.Card[a], d.Card[b]
	tab := make([]int32, ra*rb)
	ca, cb := d.Cols[a][:d.N], d.Cols[b][:d.N]
	n := 0
	for i, x := range ca {
		y := cb[i]
		if x < 0 || y < 0 {
			continue
		}
		tab[int(x)*rb+int(y)]++
		n++
	}
	if n == 0 {
		return 0
	}
	na := make([]float64, ra)
	nb := make([]float64, rb)
	for x := 0; x < ra; x++ {
		for y := 0; y < rb; y++ {
			c := float64(tab[x*rb+y])
			na[x] += c
			nb[y] += c
		}
	}
	mi := 0.0
	fn := float64(n)
	for x := 0; x < ra; x++ {
		for y := 0; y < rb; y++ {
			if c := float64(tab[x*rb+y]); c > 0 {
				mi += c * math.Log(c*fn/(na[x]*nb[y]))
			}
		}
	}
	return mi / fn
}

// ChowLiu returns the Chow–Liu tree: the maximum spanning tree of the
// variables weighted by their pairwise mutual information (Prim's
// algorithm from the first variable, ties to the lowest index), its edges
// directed away from the first variable, except that an edge from a
// real-valued variable to a discrete one is turned round. A pair with a
// real-valued variable is weighted by its log-likelihood gain per row
// (realMI). The result's score is the scorer's.
func ChowLiu(s *Scorer, opt Options) *Result {
	t0 := time.Now()
	d := s.D
	n := len(d.Names)
	mi := make([]float64, n*n)
	parallelFor(opt.workers(), n*n, func(k int) {
		a, b := k/n, k%n
		if a < b {
			if d.IsReal(a) || d.IsReal(b) {
				mi[k] = realMI(s, a, b)
			} else {
				mi[k] = MutualInformation(d, a, b)
			}
		}
	})
	w := func(a, b int) float64 {
		if a > b {
			a, b = b, a
		}
		return mi[a*n+b]
	}
	g := NewDAG(d.Names)
	if n == 0 {
		return &Result{DAG: g}
	}
	in := make([]bool, n)
	best := make([]float64, n)
	from := make([]int, n)
	in[0] = true
	for v := 1; v < n; v++ {
		best[v], from[v] = w(0, v), 0
	}
	for k := 1; k < n; k++ {
		pick := -1
		for v := 1; v < n; v++ {
			if !in[v] && (pick < 0 || best[v] > best[pick]) {
				pick = v
			}
		}
		in[pick] = true
		a, b := from[pick], pick
		if d.IsReal(a) && !d.IsReal(b) {
			// No discrete variable has a real parent: the edge turns
			// round (any orientation of a tree is acyclic).
			a, b = b, a
		}
		if err := g.AddEdge(a, b); err != nil {
			panic("structure: Chow–Liu: " + err.Error())
		}
		for v := 1; v < n; v++ {
			if !in[v] && w(pick, v) > best[v] {
				best[v], from[v] = w(pick, v), pick
			}
		}
	}
	return &Result{DAG: g, Score: s.Total(g), Iterations: n - 1, Seconds: time.Since(t0).Seconds()}
}
