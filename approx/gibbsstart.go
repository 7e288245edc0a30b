package approx

import (
	"math/rand/v2"
)

// This file finds Gibbs sampling's starting states: assignments of
// positive probability, consistent with the evidence and the
// deterministic zeros, and spread out, so that chains that start in
// different modes show it in their R-hat.

// gibbsStartTries bounds forward sampling's attempts at a positive state
// of a Bayesian network, and gibbsRestarts the local search's restarts.
const (
	gibbsStartTries = 100
	gibbsRestarts   = 20
)

// start sets x (evidence already in place) to a state of positive
// probability drawn with rng: on a Bayesian network, forward sampling from
// CPTs flattened toward uniform (each variable drawn from its CPT row or,
// with probability 1/2, uniformly among the row's positive states), the
// samples of probability 0 rejected; otherwise, or when that fails, a
// min-conflicts local search with random restarts. It reports false when
// no positive state was found.
func (g *gibbsNet) start(rng *rand.Rand, x []int) bool {
	if g.bn != nil {
		for range gibbsStartTries {
			if g.forwardStart(rng, x) && g.positive(x) {
				return true
			}
		}
	}
	for range gibbsRestarts {
		if g.search(rng, x) {
			return true
		}
	}
	return false
}

// forwardStart draws x forward in the network's order, flattened toward
// uniform; false at a CPT entry of 0.
func (g *gibbsNet) forwardStart(rng *rand.Rand, x []int) bool {
	f := g.bn
	for _, v := range f.order {
		nd := &f.nodes[v]
		b := nd.base(x)
		if o := f.obs[v]; o >= 0 {
			if !(nd.vals[b+o*nd.stride] > 0) {
				return false
			}
			continue
		}
		var s int
		if rng.IntN(2) == 0 {
			s = smpDraw(rng, nd.vals, b, nd.stride, f.card[v])
		} else {
			s = -1
			k := 0
			for t := range f.card[v] {
				if nd.vals[b+t*nd.stride] > 0 {
					k++
					if rng.IntN(k) == 0 {
						s = t
					}
				}
			}
		}
		if s < 0 {
			return false
		}
		x[v] = s
	}
	return true
}

// positive reports whether every factor is positive at x.
func (g *gibbsNet) positive(x []int) bool {
	for k := range g.scopes {
		if !(g.scopes[k].at(x) > 0) {
			return false
		}
	}
	return true
}

// search is one run of min-conflicts local search from a uniformly random
// state: while some factor is 0 at x, it takes one at random and changes
// one of its free variables, to a random state with probability 1/5 and
// otherwise to the state that leaves the fewest of the variable's factors
// at 0. It reports whether x became positive within its steps.
func (g *gibbsNet) search(rng *rand.Rand, x []int) bool {
	for _, v := range g.free {
		x[v] = rng.IntN(g.card[v])
	}
	nf := len(g.scopes)
	zero := make([]int, 0, nf) // the factors at 0
	at := make([]int, nf)      // position in zero, or -1
	for k := range g.scopes {
		at[k] = -1
		if !(g.scopes[k].at(x) > 0) {
			at[k] = len(zero)
			zero = append(zero, k)
		}
	}
	update := func(v int) {
		for _, r := range g.refs[g.refStart[v]:g.refStart[v+1]] {
			k := int(r.f)
			z := !(g.scopes[k].at(x) > 0)
			switch {
			case z && at[k] < 0:
				at[k] = len(zero)
				zero = append(zero, k)
			case !z && at[k] >= 0:
				last := zero[len(zero)-1]
				zero[at[k]] = last
				at[last] = at[k]
				zero = zero[:len(zero)-1]
				at[k] = -1
			}
		}
	}
	steps := 100 * (len(g.free) + 10)
	var cand []int
	for range steps {
		if len(zero) == 0 {
			return true
		}
		sc := &g.scopes[zero[rng.IntN(len(zero))]]
		cand = cand[:0]
		for _, v := range sc.vars {
			if g.obs[v] < 0 {
				cand = append(cand, v)
			}
		}
		if len(cand) == 0 {
			return false // a factor of the evidence alone is 0
		}
		v := cand[rng.IntN(len(cand))]
		if rng.IntN(5) == 0 {
			x[v] = rng.IntN(g.card[v])
		} else {
			best, nbest, ties := x[v], -1, 0
			for s := range g.card[v] {
				x[v] = s
				nz := 0
				for _, r := range g.refs[g.refStart[v]:g.refStart[v+1]] {
					if !(g.scopes[r.f].at(x) > 0) {
						nz++
					}
				}
				switch {
				case nbest < 0 || nz < nbest:
					best, nbest, ties = s, nz, 1
				case nz == nbest:
					ties++
					if rng.IntN(ties) == 0 {
						best = s
					}
				}
			}
			x[v] = best
		}
		update(v)
	}
	return len(zero) == 0
}
