package infer

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file reads family posteriors off a calibrated junction tree: the
// E-step of EM. The family of a discrete variable v is the scope of its
// factor m.Factor(v), (parents..., v) with v fastest; its posterior is read
// off the clique the factor multiplies into, through an index map computed
// at compile time, in one pass over that clique.

// Families writes into dst[v], for every variable v with dst[v] != nil, the
// posterior of v's family given the evidence obs:
//
//	dst[v][i] = P(family_v = entry i | e)
//
// laid out exactly as m.Factor(v).Vals. It returns ln P(e), finite even
// where P(e) underflows float64. obs is indexed by VarID: a state, or -1 for
// an unobserved variable; it may observe members of the families.
//
// Evidence of probability 0 returns an *ir.Error (at the model's file)
// whose kind is [ErrImpossible], and leaves dst unchanged. Families
// panics if len(obs) or len(dst) is not the number of variables, if a
// state is out of range or a real variable observed, or if dst[v] is not
// nil for a variable without a family or has another length than its
// family table. It is safe for concurrent use: each call takes a
// workspace of its own.
func (t *JTree) Families(obs []int, dst [][]float64) (logPE float64, err error) {
	t.checkObs("Families", obs)
	t.checkFamilies("Families", dst)
	w := t.get()
	defer t.put(w)
	pos := ir.Pos{File: t.m.Source}
	k := factor.NewKernel(nil)
	t.ensure(k, pos, w, obs, jtCalibrated)
	if w.lost {
		return t.familiesVE(obs, dst, w)
	}
	pe := t.pe(w)
	if pe.M == 0 {
		return math.Inf(-1), impossible(pos, t.m, obsList(obs))
	}
	for v, d := range dst {
		if d == nil {
			continue
		}
		z := t.gather(w, v, d)
		for i := range d {
			d[i] /= z
		}
	}
	return t.logP(pe, w)
}

// logP returns ln P(e) for pe = Σ_{x ⊨ e} Π φ(x): ln pe, less ln Z for a
// Markov network. The first call on a Markov network computes Z in w,
// which then no longer holds its calibration.
func (t *JTree) logP(pe factor.Scaled, w *jtWork) (float64, error) {
	if t.bayes {
		return min(0, pe.Log()), nil
	}
	z, err := t.partition(factor.NewKernel(nil), ir.Pos{File: t.m.Source}, w)
	if err != nil {
		return 0, err
	}
	return min(0, pe.Log()-z.Log()), nil
}

// veFor returns variable elimination on t's model for the evidence obs,
// which answers where a calibration lost digits.
func (t *JTree) veFor(obs []int) *ve {
	return &ve{m: t.m, pos: ir.Pos{File: t.m.Source}, obs: obs, card: t.card, k: factor.NewKernel(nil)}
}

// familiesVE is Families by variable elimination (exact where it must
// be), one family at a time.
func (t *JTree) familiesVE(obs []int, dst [][]float64, w *jtWork) (float64, error) {
	return t.eachVE(obs, dst, w, t.familyVE)
}

// eachVE is the fallback of Families and Marginals where a calibration
// lost digits: variable elimination for the evidence obs, each called for
// every v whose dst[v] is wanted (not nil); it returns ln P(e), and the
// impossible-evidence error where P(e) = 0.
func (t *JTree) eachVE(obs []int, dst [][]float64, w *jtWork, each func(r *ve, v int, d []float64) error) (float64, error) {
	r := t.veFor(obs)
	pe, err := peOf(r)
	if err != nil {
		return 0, err
	}
	if pe.M == 0 {
		return math.Inf(-1), impossible(r.pos, t.m, obsList(obs))
	}
	for v, d := range dst {
		if d == nil {
			continue
		}
		if err := each(r, v, d); err != nil {
			return 0, err
		}
	}
	return t.logP(pe, w)
}

// familyVE writes the normalised posterior of v's family into d, by r.
// An observed member of the family has its other states at 0.
func (t *JTree) familyVE(r *ve, v int, d []float64) error {
	return r.familyOf(t.m.Factor(ir.VarID(v)), d)
}

// entryOf returns the offset in f of the assignment a (indexed by VarID).
func entryOf(f *ir.Factor, a []int) int {
	off := 0
	for k, v := range f.Vars {
		off += a[v] * f.Stride[k]
	}
	return off
}

// ExpectStats sums up a call of [JTree.Expect].
type ExpectStats struct {
	LogLik     float64 // Σ w_r ln P(row r) over the possible rows
	Rows       int     // rows whose expectations were added: the possible ones
	Impossible int     // rows skipped because their evidence has probability 0
}

// Expect adds to acc the expected family counts of the rows (the E-step of
// EM): for every row r, with weight w_r (weights nil means every weight
// is 1), and every variable v with acc[v] != nil,
//
//	acc[v][i] += w_r · P(family_v = entry i | row r)
//
// with families laid out as in [JTree.Families]. Each row is indexed by
// VarID (a state, or -1 when missing). Rows with the same evidence are
// calibrated once: the rows are grouped (their indices sorted by their
// evidence) and each group adds its summed weight, so a data set with few
// distinct patterns of missing and observed values costs one calibration
// per pattern. A row of probability 0 under the model is skipped and
// counted, not an error. Expect returns an error, having added nothing, if
// a weight is negative, infinite or NaN.
//
// Expect panics on malformed rows or acc, as Families does, and if
// weights is not nil and len(weights) != len(rows). It is safe for
// concurrent use on the same tree with different acc: each call takes a
// workspace of its own.
func (t *JTree) Expect(rows [][]int, weights []float64, acc [][]float64) (ExpectStats, error) {
	t.checkFamilies("Expect", acc)
	order, err := expectOrder(rows, weights, func(row []int) { t.checkObs("Expect", row) })
	if err != nil {
		return ExpectStats{}, err
	}
	w := t.get()
	defer t.put(w)
	pos := ir.Pos{File: t.m.Source}
	k := factor.NewKernel(nil)
	tmp := make([]float64, t.maxFam)
	if !t.bayes {
		// Z, which ln P(row) needs, before w holds any row's calibration.
		if _, err := t.logP(factor.Scaled{M: 0.5, E: 1}, w); err != nil {
			return ExpectStats{}, err
		}
	}
	var st ExpectStats
	for g := 0; g < len(order); {
		row := rows[order[g]]
		n, wt := 0, 0.0
		for ; g+n < len(order) && slices.Equal(rows[order[g+n]], row); n++ {
			if weights == nil {
				wt++
			} else {
				wt += weights[order[g+n]]
			}
		}
		g += n
		t.ensure(k, pos, w, row, jtCalibrated)
		// Where the calibration lost digits, variable elimination
		// answers, exactly where it must (r); else the calibrated tree.
		var r *ve
		var pe factor.Scaled
		if w.lost {
			r = t.veFor(row)
			var err error
			if pe, err = peOf(r); err != nil {
				return st, err
			}
		} else {
			pe = t.pe(w)
		}
		if pe.M == 0 {
			st.Impossible += n
			continue
		}
		lp, err := t.logP(pe, w)
		if err != nil {
			return st, err
		}
		st.Rows += n
		st.LogLik += wt * lp
		for v, a := range acc {
			if a == nil {
				continue
			}
			// A family wholly observed in the row has its one entry:
			// nothing to read off the clique.
			if e, ok := observedEntry(t.m.Factor(ir.VarID(v)), row); ok {
				a[e] += wt
				continue
			}
			d := tmp[:len(a)]
			z, err := t.readFamily(w, r, v, d)
			if err != nil {
				return st, err
			}
			f := wt / z
			for i, x := range d {
				a[i] += f * x
			}
		}
	}
	return st, nil
}

// observedEntry returns the entry of f that the row selects, if the row
// observes every variable of f.
func observedEntry(f *ir.Factor, row []int) (int, bool) {
	off := 0
	for k, v := range f.Vars {
		s := row[v]
		if s < 0 {
			return 0, false
		}
		off += s * f.Stride[k]
	}
	return off, true
}

// readFamily writes into dst the posterior of v's family, times the
// returned sum: read off the calibrated tree in w, or computed by r when
// r is not nil (already normalised).
func (t *JTree) readFamily(w *jtWork, r *ve, v int, dst []float64) (float64, error) {
	if r != nil {
		return 1, t.familyVE(r, v, dst)
	}
	return t.gather(w, v, dst), nil
}

// gather writes into dst the unnormalised posterior of v's family, read
// off its calibrated clique, and returns its sum (P(e) times the clique's
// scale, > 0 for possible evidence).
func (t *JTree) gather(w *jtWork, v int, dst []float64) float64 {
	f := &t.fam[v]
	p := w.pot[t.off[f.clique]:t.off[f.clique+1]]
	z := 0.0
	if f.idx == nil {
		copy(dst, p)
		for _, x := range dst {
			z += x
		}
		return z
	}
	clear(dst)
	p = p[:len(f.idx)]
	for i, j := range f.idx {
		dst[j] += p[i]
	}
	for _, x := range dst {
		z += x
	}
	return z
}

// checkObs panics unless obs is evidence for t's model.
func (t *JTree) checkObs(fn string, obs []int) {
	if len(obs) != len(t.card) {
		panic(fmt.Sprintf("infer: %s: evidence for %d variables, the model has %d", fn, len(obs), len(t.card)))
	}
	for v, s := range obs {
		if s >= 0 && t.card[v] == 0 {
			panic(fmt.Sprintf("infer: %s: %s is real-valued and cannot be observed", fn, ir.Quote(t.m.Vars[v].Name)))
		}
		if s >= t.card[v] || s < -1 {
			panic(fmt.Sprintf("infer: %s: state %d of %s is out of range", fn, s, ir.Quote(t.m.Vars[v].Name)))
		}
	}
}

// checkFamilies panics unless every non-nil dst[v] has the length of v's
// family table.
func (t *JTree) checkFamilies(fn string, dst [][]float64) {
	if len(dst) != len(t.fam) {
		panic(fmt.Sprintf("infer: %s: %d family tables for %d variables", fn, len(dst), len(t.fam)))
	}
	for v, d := range dst {
		if d != nil && (t.fam[v].clique < 0 || len(d) != t.fam[v].n) {
			panic(fmt.Sprintf("infer: %s: a table of %d entries for the family of %s, which has %d", fn, len(d), ir.Quote(t.m.Vars[v].Name), t.fam[v].n))
		}
	}
}

// obsList returns the observations of obs (indexed by VarID) in VarID
// order.
func obsList(obs []int) []ir.Obs {
	var out []ir.Obs
	for v, s := range obs {
		if s >= 0 {
			out = append(out, ir.Obs{Var: ir.VarID(v), State: s})
		}
	}
	return out
}
