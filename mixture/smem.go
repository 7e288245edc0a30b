package mixture

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// This file holds split-and-merge EM (Ueda, Nakano, Ghahramani and
// Hinton, "SMEM algorithm for mixture models", Neural Computation 12,
// 2000), which the kept restart goes through after the continuation: see
// the package documentation.

// smemCandidates is the number of (merge, split) candidates tried per
// round; 0 turns split-and-merge off (tests compare with it off).
var smemCandidates = 20

// smemBudget is SMEM's budget of EM iterations, as a multiple of the
// restarts'.
var smemBudget = 1.0

// smemSpikes is the number of spike moves tried first in each round of
// the second series (see FitGMM).
var smemSpikes = 2

const (
	smemPartialIter = 20 // at most this many partial EM iterations per candidate
	smemMargin      = 10 // a candidate within smemMargin·tol of the kept fit continues to tol·polishTol
)

// smemMove is a candidate: merge components i and j into i, and split
// component k into j and k, or, when k < 0, put j on row alone (a spike:
// mean the row, covariance the floor).
type smemMove struct{ i, j, k, row int }

// smem improves the kept run best by split-and-merge moves (spike moves
// first when spikes) until no candidate of a round raises its
// log-likelihood or budget EM iterations are spent, and returns the run
// kept: best or a better one.
func (e *em) smem(best *emRun, budget int, spikes bool) *emRun {
	opt := e.opt
	k, d := opt.K, e.x.Cols
	if k < 2 || opt.Tol == 0 || smemCandidates == 0 {
		return best
	}
	e.opt.Progress = nil // the candidates' iterations are not reported
	defer func() { e.opt.Progress = opt.Progress }()
	cur := best
	for budget > 0 {
		gs, err := whiten(opt.Covariance, k, d, cur.p.weights, cur.p.means, cur.p.cov)
		if err != nil {
			return cur
		}
		if _, _, _, err := e.estep(gs, true); err != nil {
			return cur
		}
		r0 := slices.Clone(e.resp)
		moves := e.smemMoves(gs, cur.p.weights, spikes)
		improved := false
		for _, mv := range moves {
			if budget <= 0 {
				break
			}
			r, used := e.smemTry(cur, mv, r0, budget)
			budget -= used
			if r != nil && r.g.LogLikelihood > cur.g.LogLikelihood {
				cur, improved = r, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return cur
}

// smemMoves returns the candidates, best first, for the parameters gs
// (whose weights are w) and the responsibilities in e.resp. The merge
// criterion of a pair is the inner product of its responsibility vectors
// divided by their norms; the split criterion of a component is the
// paper's local Kullback-Leibler divergence Σ_n f_n log(f_n / p_k(x_n))
// between the responsibility-weighted empirical distribution f of the
// component and its density p_k. Candidates are ordered by the sum of the
// pair's rank and the component's rank, ties by the pair's rank.
func (e *em) smemMoves(gs *gauss, w []float64, spikes bool) (moves []smemMove) {
	x, k, n := e.x, e.opt.K, e.x.Rows
	nb := numBlocks(n)
	stride := k*k + 3*k + 2 // …, then the lowest log-likelihood of a row and its row
	part := make([]float64, nb*stride)
	logw := make([]float64, k)
	for j := range k {
		logw[j] = math.Log(w[j])
	}
	forBlocks(e.w, n, func(wk, b int) {
		lo, hi := blockRange(b, n)
		lp := e.lp[wk][:(hi-lo)*k]
		gs.logProb(lp, x.Data, lo, hi)
		s := part[b*stride : (b+1)*stride]
		gram, rlogr, rlogp, nk := s[:k*k], s[k*k:k*k+k], s[k*k+k:k*k+2*k], s[k*k+2*k:k*k+3*k]
		low, lowRow := math.Inf(1), -1
		for i := lo; i < hi; i++ {
			r := e.resp[i*k : (i+1)*k]
			l := lp[(i-lo)*k : (i-lo+1)*k]
			if v := logSumExp(l); v < low {
				low, lowRow = v, i
			}
			for a, ra := range r {
				if ra == 0 {
					continue
				}
				nk[a] += ra
				rlogr[a] += ra * math.Log(ra)
				rlogp[a] += ra * (l[a] - logw[a])
				for c := a; c < k; c++ {
					gram[a*k+c] += ra * r[c]
				}
			}
		}
		s[stride-2], s[stride-1] = low, float64(lowRow)
	})
	s := make([]float64, stride)
	for b := range nb {
		addTo(s[:stride-2], part[b*stride:(b+1)*stride-2])
	}
	gram, rlogr, rlogp, nk := s[:k*k], s[k*k:k*k+k], s[k*k+k:k*k+2*k], s[k*k+2*k:k*k+3*k]
	type pair struct {
		i, j int
		v    float64
	}
	var pairs []pair
	for a := range k {
		for c := a + 1; c < k; c++ {
			v := gram[a*k+c] / math.Sqrt(gram[a*k+a]*gram[c*k+c])
			if math.IsNaN(v) {
				v = 0
			}
			pairs = append(pairs, pair{a, c, v})
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].v > pairs[b].v })
	split := make([]float64, k)
	comps := make([]int, k)
	for c := range k {
		m := nk[c]
		split[c] = rlogr[c]/m - math.Log(m) - rlogp[c]/m
		if math.IsNaN(split[c]) {
			split[c] = math.Inf(-1)
		}
		comps[c] = c
	}
	sort.SliceStable(comps, func(a, b int) bool { return split[comps[a]] > split[comps[b]] })
	rank := make([]int, k)
	for r, c := range comps {
		rank[c] = r
	}
	type cand struct {
		mv   smemMove
		p, s int
	}
	var cands []cand
	for p, pr := range pairs {
		for _, c := range comps {
			if c == pr.i || c == pr.j {
				continue
			}
			cands = append(cands, cand{smemMove{pr.i, pr.j, c, -1}, p, rank[c]})
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		ca, cb := cands[a], cands[b]
		if ca.p+ca.s != cb.p+cb.s {
			return ca.p+ca.s < cb.p+cb.s
		}
		return ca.p < cb.p
	})
	if spikes && e.opt.Covariance != Tied {
		// Spikes on the least likely row, merging the smemSpikes best
		// pairs, come first.
		low, lowRow := math.Inf(1), -1
		for b := range nb {
			if v := part[b*stride+stride-2]; v < low {
				low, lowRow = v, int(part[b*stride+stride-1])
			}
		}
		for _, pr := range pairs[:min(smemSpikes, len(pairs))] {
			if lowRow >= 0 {
				moves = append(moves, smemMove{pr.i, pr.j, -1, lowRow})
			}
		}
	}
	for _, c := range cands[:min(smemCandidates, len(cands))] {
		moves = append(moves, c.mv)
	}
	return moves
}

// smemTry applies the move mv to cur's parameters, runs partial EM on the
// three components it changes, with the responsibilities r0 of cur, and
// then EM on all, within budget iterations. It returns the run, or nil if
// its covariances collapse, and the iterations used.
func (e *em) smemTry(cur *emRun, mv smemMove, r0 []float64, budget int) (*emRun, int) {
	x, opt := e.x, e.opt
	k, d, n := opt.K, x.Cols, x.Rows
	if mv.k < 0 {
		return e.spikeTry(cur, mv, budget)
	}
	p := smemInit(cur.p, mv, e.splitAxis(cur.p, mv.k, r0), opt.Covariance, k, d, opt.RegCovar)
	used := 0
	// Partial EM: rows keep the mass r0 gives the three components and
	// share it among them by their densities; the other columns keep r0.
	copy(e.resp, r0)
	mass := make([]float64, n)
	for i := range n {
		mass[i] = r0[i*k+mv.i] + r0[i*k+mv.j] + r0[i*k+mv.k]
	}
	nb := numBlocks(n)
	part := make([]float64, nb)
	prev := math.Inf(-1)
	S := [3]int{mv.i, mv.j, mv.k}
	for range smemPartialIter {
		if used >= budget {
			return nil, used
		}
		gs, err := whiten(opt.Covariance, k, d, p.weights, p.means, p.cov)
		if err != nil {
			return nil, used
		}
		forBlocks(e.w, n, func(wk, b int) {
			lo, hi := blockRange(b, n)
			lp := e.lp[wk][:(hi-lo)*k]
			gs.logProb(lp, x.Data, lo, hi)
			ll := 0.0
			for i := lo; i < hi; i++ {
				l := lp[(i-lo)*k : (i-lo+1)*k]
				m := math.Inf(-1)
				for _, c := range S {
					m = max(m, l[c])
				}
				s := 0.0
				for _, c := range S {
					s += math.Exp(l[c] - m)
				}
				lse := m + math.Log(s)
				for _, c := range S {
					e.resp[i*k+c] = mass[i] * math.Exp(l[c]-lse)
				}
				ll += mass[i] * lse
			}
			part[b] = ll
		})
		ll := 0.0
		for _, v := range part {
			ll += v
		}
		ll /= float64(n)
		used++
		if math.IsNaN(ll) || math.IsInf(ll, 0) {
			return nil, used
		}
		nk, sx := e.respSums()
		p = e.mstep(nk, sx)
		if math.Abs(ll-prev) < opt.Tol {
			break
		}
		prev = ll
	}
	if used >= budget {
		return nil, used
	}
	return e.smemFinish(cur, p, used, budget)
}

// spikeTry applies the spike move mv to cur's parameters and runs EM on
// all, within budget iterations, as smemTry.
func (e *em) spikeTry(cur *emRun, mv smemMove, budget int) (*emRun, int) {
	opt := e.opt
	d := e.x.Cols
	p := params{slices.Clone(cur.p.weights), slices.Clone(cur.p.means), slices.Clone(cur.p.cov)}
	i, j := mv.i, mv.j
	wi, wj := p.weights[i], p.weights[j]
	wm := wi + wj
	for l := range d {
		p.means[i*d+l] = (wi*p.means[i*d+l] + wj*p.means[j*d+l]) / wm
	}
	copy(p.means[j*d:(j+1)*d], e.x.Row(mv.row))
	ws := 1 / float64(e.x.Rows)
	p.weights[i] = wm - ws
	if !(p.weights[i] > 0) {
		return nil, 0
	}
	p.weights[j] = ws
	reg := max(opt.RegCovar, 1e-300)
	switch opt.Covariance {
	case Full:
		dd := d * d
		for t := range dd {
			p.cov[i*dd+t] = (wi*p.cov[i*dd+t] + wj*p.cov[j*dd+t]) / wm
		}
		c := p.cov[j*dd : (j+1)*dd]
		clear(c)
		for l := range d {
			c[l*d+l] = reg
		}
	case Diag:
		for l := range d {
			p.cov[i*d+l] = (wi*p.cov[i*d+l] + wj*p.cov[j*d+l]) / wm
			p.cov[j*d+l] = reg
		}
	case Spherical:
		p.cov[i] = (wi*p.cov[i] + wj*p.cov[j]) / wm
		p.cov[j] = reg
	default:
		return nil, 0
	}
	return e.smemFinish(cur, p, 0, budget)
}

// smemFinish runs EM on all from the parameters p of a move from cur, of
// which used iterations are spent, within budget.
func (e *em) smemFinish(cur *emRun, p params, used, budget int) (*emRun, int) {
	opt := e.opt
	k, d, n := opt.K, e.x.Cols, e.x.Rows
	r := &emRun{i: cur.i, p: p, g: &GMM{K: k, D: d, Covariance: opt.Covariance, N: n}}
	conv, err := e.iterate(r, opt.Tol, min(opt.MaxIter, budget-used))
	used += r.g.Iterations
	if err != nil {
		return nil, used
	}
	// A move within smemMargin·tol of the kept fit continues to tol/1000
	// within the budget; one that is better then finishes (to tol/1000,
	// within MaxIter) whatever the budget, so that the fit kept has
	// continued as a restart does.
	tight := false
	polish := func(limit int) error {
		before := r.g.Iterations
		c, err := e.iterate(r, opt.Tol*polishTol, limit)
		used += r.g.Iterations - before
		conv, tight = conv || c, c
		return err
	}
	if conv && used < budget && r.g.LowerBound > cur.g.LowerBound-smemMargin*opt.Tol {
		if err := polish(min(opt.MaxIter, r.g.Iterations+budget-used)); err != nil {
			return nil, used
		}
	}
	if !tight && r.g.LogLikelihood > cur.g.LogLikelihood && r.g.Iterations < opt.MaxIter {
		if err := polish(opt.MaxIter); err != nil {
			return nil, used
		}
	}
	r.g.Converged = conv
	return r, used
}

// splitAxis returns half the principal axis, 0.5·√λ₁·v₁, of the
// responsibility-weighted scatter of the rows about component c's mean:
// from the d×d scatter for at most denseMaxCols columns, by
// principalWide for more.
func (e *em) splitAxis(p params, c int, r0 []float64) []float64 {
	x, k, d, n := e.x, e.opt.K, e.x.Cols, e.x.Rows
	if d > denseMaxCols {
		// Without the d×d scatter: linear in the columns.
		var rows []int
		var w []float64
		for i := range n {
			if rc := r0[i*k+c]; rc != 0 {
				rows, w = append(rows, i), append(w, rc)
			}
		}
		lam, axis := principalWide(x, rows, w, p.means[c*d:(c+1)*d])
		for l := range axis {
			axis[l] *= 0.5 * math.Sqrt(lam)
		}
		return axis
	}
	nb := numBlocks(n)
	part := make([]float64, nb*(d*d+1))
	mu := p.means[c*d : (c+1)*d]
	forBlocks(e.w, n, func(_, b int) {
		lo, hi := blockRange(b, n)
		s := part[b*(d*d+1) : (b+1)*(d*d+1)]
		diff := make([]float64, d)
		for i := lo; i < hi; i++ {
			rc := r0[i*k+c]
			if rc == 0 {
				continue
			}
			s[d*d] += rc
			for l := range d {
				diff[l] = x.Data[i*d+l] - mu[l]
			}
			for a := range d {
				for b := a; b < d; b++ {
					s[a*d+b] += rc * diff[a] * diff[b]
				}
			}
		}
	})
	s := make([]float64, d*d+1)
	for b := range nb {
		addTo(s, part[b*(d*d+1):(b+1)*(d*d+1)])
	}
	sym := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			sym.SetSym(a, b, s[a*d+b]/max(s[d*d], 1e-300))
		}
	}
	var es mat.EigenSym
	axis := make([]float64, d)
	if !es.Factorize(sym, true) {
		return axis
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	top := d - 1 // ascending order
	lam := max(vals[top], 0)
	for l := range d {
		axis[l] = 0.5 * math.Sqrt(lam) * vecs.At(l, top)
	}
	// The sign of an eigenvector is arbitrary: fix it.
	for l := range d {
		if axis[l] != 0 {
			if axis[l] < 0 {
				for t := range axis {
					axis[t] = -axis[t]
				}
			}
			break
		}
	}
	return axis
}

// smemInit returns the parameters p after the move mv: components i and j
// merged into i (weights added, means and covariances averaged by weight),
// component k split into j and k at its mean ± a, the half principal axis,
// each with half its weight and its covariance less a aᵀ (at least a
// quarter of it per variance for diag and spherical). Tied covariances
// stay as they are.
func smemInit(p params, mv smemMove, a []float64, c CovarianceType, k, d int, reg float64) params {
	q := params{slices.Clone(p.weights), slices.Clone(p.means), slices.Clone(p.cov)}
	i, j, s := mv.i, mv.j, mv.k
	wi, wj := p.weights[i], p.weights[j]
	wm := wi + wj
	q.weights[i] = wm
	q.weights[j], q.weights[s] = p.weights[s]/2, p.weights[s]/2
	for l := range d {
		q.means[i*d+l] = (wi*p.means[i*d+l] + wj*p.means[j*d+l]) / wm
		q.means[j*d+l] = p.means[s*d+l] + a[l]
		q.means[s*d+l] = p.means[s*d+l] - a[l]
	}
	switch c {
	case Full:
		dd := d * d
		for t := range dd {
			q.cov[i*dd+t] = (wi*p.cov[i*dd+t] + wj*p.cov[j*dd+t]) / wm
		}
		for r := range d {
			for u := range d {
				v := p.cov[s*dd+r*d+u] - a[r]*a[u]
				if r == u {
					v = max(v, p.cov[s*dd+r*d+u]/4, reg)
				}
				q.cov[j*dd+r*d+u], q.cov[s*dd+r*d+u] = v, v
			}
		}
	case Diag:
		for l := range d {
			q.cov[i*d+l] = (wi*p.cov[i*d+l] + wj*p.cov[j*d+l]) / wm
			v := max(p.cov[s*d+l]-a[l]*a[l], p.cov[s*d+l]/4)
			q.cov[j*d+l], q.cov[s*d+l] = v, v
		}
	case Spherical:
		q.cov[i] = (wi*p.cov[i] + wj*p.cov[j]) / wm
		aa := 0.0
		for _, v := range a {
			aa += v * v
		}
		v := max(p.cov[s]-aa/float64(d), p.cov[s]/4)
		q.cov[j], q.cov[s] = v, v
	}
	return q
}
