package infer

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file answers the information measures: entropy(X, Y | e), the
// joint entropy of the posterior P(X, Y | e), and MI(A, B | e), the mutual
// information of two groups of variables, both in bits,
//
//	H(X | e)    = −Σ_x P(x | e) log2 P(x | e)
//	I(A; B | e) =  Σ_{a,b} P(a, b | e) log2 (P(a, b | e) / (P(a | e) P(b | e)))
//
// with 0 · log 0 = 0, summed over the joint posterior that the engines
// compute exactly. VOI ranks variables by the information they carry
// about a target: from one junction tree, calibrated once for e and once
// for each state x of the target, P(v | x, e) for every candidate v at
// once, and
//
//	I(X; V | e) = Σ_x P(x | e) Σ_v P(v | x, e) log2 (P(v | x, e) / P(v | e))
//
// where P(v | e) = Σ_x P(x | e) P(v | x, e): |X| + 1 calibrations in all.

// info answers entropy(X | e) and MI(A, B | e) from the joint posterior of
// the query's variables (A then B for MI).
func (a *answerer) info() (Result, error) {
	q := a.q
	p, err := a.posterior(q.Targets)
	if err != nil {
		return nil, err
	}
	r := &Bits{Header: exact(q)}
	ce, _, inexact := a.jointErr()
	if q.Kind == kindEntropy {
		r.Bits = Entropy(p)
		if inexact {
			a.addErr(entropyErr(p, ce))
		}
		return r, nil
	}
	nb := 1
	for _, v := range q.B {
		nb *= a.card[v]
	}
	r.Bits = MutualInfo(p, len(p)/nb, nb)
	if inexact {
		// I(A; B) = H(A) + H(B) − H(A, B): each entry's error moves
		// each term by at most the joint entropy's bound.
		a.addErr(3 * entropyErr(p, ce))
	}
	if reach := dconnectedGiven(a.m, q.A, q); reach != nil && !slices.ContainsFunc(q.B, func(v ir.VarID) bool { return reach[v] }) {
		r.Bits = 0 // d-separated: exactly, where the sums leave rounding noise (1e-18)
	}
	return r, nil
}

// dconnectedGiven returns, for each variable of the Bayesian network m,
// whether it is d-connected to the group a given the query's evidence,
// discrete and real: a variable that is not carries I(A; V | e) = 0
// exactly. It returns nil for a Markov network, or VarIDs outside m.
func dconnectedGiven(m *ir.Model, a []ir.VarID, q *query) []bool {
	if !m.IsBayesNet() {
		return nil
	}
	given := make([]ir.VarID, 0, len(q.Evidence)+len(q.Real))
	for _, o := range q.Evidence {
		given = append(given, o.Var)
	}
	for _, o := range q.Real {
		given = append(given, o.Var)
	}
	for _, v := range slices.Concat(a, given) {
		if v < 0 || int(v) >= len(m.Vars) {
			return nil
		}
	}
	return dconnected(m, a, given)
}

// Entropy returns −Σ p_i log2 p_i, in bits, taking 0 · log 0 as 0. p is a
// distribution (its entries sum to 1).
func Entropy(p []float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log2(x)
		}
	}
	return max(0, h)
}

// MutualInfo returns the mutual information, in bits, of the two variables
// of the joint distribution p, laid out row-major as na rows of nb
// entries (the first variable slowest): Σ p(a, b) log2 (p(a, b) / (p(a)
// p(b))), never negative. It panics if len(p) != na·nb.
func MutualInfo(p []float64, na, nb int) float64 {
	if na*nb != len(p) {
		panic(fmt.Sprintf("infer: MutualInfo: %d entries for %d×%d", len(p), na, nb))
	}
	pa := make([]float64, na)
	pb := make([]float64, nb)
	for i := range na {
		for j, x := range p[i*nb : (i+1)*nb] {
			pa[i] += x
			pb[j] += x
		}
	}
	mi := 0.0
	for i := range na {
		for j, x := range p[i*nb : (i+1)*nb] {
			if x > 0 {
				mi += x * math.Log2(x/(pa[i]*pb[j]))
			}
		}
	}
	return max(0, mi)
}

// Gain is the information a variable carries about a target, in bits.
type Gain struct {
	Var  ir.VarID
	Bits float64 // I(target; Var | e)
}

// VOIResult is the answer of [VOI].
type VOIResult struct {
	Target  ir.VarID
	Entropy float64 // H(target | e), in bits: no variable carries more
	Gains   []Gain  // highest first; ties in VarID order
}

// VOI ranks the candidate variables by the mutual information each
// shares with a target given evidence: the value of observing it next.
// q is the query entropy(X | e) (one target, and its evidence, discrete
// and real); candidates are discrete unobserved variables other than X,
// or nil for every one. The answers are exact, from one junction tree of
// the model (of the model with the likelihoods of the real evidence),
// calibrated |X| + 1 times; where a calibration loses digits variable
// elimination answers instead, as for [Answer]. Errors, at q.Pos: a
// candidate that is the target, observed or real-valued, impossible
// evidence, and a tree over the limits of opt.
func VOI(m *ir.Model, iq ir.Query, candidates []ir.VarID, opt Options) (*VOIResult, error) {
	if m == nil || iq == nil {
		panic("infer: VOI: want a model and a query entropy(X | e)")
	}
	fq := flatten(iq)
	q := &fq
	if q.Kind != kindEntropy || len(q.Targets) != 1 {
		panic("infer: VOI: want a model and a query entropy(X | e)")
	}
	x := q.Targets[0]
	m0 := m // the model's own graph, for d-separation
	n := len(m.Vars)
	obs := make([]int, n)
	for v := range obs {
		obs[v] = -1
	}
	for _, o := range q.Evidence {
		obs[o.Var] = o.State
	}
	if candidates == nil {
		for v := range n {
			if m.Discrete(ir.VarID(v)) && obs[v] < 0 && ir.VarID(v) != x {
				candidates = append(candidates, ir.VarID(v))
			}
		}
	}
	seen := make([]bool, n)
	for _, v := range candidates {
		name := ir.Quote(m.Vars[v].Name)
		switch {
		case v == x:
			return nil, ir.Errorf(q.Pos, "%s is the target: it cannot be a candidate", name)
		case !m.Discrete(v):
			return nil, ir.Errorf(q.Pos, "%s is real-valued: the candidates are discrete variables", name)
		case obs[v] >= 0:
			return nil, ir.Errorf(q.Pos, "%s is observed: observing it again tells nothing", name)
		case seen[v]:
			return nil, ir.Errorf(q.Pos, "%s is a candidate twice", name)
		}
		seen[v] = true
	}
	if len(q.Real) > 0 {
		var err error
		if m, _, err = withLikelihoods(m, q.Pos, q.Real, q.Evidence, nil, opt); err != nil {
			return nil, err
		}
	}
	t, err := cachedCompile(m, opt)
	if errors.Is(err, ErrCanceled) {
		return nil, canceled(q.Pos)
	}
	if err != nil {
		return nil, at(q.Pos, err)
	}
	k := factor.NewKernel(opt.Cancel)
	w := t.get()
	defer t.put(w)
	eng := func(obs []int) *jtEngine {
		r := &ve{m: m, opt: opt, pos: q.Pos, obs: obs, card: t.card, k: k}
		return &jtEngine{t: t, w: w, obs: obs, ve: r, k: k}
	}
	// P(X | e).
	mg, pe, err := eng(obs).marginals([]ir.VarID{x})
	if err != nil {
		return nil, err
	}
	if pe.M == 0 || mg == nil {
		return nil, impossible(q.Pos, m, q.Evidence)
	}
	px := mg[0].P
	res := &VOIResult{Target: x, Entropy: Entropy(px)}
	// P(V | x, e) for every state x of X, and the mixture P(V | e).
	cond := make([][]Marginal, len(px))
	mix := make([][]float64, len(candidates))
	for i, v := range candidates {
		mix[i] = make([]float64, t.card[v])
	}
	ox := slices.Clone(obs)
	for s, p := range px {
		if p == 0 {
			continue
		}
		ox[x] = s
		c, _, err := eng(slices.Clone(ox)).marginals(candidates)
		if err != nil {
			return nil, err
		}
		if c == nil {
			continue // P(x, e) underflows where P(x | e) does not: nothing to add
		}
		cond[s] = c
		for i := range candidates {
			for j, y := range c[i].P {
				mix[i][j] += p * y
			}
		}
	}
	res.Gains = make([]Gain, len(candidates))
	reach := dconnectedGiven(m0, []ir.VarID{x}, q) // one search for every candidate
	for i, v := range candidates {
		mi := 0.0
		for s, c := range cond {
			if c == nil {
				continue
			}
			for j, y := range c[i].P {
				if y > 0 {
					mi += px[s] * y * math.Log2(y/mix[i][j])
				}
			}
		}
		if reach != nil && !reach[v] {
			mi = 0 // d-separated: exactly, where the sums leave rounding noise (1e-18)
		}
		res.Gains[i] = Gain{Var: v, Bits: max(0, mi)}
	}
	slices.SortStableFunc(res.Gains, func(a, b Gain) int {
		if c := cmp.Compare(b.Bits, a.Bits); c != 0 {
			return c
		}
		return cmp.Compare(a.Var, b.Var)
	})
	return res, nil
}

// entropyErr bounds the change of Entropy(p), in bits, when each p[i] is
// off by at most d[i]: Σ d[i] |log2 p'[i] + 1/ln 2|, p'[i] the smaller end
// of p[i]'s interval that is not 0 (the derivative is largest there).
func entropyErr(p, d []float64) float64 {
	e := 0.0
	for i, x := range p {
		if d[i] == 0 {
			continue
		}
		y := max(x-d[i], min(d[i], 1e-300), 1e-300)
		e += d[i] * math.Abs(math.Log2(y)+1/math.Ln2)
	}
	return e
}
