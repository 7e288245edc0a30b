package learn

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file runs EM's E-step over the rows with real values and sets up
// the densities' part of an EM run (see density.go for the method).

// realChunk is the number of rows of a real block handed to
// infer.Learner.ExpectLik at once (the buffers of their likelihoods and
// posteriors).
const realChunk = 256

// realWork holds a real block's buffers for a chunk of rows.
type realWork struct {
	rows   []infer.LikRow
	lik    [][][]float64 // lik[k][j]: row k's likelihood in slot j
	post   [][][]float64 // post[k][j]: row k's posterior of slot j's scope
	logp   []float64
	scale  []float64
	seen   []bool                // seen[k*len(dens)+i]: row k gives a value to a child of density i
	dl     []float64             // one density's log densities
	buf    []float64             // a row's worth of scratch
	skip   []bool                // skip[i]: density i is treated jointly in the current row (emmissing.go)
	jrows  [][]jointRow          // jrows[k]: row k's joint treatments
	joints map[string]*compJoint // the components' joint normals of the iteration, by jointOf's key
	key    []byte
}

// setSlots gives every density with parents a likelihood slot.
func (e *emRun) setSlots() {
	for _, d := range e.dens {
		if len(d.parents) > 0 {
			d.slot = len(e.scopes)
			e.scopes = append(e.scopes, d.parents)
		}
	}
}

// slotted returns m with the likelihood slots of e's densities, or m
// itself when there are none: the model the tree is compiled for.
func (e *emRun) slotted(m *ir.Model) *ir.Model {
	if len(e.scopes) == 0 {
		return m
	}
	return infer.LikelihoodSlots(m, e.scopes)
}

// startDensities returns e's model with the starting tables dists and the
// starting densities of start r (see density.go).
func (e *emRun) startDensities(dists []ir.Dist, how Init, r int) (*ir.Model, error) {
	learnedCPT := make([]bool, len(e.m.Vars))
	for _, v := range e.learned {
		learnedCPT[v] = true
	}
	for _, d := range e.dens {
		if !d.learned || how == InitModel && e.m.Dist(d.children[0]) != nil {
			continue
		}
		g, root, err := d.start(e.m, &e.p.real, len(e.p.reals), e.hidden, learnedCPT, e.opt.Seed, r)
		if err != nil {
			return nil, err
		}
		dists = append(dists, g)
		if root == nil {
			continue
		}
		replaced := false
		for i, x := range dists {
			if c, ok := x.(*ir.CPT); ok && c.Child == root.Child {
				dists[i], replaced = root, true
			}
		}
		if !replaced {
			dists = append(dists, root)
		}
	}
	return e.m.WithDists(dists...)
}

// allocateReal cuts the real rows into blocks and allocates their counts,
// statistics and buffers; entries is the size of the learned tables.
func (e *emRun) allocateReal(entries int) {
	if len(e.scopes) > 0 {
		e.prows = make([]infer.LikRow, len(e.rows))
		for k, row := range e.rows {
			e.prows[k] = infer.LikRow{Obs: row, Weight: e.weight[k]}
		}
	}
	e.dstats = make([][]float64, len(e.dens))
	for i, d := range e.dens {
		entries += d.statLen()
		e.dstats[i] = make([]float64, d.statLen())
	}
	n := e.p.real.n()
	if n == 0 {
		return
	}
	nb := max(1, min(maxBlocks, (n+minBlock-1)/minBlock, max(1, maxBlockEntries/max(1, entries))))
	for b := range nb {
		e.rblocks = append(e.rblocks, [2]int{b * n / nb, (b + 1) * n / nb})
	}
	e.racc = make([][][]float64, nb)
	e.rstats = make([][][]float64, nb)
	e.rwork = make([]*realWork, nb)
	maxConf, maxDim := 1, 1
	for _, d := range e.dens {
		maxConf, maxDim = max(maxConf, d.nconf), max(maxDim, d.scratch())
	}
	for b := range nb {
		e.racc[b] = e.tables()
		e.rstats[b] = make([][]float64, len(e.dens))
		for i, d := range e.dens {
			e.rstats[b][i] = make([]float64, d.statLen())
		}
		rows := min(realChunk, e.rblocks[b][1]-e.rblocks[b][0])
		w := &realWork{rows: make([]infer.LikRow, rows), lik: make([][][]float64, rows), post: make([][][]float64, rows),
			logp: make([]float64, rows), scale: make([]float64, rows), seen: make([]bool, rows*len(e.dens)),
			dl: make([]float64, maxConf), buf: make([]float64, maxDim),
			skip: make([]bool, len(e.dens)), jrows: make([][]jointRow, rows)}
		for k := range rows {
			w.rows[k].Lik = make([][]float64, len(e.scopes))
			w.lik[k] = make([][]float64, len(e.scopes))
			w.post[k] = make([][]float64, len(e.scopes))
			for _, d := range e.dens {
				if d.slot >= 0 {
					w.lik[k][d.slot] = make([]float64, d.nconf)
					w.post[k][d.slot] = make([]float64, d.nconf)
				}
			}
		}
		e.rwork[b] = w
	}
	e.rll = make([]float64, nb)
	e.rimp = make([]int, nb)
	e.rerr = make([]error, nb)
}

// prepareDensities sets the densities' numbers for an E-step on m.
func (e *emRun) prepareDensities(m *ir.Model) error {
	for _, d := range e.dens {
		if err := d.prepare(m); err != nil {
			return err
		}
	}
	return nil
}

// rowErr returns the error msg at real row i.
func (e *emRun) rowErr(i int, format string, args ...any) error {
	return &ir.Error{Pos: ir.Pos{File: e.p.file, Line: e.p.real.line[i]}, Msg: fmt.Sprintf(format, args...)}
}

// expectReal runs the E-step on real block b on t: its expected family
// counts, its densities' statistics, its log-likelihood, its first
// impossible row or its error.
func (e *emRun) expectReal(t infer.Learner, b int) {
	w := e.rwork[b]
	lo, hi := e.rblocks[b][0], e.rblocks[b][1]
	for _, a := range e.racc[b] {
		clear(a)
	}
	for _, s := range e.rstats[b] {
		clear(s)
	}
	e.rll[b], e.rimp[b], e.rerr[b] = 0, -1, nil
	clear(w.joints) // the parameters changed
	nr, nd := len(e.p.reals), len(e.dens)
	ll := 0.0
	for c0 := lo; c0 < hi; c0 += realChunk {
		c1 := min(hi, c0+realChunk)
		rows := w.rows[:c1-c0]
		for i := c0; i < c1; i++ {
			k := i - c0
			x := e.p.real.vals[i*nr : (i+1)*nr]
			rows[k].Obs, rows[k].Weight = e.p.real.obs[i], 1
			comps := e.markJoint(w, x)
			scale, far, err := e.nearRow(w, k, i, x)
			if err == nil && far {
				scale, err = e.farRow(t, w, k, i, x)
			}
			w.jrows[k] = w.jrows[k][:0]
			if err == nil && len(comps) > 0 {
				var js float64
				js, err = e.jointLik(w, k, i, x, comps)
				scale += js
			}
			if err != nil {
				e.rerr[b] = err
				return
			}
			w.scale[k] = scale
		}
		if _, err := t.ExpectLik(rows, e.racc[b], w.post[:c1-c0], w.logp[:c1-c0]); err != nil {
			e.rerr[b] = err
			return
		}
		one := []float64{1}
		for k := range rows {
			i := c0 + k
			lp := w.logp[k] + w.scale[k]
			if math.IsInf(lp, -1) || math.IsNaN(lp) {
				e.rimp[b] = i
				return
			}
			ll += lp
			x := e.p.real.vals[i*nr : (i+1)*nr]
			for di, d := range e.dens {
				if !d.learned || !w.seen[k*nd+di] {
					continue
				}
				post := one
				if d.slot >= 0 {
					post = w.post[k][d.slot]
				}
				d.addStats(e.rstats[b][di], x, post, 1, w.buf)
			}
			for j := range w.jrows[k] {
				jr := &w.jrows[k][j]
				var post []float64
				if jr.owner >= 0 {
					post = w.post[k][e.dens[jr.owner].slot]
				}
				e.addJoint(b, jr, post, w.buf)
			}
		}
	}
	e.rll[b] = ll
}

// nearLog is the span, in nats, of the log-likelihoods a row's
// likelihood over a density's parents holds relative to its largest
// without flushing an entry below float64's normal range (e^−690 ≈
// 3e−300), as infer/real.go's potentials do; maxLogPotential is the
// largest ln of an entry of a far row's likelihood (see farRow).
const (
	nearLog         = 690
	maxLogPotential = 700
)

// logLik writes into dl the log-likelihoods of real row i (values x)
// under the density d, per configuration of its parents, less the
// returned shift, and reports whether the row gives a value to one of its
// children. A learned joint density must have all of its children or
// none.
func (e *emRun) logLik(i int, d *density, x, dl, buf []float64) (float64, bool, error) {
	shift, seen, err := d.logDensities(x, dl, buf)
	if err != nil {
		return 0, false, e.rowErr(i, "the density of %s: %v", e.m.NameList(d.children, 3), err)
	}
	if seen && d.learned && d.joint {
		for ci, c := range d.col {
			if math.IsNaN(x[c]) {
				return 0, false, e.rowErr(i, "%s is missing, and the row gives other variables of the joint density of %s: pbl learns a joint density from rows that give all of its variables or none (fill in the cell, or empty the others)",
					ir.Quote(e.m.Vars[d.children[ci]].Name), e.m.NameList(d.children, 3))
			}
		}
	}
	return shift, seen, nil
}

// nearRow sets the likelihoods of row k of w (real row i, values x) and
// returns its scale, the ln of the factor they were divided by: each
// density's likelihood is scaled by its largest entry over the parent
// configurations the row's observed parents allow, and the others are 0.
// It reports far, and sets nothing, when a density's log-likelihoods over
// those configurations span more than nearLog: entries that the rest of
// the row (a discrete child that forces the parent, another density)
// may make the only ones that matter would be flushed (farRow).
func (e *emRun) nearRow(w *realWork, k, i int, x []float64) (scale float64, far bool, err error) {
	nd := len(e.dens)
	row := &w.rows[k]
	for di, d := range e.dens {
		if w.skip[di] {
			w.seen[k*nd+di] = false
			if d.slot >= 0 {
				row.Lik[d.slot] = nil
			}
			continue
		}
		dl := w.dl[:d.nconf]
		shift, seen, err := e.logLik(i, d, x, dl, w.buf)
		if err != nil {
			return 0, false, err
		}
		w.seen[k*nd+di] = seen
		if d.slot >= 0 {
			row.Lik[d.slot] = nil
		}
		if !seen {
			continue
		}
		keep := allowedConfigs(e.m, d.parents, row.Obs)
		top, low := math.Inf(-1), math.Inf(1)
		for _, u := range keep {
			top, low = max(top, dl[u]), min(low, dl[u])
		}
		if !(top-low <= nearLog) {
			return 0, true, nil // also −Inf: a difference beyond float64
		}
		scale += shift + e.setLik(w, k, d, dl, keep, top)
	}
	return scale, false, nil
}

// setLik sets d's likelihood in row k of w to exp(dl − top) over the
// configurations keep, 0 elsewhere, and returns top.
func (e *emRun) setLik(w *realWork, k int, d *density, dl []float64, keep []int, top float64) float64 {
	if d.slot < 0 {
		return top
	}
	l := w.lik[k][d.slot]
	clear(l)
	for _, u := range keep {
		l[u] = math.Exp(dl[u] - top)
	}
	w.rows[k].Lik[d.slot] = l
	return top
}

// farRow sets the likelihoods of row k of w (real row i, values x), some
// of whose densities are far (nearRow), and returns its scale. It weighs
// them as infer/real.go does a query's real evidence far in its tails:
// the far densities and those that share a missing parent with one
// (transitively) are summed, in log space, into one log-likelihood L over
// the parents of one of them that has every missing parent of the group
// (else the row is refused: ErrRange), and weighed with ln P(u | the
// row's discrete cells and other densities), from one calibration without
// them. The likelihood exp(L(u) − c) is set in that density's slot, the
// others' left empty, where c is the largest L(u) + ln P(u | …), or more
// where a configuration of tiny probability has a likelihood that much
// larger, so that no entry exceeds e^maxLogPotential; the configurations
// the row does not allow (probability 0 given the rest, or below
// float64's range: a posterior under e^−745 counts as 0) get 0. An entry
// flushed by c that weighs within e^−40 of the largest is refused
// (ErrRange): float64 cannot hold both. The other densities are set as by
// nearRow.
func (e *emRun) farRow(t infer.Learner, w *realWork, k, i int, x []float64) (float64, error) {
	nd := len(e.dens)
	row := &w.rows[k]
	obs := row.Obs
	dl := make([][]float64, nd)
	shift := make([]float64, nd)
	join := make([]bool, nd)
	for di, d := range e.dens {
		if d.slot >= 0 {
			row.Lik[d.slot] = nil
		}
		if w.skip[di] {
			w.seen[k*nd+di] = false
			continue
		}
		l := make([]float64, d.nconf)
		sh, seen, err := e.logLik(i, d, x, l, w.buf)
		if err != nil {
			return 0, err
		}
		w.seen[k*nd+di] = seen
		if !seen {
			continue
		}
		dl[di], shift[di] = l, sh
		top, low := math.Inf(-1), math.Inf(1)
		for _, u := range allowedConfigs(e.m, d.parents, obs) {
			top, low = max(top, l[u]), min(low, l[u])
		}
		join[di] = !(top-low <= nearLog)
	}
	for changed := true; changed; {
		changed = false
		for di, d := range e.dens {
			if join[di] || dl[di] == nil {
				continue
			}
			for dj, o := range e.dens {
				if join[dj] && sharesMissing(d.parents, o.parents, obs) {
					join[di], changed = true, true
					break
				}
			}
		}
	}
	scale := 0.0
	var group []int
	for di, d := range e.dens {
		switch {
		case dl[di] == nil:
		case join[di]:
			group = append(group, di)
		default:
			keep := allowedConfigs(e.m, d.parents, obs)
			top := math.Inf(-1)
			for _, u := range keep {
				top = max(top, dl[di][u])
			}
			scale += shift[di] + e.setLik(w, k, d, dl[di], keep, top)
		}
	}
	missing, gi := e.holder(group, obs)
	if gi < 0 {
		return 0, &ir.Error{Pos: ir.Pos{File: e.p.file, Line: e.p.real.line[i]}, Err: infer.ErrRange,
			Msg: fmt.Sprintf("the real values of the row lie so far in the tails of the densities of %s that their likelihoods must be weighed together over %s, which no one density's parents hold: pbl cannot learn from this row (give one of them a value, or leave the row out)",
				e.densNames(group), e.m.NameList(missing, 5))}
	}
	g := e.dens[gi]
	post := make([]float64, g.nconf)
	posts := make([][]float64, len(e.scopes))
	posts[g.slot] = post
	lp := []float64{0}
	st, err := t.ExpectLik([]infer.LikRow{*row}, make([][]float64, len(e.m.Vars)), [][][]float64{posts}, lp)
	if err != nil {
		return 0, err
	}
	lik := w.lik[k][g.slot]
	clear(lik)
	row.Lik[g.slot] = lik
	if st.Impossible > 0 {
		return scale, nil // impossible whatever the group's likelihoods: 0 in the slot says so
	}
	// entry[j][u]: member j's configuration at g's configuration u.
	entry := make([][]int, len(group))
	a := slices.Clone(obs)
	for j, di := range group {
		d := e.dens[di]
		entry[j] = make([]int, g.nconf)
		for u := range g.nconf {
			configState(e.m, g.parents, u, a)
			idx := 0
			for _, p := range d.parents {
				idx = idx*len(e.m.Vars[p].States) + a[p]
			}
			entry[j][u] = idx
		}
	}
	L := make([]float64, g.nconf)
	sum := func() bool {
		lost := false
		for u := range g.nconf {
			L[u] = 0
			for j, di := range group {
				L[u] += dl[di][entry[j][u]]
			}
			lost = lost || post[u] > 0 && math.IsInf(L[u], -1)
		}
		return lost
	}
	if sum() {
		// Differences beyond float64 (x = 1e300): each member again, over
		// the configurations the row allows.
		for j, di := range group {
			var keep []int
			for u, p := range post {
				if p > 0 {
					keep = append(keep, entry[j][u])
				}
			}
			slices.Sort(keep)
			keep = slices.Compact(keep)
			var err error
			d := e.dens[di]
			if _, dl[di], shift[di], err = ir.LogDensitiesAt(d.cur, d.observed(x), keep); err != nil {
				return 0, e.rowErr(i, "the density of %s: %v", e.m.NameList(d.children, 3), err)
			}
		}
		sum()
	}
	wt, top := math.Inf(-1), math.Inf(-1)
	for u, p := range post {
		if p > 0 {
			wt, top = max(wt, L[u]+math.Log(p)), max(top, L[u])
		}
	}
	c := max(wt, top-maxLogPotential)
	for u, p := range post {
		if p == 0 {
			continue
		}
		if math.IsInf(top, -1) || L[u]-c < -nearLog && L[u]+math.Log(p) > wt-40 {
			return 0, &ir.Error{Pos: ir.Pos{File: e.p.file, Line: e.p.real.line[i]}, Err: infer.ErrRange,
				Msg: fmt.Sprintf("the real values of the row lie too far in the tails of the densities of %s to be weighed against the probabilities of their parents in float64", e.densNames(group))}
		}
		lik[u] = math.Exp(L[u] - c)
	}
	for _, di := range group {
		scale += shift[di]
	}
	return scale + c, nil
}

// holder returns the discrete parents of the densities ds that the row's
// cells obs leave missing, and the density among ds whose parents hold
// them all — the one whose likelihood slot can carry the densities'
// joint likelihood — the smallest, or −1 if none does.
func (e *emRun) holder(ds []int, obs []int) (missing []ir.VarID, h int) {
	for _, di := range ds {
		for _, p := range e.dens[di].parents {
			if obs[p] < 0 && !slices.Contains(missing, p) {
				missing = append(missing, p)
			}
		}
	}
	h = -1
	for _, di := range ds {
		d := e.dens[di]
		if d.slot < 0 || slices.ContainsFunc(missing, func(p ir.VarID) bool { return !slices.Contains(d.parents, p) }) {
			continue
		}
		if h < 0 || d.nconf < e.dens[h].nconf {
			h = di
		}
	}
	return missing, h
}

// densNames names the children of the densities ds.
func (e *emRun) densNames(ds []int) string {
	var vs []ir.VarID
	for _, di := range ds {
		vs = append(vs, e.dens[di].children...)
	}
	return e.m.NameList(vs, 5)
}

// sharesMissing reports whether a and b have a parent in common that the
// row's cells obs leave missing.
func sharesMissing(a, b []ir.VarID, obs []int) bool {
	for _, v := range a {
		if obs[v] < 0 && slices.Contains(b, v) {
			return true
		}
	}
	return false
}

// configState writes into a (states by VarID) the states of parents in
// their configuration u (row-major).
func configState(m *ir.Model, parents []ir.VarID, u int, a []int) {
	for k := len(parents) - 1; k >= 0; k-- {
		c := len(m.Vars[parents[k]].States)
		a[parents[k]] = u % c
		u /= c
	}
}

// sumReal sums the real blocks' results in block order: it returns their
// log-likelihood and sets the densities' statistics (e.dstats); the
// expected counts are summed by expect.
func (e *emRun) sumReal() (float64, error) {
	ll := 0.0
	for b := range e.rblocks {
		if e.rerr[b] != nil {
			return 0, e.rerr[b]
		}
		if i := e.rimp[b]; i >= 0 {
			return 0, &impossibleRow{line: e.p.real.line[i], index: i}
		}
		ll += e.rll[b]
	}
	for i, d := range e.dens {
		if !d.learned {
			continue
		}
		tot := e.dstats[i]
		clear(tot)
		for b := range e.rblocks {
			for j, x := range e.rstats[b][i] {
				tot[j] += x
			}
		}
	}
	return ll, nil
}

// allowedConfigs returns the configurations (row-major) of parents that
// agree with the row's observations obs (a state or −1 by VarID).
func allowedConfigs(m *ir.Model, parents []ir.VarID, obs []int) []int {
	if !slices.ContainsFunc(parents, func(p ir.VarID) bool { return obs[p] >= 0 }) {
		n := 1
		for _, p := range parents {
			n *= len(m.Vars[p].States)
		}
		return allConfigs(n)
	}
	out := []int{0}
	for _, p := range parents {
		c := len(m.Vars[p].States)
		next := out[:0:0]
		for _, u := range out {
			if s := obs[p]; s >= 0 {
				next = append(next, u*c+s)
				continue
			}
			for s := range c {
				next = append(next, u*c+s)
			}
		}
		out = next
	}
	return out
}

// allConfigs returns 0, 1, ..., n−1, shared for the n of up to 64.
func allConfigs(n int) []int {
	if n <= len(iota64) {
		return iota64[:n:n]
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// iota64 is 0, 1, ..., 63, a literal so that no code runs at
// initialisation (cmd/pbl's TestInitAllocs).
var iota64 = [64]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63}
