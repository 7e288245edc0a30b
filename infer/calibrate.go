package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
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
// clique, the entries inconsistent with it. A calibration then works on
// w's tables (which the caller may multiply likelihoods into) rather than
// reading the compiled ones: see prepare.
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
	t.restrict(w, nil)
	copy(w.lo, t.initLo)
	w.state = jtEmpty
	w.lost = t.lost
	w.loaded = true
}

// prepare readies w for a calibration with the evidence obs: the collect
// pass reads the compiled tables, restricted to the entries consistent
// with obs (restrict), and writes w's; nothing is copied beforehand.
func (t *JTree) prepare(w *jtWork, obs []int) {
	copy(w.obs, obs)
	t.restrict(w, obs)
	t.markSkip(w)
	copy(w.lo, t.initLo)
	w.state = jtEmpty
	w.lost = t.lost
	w.loaded = false
}

// normalize scales xs by a power of two so that its largest entry lies in
// [0.5, 1), and returns the exponent e with old = new·2^e (0 for a zero
// vector) and the smallest nonzero entry after scaling (+Inf if none); an
// entry pushed below the normal range is recorded in k. It reads xs once
// and writes it once.
func normalize(k *factor.Kernel, xs []float64) (int, float64) {
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
		// mx is subnormal, or 2^-e is not a normal float64: factor.ScaleBy
		// falls back to Ldexp.
		_, e = math.Frexp(mx)
		return factor.ScaleBy(k, xs, mx), math.Ldexp(mn, -e)
	}
	if e == 0 {
		return 0, mn
	}
	f := math.Float64frombits(uint64(1023-e) << 52) // 2^-e
	mn *= f
	if mn < factor.MinNormal {
		k.Flush()
	}
	for i := range xs {
		xs[i] *= f
	}
	return e, mn
}

// pollSpan is the number of clique entries a message loop handles between
// two polls of the cancellation.
const pollSpan = 16 * factor.PollEvery

// safeProduct reports whether a product of an entry of at least lo and one
// of at least m (both nonzero lower bounds) stays in the normal range, so
// that a message loop needs no check for lost digits.
func safeProduct(lo, m float64) bool { return lo*m >= 0x1p-1020 }

// collect passes messages from the leaves to the root: each clique, once its
// children have sent theirs, takes its initial table (restricted to the
// evidence), multiplies the children's messages in and sums (or, with
// maxProduct, maximises) the product onto the separator towards its
// parent, in one pass over its table, a block at a time (collectClique).
// Each message is normalised by a power of two and the exponents summed,
// so P(e) (or the maximum) = root·2^exp·konst. The cliques are visited on
// every core for a large tree (jtpar.go), with the same results as on one.
//
// A product that falls below the normal range sets w.lost. The loops check
// for it only where it can happen: w.lo[c] bounds clique c's smallest
// nonzero entry from below (its initial table's, times the smallest entry
// of every message it absorbed), so a clique whose bound keeps the
// products normal needs no check. collect reports false, leaving w empty,
// if k is canceled.
func (t *JTree) collect(k *factor.Kernel, w *jtWork, maxProduct bool) bool {
	phase := phaseCollect
	if maxProduct {
		phase = phaseCollectMax
	}
	ok, kl := t.schedule(k, w, phase)
	if !ok {
		w.state = jtEmpty
		return false
	}
	e := t.initExp
	lost := kl
	for c, x := range w.cexp {
		e += x
		lost = lost || w.clost[c]
	}
	w.exp = e
	w.lost = w.lost || lost
	w.state = jtCollected
	if maxProduct {
		w.state = jtMaxed
	}
	return true
}

// message returns the separator table of the edge from c to its parent in
// xs (w.sep or w.dsep).
func (t *JTree) message(xs []float64, c int32) []float64 {
	o := t.sepOff[c]
	return xs[o : o+t.sepLen[c]]
}

// jtScratch is one worker's scratch: an odometer and a block.
type jtScratch struct {
	cnt []int
	blk []float64
}

// scratchFor returns s grown for t.
func (s *jtScratch) grow(t *JTree) {
	if len(s.cnt) < t.maxVars {
		s.cnt = make([]int, t.maxVars)
	}
	if len(s.blk) < t.maxBlk {
		s.blk = make([]float64, t.maxBlk)
	}
}

// collectClique computes clique c's part of the collect pass: its table,
// block by block, written to w, and the message it sends (or, at the
// root, w.z). It reports false if k is canceled.
func (t *JTree) collectClique(k *factor.Kernel, w *jtWork, c int32, maxProduct bool, sc *jtScratch) bool {
	if !maxProduct && !w.loaded && w.skip[c] {
		t.skipCollect(w, c)
		return true
	}
	o0, o1 := t.off[c], t.off[c+1]
	pot := w.pot[o0:o1]
	kids := t.kids[c]
	lo := w.lo[c]
	for _, j := range kids {
		lo *= w.smin[j]
	}
	root := t.parent[c] < 0
	var up []float64
	if !root {
		up = t.message(w.sep, c)
		clear(up)
	}
	w.clost[c], w.scaled[c] = false, false
	w.fast[c] = lo >= 0x1p-1020
	if !w.fast[c] {
		// A product may fall below the normal range: the messages one
		// at a time, checked (collectChecked).
		return t.collectChecked(k, w, c, maxProduct, sc)
	}
	w.lo[c] = lo
	if !w.loaded && t.outerFixed(w, int(c)) {
		clear(pot)
	}
	nb, z := t.blk[c], 0.0
	inner := t.innerFixed(w, int(c))
	polled, stop := 0, false
	t.runs(w, int(c), sc.cnt, func(b0, b1 int) {
		for b := b0; b < b1 && !stop; b++ {
			blk := pot[b*nb : (b+1)*nb]
			t.tableBlock(w, c, b, blk, inner)
			switch {
			case root && maxProduct:
				z = max(z, maxOf(blk))
			case root:
				z += sumOf(blk)
			case maxProduct:
				maxBlock(blk, up, &t.up[c], b)
			default:
				sumBlock(blk, up, &t.up[c], b)
			}
			if polled += nb; polled >= pollSpan {
				polled = 0
				stop = k.Stop()
			}
		}
	})
	if stop {
		return false
	}
	t.send(k, w, c, maxProduct, up, z, 0)
	return true
}

// tableBlock writes into blk block b of clique c's collect-pass table:
// its initial table (or, after load, w's), with the entries inconsistent
// with the evidence on its inner variables zeroed when inner is set, times
// its children's messages.
func (t *JTree) tableBlock(w *jtWork, c int32, b int, blk []float64, inner bool) {
	nb := len(blk)
	src := t.init
	if w.loaded {
		src = w.pot
	}
	o := t.off[c] + b*nb
	kids := t.kids[c]
	if &src[o] != &blk[0] {
		if inner || len(kids) == 0 {
			copy(blk, src[o:o+nb])
		} else {
			// The copy and the first child's message in one pass
			// (the same products).
			mulBlockTo(blk, src[o:o+nb], t.message(w.sep, kids[0]), &t.down[kids[0]], b)
			kids = kids[1:]
		}
	}
	if inner {
		t.zeroInner(w, int(c), blk)
	}
	for _, j := range kids {
		mulBlock(blk, t.message(w.sep, j), &t.down[j], b)
	}
}

// loadClique copies clique c's initial table into w, restricted to the
// evidence: the inconsistent entries are 0.
func (t *JTree) loadClique(w *jtWork, c int32, cnt []int) {
	o0, o1 := t.off[c], t.off[c+1]
	pot, src := w.pot[o0:o1], t.init[o0:o1]
	if w.fixHead[c] < 0 {
		copy(pot, src)
		return
	}
	if t.outerFixed(w, int(c)) {
		clear(pot)
	}
	nb, inner := t.blk[c], t.innerFixed(w, int(c))
	t.runs(w, int(c), cnt, func(b0, b1 int) {
		copy(pot[b0*nb:b1*nb], src[b0*nb:b1*nb])
		if inner {
			for b := b0; b < b1; b++ {
				t.zeroInner(w, int(c), pot[b*nb:(b+1)*nb])
			}
		}
	})
}

// send normalises clique c's message up (or, at the root, records its sum
// or maximum z as w.z), with e the exponent already taken off c's table,
// and rescales c's table when its largest entry has fallen below smallMax.
func (t *JTree) send(k *factor.Kernel, w *jtWork, c int32, maxProduct bool, up []float64, z float64, e int) {
	pot := w.pot[t.off[c]:t.off[c+1]]
	// A lower bound of the table's largest entry, from the message.
	var low float64
	if up == nil {
		w.z = z
		low = z
		w.cexp[c] = e
	} else {
		x, smin := normalize(k, up)
		w.cexp[c], w.smin[c] = e+x, smin
		low = 0
		if smin <= 1 {
			low = math.Ldexp(0.5, x)
		}
	}
	switch {
	case maxProduct:
	case up != nil:
		low /= float64(len(pot) / len(up)) // the entries summed into one of up's
	default:
		low /= float64(len(pot))
	}
	if low >= smallMax || up == nil && z == 0 {
		return
	}
	if mx := maxOf(pot); mx > 0 && mx < smallMax {
		x := factor.ScaleBy(k, pot, mx)
		w.lo[c] = math.Ldexp(w.lo[c], -x)
		w.scaled[c] = true
	}
}

// collectChecked is collectClique for a clique whose products may fall
// below the normal range: it multiplies the messages into its table, kept
// in w, one at a time, each with a check where its bound calls for one,
// rescaling the table after each whose largest entry fell below
// smallMax, and then sends.
func (t *JTree) collectChecked(k *factor.Kernel, w *jtWork, c int32, maxProduct bool, sc *jtScratch) bool {
	if k.Stop() {
		return false
	}
	pot := w.pot[t.off[c]:t.off[c+1]]
	if !w.loaded {
		t.loadClique(w, c, sc.cnt)
	}
	nb := t.blk[c]
	lo, e, lost := w.lo[c], 0, false
	for _, j := range t.kids[c] {
		m := t.message(w.sep, j)
		smin := w.smin[j]
		check := !safeProduct(lo, smin)
		lo *= smin
		mx := 0.0
		for b := range len(pot) / nb {
			blk := pot[b*nb : (b+1)*nb]
			if check {
				lost = mulBlockChecked(blk, m, &t.down[j], b) || lost
			} else {
				mulBlock(blk, m, &t.down[j], b)
			}
			mx = max(mx, maxOf(blk))
		}
		if mx < smallMax {
			x := factor.ScaleBy(k, pot, mx)
			e += x
			lo = math.Ldexp(lo, -x)
		}
	}
	w.lo[c] = lo
	w.clost[c] = lost
	var up []float64
	z := 0.0
	if t.parent[c] >= 0 {
		up = t.message(w.sep, c)
		for b := range len(pot) / nb {
			if maxProduct {
				maxBlock(pot[b*nb:(b+1)*nb], up, &t.up[c], b)
			} else {
				sumBlock(pot[b*nb:(b+1)*nb], up, &t.up[c], b)
			}
		}
	} else if maxProduct {
		z = maxOf(pot)
	} else {
		z = sumOf(pot)
	}
	t.send(k, w, c, maxProduct, up, z, e)
	return true
}

// distribute passes messages from the root to the leaves after a sum
// collect (Hugin): each clique's table is multiplied by its parent's new
// separator marginal divided by the message it sent (0/0 = 0), and
// summed onto the separators towards its children, in one pass over its
// table (distributeClique). Each new marginal is normalised first, so
// every clique's table is P(C, e) times a constant of its own. Products
// are checked for lost digits as in collect. With homes, only the tables
// of the cliques that are some variable's home are calibrated in w
// (enough for every marginal); the others are computed block by block and
// dropped, and keep their collect tables. It reports false, leaving w
// empty, if k is canceled.
func (t *JTree) distribute(k *factor.Kernel, w *jtWork) bool { return t.distributeTo(k, w, false) }

func (t *JTree) distributeTo(k *factor.Kernel, w *jtWork, homes bool) bool {
	phase := phaseDistribute
	if homes {
		phase = phaseDistributeHomes
	}
	ok, kl := t.schedule(k, w, phase)
	if !ok {
		w.state = jtEmpty
		return false
	}
	lost := kl
	for _, l := range w.clost {
		lost = lost || l
	}
	w.lost = w.lost || lost
	w.state = jtCalibrated
	if homes {
		w.state = jtHomes
	}
	return true
}

// distributeClique multiplies clique c's table by the ratio its parent
// computed for it, writing the product to w if write is set (else to
// scratch, block by block), and sends the new marginals to its children
// as ratios (their new marginal over the message they sent). It reports
// false if k is canceled.
func (t *JTree) distributeClique(k *factor.Kernel, w *jtWork, c int32, write bool, sc *jtScratch) bool {
	pot := w.pot[t.off[c]:t.off[c+1]]
	kids := t.kids[c]
	for _, j := range kids {
		clear(t.message(w.dsep, j))
	}
	root := t.parent[c] < 0
	var r []float64
	check := false
	if !root {
		r = t.message(w.dsep, c)
		check = !safeProduct(w.lo[c], w.tmin[c])
	}
	nb := t.blk[c]
	lost := false
	polled, stop := 0, false
	skipped := w.skip[c] && !w.loaded // c's collect table is to be computed here (jtclean.go) ...
	var kept, fill []float64          // ... or was kept (kept), or is to be kept (fill)
	if skipped {
		if tb, ready := t.keptTable(w, c); ready {
			kept = tb
		} else {
			fill = tb
		}
	}
	t.runs(w, int(c), sc.cnt, func(b0, b1 int) {
		for b := b0; b < b1 && !stop; b++ {
			blk := pot[b*nb : (b+1)*nb]
			switch {
			case kept != nil && check:
				if !write {
					blk = sc.blk[:nb]
				}
				copy(blk, kept[b*nb:(b+1)*nb])
				lost = mulBlockChecked(blk, r, &t.up[c], b) || lost
			case kept != nil:
				if !write {
					blk = sc.blk[:nb]
				}
				mulBlockTo(blk, kept[b*nb:(b+1)*nb], r, &t.up[c], b)
			case skipped:
				if !write {
					blk = sc.blk[:nb]
				}
				t.tableBlock(w, c, b, blk, false)
				if fill != nil {
					copy(fill[b*nb:(b+1)*nb], blk)
				}
				if check {
					lost = mulBlockChecked(blk, r, &t.up[c], b) || lost
				} else {
					mulBlock(blk, r, &t.up[c], b)
				}
			case root:
			case check:
				if !write {
					blk = sc.blk[:nb]
					copy(blk, pot[b*nb:(b+1)*nb])
				}
				lost = mulBlockChecked(blk, r, &t.up[c], b) || lost
			case write:
				mulBlock(blk, r, &t.up[c], b)
			default:
				// The calibrated block in scratch: c's table keeps
				// its collect values.
				blk = sc.blk[:nb]
				mulBlockTo(blk, pot[b*nb:(b+1)*nb], r, &t.up[c], b)
			}
			for _, j := range kids {
				sumBlock(blk, t.message(w.dsep, j), &t.down[j], b)
			}
			if polled += nb; polled >= pollSpan {
				polled = 0
				stop = k.Stop()
			}
		}
	})
	if fill != nil {
		t.filled(c, !stop)
	}
	if stop {
		return false
	}
	w.clost[c] = w.clost[c] || lost
	for _, j := range kids {
		d, old := t.message(w.dsep, j), t.message(w.sep, j)
		normalize(k, d)
		tmin := math.Inf(1)
		for s, x := range old {
			if x == 0 {
				d[s] = 0
				continue
			}
			y := d[s] / x
			d[s] = y
			if y < tmin && y != 0 {
				tmin = y
			}
		}
		w.tmin[j] = tmin
	}
	return true
}

// ensure brings w to at least the given state for evidence obs, reusing
// what it already holds when the evidence is unchanged. It returns the
// error of kind ErrCanceled, at pos, if k is canceled.
func (t *JTree) ensure(k *factor.Kernel, pos ir.Pos, w *jtWork, obs []int, want jtState) error {
	same := slices.Equal(w.obs, obs)
	ok := true
	// What w holds for obs: a sum-product collect at least (and the
	// calibrated home cliques, or every clique), or a max-product one.
	has := jtEmpty
	if same {
		has = w.state
	}
	switch {
	case want == jtMaxed:
		if has == jtMaxed {
			return nil
		}
		t.prepare(w, obs)
		ok = t.collect(k, w, true)
	case has == jtCalibrated:
	case has == jtHomes && want != jtCalibrated:
	case has == jtCollected && want == jtCollected:
	case has == jtCollected:
		ok = t.distributeTo(k, w, want == jtHomes)
	default:
		ok = t.cleanCollect(k, w)
		if !ok {
			break
		}
		t.prepare(w, obs)
		ok = t.collect(k, w, false)
		if ok && want != jtCollected {
			ok = t.distributeTo(k, w, want == jtHomes)
		}
	}
	if !ok {
		return canceled(pos)
	}
	return nil
}

// pe returns P(e) (or the maximum, after a max collect).
func (t *JTree) pe(w *jtWork) factor.Scaled {
	return factor.Scaled{M: w.z, E: w.exp}.Norm().Mul(t.konst)
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
			pa := t.parent[c]
			s := t.down[c].at(w.chosen[pa], t.blk[pa])
			best = -1
			e, nb := &t.up[c], t.blk[c]
			for i, x := range p {
				if e.at(i, nb) == s && (best < 0 || x > p[best]) {
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
	k   *factor.Kernel
	s   *jtAnswerBuf // room for joint's table, reused by the next call; nil to allocate each
}

// jtAnswerBuf is the room in which jtEngine.Joint returns its table, so that
// a query's joint allocates nothing: the table stays valid until the next
// call of joint on the engine.
type jtAnswerBuf struct {
	one    [1]float64
	scalar ir.Factor // joint(nil)
	out    ir.Factor // Joint(keep)
	sorted []ir.VarID
	card   []int
	stride []int
	vals   []float64
	fold   []int // the clique's strides in the order of the sum (see marginalize)
	fcard  []int
	cnt    []int
}

// drop forgets the variables the scratch's tables were over.
func (s *jtAnswerBuf) drop() { s.scalar, s.out = ir.Factor{}, ir.Factor{} }

// factor returns a table over vars with the cardinalities card[v], in s if
// s is not nil.
func (s *jtAnswerBuf) factor(vars []ir.VarID, card []int) *ir.Factor {
	if s == nil {
		kc := make([]int, len(vars))
		for i, v := range vars {
			kc[i] = card[v]
		}
		return factor.New(vars, kc)
	}
	n := len(vars)
	s.card, s.stride = grow(s.card, n), grow(s.stride, n)
	size := 1
	for i := n - 1; i >= 0; i-- {
		s.card[i] = card[vars[i]]
		s.stride[i] = size
		size *= s.card[i]
	}
	s.vals = grow(s.vals, size)
	s.out = ir.Factor{Vars: vars, Card: s.card, Stride: s.stride, Vals: s.vals}
	return &s.out
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

// Joint returns P(keep, e) times a scale, from one calibrated clique that
// contains keep; P(e) itself needs only the collect pass.
func (e *jtEngine) Joint(keep []ir.VarID) (*ir.Factor, factor.Scaled, error) {
	t, w := e.t, e.w
	e.k.Coarse = false
	if len(keep) == 0 {
		if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtCollected); err != nil {
			return nil, factor.Scaled{}, err
		}
		if e.exact() {
			return e.ve.Joint(keep)
		}
		var f *ir.Factor
		if e.s != nil {
			e.s.scalar = ir.Factor{Vals: e.s.one[:]}
			f = &e.s.scalar
		} else {
			f = factor.New(nil, nil)
		}
		pe := t.pe(w)
		f.Vals[0] = pe.M
		return f, factor.Scaled{M: 1, E: pe.E}, nil
	}
	var sorted []ir.VarID
	if e.s != nil {
		sorted = append(e.s.sorted[:0], keep...)
		slices.Sort(sorted)
		e.s.sorted = sorted
	} else {
		sorted = sortedCopy(keep)
	}
	best := int32(-1)
	for c, vs := range t.cvars {
		if (best < 0 || t.off[c+1]-t.off[c] < t.off[best+1]-t.off[best]) && containsAll(vs, sorted) {
			best = int32(c)
		}
	}
	if best < 0 {
		return e.ve.Joint(keep)
	}
	if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtCalibrated); err != nil {
		return nil, factor.Scaled{}, err
	}
	if e.exact() {
		return e.ve.Joint(keep)
	}
	out := e.s.factor(keep, t.hcard)
	e.s.marginalize(e.k, out, t.cvars[best], t.ccard[best], t.cstride[best], w.pot[t.off[best]:t.off[best+1]])
	if e.k.Poll() {
		return nil, factor.Scaled{}, canceled(e.ve.pos)
	}
	pe := t.pe(w)
	s := sum(out.Vals)
	if pe.M == 0 || s == 0 {
		clear(out.Vals)
		return out, factor.Scaled{}, nil
	}
	// The clique's own scale is arbitrary; P(e) fixes it.
	return out, factor.Scaled{M: pe.M / s, E: pe.E}.Norm(), nil
}

// marginalize sets out, over some of the variables cvars of a clique
// table (with cardinalities ccard, strides cstride and entries vals), to
// the sum of the table over the others. It is factor.Combine(k, out, {table},
// factor.OpSum, nil), bit for bit, in s's buffers (or allocated when s is nil):
// the same order of summation (out's entries in turn, each the sum over
// the other variables, in the clique's order, last fastest) and the same
// record of entries below the normal range.
func (s *jtAnswerBuf) marginalize(k *factor.Kernel, out *ir.Factor, cvars []ir.VarID, ccard, cstride []int, vals []float64) {
	if s == nil {
		s = new(jtAnswerBuf)
	}
	n := len(cvars)
	str, card, cnt := grow(s.fold, n), grow(s.fcard, n), grow(s.cnt, n)
	s.fold, s.fcard, s.cnt = str, card, cnt
	// The order of the sum: out's variables, then the clique's others.
	i := 0
	for _, v := range out.Vars {
		p := factor.IndexOf(cvars, v)
		str[i], card[i] = cstride[p], ccard[p]
		i++
	}
	block := 1
	for p, v := range cvars {
		if factor.IndexOf(out.Vars, v) < 0 {
			str[i], card[i] = cstride[p], ccard[p]
			block *= ccard[p]
			i++
		}
	}
	clear(cnt)
	idx, work := 0, 0
	for o := range out.Vals {
		if work += block; work >= factor.PollEvery {
			work = 0
			if k.Poll() {
				return
			}
		}
		acc := 0.0
		for range block {
			p := vals[idx]
			if p < factor.MinNormal && p != 0 {
				k.Flush()
			}
			acc += p
			// Advance the odometer, last variable fastest.
			for d := n - 1; d >= 0; d-- {
				if cnt[d]++; cnt[d] < card[d] {
					idx += str[d]
					break
				}
				cnt[d] = 0
				idx -= (card[d] - 1) * str[d]
			}
		}
		out.Vals[o] = acc
	}
}

// Partition returns Σ_x Π φ(x) without evidence, computed once per tree,
// in the engine's workspace (which then no longer holds the evidence: the
// next question on it recalibrates).
func (e *jtEngine) Partition() (factor.Scaled, error) { return e.t.partition(e.k, e.ve.pos, e.w) }

// partition returns Σ_x Π φ(x) without evidence, computing it in w on the
// first call (by VE if the calibration loses digits).
func (t *JTree) partition(k *factor.Kernel, pos ir.Pos, w *jtWork) (factor.Scaled, error) {
	t.zmu.Lock()
	z, ok := t.z, t.zok
	t.zmu.Unlock()
	if ok {
		return z, nil
	}
	none := noEvidence(len(t.card))
	if err := t.ensure(k, pos, w, none, jtCollected); err != nil {
		return factor.Scaled{}, err
	}
	if w.lost {
		r := t.veFor(none)
		r.k, r.pos = k, pos
		var err error
		if z, err = r.Partition(); err != nil {
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

// MaxAssign answers MPE (maxVars = every unobserved variable) by max-product
// collect and traceback; MAP goes to variable elimination.
func (e *jtEngine) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	t, w := e.t, e.w
	free := 0
	for v, s := range e.obs {
		if s < 0 && t.home[v] >= 0 {
			free++
		}
	}
	if len(maxVars) != free {
		return e.ve.MaxAssign(maxVars)
	}
	if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtMaxed); err != nil {
		return nil, factor.Scaled{}, err
	}
	if e.exact() {
		return e.ve.MaxAssign(maxVars)
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
func (e *jtEngine) marginals(vs []ir.VarID) ([]Marginal, factor.Scaled, error) {
	t, w := e.t, e.w
	if err := t.ensure(e.k, e.ve.pos, w, e.obs, jtHomes); err != nil {
		return nil, factor.Scaled{}, err
	}
	if e.exact() {
		return e.marginalsVE(vs)
	}
	pe := t.pe(w)
	if pe.M == 0 {
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
			return nil, factor.Scaled{}, nil
		}
	}
	return out, pe, nil
}

// marginalsVE is marginals by variable elimination, one variable at a
// time, for a calibration that lost digits.
func (e *jtEngine) marginalsVE(vs []ir.VarID) ([]Marginal, factor.Scaled, error) {
	pe, err := peOf(e.ve)
	if err != nil || pe.M == 0 {
		return nil, pe, err
	}
	out := make([]Marginal, len(vs))
	for i, v := range vs {
		f, _, err := e.ve.Joint([]ir.VarID{v})
		if err != nil {
			return nil, pe, err
		}
		norm := sum(f.Vals)
		if norm == 0 {
			return nil, factor.Scaled{}, nil
		}
		out[i] = Marginal{Var: v, P: f.Vals}
		for s, x := range f.Vals {
			f.Vals[s] = prob(x / norm)
		}
	}
	return out, pe, nil
}
