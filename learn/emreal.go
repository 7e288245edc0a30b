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
// infer.JTree.ExpectLik at once (the buffers of their likelihoods and
// posteriors).
const realChunk = 256

// realWork holds a real block's buffers for a chunk of rows.
type realWork struct {
	rows  []infer.LikRow
	lik   [][][]float64 // lik[k][j]: row k's likelihood in slot j
	post  [][][]float64 // post[k][j]: row k's posterior of slot j's scope
	logp  []float64
	scale []float64
	seen  []bool    // seen[k*len(dens)+i]: row k gives a value to a child of density i
	dl    []float64 // one density's log densities
	buf   []float64 // a row's worth of scratch
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
		maxConf, maxDim = max(maxConf, d.nconf), max(maxDim, d.dim())
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
			dl: make([]float64, maxConf), buf: make([]float64, 2*maxDim)}
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
func (e *emRun) expectReal(t *infer.JTree, b int) {
	w := e.rwork[b]
	lo, hi := e.rblocks[b][0], e.rblocks[b][1]
	for _, a := range e.racc[b] {
		clear(a)
	}
	for _, s := range e.rstats[b] {
		clear(s)
	}
	e.rll[b], e.rimp[b], e.rerr[b] = 0, -1, nil
	nr, nd := len(e.p.reals), len(e.dens)
	ll := 0.0
	for c0 := lo; c0 < hi; c0 += realChunk {
		c1 := min(hi, c0+realChunk)
		rows := w.rows[:c1-c0]
		for i := c0; i < c1; i++ {
			k := i - c0
			x := e.p.real.vals[i*nr : (i+1)*nr]
			rows[k].Obs, rows[k].Weight = e.p.real.obs[i], 1
			scale := 0.0
			for di, d := range e.dens {
				dl := w.dl[:d.nconf]
				shift, seen, err := d.logDensities(x, dl, w.buf)
				if err != nil {
					e.rerr[b] = e.rowErr(i, "the density of %s: %v", e.m.NameList(d.children, 3), err)
					return
				}
				w.seen[k*nd+di] = seen
				if d.slot >= 0 {
					rows[k].Lik[d.slot] = nil
				}
				if !seen {
					continue
				}
				if d.learned && d.joint {
					for ci, c := range d.col {
						if math.IsNaN(x[c]) {
							e.rerr[b] = e.rowErr(i, "%s is missing, and the row gives other variables of the joint density of %s: pbl learns a joint density from rows that give all of its variables or none (fill in the cell, or empty the others)",
								ir.Quote(e.m.Vars[d.children[ci]].Name), e.m.NameList(d.children, 3))
							return
						}
					}
				}
				// Scaled by the largest entry the row's observed parents
				// allow: far in a density's tails the others may lie more
				// than float64 holds above it (x = 0.5 with Mode =
				// calibrated, normal(0, 0.01), beside normal(0.5, 1)).
				keep := allowedConfigs(e.m, d.parents, rows[k].Obs)
				top := math.Inf(-1)
				for _, u := range keep {
					top = max(top, dl[u])
				}
				if math.IsInf(top, -1) && len(keep) > 0 {
					// Every configuration allowed is beyond float64 from the
					// nearest of all: compare them among themselves.
					_, l, sh, err := ir.LogDensitiesAt(d.cur, d.observed(x), keep)
					if err != nil {
						e.rerr[b] = e.rowErr(i, "the density of %s: %v", e.m.NameList(d.children, 3), err)
						return
					}
					copy(dl, l)
					shift = sh
					for _, u := range keep {
						top = max(top, dl[u])
					}
				}
				scale += shift + top
				if d.slot >= 0 {
					l := w.lik[k][d.slot]
					clear(l)
					for _, u := range keep {
						l[u] = math.Exp(dl[u] - top)
					}
					rows[k].Lik[d.slot] = l
				}
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
		}
	}
	e.rll[b] = ll
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
