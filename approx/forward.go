package approx

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/factor"
)

// This file is the forward sampler that likelihood weighting (lw.go) and
// importance sampling (is.go) share, and that Gibbs sampling (gibbs.go)
// uses to find its chains' first states on a Bayesian network: the network
// compiled into flat index lists, one sample drawn in topological order
// with the evidence clamped and its log weight.

// ErrNotBayesNet is the error of a sampler that draws in topological order
// (lw, is) given a Problem without a Bayesian network's structure
// (Problem.BN nil).
var ErrNotBayesNet = errors.New("approx: the algorithm needs a Bayesian network")

// fwdNet is a Bayesian network compiled for forward sampling.
type fwdNet struct {
	card  []int
	obs   []int
	order []int     // the variables that take part, parents first
	nodes []fwdNode // indexed by variable; zero for those that take none
	// extra are the factors that are not a CPT of the structure
	// (Problem.Factors that no Network.CPT names, and Problem.Likelihood):
	// their entries multiply a sample's weight once it is complete.
	extra []smpScope
	off   []int // off[v]: v's first state in the flat marginal arrays; -1 if v takes no part
	total int   // number of states of the variables that take part
}

// fwdNode is one variable's conditional table P(v | parents).
type fwdNode struct {
	vals   []float64 // the CPT's entries (Problem.Factors[BN.CPT[v]].Vals)
	stride int       // v's stride in vals
	par    []int     // v's parents
	pstr   []int     // their strides in vals
}

// smpScope is a factor's entries with its variables and their strides,
// for the samplers' index arithmetic.
type smpScope struct {
	vals []float64
	vars []int
	str  []int
}

// at returns the entry of f at the assignment x (one state per variable
// of the problem).
func (f *smpScope) at(x []int) float64 {
	i := 0
	for k, v := range f.vars {
		i += x[v] * f.str[k]
	}
	return f.vals[i]
}

// smpScopeOf returns f's scope for index arithmetic, checking it against
// the problem's cardinalities; it panics on a malformed problem.
func smpScopeOf(p *Problem, f *factor.Factor) smpScope {
	sc := smpScope{vals: f.Vals, vars: make([]int, len(f.Vars)), str: append([]int(nil), f.Stride...)}
	for k, v := range f.Vars {
		if int(v) < 0 || int(v) >= len(p.Card) || p.Card[v] != f.Card[k] {
			panic("approx: a factor's variable or cardinality does not match Problem.Card")
		}
		sc.vars[k] = int(v)
	}
	return sc
}

// smpOffsets returns each variable's first state in a flat array of the
// states of the variables that take part (Card > 0), and their number.
func smpOffsets(card []int) ([]int, int) {
	off := make([]int, len(card))
	t := 0
	for v, c := range card {
		off[v] = -1
		if c > 0 {
			off[v] = t
			t += c
		}
	}
	return off, t
}

// smpCheckObs panics if the evidence does not fit the problem.
func smpCheckObs(p *Problem) {
	if len(p.Obs) != len(p.Card) {
		panic("approx: len(Problem.Obs) != len(Problem.Card)")
	}
	for v, o := range p.Obs {
		if o >= 0 && o >= p.Card[v] {
			panic("approx: an observed state is out of range")
		}
	}
}

// newFwdNet compiles p's Bayesian network; ErrNotBayesNet if p has none.
// It panics on a malformed problem (a programmer's error: package infer
// builds problems from validated models).
func newFwdNet(p *Problem) (*fwdNet, error) {
	if p.BN == nil {
		return nil, ErrNotBayesNet
	}
	smpCheckObs(p)
	n := len(p.Card)
	if len(p.BN.CPT) != n {
		panic("approx: len(Network.CPT) != len(Problem.Card)")
	}
	f := &fwdNet{card: p.Card, obs: p.Obs, nodes: make([]fwdNode, n)}
	f.off, f.total = smpOffsets(p.Card)
	isCPT := make([]bool, len(p.Factors))
	for v, c := range p.BN.CPT {
		if p.Card[v] == 0 {
			continue
		}
		if c < 0 || c >= len(p.Factors) {
			panic("approx: a variable that takes part has no CPT")
		}
		isCPT[c] = true
		sc := smpScopeOf(p, p.Factors[c])
		nd := fwdNode{vals: sc.vals, stride: -1}
		for k, u := range sc.vars {
			if u == v {
				nd.stride = sc.str[k]
				continue
			}
			nd.par = append(nd.par, u)
			nd.pstr = append(nd.pstr, sc.str[k])
		}
		if nd.stride < 0 {
			panic("approx: a CPT does not mention its variable")
		}
		f.nodes[v] = nd
	}
	seen := make([]bool, n)
	for _, v := range p.BN.Order {
		if int(v) < 0 || int(v) >= n || seen[v] {
			panic("approx: Network.Order is not a list of distinct variables")
		}
		if p.Card[v] == 0 {
			continue
		}
		for _, u := range f.nodes[v].par {
			if !seen[u] {
				panic("approx: Network.Order is not topological")
			}
		}
		seen[v] = true
		f.order = append(f.order, int(v))
	}
	for v, c := range p.Card {
		if c > 0 && !seen[v] {
			panic("approx: Network.Order leaves out a variable")
		}
	}
	for i, fa := range p.Factors {
		if !isCPT[i] {
			f.extra = append(f.extra, smpScopeOf(p, fa))
		}
	}
	for _, fa := range p.Likelihood {
		f.extra = append(f.extra, smpScopeOf(p, fa))
	}
	return f, nil
}

// base returns the offset in v's table of the row of its parents' states
// in x.
func (nd *fwdNode) base(x []int) int {
	b := 0
	for k, u := range nd.par {
		b += x[u] * nd.pstr[k]
	}
	return b
}

// smpDraw returns a state drawn from the row of a table at base with the
// given stride and card states, or -1 if the row is all zeros. Rows of
// CPTs and ICPTs sum to 1, so the draw is one pass over the row; a row
// that does not (rounding aside) is drawn again against its sum.
func smpDraw(rng *rand.Rand, vals []float64, base, stride, card int) int {
	u := rng.Float64()
	acc, last := 0.0, -1
	for s := range card {
		w := vals[base+s*stride]
		if w <= 0 {
			continue
		}
		acc += w
		last = s
		if u < acc {
			return s
		}
	}
	if last < 0 || acc >= 1-1e-9 {
		return last // all zeros, or u fell on the sum's rounding
	}
	u *= acc // a row that sums to less than 1
	acc = 0
	for s := range card {
		w := vals[base+s*stride]
		if w <= 0 {
			continue
		}
		acc += w
		if u < acc {
			return s
		}
	}
	return last
}

// smpProp is an importance sampler's proposal: q[v], for each unobserved
// v, a table with the layout of v's CPT whose rows sum to 1 (nil for the
// others), and lr[v] = ln P − ln q entry by entry (−Inf where P is 0),
// so that a sample's weight costs a lookup per variable.
type smpProp struct {
	q, lr [][]float64
}

// logs sets lr from q.
func (pr *smpProp) logs(f *fwdNet) {
	if pr.lr == nil {
		pr.lr = make([][]float64, len(pr.q))
	}
	for v, q := range pr.q {
		if q == nil {
			continue
		}
		if pr.lr[v] == nil {
			pr.lr[v] = make([]float64, len(q))
		}
		vals := f.nodes[v].vals
		for i, x := range q {
			pr.lr[v][i] = math.Inf(-1)
			if vals[i] > 0 && x > 0 {
				pr.lr[v][i] = math.Log(vals[i]) - math.Log(x)
			}
		}
	}
}

// sample draws one sample into x: each unobserved variable from the
// proposal pr (from its CPT when pr is nil), each observed one clamped.
// It returns the sample's log weight, ln of the product of the CPTs' and
// extra factors' entries over the proposal's, -Inf for a sample of
// weight 0. ids, if not nil, receives for each unobserved variable v the
// offset in its table of the entry drawn (-1 for the others).
func (f *fwdNet) sample(rng *rand.Rand, pr *smpProp, x, ids []int) float64 {
	lw := 0.0
	for _, v := range f.order {
		nd := &f.nodes[v]
		b := nd.base(x)
		if o := f.obs[v]; o >= 0 {
			x[v] = o
			if ids != nil {
				ids[v] = -1
			}
			pv := nd.vals[b+o*nd.stride]
			if !(pv > 0) {
				return math.Inf(-1)
			}
			lw += math.Log(pv)
			continue
		}
		if pr == nil {
			s := smpDraw(rng, nd.vals, b, nd.stride, f.card[v])
			if s < 0 {
				return math.Inf(-1)
			}
			x[v] = s
		} else {
			s := smpDraw(rng, pr.q[v], b, nd.stride, f.card[v])
			if s < 0 {
				return math.Inf(-1)
			}
			x[v] = s
			lw += pr.lr[v][b+s*nd.stride]
			if math.IsInf(lw, -1) {
				return lw
			}
		}
		if ids != nil {
			ids[v] = b + x[v]*nd.stride
		}
	}
	for k := range f.extra {
		e := f.extra[k].at(x)
		if !(e > 0) {
			return math.Inf(-1)
		}
		lw += math.Log(e)
	}
	return lw
}
