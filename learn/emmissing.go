package learn

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file is the part of network EM (density.go, emlinear.go) that
// learns from rows with missing real cells among linear Gaussian
// densities: a row that gives a child but not one of its real parents.
//
// The real variables joined by linear Gaussian densities (a child and its
// real parents, transitively) form a component C. Given a configuration
// of the discrete parents of C's densities, C's variables are jointly
// normal: in topological order, μ_y = a_u + Σ_j b_uj μ_xj,
// Σ_y· = Σ_j b_uj Σ_xj·, Σ_yy = Σ_j b_uj Σ_xj,y + σ_u² (a normal density
// given discrete parents only: its mean and variance). A row whose
// observed values o in C include a child with a missing real parent is
// treated jointly: its likelihood is the marginal density
// N(x_o; μ_o, Σ_oo), and the missing values m are normal given it,
//
//	x̂_m = μ_m + Σ_mo Σ_oo⁻¹ (x_o − μ_o),   V = Σ_mm − Σ_mo Σ_oo⁻¹ Σ_om
//
// (Cholesky, gonum), so that each density's statistics get their
// expectations: E[z zᵀ] = ẑ ẑᵀ + V over the missing entries of
// z = (1, x − c_x, y − c_y). The discrete parents of C's densities that
// the row leaves missing must all be parents of one density of C (the
// owner): the likelihood over the owner's configurations, one normal per
// configuration, goes in its slot of the junction tree, so the discrete
// posterior, the expected counts and ln p(row) stay exact; otherwise the
// row is refused. The other densities of C get no likelihood of their
// own in that row.
//
// EM's latent values in such a row are the missing ones that have an
// observed descendant in C; a missing variable all of whose descendants
// are missing too is integrated out, as a missing child always was
// (its density gets nothing from the row). Rows whose missing cells are
// all of that kind take the per-density path of density.go.

// realComp is a component of real variables joined by linear Gaussian
// densities.
type realComp struct {
	vars     []ir.VarID // topological order: real parents first
	dens     []int      // dens[i]: the density of vars[i] (an index of e.dens)
	col      []int      // col[i]: vars[i]'s index among the run's real values
	pa       [][]int    // pa[i][j]: the position in vars of vars[i]'s real parent j (the density's order)
	children [][]int    // children[i]: the positions of vars[i]'s children in C
	joint    string     // the name of a joint density in C (unsupported), or ""
}

// jointRow is a row's joint treatment of a component (see the file's
// comment).
type jointRow struct {
	comp  *realComp
	owner int         // the density whose slot holds the likelihood, or −1
	confs []int       // the owner's configurations the row allows ({0} without owner)
	dconf [][]int     // dconf[j][i]: vars[i]'s density's configuration at confs[j]
	xhat  [][]float64 // xhat[j]: C's values, observed or conditional means
	miss  []int       // miss[i]: vars[i]'s index among the missing ones, or −1
	nm    int         // the number of missing ones
	cov   [][]float64 // cov[j]: their conditional covariance (nm×nm)
	stat  []bool      // stat[i]: vars[i]'s density gets statistics from the row
}

// compJoint is the joint normal of a component's variables given a
// configuration of its densities' discrete parents.
type compJoint struct {
	mu, sig []float64 // the means, and the covariance (row-major)
}

// setComps finds the components of e's linear Gaussian densities.
func (e *emRun) setComps() {
	m := e.m
	byVar := map[ir.VarID]int{} // a single child's density
	for di, d := range e.dens {
		for _, c := range d.children {
			byVar[c] = di
		}
	}
	// Union-find over the real variables by the linear densities' edges.
	parent := map[ir.VarID]ir.VarID{}
	var find func(v ir.VarID) ir.VarID
	find = func(v ir.VarID) ir.VarID {
		p, ok := parent[v]
		if !ok || p == v {
			parent[v] = v
			return v
		}
		r := find(p)
		parent[v] = r
		return r
	}
	for _, d := range e.dens {
		if !d.lin() {
			continue
		}
		for _, p := range d.real {
			parent[find(p)] = find(d.children[0])
		}
	}
	groups := map[ir.VarID][]ir.VarID{}
	var roots []ir.VarID
	for v := range parent {
		r := find(v)
		if groups[r] == nil {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], v)
	}
	slices.Sort(roots)
	for _, r := range roots {
		vs := groups[r]
		slices.Sort(vs)
		c := &realComp{}
		// Topological order: a variable after its real parents.
		done := map[ir.VarID]bool{}
		var visit func(v ir.VarID)
		visit = func(v ir.VarID) {
			if done[v] {
				return
			}
			done[v] = true
			if di, ok := byVar[v]; ok {
				for _, p := range e.dens[di].real {
					visit(p)
				}
			}
			c.vars = append(c.vars, v)
		}
		for _, v := range vs {
			visit(v)
		}
		pos := map[ir.VarID]int{}
		for i, v := range c.vars {
			pos[v] = i
		}
		c.children = make([][]int, len(c.vars))
		for i, v := range c.vars {
			di := byVar[v]
			d := e.dens[di]
			c.dens = append(c.dens, di)
			c.col = append(c.col, d.col[slices.Index(d.children, v)])
			if d.joint && c.joint == "" {
				c.joint = m.NameList(d.children, 3)
			}
			var pa []int
			for _, p := range d.real {
				pa = append(pa, pos[p])
				c.children[pos[p]] = append(c.children[pos[p]], i)
			}
			c.pa = append(c.pa, pa)
		}
		e.comps = append(e.comps, c)
	}
}

// markJoint sets w.skip (per density) for the densities of the components
// real row x must be treated jointly in, and returns those components: a
// child observed with a real parent missing.
func (e *emRun) markJoint(w *realWork, x []float64) []*realComp {
	if len(e.comps) == 0 {
		return nil // w.skip stays all false
	}
	clear(w.skip)
	var out []*realComp
	for _, c := range e.comps {
		need := false
		for i := range c.vars {
			if math.IsNaN(x[c.col[i]]) {
				continue
			}
			for _, p := range c.pa[i] {
				if math.IsNaN(x[c.col[p]]) {
					need = true
				}
			}
		}
		if !need {
			continue
		}
		out = append(out, c)
		for _, di := range c.dens {
			w.skip[di] = true
		}
	}
	return out
}

// jointLik treats real row i (values x, row k of w) jointly in the
// components comps: it sets the owners' likelihoods in their slots,
// records each component's conditional moments in w.jrows[k], and returns
// the ln of the factor the likelihoods were divided by.
func (e *emRun) jointLik(w *realWork, k, i int, x []float64, comps []*realComp) (float64, error) {
	row := &w.rows[k]
	obs := row.Obs
	w.jrows[k] = w.jrows[k][:0]
	scale := 0.0
	for _, c := range comps {
		if c.joint != "" {
			return 0, e.rowErr(i, "the row leaves a real parent missing among linear Gaussian densities joined to the joint density of %s: pbl learns a joint density from rows that give all of its variables or none, and does not fill in missing real parents beside one", c.joint)
		}
		// The discrete parents the row leaves missing, and the density
		// whose parents hold them all.
		missing, owner := e.holder(c.dens, obs)
		if owner < 0 && len(missing) > 0 {
			return 0, e.rowErr(i, "the row leaves a real parent missing among the linear Gaussian densities of %s, whose discrete parents %s it leaves missing too and no one of them has all: pbl cannot fill in the missing real values of this row (give the real parent a value, or leave its children empty)",
				e.m.NameList(c.vars, 5), e.m.NameList(missing, 5))
		}
		jr := jointRow{comp: c, owner: owner, confs: []int{0}, stat: make([]bool, len(c.vars)), miss: make([]int, len(c.vars))}
		for i := range c.vars {
			jr.miss[i] = -1
			if math.IsNaN(x[c.col[i]]) {
				jr.miss[i] = jr.nm
				jr.nm++
			}
		}
		if owner >= 0 {
			jr.confs = allowedConfigs(e.m, e.dens[owner].parents, obs)
		}
		// The variables whose densities get statistics: observed, or with
		// an observed descendant.
		for i := len(c.vars) - 1; i >= 0; i-- {
			jr.stat[i] = !math.IsNaN(x[c.col[i]])
			for _, ch := range c.children[i] {
				jr.stat[i] = jr.stat[i] || jr.stat[ch]
			}
		}
		a := slices.Clone(obs)
		L := make([]float64, len(jr.confs))
		for j, u := range jr.confs {
			if owner >= 0 {
				configState(e.m, e.dens[owner].parents, u, a)
			}
			dc := make([]int, len(c.vars))
			for p, di := range c.dens {
				idx := 0
				for _, q := range e.dens[di].parents {
					idx = idx*len(e.m.Vars[q].States) + a[q]
				}
				dc[p] = idx
			}
			xh, cv, l, err := e.condition(c, w.jointOf(e, c, dc), x)
			if err != nil {
				return 0, e.rowErr(i, "%v", err)
			}
			jr.dconf = append(jr.dconf, dc)
			jr.xhat = append(jr.xhat, xh)
			jr.cov = append(jr.cov, cv)
			L[j] = l
		}
		top, low := math.Inf(-1), math.Inf(1)
		for _, l := range L {
			top, low = max(top, l), min(low, l)
		}
		if math.IsInf(top, -1) || math.IsNaN(top) || owner >= 0 && !(top-low <= nearLog) {
			return 0, &ir.Error{Pos: ir.Pos{File: e.p.file, Line: e.p.real.line[i]}, Err: infer.ErrRange,
				Msg: fmt.Sprintf("the real values of the row lie too far in the tails of the densities of %s, over the configurations of their discrete parents, to be weighed in float64 with a real parent missing", e.m.NameList(c.vars, 5))}
		}
		if owner >= 0 {
			d := e.dens[owner]
			lik := w.lik[k][d.slot]
			clear(lik)
			for j, u := range jr.confs {
				lik[u] = math.Exp(L[j] - top)
			}
			row.Lik[d.slot] = lik
		}
		scale += top
		w.jrows[k] = append(w.jrows[k], jr)
	}
	return scale, nil
}

// jointOf returns the joint normal of the component c with its densities
// in the configurations dc, from w's cache of the iteration (cleared by
// expectReal): in a Gaussian network every row has the same.
func (w *realWork) jointOf(e *emRun, c *realComp, dc []int) *compJoint {
	key := w.key[:0]
	key = strconv.AppendInt(key, int64(slices.Index(e.comps, c)), 10)
	for _, u := range dc {
		key = append(key, ',')
		key = strconv.AppendInt(key, int64(u), 10)
	}
	w.key = key
	if j, ok := w.joints[string(key)]; ok {
		return j
	}
	n := len(c.vars)
	mu := make([]float64, n)
	sig := make([]float64, n*n)
	for i, di := range c.dens {
		d := e.dens[di]
		u := dc[i]
		mu[i] = d.mean[u]
		k := len(d.real)
		for j, p := range c.pa[i] {
			b := d.coef[u*k+j]
			mu[i] += b * mu[p]
			for l := range i {
				sig[i*n+l] += b * sig[p*n+l]
			}
		}
		for l := range i {
			sig[l*n+i] = sig[i*n+l]
		}
		v := d.sd[u] * d.sd[u]
		for j, p := range c.pa[i] {
			v += d.coef[u*k+j] * sig[p*n+i]
		}
		sig[i*n+i] = v
	}
	j := &compJoint{mu: mu, sig: sig}
	if w.joints == nil {
		w.joints = map[string]*compJoint{}
	}
	w.joints[string(key)] = j
	return j
}

// condition returns, for the component c with the joint normal jt, the
// values of its variables given the row's observed ones (x: the row's
// real values): the observed values and the conditional means of the
// missing ones, the missing ones' conditional covariance (in the order of
// c.vars), and the log marginal density of the observed values.
func (e *emRun) condition(c *realComp, jt *compJoint, x []float64) (xhat, cov []float64, logDens float64, err error) {
	n := len(c.vars)
	mu, sig := jt.mu, jt.sig
	var o, m []int
	for i := range n {
		if math.IsNaN(x[c.col[i]]) {
			m = append(m, i)
		} else {
			o = append(o, i)
		}
	}
	soo := mat.NewSymDense(len(o), nil)
	r := mat.NewVecDense(len(o), nil)
	for a, i := range o {
		for b := a; b < len(o); b++ {
			soo.SetSym(a, b, sig[i*n+o[b]])
		}
		r.SetVec(a, x[c.col[i]]-mu[i])
	}
	var ch mat.Cholesky
	if !ch.Factorize(soo) {
		return nil, nil, 0, fmt.Errorf("the covariance of the observed values of %s is not positive definite", e.m.NameList(c.vars, 5))
	}
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, r); err != nil {
		return nil, nil, 0, fmt.Errorf("the covariance of the observed values of %s is singular", e.m.NameList(c.vars, 5))
	}
	logDens = -0.5 * (float64(len(o))*math.Log(2*math.Pi) + ch.LogDet() + mat.Dot(r, &alpha))
	xhat = make([]float64, n)
	for _, i := range o {
		xhat[i] = x[c.col[i]]
	}
	nm := len(m)
	if nm == 0 {
		return xhat, nil, logDens, nil
	}
	cov = make([]float64, nm*nm)
	smo := mat.NewDense(nm, len(o), nil)
	for a, i := range m {
		for b, j := range o {
			smo.Set(a, b, sig[i*n+j])
		}
	}
	var gain mat.Dense // Σ_oo⁻¹ Σ_om
	if err := ch.SolveTo(&gain, smo.T()); err != nil {
		return nil, nil, 0, fmt.Errorf("the covariance of the observed values of %s is singular", e.m.NameList(c.vars, 5))
	}
	var red mat.Dense // Σ_mo Σ_oo⁻¹ Σ_om
	red.Mul(smo, &gain)
	for a, i := range m {
		xhat[i] = mu[i] + mat.Dot(smo.RowView(a), &alpha)
		for b := a; b < nm; b++ {
			v := sig[i*n+m[b]] - red.At(a, b)
			if a == b {
				v = max(v, 0)
			}
			cov[a*nm+b], cov[b*nm+a] = v, v
		}
	}
	return xhat, cov, logDens, nil
}

// addJoint adds to block b's statistics the row's expectations under the
// joint treatment jr, with post the owner's posterior (nil: weight 1).
func (e *emRun) addJoint(b int, jr *jointRow, post []float64, buf []float64) {
	c := jr.comp
	for j, u := range jr.confs {
		p := 1.0
		if post != nil {
			p = post[u]
		}
		if p == 0 {
			continue
		}
		xh, cv, nm := jr.xhat[j], jr.cov[j], jr.nm
		// cov returns the conditional covariance of vars[a] and vars[b].
		cov := func(a, b int) float64 {
			if ia, ib := jr.miss[a], jr.miss[b]; ia >= 0 && ib >= 0 {
				return cv[ia*nm+ib]
			}
			return 0
		}
		for i, di := range c.dens {
			d := e.dens[di]
			if !d.learned || !jr.stat[i] {
				continue
			}
			s := e.rstats[b][di][jr.dconf[j][i]*d.ncells:]
			if !d.lin() {
				diff := xh[i] - d.mean[jr.dconf[j][i]]
				s[0] += p
				s[1] += p * diff
				s[2] += p * (diff*diff + cov(i, i))
				continue
			}
			D := d.linDim()
			z := buf[:D]
			at := append(append([]int{-1}, c.pa[i]...), i) // z's entries' positions in C (−1: the 1)
			z[0] = 1
			for q := 1; q < D; q++ {
				z[q] = xh[at[q]] - d.centreOf(q)
			}
			for q := range D {
				for r := q; r < D; r++ {
					v := z[q] * z[r]
					if q > 0 {
						v += cov(at[q], at[r])
					}
					s[q*D+r] += p * v
				}
			}
		}
	}
}
