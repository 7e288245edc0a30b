package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file calibrates a junction tree (Hugin schedule: collect towards the
// root, then distribute away from it) and reads answers off it. Every loop
// runs over flat []float64 tables through the int32 index maps computed at
// compile time.

// smallMax is the threshold below which a clique table whose largest entry
// has fallen is rescaled during the collect pass (exactly, by a power of
// two), so that products of many messages cannot underflow.
const smallMax = 0x1p-256

// load copies the compiled tables into w and enters the evidence obs
// (VarID-indexed state or -1) by zeroing, in each observed variable's home
// clique, the entries inconsistent with it.
func (t *JTree) load(w *jtWork, obs []int) {
	copy(w.pot, t.init)
	copy(w.obs, obs)
	for v, s := range obs {
		if s < 0 || t.home[v] < 0 {
			continue
		}
		c := t.home[v]
		p := w.pot[t.off[c]:t.off[c+1]]
		st, k := t.hstride[v], t.hcard[v]
		blk := st * k
		for b := 0; b < len(p); b += blk {
			clear(p[b : b+s*st])
			clear(p[b+(s+1)*st : b+blk])
		}
	}
	copy(w.lo, t.initLo)
	w.state = jtEmpty
	w.lost = t.lost
}

// normalize scales xs by a power of two so that its largest entry lies in
// [0.5, 1), and returns the exponent e with old = new·2^e (0 for a zero
// vector) and the smallest nonzero entry after scaling (+Inf if none); an
// entry pushed below the normal range is recorded in k. It reads xs once
// and writes it once.
func normalize(k *kernel, xs []float64) (int, float64) {
	// The entries are non-negative, so their bits order them as their
	// values do; one less than the bits puts 0 last. min and max on the
	// bits compile to branch-free moves.
	var hi uint64
	lo := uint64(math.MaxUint64)
	for _, x := range xs {
		b := math.Float64bits(x)
		hi = max(hi, b)
		lo = min(lo, b-1)
	}
	mx, mn := math.Float64frombits(hi), math.Inf(1)
	if lo != math.MaxUint64 {
		mn = math.Float64frombits(lo + 1)
	}
	if mx == 0 {
		return 0, mn
	}
	// mx = 1.m·2^(E-1023) = 0.1m·2^e with e = E-1022, read off the bits
	// (math.Frexp and math.Ldexp cost more than the loop on the small
	// separators of most trees).
	e := int(hi>>52) - 1022
	if hi < 1<<52 || e <= -1022 || e >= 1022 {
		// mx is subnormal, or 2^-e is not a normal float64: scaleBy
		// falls back to Ldexp.
		_, e = math.Frexp(mx)
		return scaleBy(k, xs, mx), math.Ldexp(mn, -e)
	}
	if e == 0 {
		return 0, mn
	}
	f := math.Float64frombits(uint64(1023-e) << 52) // 2^-e
	mn *= f
	if mn < minNormal {
		k.flush()
	}
	for i := range xs {
		xs[i] *= f
	}
	return e, mn
}

// edge returns what a message between clique c and its parent works on:
// the index maps of c and of the parent onto their separator, the two
// cliques' tables in w (each as long as its map, so that the loops over
// them need no bounds checks) and the separator's table in w.
func (t *JTree) edge(w *jtWork, c int32) (mc, mp []int32, pc, pp, sep []float64) {
	mc, mp = t.mapC[c], t.mapP[c]
	oc, op, so := t.off[c], t.off[t.parent[c]], t.sepOff[c]
	return mc, mp, w.pot[oc : oc+len(mc)], w.pot[op : op+len(mp)], w.sep[so : so+t.sepLen[c]]
}

// pollSpan is the number of clique entries a message loop handles between
// two polls of the cancellation.
const pollSpan = 16 * pollEvery

// safeProduct reports whether a product of an entry of at least lo and one
// of at least m (both nonzero lower bounds) stays in the normal range, so
// that a message loop needs no check for lost digits.
func safeProduct(lo, m float64) bool { return lo*m >= 0x1p-1020 }

// collect passes messages from the leaves to the root: each clique, once it
// has absorbed its children's messages, sums (or, with maxProduct,
// maximises) its table onto the separator towards its parent, and the parent
// multiplies the message in. Each message is normalised by a power of two
// and the exponents summed, so P(e) (or the maximum) = root·2^exp·konst.
//
// A product that falls below the normal range sets w.lost. The loops check
// for it only where it can happen: w.lo[c] bounds clique c's smallest
// nonzero entry from below (its initial table's, times the smallest entry
// of every message it absorbed), so a message whose smallest entry keeps
// the product of the two normal needs no check. collect reports false,
// leaving w empty, if k is canceled.
func (t *JTree) collect(k *kernel, w *jtWork, maxProduct bool) bool {
	e := t.initExp
	kl := kernel{cancel: k.cancelChan()}
	lost := false
	for i := len(t.order) - 1; i >= 1; i-- {
		if kl.stop() {
			w.state = jtEmpty
			return false
		}
		c := t.order[i]
		pa := t.parent[c]
		mc, mp, pc, pp, sep := t.edge(w, c)
		clear(sep)
		for lo := 0; lo < len(mc); lo += pollSpan {
			if lo > 0 && kl.stop() {
				w.state = jtEmpty
				return false
			}
			// Reslicing both keeps their lengths provably equal: no
			// bounds checks on part.
			hi := min(len(mc), lo+pollSpan)
			part, mc := pc[lo:hi], mc[lo:hi]
			if maxProduct {
				for i, s := range mc {
					if x := part[i]; x > sep[s] {
						sep[s] = x
					}
				}
			} else {
				for i, s := range mc {
					sep[s] += part[i]
				}
			}
		}
		x, smin := normalize(&kl, sep)
		e += x
		check := !safeProduct(w.lo[pa], smin)
		w.lo[pa] *= smin
		mx := 0.0
		for lo := 0; lo < len(mp); lo += pollSpan {
			if lo > 0 && kl.stop() {
				w.state = jtEmpty
				return false
			}
			hi := min(len(mp), lo+pollSpan)
			part, mp := pp[lo:hi], mp[lo:hi]
			if !check {
				for j, s := range mp {
					x := part[j] * sep[s]
					part[j] = x
					if x > mx {
						mx = x
					}
				}
				continue
			}
			for j, s := range mp {
				a, y := part[j], sep[s]
				x := a * y
				part[j] = x
				if x > mx {
					mx = x
				}
				if x < minNormal && (x != 0 || a != 0 && y != 0) {
					lost = true
				}
			}
		}
		if mx < smallMax {
			x := scaleBy(&kl, pp, mx)
			e += x
			w.lo[pa] = math.Ldexp(w.lo[pa], -x)
		}
	}
	r := t.order[0]
	root := w.pot[t.off[r]:t.off[r+1]]
	z := 0.0
	if maxProduct {
		for _, x := range root {
			if x > z {
				z = x
			}
		}
	} else {
		for _, x := range root {
			z += x
		}
	}
	w.z, w.exp = z, e
	w.lost = w.lost || lost || kl.lost
	w.state = jtCollected
	if maxProduct {
		w.state = jtMaxed
	}
	return true
}

// distribute passes messages from the root to the leaves after a sum
// collect (Hugin): the child's table is multiplied by the parent's new
// separator marginal divided by the message the child sent (0/0 = 0). The
// new marginal is normalised first, so every clique's table is P(C, e)
// times a constant of its own, never far from 1. Products are checked for
// lost digits as in collect. It reports false, leaving w empty, if k is
// canceled.
func (t *JTree) distribute(k *kernel, w *jtWork) bool {
	kl := kernel{cancel: k.cancelChan()}
	lost := false
	for i := 1; i < len(t.order); i++ {
		if kl.stop() {
			w.state = jtEmpty
			return false
		}
		c := t.order[i]
		mc, mp, pc, pp, sep := t.edge(w, c)
		tmp := w.tmp[:len(sep)]
		clear(tmp)
		for lo := 0; lo < len(mp); lo += pollSpan {
			if lo > 0 && kl.stop() {
				w.state = jtEmpty
				return false
			}
			hi := min(len(mp), lo+pollSpan)
			part, mp := pp[lo:hi], mp[lo:hi]
			for j, s := range mp {
				tmp[s] += part[j]
			}
		}
		normalize(&kl, tmp)
		tmin := math.Inf(1)
		for s, x := range sep {
			if x == 0 {
				tmp[s] = 0
				continue
			}
			y := tmp[s] / x
			tmp[s] = y
			if y < tmin && y != 0 {
				tmin = y
			}
		}
		check := !safeProduct(w.lo[c], tmin)
		for lo := 0; lo < len(mc); lo += pollSpan {
			if lo > 0 && kl.stop() {
				w.state = jtEmpty
				return false
			}
			hi := min(len(mc), lo+pollSpan)
			part, mc := pc[lo:hi], mc[lo:hi]
			if !check {
				for i, s := range mc {
					part[i] *= tmp[s]
				}
				continue
			}
			for i, s := range mc {
				a, y := part[i], tmp[s]
				x := a * y
				part[i] = x
				if x < minNormal && (x != 0 || a != 0 && y != 0) {
					lost = true
				}
			}
		}
	}
	w.lost = w.lost || lost || kl.lost
	w.state = jtCalibrated
	return true
}

// ensure brings w to at least the given state for evidence obs, reusing
// what it already holds when the evidence is unchanged. It returns the
// error of kind ErrCanceled, at pos, if k is canceled.
func (t *JTree) ensure(k *kernel, pos ir.Pos, w *jtWork, obs []int, want jtState) error {
	same := slices.Equal(w.obs, obs)
	ok := true
	switch {
	case want == jtMaxed:
		if same && w.state == jtMaxed {
			return nil
		}
		t.load(w, obs)
		ok = t.collect(k, w, true)
	case same && w.state == jtCalibrated:
	case same && w.state == jtCollected && want == jtCollected:
	case same && w.state == jtCollected:
		ok = t.distribute(k, w)
	default:
		t.load(w, obs)
		ok = t.collect(k, w, false)
		if ok && want == jtCalibrated {
			ok = t.distribute(k, w)
		}
	}
	if !ok {
		return canceled(pos)
	}
	return nil
}

// pe returns P(e) (or the maximum, after a max collect).
func (t *JTree) pe(w *jtWork) xfloat {
	return xfloat{w.z, w.exp}.norm().mul(t.konst)
}

// marginal writes the normalised marginal of v, read from its calibrated
// home clique, into dst, and returns the unnormalised sum.
func (t *JTree) marginal(w *jtWork, v ir.VarID, dst []float64) float64 {
	c := t.home[v]
	p := w.pot[t.off[c]:t.off[c+1]]
	st, k := t.hstride[v], t.hcard[v]
	clear(dst)
	blk := st * k
	for b := 0; b < len(p); b += blk {
		for s := range k {
			acc := 0.0
			for _, x := range p[b+s*st : b+(s+1)*st] {
				acc += x
			}
			dst[s] += acc
		}
	}
	norm := 0.0
	for _, x := range dst {
		norm += x
	}
	if norm > 0 {
		for s := range dst {
			dst[s] /= norm
		}
	}
	return norm
}

// traceback reads the maximising assignment off a max-collected tree: the
// first maximal entry of the root, then in each child the first maximal
// entry among those consistent with its parent's choice on the separator.
// a (VarID-indexed) receives every variable's state.
func (t *JTree) traceback(w *jtWork, a []int) {
	for k, c := range t.order {
		p := w.pot[t.off[c]:t.off[c+1]]
		best := 0
		if k == 0 {
			for i, x := range p {
				if x > p[best] {
					best = i
				}
			}
		} else {
			mc := t.mapC[c]
			s := t.mapP[c][w.chosen[t.parent[c]]]
			best = -1
			for i, x := range p[:len(mc)] {
				if mc[i] == s && (best < 0 || x > p[best]) {
					best = i
				}
			}
		}
		w.chosen[c] = best
		for i := len(t.cvars[c]) - 1; i >= 0; i-- {
			a[t.cvars[c][i]] = best % t.ccard[c][i]
			best /= t.ccard[c][i]
		}
	}
}

// jtEngine answers one query with a junction tree. Joint queries over
// variables that share no clique, and MAP, go to variable elimination;
// so does every query on a tree whose tables or calibration lost digits
// (a product below the normal range), which VE answers exactly.
type jtEngine struct {
	t   *JTree
	w   *jtWork
	obs []int
	ve  *ve
	k   *kernel
}

func (e *jtEngine) release() {
	if e.w != nil {
		e.t.put(e.w)
		e.w = nil
	}
}

// exact reports whether the tree's numbers for the current evidence lost
// digits, so that VE must answer.
func (e *jtEngine) exact() bool { return e.t.lost || e.w.lost }

// joint returns P(keep, e) times a scale, from one calibrated clique that
// contains keep; P(e) itself needs only the collect pass.
func (e *jtEngine) joint(keep []ir.VarID) (*ir.Factor, xfloat, error) {
	t, w := e.t, e.w
	e.k.coarse = false
	if len(keep) == 0 {
		if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtCollected); err != nil {
			return nil, xfloat{}, err
		}
		if e.exact() {
			return e.ve.joint(keep)
		}
		f := newFactor(nil, nil)
		pe := t.pe(w)
		f.Vals[0] = pe.m
		return f, xfloat{1, pe.e}, nil
	}
	sorted := sortedCopy(keep)
	best := int32(-1)
	for c, vs := range t.cvars {
		if (best < 0 || t.off[c+1]-t.off[c] < t.off[best+1]-t.off[best]) && containsAll(vs, sorted) {
			best = int32(c)
		}
	}
	if best < 0 {
		return e.ve.joint(keep)
	}
	if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtCalibrated); err != nil {
		return nil, xfloat{}, err
	}
	if e.exact() {
		return e.ve.joint(keep)
	}
	kc := make([]int, len(keep))
	for i, v := range keep {
		kc[i] = t.hcard[v]
	}
	out := newFactor(keep, kc)
	src := &ir.Factor{Vars: t.cvars[best], Card: t.ccard[best], Stride: t.cstride[best], Vals: w.pot[t.off[best]:t.off[best+1]]}
	combineTo(e.k, out, []*ir.Factor{src}, opSum, nil)
	if e.k.poll() {
		return nil, xfloat{}, canceled(e.ve.pos)
	}
	pe := t.pe(w)
	s := sum(out.Vals)
	if pe.m == 0 || s == 0 {
		clear(out.Vals)
		return out, xfloat{}, nil
	}
	// The clique's own scale is arbitrary; P(e) fixes it.
	return out, xfloat{pe.m / s, pe.e}.norm(), nil
}

// partition returns Σ_x Π φ(x) without evidence, computed once per tree,
// in the engine's workspace (which then no longer holds the evidence: the
// next question on it recalibrates).
func (e *jtEngine) partition() (xfloat, error) { return e.t.partition(e.k, e.ve.pos, e.w) }

// partition returns Σ_x Π φ(x) without evidence, computing it in w on the
// first call (by VE if the calibration loses digits).
func (t *JTree) partition(k *kernel, pos ir.Pos, w *jtWork) (xfloat, error) {
	t.zmu.Lock()
	z, ok := t.z, t.zok
	t.zmu.Unlock()
	if ok {
		return z, nil
	}
	none := noEvidence(len(t.card))
	if err := t.ensure(k, pos, w, none, jtCollected); err != nil {
		return xfloat{}, err
	}
	if w.lost {
		r := t.veFor(none)
		r.k, r.pos = k, pos
		var err error
		if z, err = r.partition(); err != nil {
			return z, err
		}
	} else {
		z = t.pe(w)
	}
	t.zmu.Lock()
	t.z, t.zok = z, true
	t.zmu.Unlock()
	return z, nil
}

func sortedCopy(vs []ir.VarID) []ir.VarID {
	out := slices.Clone(vs)
	slices.Sort(out)
	return out
}

// maxAssign answers MPE (maxVars = every unobserved variable) by max-product
// collect and traceback; MAP goes to variable elimination.
func (e *jtEngine) maxAssign(maxVars []ir.VarID) ([]int, xfloat, error) {
	t, w := e.t, e.w
	free := 0
	for v, s := range e.obs {
		if s < 0 && t.home[v] >= 0 {
			free++
		}
	}
	if len(maxVars) != free {
		return e.ve.maxAssign(maxVars)
	}
	if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtMaxed); err != nil {
		return nil, xfloat{}, err
	}
	if e.exact() {
		return e.ve.maxAssign(maxVars)
	}
	a := make([]int, len(t.m.Vars))
	for i := range a {
		a[i] = -1
	}
	t.traceback(w, a)
	for v, s := range e.obs {
		if s >= 0 {
			a[v] = -1
		}
	}
	return a, t.pe(w), nil
}

// marginals returns the posterior of every variable of vs from one
// calibration, and P(e) (0 for impossible evidence).
func (e *jtEngine) marginals(vs []ir.VarID) ([]Marginal, xfloat, error) {
	t, w := e.t, e.w
	if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtCalibrated); err != nil {
		return nil, xfloat{}, err
	}
	if e.exact() {
		return e.marginalsVE(vs)
	}
	pe := t.pe(w)
	if pe.m == 0 {
		return nil, pe, nil
	}
	total := 0
	for _, v := range vs {
		total += t.hcard[v]
	}
	buf := make([]float64, total)
	out := make([]Marginal, len(vs))
	for i, v := range vs {
		k := t.hcard[v]
		out[i] = Marginal{Var: v, P: buf[:k:k]}
		buf = buf[k:]
		if t.marginal(w, v, out[i].P) == 0 {
			return nil, xfloat{}, nil
		}
	}
	return out, pe, nil
}

// marginalsVE is marginals by variable elimination, one variable at a
// time, for a calibration that lost digits.
func (e *jtEngine) marginalsVE(vs []ir.VarID) ([]Marginal, xfloat, error) {
	pe, err := peOf(e.ve)
	if err != nil || pe.m == 0 {
		return nil, pe, err
	}
	out := make([]Marginal, len(vs))
	for i, v := range vs {
		f, _, err := e.ve.joint([]ir.VarID{v})
		if err != nil {
			return nil, pe, err
		}
		norm := sum(f.Vals)
		if norm == 0 {
			return nil, xfloat{}, nil
		}
		out[i] = Marginal{Var: v, P: f.Vals}
		for s, x := range f.Vals {
			f.Vals[s] = prob(x / norm)
		}
	}
	return out, pe, nil
}
