package infer

import (
	"fmt"
	"math"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file is the E-step of EM for rows that carry real values (EM of
// models with normal densities given discrete parents). Every such row is
// its own evidence: its observed real values make a likelihood over the
// parents of each density (infer/real.go's potentials), different in
// every row, so rows cannot be grouped as Expect groups discrete
// patterns. The tree is compiled once from the model with a slot per
// density (LikelihoodSlots: a potential of ones over the density's
// parents, which puts them in one clique), and each row multiplies its
// likelihoods into the slots' cliques before one calibration, from which
// the discrete families and the slots' scopes are read.

// LikelihoodSlots returns m with a potential of ones over each scope of
// scopes (a slot): compile the result, and give each next model the same
// slots (WithModel), for [JTree.ExpectLik]. A slot over no variable is
// left out. m is not changed; the slots hold nothing but ones, so the
// result's distribution is m's.
func LikelihoodSlots(m *ir.Model, scopes [][]ir.VarID) *ir.Model {
	var fs []*ir.Factor
	for _, s := range scopes {
		if len(s) == 0 {
			continue
		}
		card := make([]int, len(s))
		for k, v := range s {
			card[k] = len(m.Vars[v].States)
		}
		f := ir.NewFactor(append([]ir.VarID(nil), s...), card)
		for i := range f.Vals {
			f.Vals[i] = 1
		}
		fs = append(fs, f)
	}
	return m.WithPotentials(fs...)
}

// LikRow is a row of evidence for [JTree.ExpectLik].
type LikRow struct {
	Obs    []int       // the discrete evidence by VarID: a state, or -1
	Lik    [][]float64 // Lik[j]: the likelihood multiplied into slot j (laid out as the slot), or nil for none
	Weight float64     // the row's weight, finite and non-negative
}

// ExpectLik is [JTree.Expect] for a tree compiled from a Bayesian network
// with likelihood slots (see [LikelihoodSlots]: t's model's potentials
// are all slots, of ones): for every row r, its discrete evidence Obs and
// its likelihoods Lik[j] multiplied into slot j,
//
//	acc[v][i]  += w_r · P(family_v = entry i | row r)
//	post[r][j][i] = P(scope of slot j = entry i | row r)   (where post[r][j] != nil)
//	logp[r]     = ln Σ_x P(x, Obs_r) Π_j Lik_r[j](x)      (where logp != nil)
//
// and it returns the sum of w_r · logp[r] over the possible rows in
// LogLik. The tree's model is read as the Bayesian network of its tables:
// nothing is divided by a partition function (the slots' ones leave it
// 1). A row of probability 0 is counted in Impossible, its logp −Inf and
// its posteriors left as they were. Every row costs one calibration; where
// a calibration loses digits, variable elimination answers the row
// exactly, as in Expect. It panics on malformed rows, acc or post, or if
// t's model has a potential that is not a slot of ones; it is safe for
// concurrent use on the same tree with different acc, post and logp.
func (t *JTree) ExpectLik(rows []LikRow, acc [][]float64, post [][][]float64, logp []float64) (ExpectStats, error) {
	t.checkFamilies("ExpectLik", acc)
	if post != nil && len(post) != len(rows) || logp != nil && len(logp) != len(rows) {
		panic("infer: ExpectLik: post or logp is not one per row")
	}
	slots := t.slots()
	for r, row := range rows {
		t.checkObs("ExpectLik", row.Obs)
		if !(row.Weight >= 0 && row.Weight <= math.MaxFloat64) {
			return ExpectStats{}, fmt.Errorf("weight %s of row %d is not a finite non-negative number", ir.FormatFloat(row.Weight), r+1)
		}
		if len(row.Lik) > len(slots) {
			panic("infer: ExpectLik: more likelihoods than slots")
		}
		for j, l := range row.Lik {
			if l != nil && len(l) != len(slots[j].f.Vals) {
				panic(fmt.Sprintf("infer: ExpectLik: a likelihood of %d entries for a slot of %d", len(l), len(slots[j].f.Vals)))
			}
		}
		if post != nil && len(post[r]) > len(slots) {
			panic("infer: ExpectLik: more posteriors than slots")
		}
	}
	w := t.get()
	defer t.put(w)
	defer func() { w.state = jtEmpty }() // the tables hold likelihoods that w.obs does not say
	pos := ir.Pos{File: t.m.Source}
	k := factor.NewKernel(nil)
	tmp := make([]float64, t.maxFam)
	var st ExpectStats
	for r, row := range rows {
		t.load(w, row.Obs)
		for j, l := range row.Lik {
			if l != nil {
				t.multiplySlot(w, &slots[j], l)
			}
		}
		if !t.collect(k, w, false) || !t.distribute(k, w) {
			return st, canceled(pos)
		}
		var r2 *ve
		var pe factor.Scaled
		if w.lost {
			r2 = &ve{m: t.m.WithPotentials(likFactors(slots, row.Lik)...), pos: pos, obs: row.Obs, card: t.card, k: factor.NewKernel(nil)}
			var err error
			if pe, err = peOf(r2); err != nil {
				return st, err
			}
		} else {
			pe = t.pe(w)
		}
		if pe.M == 0 {
			st.Impossible++
			if logp != nil {
				logp[r] = math.Inf(-1)
			}
			continue
		}
		lp := pe.Log()
		if logp != nil {
			logp[r] = lp
		}
		st.Rows++
		st.LogLik += row.Weight * lp
		for v, a := range acc {
			if a == nil {
				continue
			}
			if e, ok := observedEntry(t.m.Factor(ir.VarID(v)), row.Obs); ok {
				a[e] += row.Weight
				continue
			}
			d := tmp[:len(a)]
			var z float64
			var err error
			if r2 != nil {
				z, err = 1, r2.familyOf(t.m.Factor(ir.VarID(v)), d)
			} else {
				z = t.gather(w, v, d)
			}
			if err != nil {
				return st, err
			}
			f := row.Weight / z
			for i, x := range d {
				a[i] += f * x
			}
		}
		if post == nil {
			continue
		}
		for j, d := range post[r] {
			if d == nil {
				continue
			}
			s := &slots[j]
			if len(d) != len(s.f.Vals) {
				panic("infer: ExpectLik: a posterior's length is not its slot's")
			}
			if r2 != nil {
				if err := r2.familyOf(s.f, d); err != nil {
					return st, err
				}
				continue
			}
			p := w.pot[t.off[s.clique]:t.off[s.clique+1]]
			clear(d)
			for i, e := range s.idx {
				d[e] += p[i]
			}
			z := 0.0
			for _, x := range d {
				z += x
			}
			for i := range d {
				d[i] /= z
			}
		}
	}
	return st, nil
}

// slot is where a likelihood slot of a tree's model lives: its factor,
// the clique it multiplies into, and the index map from that clique's
// entries to the slot's.
type slot struct {
	f      *ir.Factor
	clique int32
	idx    []int32
}

// slots returns the slots of t's model, its potentials in order. It
// panics if a potential is not all ones.
func (t *JTree) slots() []slot {
	m := t.m
	ncpt := len(t.scopes) - len(m.Potentials)
	out := make([]slot, len(m.Potentials))
	for j, f := range m.Potentials {
		for _, x := range f.Vals {
			if x != 1 {
				panic("infer: ExpectLik: the model has a potential that is not a likelihood slot of ones")
			}
		}
		out[j] = slot{f: f, clique: -1}
	}
	for c, fs := range t.cfac {
		for _, i := range fs {
			if j := int(i) - ncpt; j >= 0 {
				out[j].clique = int32(c)
				out[j].idx = sepMapTo(make([]int32, t.off[c+1]-t.off[c]), t.cvars[c], t.ccard[c], out[j].f.Vars, out[j].f.Stride)
			}
		}
	}
	for _, s := range out {
		if s.clique < 0 {
			panic("infer: ExpectLik: a slot without a clique")
		}
	}
	return out
}

// multiplySlot multiplies the likelihood l (laid out as slot s) into the
// slot's clique table in w, keeping w's lower bound of the clique's
// smallest nonzero entry, and marking w lost where a product falls below
// the normal range.
func (t *JTree) multiplySlot(w *jtWork, s *slot, l []float64) {
	p := w.pot[t.off[s.clique]:t.off[s.clique+1]]
	lo := math.Inf(1)
	for _, x := range l {
		if x > 0 {
			lo = min(lo, x)
		}
	}
	for i, e := range s.idx {
		a, y := p[i], l[e]
		x := a * y
		p[i] = x
		if x < factor.MinNormal && x != 0 || x == 0 && a != 0 && y != 0 {
			w.lost = true
		}
	}
	if !math.IsInf(lo, 1) {
		w.lo[s.clique] *= lo
	}
}

// likFactors returns the likelihoods lik of a row as factors over their
// slots' scopes (for exact elimination).
func likFactors(slots []slot, lik [][]float64) []*ir.Factor {
	var out []*ir.Factor
	for j, l := range lik {
		if l == nil {
			continue
		}
		f := *slots[j].f
		f.Vals = l
		out = append(out, &f)
	}
	return out
}

// familyOf writes into d the normalised posterior of the scope of f (a
// table laid out as f), by r. An observed member of the scope has its
// other states at 0.
func (r *ve) familyOf(f *ir.Factor, d []float64) error {
	var keep []ir.VarID
	for _, u := range f.Vars {
		if r.obs[u] < 0 {
			keep = append(keep, u)
		}
	}
	j, _, err := r.Joint(keep)
	if err != nil {
		return err
	}
	norm := sum(j.Vals)
	clear(d)
	a := make([]int, len(r.card))
	copy(a, r.obs)
	st := make([]int, len(keep))
	for i, x := range j.Vals {
		j.Assignment(st, i)
		for k, u := range keep {
			a[u] = st[k]
		}
		d[entryOf(f, a)] = x / norm
	}
	return nil
}
