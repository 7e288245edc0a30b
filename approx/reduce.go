package approx

import (
	"math"

	"github.com/pbl-lang/pbl/factor"
)

// propReduced is a Problem restricted to its evidence, the form in which the
// propagation algorithms and local search read it: every factor (the
// Likelihood ones included) with its observed variables fixed and dropped,
// scaled so that its largest entry is 1, the constants taken off kept as
// one logarithm.
type propReduced struct {
	card     []int
	obs      []int
	fs       []*factor.Factor // restricted, scaled, each with a variable
	logConst float64          // ln of the scales and constant factors
	logFree  float64          // ln of the states of the variables in no factor
	inFactor []bool           // v is in some factor of fs
	maxArity int              // the largest scope in fs
}

// propReduce restricts p to its evidence. It returns ErrImpossible when a
// factor is zero at the evidence.
func propReduce(p *Problem) (*propReduced, error) {
	n := len(p.Card)
	if len(p.Obs) != n {
		panic("approx: len(Obs) != len(Card)")
	}
	for v, s := range p.Obs {
		if s >= 0 && s >= p.Card[v] {
			panic("approx: observed state out of range")
		}
	}
	r := &propReduced{card: p.Card, obs: p.Obs, inFactor: make([]bool, n)}
	all := make([]*factor.Factor, 0, len(p.Factors)+len(p.Likelihood))
	all = append(append(all, p.Factors...), p.Likelihood...)
	for _, f := range all {
		if f == nil {
			continue
		}
		g := factor.Restrict(f, p.Obs)
		mx := 0.0
		for _, x := range g.Vals {
			if x > mx {
				mx = x
			}
		}
		if !(mx > 0) || math.IsInf(mx, 1) {
			return nil, ErrImpossible
		}
		r.logConst += math.Log(mx)
		if len(g.Vars) == 0 {
			continue
		}
		if mx != 1 {
			if g == f {
				g = f.Clone()
			}
			for i := range g.Vals {
				g.Vals[i] /= mx
			}
		}
		for _, v := range g.Vars {
			r.inFactor[v] = true
		}
		r.maxArity = max(r.maxArity, len(g.Vars))
		r.fs = append(r.fs, g)
	}
	// A variable in no factor multiplies Z by its number of states.
	for v, c := range p.Card {
		if c > 0 && p.Obs[v] < 0 && !r.inFactor[v] {
			r.logFree += math.Log(float64(c))
		}
	}
	return r, nil
}

// result returns a Result whose marginals are those of g (the marginal of
// variable v from cluster home[v]) for the variables in a factor, point
// masses for the observed ones and uniform for the free ones; the error of
// the free and observed ones is 0, that of the others errOf (nil for 0).
func (r *propReduced) result(g *clusterGraph, home []int) *Result {
	res := &Result{Marg: make([][]float64, len(r.card)), Err: make([][]float64, len(r.card)), LogZLo: math.Inf(-1), LogZHi: math.Inf(1)}
	for v, c := range r.card {
		if c <= 0 {
			continue
		}
		row := make([]float64, 2*c)
		m, e := row[:c:c], row[c:]
		res.Marg[v], res.Err[v] = m, e
		switch {
		case r.obs[v] >= 0:
			m[r.obs[v]] = 1
		case !r.inFactor[v] || g == nil || home[v] < 0:
			for s := range m {
				m[s] = 1 / float64(c)
			}
		}
	}
	if g != nil {
		// Each home cluster's belief once, for all its variables (a
		// linked list of the variables of each cluster).
		first := make([]int, len(g.psi))
		for i := range first {
			first[i] = -1
		}
		next := make([]int, len(r.card))
		for v := len(r.card) - 1; v >= 0; v-- {
			if r.card[v] > 0 && r.obs[v] < 0 && r.inFactor[v] && home[v] >= 0 {
				next[v], first[home[v]] = first[home[v]], v
			}
		}
		for h, v := range first {
			if v < 0 {
				continue
			}
			bel := g.scratch[:len(g.psi[h])]
			g.belief(h, bel)
			for ; v >= 0; v = next[v] {
				g.marginal(h, factor.Var(v), bel, res.Marg[v])
				propClamp(res.Marg[v])
			}
		}
	}
	if g != nil {
		res.LogZ = g.logZ() + r.logConst + r.logFree
	} else {
		res.LogZ = r.logConst + r.logFree
	}
	return res
}

// propClamp makes a row of probabilities sum to 1 within [0, 1] (rounding
// may leave it a few ulps off); a zero row becomes uniform.
func propClamp(m []float64) {
	s := 0.0
	for i, x := range m {
		if !(x > 0) {
			m[i] = 0
		}
		s += m[i]
	}
	if !(s > 0) || math.IsInf(s, 1) {
		for i := range m {
			m[i] = 1 / float64(len(m))
		}
		return
	}
	for i := range m {
		m[i] = min(1, m[i]/s)
	}
}
