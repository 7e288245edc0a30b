package infer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file answers queries with real-valued evidence (P(Sex | Height=170))
// and density queries (density(Height=170 | Sex=f)). A real variable has
// a normal density per configuration of its discrete parents (ir.Gaussian);
// observing it at x multiplies the joint distribution by the likelihood
// N(x; mean_u, sd_u), a factor over its parents. The engines answer the
// model with those factors as potentials (exact: the discrete variables
// are summed out; the likelihoods are computed in log space and rescaled,
// the scale kept apart), and an unobserved real variable, whose density
// integrates to 1, drops out.
//
// A potential is a table of float64: ln-likelihoods that differ by more
// than float64's range (about 708) cannot all be held relative to one
// scale. Far out in a density's tails they do — x = 0.5 is 1,250 below
// normal(0, 0.01)'s peak and 0.92 below normal(0.5, 1)'s — and the entries
// flushed to 0 may be the only ones that the rest of the evidence allows
// (Mode=calibrated observed), or those that carry the answer once other
// densities, or the prior, weigh in. So the likelihoods are computed over
// the parent configurations the discrete evidence allows (its observed
// parents at their states; do(...) is evidence by then), relative to the
// nearest of those (ir.LogDensitiesAt), and the potentials built in one of
// two ways (withLikelihoods):
//
//   - near: when, for every density, the entries allowed lie within
//     nearLog of their largest, each density is its own potential scaled
//     by that largest. No entry that can matter is flushed, and the
//     engines' products are exact whatever their range (they fall back to
//     exact arithmetic, exact.go).
//   - far: otherwise the densities that share unobserved parents with a
//     far one (transitively) are summed, in log space, into one
//     ln-likelihood L over S, their unobserved parents and the query's
//     given variables, and weighed with ln P(S | e), the posterior of S
//     given the discrete evidence and the other densities: the potential
//     exp(L(s) − W(c)), where W(c) is the largest L(s) + ln P(s | e) over
//     the configurations s of S that agree with the given configuration
//     c, holds every entry that carries more than e^−745 of its row's
//     mass, and the entries of configurations the evidence rules out are
//     0 (exactly: where the engine's table has lost digits, the entries
//     that could matter are asked for one by one). Where the differences
//     between configurations overflow float64 even as logarithms (x =
//     1e300), a row's likelihoods are computed again over the
//     configurations it can have.

// nearLog is the span, in nats, of the ln-likelihoods a density's
// potential holds relative to its largest without flushing an entry below
// float64's normal range (e^−690 ≈ 3e−300).
const nearLog = 690

// obsDensity is one density of the real observations: its parents and the
// log-likelihoods of their configurations (row-major over parents) less
// shift, −Inf for those the evidence rules out.
type obsDensity struct {
	d       ir.Dist // nil for a CLG likelihood (clg.go)
	parents []ir.VarID
	l       []float64
	shift   float64
}

// withLikelihoods returns m with the likelihoods of the real observations
// obs as potentials over their densities' parents, and ln of the factor
// they were divided by: the joint density of the observations given the
// parents is the product of the potentials times e^scale. ev is the
// discrete evidence the model will be asked with (more may be added, but
// none taken away); given are the variables the query conditions on one
// configuration at a time (its free variables), whose rows each have a
// scale of their own: the scale returned is that of the first. See the
// file's comment for how far tails are kept.
func withLikelihoods(m *ir.Model, pos ir.Pos, obs []ir.RealObs, ev []ir.Obs, given []ir.VarID, opt Options) (*ir.Model, float64, error) {
	if u := m.Unlearned(); len(u) > 0 {
		return nil, 0, &ir.Error{Pos: pos, Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
	}
	state := make([]int, len(m.Vars))
	for v := range state {
		state[v] = -1
	}
	for _, o := range ev {
		state[o.Var] = o.State
	}
	var ds []obsDensity
	done := map[ir.Dist]bool{}
	for _, o := range obs {
		d := m.Dist(o.Var)
		if d == nil {
			return nil, 0, ir.Errorf(pos, "%s is real-valued and has no density: only a variable with a normal density given discrete parents (P(X | C) = { c: normal(MEAN, SD) ... }, or a joint one) can be observed", ir.Quote(m.Vars[o.Var].Name))
		}
		if done[d] {
			continue // a joint density: every observed child of it at once
		}
		done[d] = true
		od, err := logLikelihoods(m, pos, d, obs, allowed(m, densityParents(d), state))
		if err != nil {
			return nil, 0, err
		}
		ds = append(ds, od)
	}
	return withDensities(m, pos, ds, state, obs, ev, given, opt)
}

// withDensities is withLikelihoods of the densities ds, whose
// log-likelihoods are computed: the evidence's states are state[v] (−1
// for none).
func withDensities(m *ir.Model, pos ir.Pos, ds []obsDensity, state []int, obs []ir.RealObs, ev []ir.Obs, given []ir.VarID, opt Options) (*ir.Model, float64, error) {
	// far[i]: density i has entries the evidence allows more than nearLog
	// below the largest of them, or −Inf (their difference overflows).
	far := make([]bool, len(ds))
	anyFar := false
	for i, d := range ds {
		top, low := math.Inf(-1), math.Inf(1)
		forAllowed(m, d.parents, state, func(u int) {
			top, low = max(top, d.l[u]), min(low, d.l[u])
		})
		far[i] = top-low > nearLog
		anyFar = anyFar || far[i]
	}
	scale := 0.0
	var pots []*ir.Factor
	var group []obsDensity
	join := far
	if anyFar {
		join = farGroup(ds, far, state)
	}
	for i, d := range ds {
		if join[i] {
			group = append(group, d)
			continue
		}
		f, s := nearPotential(m, d, state)
		scale += s
		if f != nil {
			pots = append(pots, f)
		}
	}
	mn := m.WithPotentials(pots...)
	if len(group) == 0 {
		return mn, scale, nil
	}
	f, w, err := farPotential(mn, pos, group, obs, state, ev, given, opt)
	if err != nil {
		return nil, 0, err
	}
	return mn.WithPotentials(f), scale + w, nil
}

// densityParents returns the discrete parents of the density d.
func densityParents(d ir.Dist) []ir.VarID {
	switch d := d.(type) {
	case *ir.Gaussian:
		return d.Parents
	case *ir.MultiNormal:
		return d.Parents
	}
	panic("infer: densityParents: not a density")
}

// logLikelihoods returns the log-likelihoods of the observations obs
// under the density d over the configurations keep of its parents (nil
// for all).
func logLikelihoods(m *ir.Model, pos ir.Pos, d ir.Dist, obs []ir.RealObs, keep []int) (obsDensity, error) {
	var parents []ir.VarID
	var l []float64
	var shift float64
	var err error
	if keep == nil {
		parents, l, shift, err = ir.LogDensities(d, obs)
	} else {
		parents, l, shift, err = ir.LogDensitiesAt(d, obs, keep)
	}
	if err != nil {
		name := ""
		for _, o := range obs {
			if m.Dist(o.Var) == d {
				name = ir.Quote(m.Vars[o.Var].Name)
				break
			}
		}
		return obsDensity{}, ir.Errorf(pos, "the density of %s: %v", name, err)
	}
	return obsDensity{d, parents, l, shift}, nil
}

// allowed returns the configurations (row-major) of parents that agree
// with the evidence state, or nil if every one does.
func allowed(m *ir.Model, parents []ir.VarID, state []int) []int {
	if !slices.ContainsFunc(parents, func(p ir.VarID) bool { return state[p] >= 0 }) {
		return nil
	}
	var keep []int
	forAllowed(m, parents, state, func(u int) { keep = append(keep, u) })
	return keep
}

// forAllowed calls f with the index (row-major over parents) of every
// configuration of parents that agrees with the evidence state, in
// increasing order.
func forAllowed(m *ir.Model, parents []ir.VarID, state []int, f func(u int)) {
	n := len(parents)
	card := make([]int, n)
	lo := make([]int, n) // the first state each parent takes
	for k, p := range parents {
		card[k] = len(m.Vars[p].States)
		if s := state[p]; s >= 0 {
			lo[k], card[k] = s, 1
		}
	}
	stride := make([]int, n)
	s := 1
	for k := n - 1; k >= 0; k-- {
		stride[k] = s
		s *= len(m.Vars[parents[k]].States)
	}
	cnt := make([]int, n)
	for {
		u := 0
		for k := range n {
			u += (lo[k] + cnt[k]) * stride[k]
		}
		f(u)
		k := n - 1
		for ; k >= 0; k-- {
			if cnt[k]++; cnt[k] < card[k] {
				break
			}
			cnt[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// nearPotential returns d's likelihood as a potential over its parents,
// scaled by the largest entry the evidence state allows, and ln of the
// factor it was divided by (nil and the whole log-likelihood when d has
// no parents).
func nearPotential(m *ir.Model, d obsDensity, state []int) (*ir.Factor, float64) {
	top := math.Inf(-1)
	forAllowed(m, d.parents, state, func(u int) { top = max(top, d.l[u]) })
	if math.IsInf(top, -1) {
		top = 0 // every entry allowed is 0: the evidence is impossible
	}
	if len(d.parents) == 0 {
		return nil, d.shift + top
	}
	card := make([]int, len(d.parents))
	for k, p := range d.parents {
		card[k] = len(m.Vars[p].States)
	}
	f := ir.NewFactor(d.parents, card)
	for u, x := range d.l {
		f.Vals[u] = math.Exp(x - top)
	}
	return f, d.shift + top
}

// farGroup marks the densities that are far, or share an unobserved
// parent with one that is marked, transitively.
func farGroup(ds []obsDensity, far []bool, state []int) []bool {
	join := slices.Clone(far)
	for changed := true; changed; {
		changed = false
		for i, d := range ds {
			if join[i] {
				continue
			}
			for j, e := range ds {
				if join[j] && sharesUnobserved(d.parents, e.parents, state) {
					join[i], changed = true, true
					break
				}
			}
		}
	}
	return join
}

func sharesUnobserved(a, b []ir.VarID, state []int) bool {
	for _, v := range a {
		if state[v] < 0 && slices.Contains(b, v) {
			return true
		}
	}
	return false
}

// scope is how a group's densities read a configuration of S: for each
// density, the offset of its observed parents' states and the stride of
// each variable of S in its table.
type scope struct {
	base []int
	idx  [][]int
}

func newScope(m *ir.Model, group []obsDensity, vars []ir.VarID, state []int) scope {
	sc := scope{base: make([]int, len(group)), idx: make([][]int, len(group))}
	for g, d := range group {
		sc.idx[g] = make([]int, len(vars))
		s := 1
		for k := len(d.parents) - 1; k >= 0; k-- {
			p := d.parents[k]
			if state[p] >= 0 {
				sc.base[g] += state[p] * s
			} else {
				sc.idx[g][slices.Index(vars, p)] = s
			}
			s *= len(m.Vars[p].States)
		}
	}
	return sc
}

// entry returns the index in density g's table of the configuration st
// of S.
func (sc scope) entry(g int, st []int) int {
	u := sc.base[g]
	for k, s := range st {
		u += s * sc.idx[g][k]
	}
	return u
}

// sumL writes into L[i], for the entries i of f from lo to hi, the sum
// of the group's log-likelihoods at that configuration of S.
func sumL(f *ir.Factor, L []float64, lo, hi int, group []obsDensity, sc scope) {
	st := make([]int, len(f.Vars))
	for i := lo; i < hi; i++ {
		f.Assignment(st, i)
		x := 0.0
		for g, d := range group {
			x += d.l[sc.entry(g, st)]
		}
		L[i] = x
	}
}

// farPotential returns the summed likelihood of the densities of group
// as one potential over S, their unobserved parents and the given
// variables, on the model mn (m with the other densities' potentials),
// and ln of the factor the first given configuration's entries were
// divided by.
func farPotential(mn *ir.Model, pos ir.Pos, group []obsDensity, obs []ir.RealObs, state []int, ev []ir.Obs, given []ir.VarID, opt Options) (*ir.Factor, float64, error) {
	var vars []ir.VarID
	add := func(v ir.VarID) {
		if state[v] < 0 && !slices.Contains(vars, v) {
			vars = append(vars, v)
		}
	}
	for _, v := range given {
		add(v)
	}
	ng := len(vars) // the unobserved given variables lead the scope
	for _, d := range group {
		for _, p := range d.parents {
			add(p)
		}
	}
	card := make([]int, len(vars))
	for k, v := range vars {
		card[k] = len(mn.Vars[v].States)
	}
	if n, ok := ir.TableSize(card); !ok || n > opt.maxTable() {
		e := &TooLargeError{What: OversizeTable, Vars: vars, Size: product(card), Limit: int64(opt.maxTable())}
		e.msg = fmt.Sprintf("real-valued evidence far in the tails of its densities: their likelihoods must be weighed together over %s (%s), a table of %s entries, more than the limit of %d",
			ir.Plural(len(vars), "variable"), varList(mn, vars), sizeString(card), opt.maxTable())
		return nil, 0, e.at(pos)
	}
	f := ir.NewFactor(vars, card)
	sc := newScope(mn, group, vars, state)
	L := make([]float64, len(f.Vals))
	sumL(f, L, 0, len(L), group, sc)
	shift := 0.0
	for _, d := range group {
		shift += d.shift
	}
	lp, err := logPosteriorFor(mn, pos, vars, ev, L, ng, opt)
	if err != nil {
		return nil, 0, err
	}
	first := math.NaN()
	for _, r := range rowBlocks(f, ng) {
		rowShift := shift
		if lost(L, lp, r) {
			// Differences that overflow: the group's likelihoods again,
			// over the configurations this row can have.
			var err error
			if rowShift, err = rowLikelihoods(mn, pos, f, L, lp, r, group, obs, sc); err != nil {
				return nil, 0, err
			}
		}
		// c scales the row: W(c), or more where a configuration of tiny
		// probability (below e^−700) has a likelihood that large above
		// the rest, so that no entry exceeds e^maxLogPotential; the
		// entries then flushed must weigh nothing beside the largest.
		w, top := math.Inf(-1), math.Inf(-1)
		for i := r.lo; i < r.hi; i++ {
			if !math.IsInf(lp[i], -1) {
				w, top = max(w, L[i]+lp[i]), max(top, L[i])
			}
		}
		if math.IsInf(top, -1) {
			// Nothing possible (the row is impossible), or every
			// possible configuration beyond float64 from another.
			if slices.ContainsFunc(lp[r.lo:r.hi], func(x float64) bool { return !math.IsInf(x, -1) }) {
				return nil, 0, rangeError(pos, mn, ev)
			}
			w, top = 0, 0
		}
		c := max(w, top-maxLogPotential)
		for i := r.lo; i < r.hi; i++ {
			// An entry flushed by that scale that weighs as much as the
			// row's largest (within e^−40): float64 cannot hold both.
			if !math.IsInf(lp[i], -1) && L[i]-c < -nearLog && L[i]+lp[i] > w-40 {
				return nil, 0, rangeError(pos, mn, ev)
			}
		}
		if math.IsNaN(first) {
			first = rowShift + c
		}
		for i := r.lo; i < r.hi; i++ {
			if math.IsInf(lp[i], -1) {
				f.Vals[i] = 0
				continue
			}
			f.Vals[i] = math.Exp(L[i] - c)
		}
	}
	return f, first, nil
}

// lost reports whether a configuration the row r can have has L = −Inf:
// a difference between the likelihoods of two of the group's
// configurations overflowed float64.
func lost(L, lp []float64, r block) bool {
	for i := r.lo; i < r.hi; i++ {
		if math.IsInf(L[i], -1) && !math.IsInf(lp[i], -1) {
			return true
		}
	}
	return false
}

// rowLikelihoods computes L again over the row r, each density's
// likelihoods relative to the nearest of the configurations of its
// parents that the row's possible configurations of S have, and returns
// the sum of the densities' shifts.
func rowLikelihoods(m *ir.Model, pos ir.Pos, f *ir.Factor, L, lp []float64, r block, group []obsDensity, obs []ir.RealObs, sc scope) (float64, error) {
	st := make([]int, len(f.Vars))
	sub := make([]obsDensity, len(group))
	shift := 0.0
	for g, d := range group {
		if d.d == nil {
			// A CLG likelihood (clg.go), finite wherever allowed.
			return 0, rangeError(pos, m, nil)
		}
		var keep []int
		for i := r.lo; i < r.hi; i++ {
			if !math.IsInf(lp[i], -1) {
				keep = append(keep, sc.entry(g, f.Assignment(st, i)))
			}
		}
		slices.Sort(keep)
		keep = slices.Compact(keep)
		od, err := logLikelihoods(m, pos, d.d, obs, keep)
		if err != nil {
			return 0, err
		}
		sub[g] = od
		shift += od.shift
	}
	sumL(f, L, r.lo, r.hi, sub, sc)
	return shift, nil
}

// maxLogPotential is the largest ln of a potential's entry: products of a
// few such stay finite.
const maxLogPotential = 700

// rangeError is the error of real-valued evidence whose likelihoods
// outweigh a configuration's probability by more than float64 can hold
// beside another configuration of as much weight (a posterior below
// e^−700 given the discrete evidence, lifted by likelihoods that favour it
// by as much), or whose configurations' densities differ by more than
// float64 holds even as logarithms.
func rangeError(pos ir.Pos, m *ir.Model, ev []ir.Obs) error {
	given := "the model's probabilities"
	if len(ev) > 0 {
		given = "the probabilities given " + strings.TrimSuffix(strings.TrimPrefix(evidenceText(m, ev), "P("), ")")
	}
	return &ir.Error{Pos: pos, Err: ErrRange, Msg: "the real-valued evidence is too far in its densities' tails to be weighed against " + given +
		" in float64"}
}

// block is a range of a factor's entries.
type block struct{ lo, hi int }

// rowBlocks returns the blocks of f's entries that share a configuration
// of the first ng variables of f's scope.
func rowBlocks(f *ir.Factor, ng int) []block {
	size := len(f.Vals)
	if ng > 0 {
		size = f.Stride[ng-1]
	}
	out := make([]block, 0, len(f.Vals)/size)
	for lo := 0; lo < len(f.Vals); lo += size {
		out = append(out, block{lo, lo + size})
	}
	return out
}

// logPosteriorFor returns ln P(vars = s | ev) on m for every
// configuration s of vars (row-major), −Inf where it is 0. Where the
// engine's table has lost digits (entries flushed below its largest), an
// entry lost is asked for by itself if it could matter given the
// log-likelihoods l: if, in its block of configurations of the first
// ngiven variables, l plus the largest probability a lost entry can have
// comes within 40 of the largest l + ln P of the entries kept.
func logPosteriorFor(m *ir.Model, pos ir.Pos, vars []ir.VarID, ev []ir.Obs, l []float64, ngiven int, opt Options) ([]float64, error) {
	states := make([]int, len(vars)) // a number query: no rows to count
	q := &query{Pos: pos, Kind: kindProb, Targets: vars, TargetStates: states, Conditions: ir.Conditions{Evidence: ev}, Text: evidenceText(m, ev)}
	a := &answerer{m: m, q: q, opt: opt}
	if err := a.setup(); err != nil {
		return nil, err
	}
	defer a.release()
	f, _, err := a.eng.Joint(vars)
	if err != nil {
		return nil, err
	}
	coarse := a.k.Coarse
	norm := sum(f.Vals)
	if norm == 0 {
		return nil, a.impossible()
	}
	ln := math.Log(norm)
	lp := make([]float64, len(f.Vals))
	for i, x := range f.Vals {
		lp[i] = math.Log(x) - ln
	}
	if !coarse {
		return lp, nil
	}
	size := len(f.Vals)
	if ngiven > 0 {
		size = f.Stride[ngiven-1]
	}
	var pe factor.Scaled
	var side engine
	var sideObs []int
	st := make([]int, len(vars))
	for lo := 0; lo < len(f.Vals); lo += size {
		w := math.Inf(-1)
		for i := lo; i < lo+size; i++ {
			if f.Vals[i] >= factor.MinNormal {
				w = max(w, l[i]+lp[i])
			}
		}
		for i := lo; i < lo+size; i++ {
			if f.Vals[i] >= factor.MinNormal || math.IsInf(l[i], -1) || l[i]+math.Log(factor.MinNormal)-ln < w-40 {
				continue
			}
			if side == nil {
				if pe, err = a.pe(); err != nil {
					return nil, err
				}
				sideObs = slices.Clone(a.obs)
				side = a.engine(sideObs)
			}
			f.Assignment(st, i)
			for k, v := range vars {
				sideObs[v] = st[k]
			}
			pxe, err := peOf(side)
			if err != nil {
				return nil, err
			}
			lp[i] = math.Inf(-1)
			if pxe.M != 0 {
				lp[i] = pxe.Log() - pe.Log()
			}
		}
	}
	return lp, nil
}

// withReal answers q, which has real-valued evidence, on m.
func withReal(m *ir.Model, q *query, opt Options) (Result, error) {
	m2, _, err := withLikelihoods(m, q.Pos, q.Real, q.Evidence, q.Free, opt)
	if err != nil {
		return nil, err
	}
	q2 := *q
	q2.Real = nil
	r, err := answerQ(m2, &q2, opt)
	if err != nil {
		return nil, err
	}
	r.Head().Query = q.orig
	return r, nil
}

// density answers density(values | reals, e): ln p(values, reals, e) −
// ln p(reals, e).
func density(m *ir.Model, q *query, opt Options) (Result, error) {
	num, nh, err := logJoint(m, q.Pos, append(append([]ir.RealObs(nil), q.Real...), q.Values...), q.Evidence, opt)
	if err != nil {
		return nil, err
	}
	den := 0.0
	var dh *Evidence
	if len(q.Real) > 0 || len(q.Evidence) > 0 {
		if den, dh, err = logJoint(m, q.Pos, q.Real, q.Evidence, opt); err != nil {
			return nil, err
		}
		if math.IsInf(den, -1) {
			return nil, impossible(q.Pos, m, q.Evidence)
		}
	}
	ld := num - den
	r := &Density{Header: exact(q), Density: math.Exp(ld), LogDensity: ld}
	// An approximate answer: the errors of the two logarithms add.
	for _, h := range []*Evidence{nh, dh} {
		if h == nil || h.Exact {
			continue
		}
		if r.Exact {
			r.Exact, r.Engine, r.Why, r.ErrorEstimate = false, h.Engine, h.Why, []float64{0}
		}
		r.Stopped = r.Stopped || h.Stopped
		r.ErrorEstimate[0] += h.LogPErr
	}
	if !r.Exact {
		r.ErrorEstimate[0] = r.Density * math.Expm1(r.ErrorEstimate[0])
		if math.IsNaN(r.ErrorEstimate[0]) {
			r.ErrorEstimate[0] = math.Inf(1)
		}
	}
	return r, nil
}

// logJoint returns ln of the joint density of the real observations obs
// and the discrete evidence ev (−Inf when it is 0), or an error of kind
// ErrRange where that logarithm underflows float64.
func logJoint(m *ir.Model, pos ir.Pos, obs []ir.RealObs, ev []ir.Obs, opt Options) (float64, *Evidence, error) {
	m2, scale, err := withLikelihoods(m, pos, obs, ev, nil, opt)
	if err != nil {
		return 0, nil, err
	}
	res, err := answerQ(m2, &query{Pos: pos, Kind: kindProb, Conditions: ir.Conditions{Evidence: ev}, Text: evidenceText(m, ev)}, opt)
	if err != nil {
		return 0, nil, err
	}
	r := res.(*Evidence)
	if math.IsInf(scale, -1) && !math.IsInf(r.LogZ, -1) {
		// A density beyond float64 even as a logarithm (x = 1e300
		// under normal(0, 1): ln N = −5e599), not 0.
		return 0, nil, &ir.Error{Pos: pos, Err: ErrRange, Msg: fmt.Sprintf(
			"the density of %s is below exp(-1.8e308): its logarithm underflows float64", realList(m, obs))}
	}
	return r.LogZ + scale, r, nil
}

// realList renders real-valued evidence as x=1.5, y=-2.
func realList(m *ir.Model, real []ir.RealObs) string {
	parts := make([]string, len(real))
	for i, o := range real {
		parts[i] = ir.Quote(m.Vars[o.Var].Name) + "=" + ir.FormatFloat(o.Value)
	}
	return strings.Join(parts, ", ")
}
