package hypothesis

import (
	"math"

	"github.com/pbl-lang/pbl/ir"
)

// A run is a range of consecutive hypotheses that differ in the grid's
// last parameter only: a stretch of its values with the others fixed.
// Evaluate goes through the grid a run at a time, computing each
// parameter-only quantity — the prior weight, a normal's SD and the
// coefficients a_j of its sufficient statistics — as a scalar when it
// does not read the last parameter and as a vector over the run when it
// does (precomputed once over the whole grid when it reads the last
// parameter only), then each log-likelihood in vector passes over the
// run. Every hypothesis's numbers come out of the same floating-point
// operations, in the same order, as evaluating it alone (logLik), so the
// results are the same bit for bit.
//
// A run with a value out of its domain (a weight < 0, SD ≤ 0, a
// coefficient that is not finite, a bernoulli probability outside
// [0, 1]) is evaluated again a hypothesis at a time, which finds and
// positions the error (or, where the likelihood merely underflows,
// makes it 0).

// maxPrecomputed bounds the length of the last parameter's grid over
// which coefficients and the prior are precomputed.
const maxPrecomputed = 1 << 20

// runPlan is how runs of a space's hypotheses are evaluated.
type runPlan struct {
	last  int       // the index of the last parameter
	grid  []float64 // its values
	width int       // the longest run: min(len(grid), chunk)
	slots int       // buffers of nodes that read the last parameter
	obs   []runObs  // one per observation of the likelihood

	// When the prior reads the last parameter, ln w over the grid of
	// the parameters it reads (the last fastest), if not too large; or
	// nil. Hypothesis i's weight is priorLW[Σ_k idx_k·priorStride[k]],
	// over the parameters k < last it reads, plus its last's index.
	priorLW     []float64
	priorBad    []int32 // priorBad[s] counts the invalid weights before s
	priorParams []int   // the parameters other than the last the prior reads
	priorStride []int
}

// runObs is how one observation is evaluated over a run.
type runObs struct {
	o     *obsEval
	last  bool      // its log-likelihood reads the last parameter
	coefs []runCoef // modeSuff: one per coefficient a_j
}

// runCoef is how a coefficient a_j of a suffNormal is evaluated over a
// run.
type runCoef struct {
	last  bool      // a_j reads the last parameter
	delta []float64 // a_j − a*_j over grid when a_j reads the last parameter only; or nil
	bad   []int32   // with delta: bad[t] counts the non-finite a_j before t
}

// newRunPlan plans the runs of p's hypotheses; it returns nil for a
// space without parameters. It marks the parameter-only nodes of the
// prior and of the observations' sufficient statistics.
func newRunPlan(p *Posterior) *runPlan {
	np := len(p.grid)
	if np == 0 {
		return nil
	}
	pl := &runPlan{last: np - 1, grid: p.grid[np-1]}
	pl.width = min(len(pl.grid), chunk)
	precompute := len(pl.grid) <= maxPrecomputed
	params := make([]float64, np)
	if p.prior != nil {
		pl.mark(p.prior)
		if p.prior.lastDep {
			pl.precomputePrior(p)
		}
	}
	for _, o := range p.like.obs {
		ro := runObs{o: o}
		switch o.mode {
		case modeConst:
		case modeSuff:
			s := o.suff
			pl.mark(s.sd)
			ro.last = s.sd.lastDep
			ro.coefs = make([]runCoef, len(s.groups))
			for j, grp := range s.groups {
				c := &ro.coefs[j]
				other := false
				for _, t := range grp {
					for _, f := range t.a {
						other = pl.mark(f.n) || other
						c.last = c.last || f.n.lastDep
					}
				}
				ro.last = ro.last || c.last
				if !c.last || other || !precompute {
					continue
				}
				c.delta, c.bad = make([]float64, len(pl.grid)), make([]int32, len(pl.grid)+1)
				for t, v := range pl.grid {
					params[pl.last] = v
					a := s.coefAt(j, params)
					c.delta[t] = a - s.astar[j]
					c.bad[t+1] = c.bad[t]
					if math.IsNaN(a) || math.IsInf(a, 0) {
						c.bad[t+1]++
					}
				}
			}
		default:
			for _, a := range o.args {
				ro.last = ro.last || readsParam(a, pl.last)
			}
		}
		pl.obs = append(pl.obs, ro)
	}
	return pl
}

// precomputePrior computes the prior's ln w over the grid of the
// parameters it reads, when that grid has at most maxPrecomputed points
// and is much smaller than the space's.
func (pl *runPlan) precomputePrior(p *Posterior) {
	size := len(pl.grid)
	for k := range pl.last {
		if readsParam(p.prior, k) {
			if size > maxPrecomputed/len(p.grid[k]) {
				return
			}
			size *= len(p.grid[k])
			pl.priorParams = append(pl.priorParams, k)
		}
	}
	if size > p.Len()/8 { // hardly smaller than the grid: by runs, in parallel
		pl.priorParams = nil
		return
	}
	pl.priorStride = make([]int, len(pl.priorParams))
	stride := len(pl.grid)
	for m := len(pl.priorParams) - 1; m >= 0; m-- {
		pl.priorStride[m] = stride
		stride *= len(p.grid[pl.priorParams[m]])
	}
	pl.priorLW, pl.priorBad = make([]float64, size), make([]int32, size+1)
	params := make([]float64, len(p.grid))
	for i := range size {
		for m, k := range pl.priorParams {
			params[k] = p.grid[k][i/pl.priorStride[m]%len(p.grid[k])]
		}
		params[pl.last] = pl.grid[i%len(pl.grid)]
		lw := p.prior.at(params, nil)
		pl.priorBad[i+1] = pl.priorBad[i]
		if math.IsNaN(lw) || math.IsInf(lw, 1) {
			pl.priorBad[i+1]++ // evaluated one hypothesis at a time (logWeight)
			continue
		}
		pl.priorLW[i] = lw
	}
}

// mark sets lastDep and other on n and its operands, giving a buffer to
// each node that reads the last parameter but is not that parameter; it
// returns n.other.
func (pl *runPlan) mark(n *node) bool {
	if n == nil {
		return false
	}
	if n.marked {
		return n.other
	}
	n.marked = true
	switch n.tag {
	case tParam:
		n.lastDep, n.other = n.idx == pl.last, n.idx != pl.last
		return n.other
	case tNum, tColumn:
		return false
	}
	ox, oy := pl.mark(n.x), pl.mark(n.y)
	n.other = ox || oy
	n.lastDep = n.x.lastDep || n.y != nil && n.y.lastDep
	if n.lastDep {
		n.rslot = pl.slots
		pl.slots++
	}
	return n.other
}

// readsParam reports whether n reads parameter k.
func readsParam(n *node, k int) bool {
	if n == nil {
		return false
	}
	if n.tag == tParam {
		return n.idx == k
	}
	return readsParam(n.x, k) || readsParam(n.y, k)
}

// runScratch is one goroutine's working memory for runs, each buffer
// of runPlan.width.
type runScratch struct {
	rbufs                   [][]float64 // one per marked node that reads the last parameter
	deltas                  [][]float64 // a_j − a*_j, per coefficient
	dv                      [][]float64 // per coefficient: its vector over the run, or nil
	ds                      []float64   // per coefficient: its value when it is a scalar
	tv, lin, v, q, lw, fill []float64
}

func newRunScratch(pl *runPlan, maxJ int) *runScratch {
	buf := func() []float64 { return make([]float64, pl.width) }
	rs := &runScratch{dv: make([][]float64, maxJ), ds: make([]float64, maxJ),
		tv: buf(), lin: buf(), v: buf(), q: buf(), lw: buf(), fill: buf()}
	for range pl.slots {
		rs.rbufs = append(rs.rbufs, buf())
	}
	for range maxJ {
		rs.deltas = append(rs.deltas, buf())
	}
	return rs
}

// vs is a value over a run: a vector v, or the scalar s when v is nil.
type vs struct {
	v []float64
	s float64
}

// runOperand returns n's value over a run as an operand of a vector
// kernel: a vector over the run when n reads the last parameter, whose
// values over the run are g; otherwise (nil, its value under p).
func (n *node) runOperand(rb [][]float64, p, g []float64) ([]float64, float64) {
	if !n.lastDep {
		return nil, n.at(p, nil)
	}
	if n.tag == tParam {
		return g, 0
	}
	dst := rb[n.rslot][:len(g)]
	switch n.tag {
	case tUnary:
		x, _ := n.x.runOperand(rb, p, g)
		for i, v := range x[:len(dst)] {
			dst[i] = -v
		}
	case tCall:
		x, _ := n.x.runOperand(rb, p, g)
		callVec(n.fn, dst, x)
	case tBinary:
		x, xs := n.x.runOperand(rb, p, g)
		y, ys := n.y.runOperand(rb, p, g)
		binVec(n.op, dst, x, xs, y, ys)
	default:
		panic("hypothesis: a leaf reading the last parameter")
	}
	return dst, 0
}

// op returns x op y, into dst when either is a vector.
func op(o ir.Op, dst []float64, x, y vs) vs {
	if x.v == nil && y.v == nil {
		return vs{s: binop(o, x.s, y.s)}
	}
	binVec(o, dst, x.v, x.s, y.v, y.s)
	return vs{v: dst}
}

// axpy returns acc + x·c, into dst when either is a vector.
func axpy(dst []float64, acc, x vs, c float64) vs {
	switch {
	case acc.v == nil && x.v == nil:
		return vs{s: acc.s + x.s*c}
	case acc.v == nil:
		a, xv := acc.s, x.v[:len(dst)]
		for t := range dst {
			dst[t] = a + xv[t]*c
		}
	case x.v == nil:
		xc, av := x.s*c, acc.v[:len(dst)]
		for t := range dst {
			dst[t] = av[t] + xc
		}
	default:
		av, xv := acc.v[:len(dst)], x.v[:len(dst)]
		for t := range dst {
			dst[t] = av[t] + xv[t]*c
		}
	}
	return vs{v: dst}
}

// sqacc returns q + v·v, into dst when either is a vector.
func sqacc(dst []float64, q, v vs) vs {
	switch {
	case q.v == nil && v.v == nil:
		return vs{s: q.s + v.s*v.s}
	case q.v == nil:
		a, vv := q.s, v.v[:len(dst)]
		for t := range dst {
			dst[t] = a + vv[t]*vv[t]
		}
	case v.v == nil:
		vv, qv := v.s*v.s, q.v[:len(dst)]
		for t := range dst {
			dst[t] = qv[t] + vv
		}
	default:
		qv, vv := q.v[:len(dst)], v.v[:len(dst)]
		for t := range dst {
			dst[t] = qv[t] + vv[t]*vv[t]
		}
	}
	return vs{v: dst}
}

// vector returns x as a vector of len(dst), filling dst when x is a
// scalar.
func vector(dst []float64, x vs) []float64 {
	if x.v != nil {
		return x.v[:len(dst)]
	}
	for t := range dst {
		dst[t] = x.s
	}
	return dst
}

// fastRun evaluates the hypotheses i0 .. i0+t1−t0−1, whose parameters
// are params but for the last, which runs over grid[t0:t1], and records
// them in r. It reports false, having recorded nothing, when a value is
// out of its domain: the caller then evaluates them one at a time.
func (p *Posterior) fastRun(sc *scratch, params []float64, i0, t0, t1 int, r *chunkResult) bool {
	pl, rs := p.plan, sc.run
	g := pl.grid[t0:t1]
	n := len(g)
	var lw vs
	if p.prior != nil {
		switch {
		case !p.prior.lastDep:
			x := p.prior.at(params, nil)
			if math.IsNaN(x) || math.IsInf(x, 1) {
				return false
			}
			lw.s = x
		case pl.priorLW != nil:
			base := 0
			for m, k := range pl.priorParams {
				base += sc.idx[k] * pl.priorStride[m]
			}
			if pl.priorBad[base+t1] != pl.priorBad[base+t0] {
				return false
			}
			lw.v = pl.priorLW[base+t0 : base+t1]
		default:
			wv, _ := p.prior.runOperand(rs.rbufs, params, g)
			dst := rs.lw[:n]
			for t, x := range wv {
				if math.IsNaN(x) || math.IsInf(x, 1) {
					return false
				}
				dst[t] = x
			}
			lw.v = dst
		}
	}
	ll := p.ll[i0 : i0+n]
	var tot vs
	for k := range pl.obs {
		var ok bool
		if tot, ok = p.obsRun(sc, &pl.obs[k], params, t0, t1, ll, tot); !ok {
			return false
		}
	}
	if tot.v == nil {
		vector(ll, tot)
	}
	negInf := math.Inf(-1)
	if p.prior == nil {
		r.anyPrior = true
		for t, x := range ll {
			if x > r.maxLike {
				r.maxLike, r.mlIdx = x, i0+t
				r.maxPost, r.mapIdx = x, i0+t
			}
			if x > negInf {
				r.support++
			}
		}
		return true
	}
	lws := p.lw[i0 : i0+n]
	if lw.v == nil {
		vector(lws, lw)
	} else {
		copy(lws, lw.v)
	}
	for t, x := range ll {
		w := lws[t]
		if w > negInf {
			r.anyPrior = true
		}
		if x > r.maxLike {
			r.maxLike, r.mlIdx = x, i0+t
		}
		if post := w + x; post > r.maxPost {
			r.maxPost, r.mapIdx = post, i0+t
		}
		if w+x > negInf {
			r.support++
		}
	}
	return true
}

// obsRun returns tot plus observation ro's log-likelihood over the run
// t0..t1 of the last parameter, into dst when it is a vector; ok is
// false when a value is out of its domain.
func (p *Posterior) obsRun(sc *scratch, ro *runObs, params []float64, t0, t1 int, dst []float64, tot vs) (vs, bool) {
	o := ro.o
	if !ro.last {
		ll, ok := o.logLik(sc, params)
		if !ok {
			return tot, false
		}
		return axpy(dst, tot, vs{s: ll}, 1), true
	}
	if o.mode == modeSuff {
		return p.suffRun(sc, ro, params, t0, t1, dst, tot)
	}
	g := p.plan.grid[t0:t1]
	totv := vector(dst, tot)
	for t, v := range g {
		params[p.plan.last] = v
		var ll float64
		ok := true
		if o.mode == modeCount {
			ll, ok = o.count(params)
		} else {
			ll, ok = o.direct(sc.w, params)
		}
		if !ok {
			return tot, false
		}
		dst[t] = totv[t] + ll
	}
	return vs{v: dst}, true
}

// suffRun is obsRun for a normal observation from sufficient
// statistics: suffNormal.logLik's operations, a pass over the run at a
// time.
func (p *Posterior) suffRun(sc *scratch, ro *runObs, params []float64, t0, t1 int, dst []float64, tot vs) (vs, bool) {
	s, rs := ro.o.suff, sc.run
	g := p.plan.grid[t0:t1]
	n := len(g)
	var sd vs
	if s.sd.lastDep {
		sd.v, _ = s.sd.runOperand(rs.rbufs, params, g)
		for _, v := range sd.v {
			if !s.usable(v) {
				return tot, false
			}
		}
	} else if sd.s = s.sd.at(params, nil); !s.usable(sd.s) {
		return tot, false
	}
	nj := len(s.groups)
	for j := range nj {
		c := &ro.coefs[j]
		rs.dv[j] = nil
		switch {
		case !c.last:
			a := s.coefAt(j, params)
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return tot, false
			}
			rs.ds[j] = a - s.astar[j]
		case c.delta != nil:
			if c.bad[t1] != c.bad[t0] {
				return tot, false
			}
			rs.dv[j] = c.delta[t0:t1]
		default:
			d := rs.deltas[j][:n]
			if !s.coefRun(j, rs, params, g, d) {
				return tot, false
			}
			rs.dv[j] = d
		}
	}
	if sd.v == nil && s.k <= maxFused && fusable(rs.dv[:nj]) {
		return s.fusedRun(rs, sd.s, dst, tot)
	}
	var lin vs
	for j := range nj {
		lin = axpy(rs.lin[:n], lin, vs{rs.dv[j], rs.ds[j]}, s.g[j])
	}
	var q vs
	for k := range s.k {
		var v vs
		for j, m := range s.m[k*nj : k*nj+nj] {
			v = axpy(rs.v[:n], v, vs{rs.dv[j], rs.ds[j]}, m)
		}
		q = sqacc(rs.q[:n], q, v)
	}
	if sd.v == nil {
		norm := s.constNorm
		if s.sd.kind != kConst {
			norm = -s.rows*math.Log(sd.s) - s.rows/2*ln2Pi
		}
		den := 2 * sd.s * sd.s
		if lin.v == nil && q.v == nil {
			ll := norm - max(s.s0-2*lin.s+q.s, 0)/den
			if !finite(ll) {
				return tot, false
			}
			return axpy(dst, tot, vs{s: ll}, 1), true
		}
		linv, qv := vector(rs.lin[:n], lin), vector(rs.q[:n], q)
		s0 := s.s0
		var chk float64 // NaN when some ll is not finite
		if tot.v == nil {
			a := tot.s
			for t := range dst {
				ll := norm - max(s0-2*linv[t]+qv[t], 0)/den
				chk += ll * 0
				dst[t] = a + ll
			}
		} else {
			tv := tot.v[:n]
			for t := range dst {
				ll := norm - max(s0-2*linv[t]+qv[t], 0)/den
				chk += ll * 0
				dst[t] = tv[t] + ll
			}
		}
		return vs{v: dst}, chk == 0
	}
	linv, qv, totv := vector(rs.lin[:n], lin), vector(rs.q[:n], q), vector(dst, tot)
	var chk float64
	for t, sd := range sd.v {
		sse := max(s.s0-2*linv[t]+qv[t], 0)
		ll := -s.rows*math.Log(sd) - s.rows/2*ln2Pi - sse/(2*sd*sd)
		chk += ll * 0
		dst[t] = totv[t] + ll
	}
	return vs{v: dst}, chk == 0
}

// coefRun computes a_j − a*_j over a run into dst (coefAt's operations);
// it reports false when some a_j is not finite.
func (s *suffNormal) coefRun(j int, rs *runScratch, params, g, dst []float64) bool {
	if k := s.simple[j]; k >= 0 {
		c, as := s.coef[j], s.astar[j]
		bad := 0.0
		for t, v := range g {
			a := c * v
			bad += a * 0 // NaN when a is not finite
			dst[t] = a - as
		}
		return bad == 0
	}
	var acc vs
	for ti := range s.groups[j] {
		term := &s.groups[j][ti]
		tv := vs{s: term.coef}
		for _, f := range term.a {
			x, xs := f.n.runOperand(rs.rbufs, params, g)
			o := ir.OpMul
			if f.inv {
				o = ir.OpDiv
			}
			tv = op(o, rs.tv[:len(g)], tv, vs{x, xs})
		}
		acc = op(ir.OpAdd, dst, acc, tv)
	}
	a := vector(dst, acc)
	as, bad := s.astar[j], 0.0
	for t, v := range a {
		bad += v * 0
		dst[t] = v - as
	}
	return bad == 0
}

// fusable reports whether the last coefficient is the only one that is a
// vector over the run: the common case (the last parameter multiplies
// the last column term), which fusedRun computes in one pass.
func fusable(dv [][]float64) bool {
	for _, v := range dv[:len(dv)-1] {
		if v != nil {
			return false
		}
	}
	return dv[len(dv)-1] != nil
}

// maxFused bounds the number of rows of S Vᵀ (at most J) fusedRun keeps
// on its stack.
const maxFused = 16

// fusedRun is the rest of suffRun, in one pass, when the last coefficient
// is the only vector (fusable) and SD a scalar: the same operations, in
// the same order, with the sums over the scalar coefficients computed
// once for the run. It reports false when some log-likelihood is not
// finite (the run is then evaluated a hypothesis at a time).
func (s *suffNormal) fusedRun(rs *runScratch, sd float64, dst []float64, tot vs) (vs, bool) {
	nj, last := len(s.groups), len(s.groups)-1
	var lin0 float64
	for j := range last {
		lin0 += rs.ds[j] * s.g[j]
	}
	var v0, mj [maxFused]float64 // per row k of S Vᵀ: the scalar part of v, m_k,last
	for k := range s.k {
		row := s.m[k*nj : k*nj+nj]
		for j, m := range row[:last] {
			v0[k] += m * rs.ds[j]
		}
		mj[k] = row[last]
	}
	norm := s.constNorm
	if s.sd.kind != kConst {
		norm = -s.rows*math.Log(sd) - s.rows/2*ln2Pi
	}
	den, s0, gl := 2*sd*sd, s.s0, s.g[last]
	d := rs.dv[last][:len(dst)]
	totv := tot.v
	if totv == nil {
		totv = vector(rs.fill[:len(dst)], tot)
	}
	totv = totv[:len(dst)]
	if inv, ok := reciprocal(den); ok && s.k == 2 { // the line: a mean w0 + w1·x
		c0, c1, m0, m1 := v0[0], v0[1], mj[0], mj[1]
		var chk float64 // NaN when some ll is not finite
		for t, x := range d {
			lin := lin0 + x*gl
			v := c0 + m0*x
			q := v * v
			v = c1 + m1*x
			q += v * v
			ll := norm - max(s0-2*lin+q, 0)*inv
			chk += ll * 0
			dst[t] = totv[t] + ll
		}
		return vs{v: dst}, chk == 0
	}
	v0s, mjs := v0[:s.k], mj[:s.k]
	var chk float64
	for t, x := range d {
		lin := lin0 + x*gl
		var q float64
		for k, c := range v0s {
			v := c + mjs[k]*x
			q += v * v
		}
		ll := norm - max(s0-2*lin+q, 0)/den
		chk += ll * 0
		dst[t] = totv[t] + ll
	}
	return vs{v: dst}, chk == 0
}

// reciprocal returns 1/x when it is exact, x a power of two: then
// y·(1/x) is y/x, rounded once from the same exact quotient.
func reciprocal(x float64) (float64, bool) {
	frac, exp := math.Frexp(x)
	if frac != 0.5 || exp < -1020 || exp > 1022 {
		return 0, false
	}
	return 1 / x, true
}
