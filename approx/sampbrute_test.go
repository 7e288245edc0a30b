package approx

import (
	"math/rand/v2"
	"slices"

	"github.com/pbl-lang/pbl/factor"
)

// This file holds the samplers' random small Bayesian and Markov networks
// with evidence and deterministic zeros; their independent reference is
// propEnumerate (prop_helpers_test.go).

// smpRandBN returns a random Bayesian network of n variables (2 or 3
// states, up to maxPar parents), each CPT entry 0 with probability zero
// (every row keeps a positive entry), the variable placed at a random
// position of its CPT's scope, in a shuffled topological order.
func smpRandBN(rng *rand.Rand, n, maxPar int, zero float64) *Problem {
	p := &Problem{Card: make([]int, n), Obs: make([]int, n), BN: &Network{CPT: make([]int, n)}}
	perm := rng.Perm(n) // perm[i] is the i-th variable in topological order
	for i := range n {
		p.Card[i] = 2 + rng.IntN(2)
		p.Obs[i] = -1
	}
	for i, v := range perm {
		np := min(i, rng.IntN(maxPar+1))
		par := rng.Perm(i)[:np]
		vars := make([]factor.Var, 0, np+1)
		for _, k := range par {
			vars = append(vars, factor.Var(perm[k]))
		}
		pos := rng.IntN(np + 1)
		vars = slices.Insert(vars, pos, factor.Var(v))
		card := make([]int, len(vars))
		for k, u := range vars {
			card[k] = p.Card[u]
		}
		f := factor.New(vars, card)
		stride := f.Stride[pos]
		c := p.Card[v]
		for b := range f.Vals {
			if (b/stride)%c != 0 {
				continue
			}
			sum := 0.0
			keep := rng.IntN(c)
			for s := range c {
				w := rng.ExpFloat64()
				if s != keep && rng.Float64() < zero {
					w = 0
				}
				f.Vals[b+s*stride] = w
				sum += w
			}
			for s := range c {
				f.Vals[b+s*stride] /= sum
			}
		}
		p.BN.CPT[v] = len(p.Factors)
		p.Factors = append(p.Factors, f)
		p.BN.Order = append(p.BN.Order, factor.Var(v))
	}
	return p
}

// smpRandMN returns a random Markov network of n variables (2 or 3
// states) with nf factors of 1 to 3 variables, each entry 0 with
// probability zero.
func smpRandMN(rng *rand.Rand, n, nf int, zero float64) *Problem {
	p := &Problem{Card: make([]int, n), Obs: make([]int, n)}
	for i := range n {
		p.Card[i] = 2 + rng.IntN(2)
		p.Obs[i] = -1
	}
	for range nf {
		k := 1 + rng.IntN(min(3, n))
		vs := rng.Perm(n)[:k]
		vars := make([]factor.Var, k)
		card := make([]int, k)
		for i, v := range vs {
			vars[i], card[i] = factor.Var(v), p.Card[v]
		}
		f := factor.New(vars, card)
		for i := range f.Vals {
			if rng.Float64() >= zero {
				f.Vals[i] = 0.05 + rng.ExpFloat64()
			}
		}
		p.Factors = append(p.Factors, f)
	}
	return p
}

// smpObserve observes k random variables of p at the states of an
// assignment of positive probability (drawn by enumeration), so that the
// evidence is possible; false if p has none.
func smpObserve(rng *rand.Rand, p *Problem, k int) bool {
	n := len(p.Card)
	x := make([]int, n)
	var pick []int
	best := -1.0
	for {
		w := 1.0
		for _, f := range append(slices.Clone(p.Factors), p.Likelihood...) {
			i := 0
			for j, v := range f.Vars {
				i += x[v] * f.Stride[j]
			}
			w *= f.Vals[i]
		}
		if w > 0 {
			// reservoir sampling among the positive assignments
			if r := rng.Float64(); r > best {
				best = r
				pick = slices.Clone(x)
			}
		}
		j := n - 1
		for ; j >= 0; j-- {
			x[j]++
			if x[j] < p.Card[j] {
				break
			}
			x[j] = 0
		}
		if j < 0 {
			break
		}
	}
	if pick == nil {
		return false
	}
	for _, v := range rng.Perm(n)[:k] {
		p.Obs[v] = pick[v]
	}
	return true
}

// smpSoft adds a random likelihood factor (soft evidence) on a random
// variable of p.
func smpSoft(rng *rand.Rand, p *Problem) {
	v := rng.IntN(len(p.Card))
	f := factor.New([]factor.Var{factor.Var(v)}, []int{p.Card[v]})
	for i := range f.Vals {
		f.Vals[i] = 0.1 + rng.Float64()
	}
	p.Likelihood = append(p.Likelihood, f)
}
