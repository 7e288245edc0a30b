package approx

import (
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/factor"
)

// This file holds the package's independent reference for every
// algorithm's tests (propagation, samplers, weighted mini-buckets), a
// brute force enumerator, and the propagation tests' generators of random
// problems.

// propExact is the exact answer of a Problem by enumeration.
type propExact struct {
	marg   [][]float64 // nil for Card 0
	logZ   float64     // -Inf when the evidence is impossible
	logMax float64     // ln of the largest term
	argMax []int       // an assignment reaching it
}

// propEnumerate computes p's marginals, ln Z and MPE by summing the
// factors' product over every assignment consistent with the evidence.
// When Z = 0 (impossible evidence) logZ is −Inf and the marginals are
// left at 0.
// It evaluates each factor at each assignment directly, sharing no code
// with the algorithms.
func propEnumerate(p *Problem) propExact {
	n := len(p.Card)
	x := make([]int, n)
	var free []int
	for v, c := range p.Card {
		switch {
		case c <= 0:
			x[v] = -1
		case p.Obs[v] >= 0:
			x[v] = p.Obs[v]
		default:
			free = append(free, v)
		}
	}
	all := append(append([]*factor.Factor(nil), p.Factors...), p.Likelihood...)
	acc := make([][]float64, n)
	for v, c := range p.Card {
		if c > 0 {
			acc[v] = make([]float64, c)
		}
	}
	z, best := 0.0, -1.0
	var arg []int
	for {
		w := 1.0
		for _, f := range all {
			o := 0
			for k, v := range f.Vars {
				o += x[v] * f.Stride[k]
			}
			w *= f.Vals[o]
		}
		z += w
		if w > best {
			best = w
			arg = append(arg[:0], x...)
		}
		for v, a := range acc {
			if a != nil {
				a[x[v]] += w
			}
		}
		k := len(free) - 1
		for ; k >= 0; k-- {
			v := free[k]
			x[v]++
			if x[v] < p.Card[v] {
				break
			}
			x[v] = 0
		}
		if k < 0 {
			break
		}
	}
	e := propExact{marg: acc, logZ: math.Log(z), logMax: math.Log(best), argMax: arg}
	if z > 0 {
		for _, a := range acc {
			for i := range a {
				a[i] /= z
			}
		}
	}
	return e
}

// propFactor returns a factor over vars with entries drawn by gen.
func propFactor(card []int, vars []factor.Var, gen func() float64) *factor.Factor {
	cs := make([]int, len(vars))
	for i, v := range vars {
		cs[i] = card[v]
	}
	f := factor.New(vars, cs)
	for i := range f.Vals {
		f.Vals[i] = gen()
	}
	return f
}

// propRandomBN returns a random Bayesian network of n variables with up to
// maxPar parents each and 2 or 3 states; with zeros, about one CPT entry
// in eight is 0 (a row is never all zero). About frac of the variables
// are observed at a state drawn forward, so that the evidence is possible.
func propRandomBN(rng *rand.Rand, n, maxPar int, zeros bool, frac float64) *Problem {
	card := make([]int, n)
	for v := range card {
		card[v] = 2 + rng.IntN(2)
	}
	p := &Problem{Card: card, Obs: make([]int, n), BN: &Network{CPT: make([]int, n)}}
	for v := range n {
		k := min(v, rng.IntN(maxPar+1))
		par := rng.Perm(max(v, 1))[:k]
		vars := make([]factor.Var, 0, k+1)
		for _, u := range par {
			vars = append(vars, factor.Var(u))
		}
		vars = append(vars, factor.Var(v))
		f := propFactor(card, vars, func() float64 {
			if zeros && rng.IntN(8) == 0 {
				return 0
			}
			return 0.05 + rng.Float64()
		})
		c := card[v]
		for i := 0; i < len(f.Vals); i += c {
			row := f.Vals[i : i+c]
			s := 0.0
			for _, y := range row {
				s += y
			}
			if s == 0 {
				row[rng.IntN(c)] = 1
				s = 1
			}
			for j := range row {
				row[j] /= s
			}
		}
		p.BN.CPT[v] = len(p.Factors)
		p.BN.Order = append(p.BN.Order, factor.Var(v))
		p.Factors = append(p.Factors, f)
	}
	// Forward sample for possible evidence.
	x := make([]int, n)
	for v := range n {
		f := p.Factors[v]
		o := 0
		for k, u := range f.Vars[:len(f.Vars)-1] {
			o += x[u] * f.Stride[k]
		}
		r, s := rng.Float64(), 0.0
		x[v] = card[v] - 1
		for t := range card[v] {
			s += f.Vals[o+t]
			if r < s {
				x[v] = t
				break
			}
		}
	}
	for v := range n {
		p.Obs[v] = -1
		if rng.Float64() < frac {
			p.Obs[v] = x[v]
		}
	}
	return p
}

// propRandomMN returns a random Markov network of n variables with m
// factors over 2 or 3 variables each (and a unary one per variable);
// with zeros, about one entry in ten is 0. About frac of the variables
// are observed at random states (which may make the evidence impossible;
// the callers check).
func propRandomMN(rng *rand.Rand, n, m int, zeros bool, frac float64) *Problem {
	card := make([]int, n)
	for v := range card {
		card[v] = 2 + rng.IntN(2)
	}
	p := &Problem{Card: card, Obs: make([]int, n)}
	gen := func() float64 {
		if zeros && rng.IntN(10) == 0 {
			return 0
		}
		return math.Exp(rng.NormFloat64())
	}
	for v := range n {
		p.Factors = append(p.Factors, propFactor(card, []factor.Var{factor.Var(v)}, gen))
	}
	for range m {
		k := 2 + rng.IntN(2)
		perm := rng.Perm(n)[:min(k, n)]
		vars := make([]factor.Var, len(perm))
		for i, u := range perm {
			vars[i] = factor.Var(u)
		}
		p.Factors = append(p.Factors, propFactor(card, vars, gen))
	}
	for v := range n {
		p.Obs[v] = -1
		if rng.Float64() < frac {
			p.Obs[v] = rng.IntN(card[v])
		}
	}
	return p
}

// propGrid returns a w×h grid Markov network of binary variables with
// unary potentials exp(N(0, 1)·field) and pairwise ones exp(±coupling·N)
// (the Ising model of the UAI grids).
func propGrid(rng *rand.Rand, w, h int, field, coupling float64) *Problem {
	n := w * h
	card := make([]int, n)
	for v := range card {
		card[v] = 2
	}
	p := &Problem{Card: card, Obs: make([]int, n)}
	for v := range n {
		p.Obs[v] = -1
		a := field * rng.NormFloat64()
		f := factor.New([]factor.Var{factor.Var(v)}, []int{2})
		f.Vals[0], f.Vals[1] = math.Exp(a), math.Exp(-a)
		p.Factors = append(p.Factors, f)
	}
	pair := func(a, b int) {
		c := coupling * rng.NormFloat64()
		f := factor.New([]factor.Var{factor.Var(a), factor.Var(b)}, []int{2, 2})
		f.Vals[0], f.Vals[1], f.Vals[2], f.Vals[3] = math.Exp(c), math.Exp(-c), math.Exp(-c), math.Exp(c)
		p.Factors = append(p.Factors, f)
	}
	for i := range h {
		for j := range w {
			v := i*w + j
			if j+1 < w {
				pair(v, v+1)
			}
			if i+1 < h {
				pair(v, v+w)
			}
		}
	}
	return p
}

// propCheckResult fails t unless every row of res.Marg sums to 1 within
// [0, 1] and no error is NaN or negative.
func propCheckResult(t interface {
	Helper()
	Fatalf(string, ...any)
}, p *Problem, res *Result) {
	t.Helper()
	if math.IsNaN(res.LogZ) || math.IsNaN(res.LogZErr) || !(res.LogZErr >= 0) {
		t.Fatalf("LogZ %v ± %v", res.LogZ, res.LogZErr)
	}
	for v, c := range p.Card {
		if c <= 0 {
			continue
		}
		m, e := res.Marg[v], res.Err[v]
		if len(m) != c || len(e) != c {
			t.Fatalf("variable %d: %d marginals, %d errors, want %d", v, len(m), len(e), c)
		}
		s := 0.0
		for i, x := range m {
			if !(x >= 0 && x <= 1) || !(e[i] >= 0) {
				t.Fatalf("variable %d: marginal %v, error %v", v, m, e)
			}
			s += x
		}
		if !(math.Abs(s-1) <= 1e-9) {
			t.Fatalf("variable %d: marginal %v sums to %v", v, m, s)
		}
	}
}

// propWithin reports whether every marginal of res is within its error
// (plus slack) of the exact one; it returns the worst excess.
func propWithin(ex propExact, res *Result, v int, slack float64) bool {
	for i, x := range res.Marg[v] {
		if !(math.Abs(x-ex.marg[v][i]) <= res.Err[v][i]+slack) {
			return false
		}
	}
	return true
}
