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
	w.state = jtEmpty
}

// normalize scales xs by a power of two so that its largest entry lies in
// [0.5, 1), and returns the exponent e with old = new·2^e (0 for a zero
// vector).
func normalize(xs []float64) int {
	mx := 0.0
	for _, x := range xs {
		if x > mx {
			mx = x
		}
	}
	return scaleBy(xs, mx)
}

// scaleBy is normalize for a vector whose largest entry mx is known.
func scaleBy(xs []float64, mx float64) int {
	if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) {
		return 0
	}
	_, e := math.Frexp(mx)
	if e == 0 {
		return 0
	}
	f := math.Ldexp(1, -e)
	for i := range xs {
		xs[i] *= f
	}
	return e
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

// collect passes messages from the leaves to the root: each clique, once it
// has absorbed its children's messages, sums (or, with maxProduct,
// maximises) its table onto the separator towards its parent, and the parent
// multiplies the message in. Each message is normalised by a power of two
// and the exponents summed, so P(e) (or the maximum) = root·2^exp·konst.
func (t *JTree) collect(w *jtWork, maxProduct bool) {
	e := t.initExp
	for k := len(t.order) - 1; k >= 1; k-- {
		mc, mp, pc, pp, sep := t.edge(w, t.order[k])
		clear(sep)
		if maxProduct {
			for i, s := range mc {
				if x := pc[i]; x > sep[s] {
					sep[s] = x
				}
			}
		} else {
			for i, s := range mc {
				sep[s] += pc[i]
			}
		}
		e += normalize(sep)
		mx := 0.0
		for j, s := range mp {
			x := pp[j] * sep[s]
			pp[j] = x
			if x > mx {
				mx = x
			}
		}
		if mx < smallMax {
			e += scaleBy(pp, mx)
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
	w.state = jtCollected
	if maxProduct {
		w.state = jtMaxed
	}
}

// distribute passes messages from the root to the leaves after a sum
// collect (Hugin): the child's table is multiplied by the parent's new
// separator marginal divided by the message the child sent (0/0 = 0). The
// new marginal is normalised first, so every clique's table is P(C, e)
// times a constant of its own, never far from 1.
func (t *JTree) distribute(w *jtWork) {
	for k := 1; k < len(t.order); k++ {
		mc, mp, pc, pp, sep := t.edge(w, t.order[k])
		tmp := w.tmp[:len(sep)]
		clear(tmp)
		for j, s := range mp {
			tmp[s] += pp[j]
		}
		normalize(tmp)
		for s, x := range sep {
			if x != 0 {
				tmp[s] /= x
			} else {
				tmp[s] = 0
			}
		}
		for i, s := range mc {
			pc[i] *= tmp[s]
		}
	}
	w.state = jtCalibrated
}

// ensure brings w to at least the given state for evidence obs, reusing
// what it already holds when the evidence is unchanged.
func (t *JTree) ensure(w *jtWork, obs []int, want jtState) {
	same := slices.Equal(w.obs, obs)
	switch {
	case want == jtMaxed:
		if same && w.state == jtMaxed {
			return
		}
		t.load(w, obs)
		t.collect(w, true)
		return
	case same && w.state == jtCalibrated:
		return
	case same && w.state == jtCollected && want == jtCollected:
		return
	case same && w.state == jtCollected:
		t.distribute(w)
		return
	}
	t.load(w, obs)
	t.collect(w, false)
	if want == jtCalibrated {
		t.distribute(w)
	}
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
// variables that share no clique, and MAP, go to variable elimination.
type jtEngine struct {
	t   *JTree
	w   *jtWork
	obs []int
	ve  *ve
}

func (e *jtEngine) release() {
	if e.w != nil {
		e.t.put(e.w)
		e.w = nil
	}
}

// joint returns P(keep, e) times a scale, from one calibrated clique that
// contains keep; P(e) itself needs only the collect pass.
func (e *jtEngine) joint(keep []ir.VarID) (*ir.Factor, xfloat, error) {
	t, w := e.t, e.w
	if len(keep) == 0 {
		t.ensure(w, e.obs, jtCollected)
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
	t.ensure(w, e.obs, jtCalibrated)
	kc := make([]int, len(keep))
	for i, v := range keep {
		kc[i] = t.hcard[v]
	}
	out := newFactor(keep, kc)
	src := &ir.Factor{Vars: t.cvars[best], Card: t.ccard[best], Stride: t.cstride[best], Vals: w.pot[t.off[best]:t.off[best+1]]}
	combineTo(out, []*ir.Factor{src}, opSum, nil)
	pe := t.pe(w)
	s := sum(out.Vals)
	if pe.m == 0 || s == 0 {
		clear(out.Vals)
		return out, xfloat{}, nil
	}
	// The clique's own scale is arbitrary; P(e) fixes it.
	return out, xfloat{pe.m / s, pe.e}.norm(), nil
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
	t.ensure(w, e.obs, jtMaxed)
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
func (e *jtEngine) marginals(vs []ir.VarID) ([]Marginal, xfloat) {
	t, w := e.t, e.w
	t.ensure(w, e.obs, jtCalibrated)
	pe := t.pe(w)
	if pe.m == 0 {
		return nil, pe
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
			return nil, xfloat{}
		}
	}
	return out, pe
}
