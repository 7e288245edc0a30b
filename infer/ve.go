package infer

import (
	"fmt"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// ve is variable elimination on one model and one set of evidence.
type ve struct {
	m    *ir.Model
	opt  Options
	pos  ir.Pos
	obs  []int // obs[v]: observed state of v, or -1
	card []int // card[v]: number of states of v (0 for real variables)
}

// relevant marks the ancestors (inclusive) of the given variables and of the
// observed ones. A variable outside that set is barren: summing it out of
// its CPT gives 1, so it is dropped with its CPT.
//
// In a Markov network (a model with potentials) nothing is barren: every
// variable is marked.
func (r *ve) relevant(vs ...[]ir.VarID) []bool {
	mark := make([]bool, len(r.m.Vars))
	if !r.m.IsBayesNet() {
		for v := range mark {
			mark[v] = true
		}
		return mark
	}
	var stack []ir.VarID
	push := func(v ir.VarID) {
		if !mark[v] {
			mark[v] = true
			stack = append(stack, v)
		}
	}
	for v, s := range r.obs {
		if s >= 0 {
			push(ir.VarID(v))
		}
	}
	for _, l := range vs {
		for _, v := range l {
			push(v)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range r.m.Parents[v] {
			push(p)
		}
	}
	return mark
}

// factors returns the CPT factors of the marked variables restricted by the
// evidence, and the product of those that became constants.
func (r *ve) factors(mark []bool) ([]*ir.Factor, xfloat) {
	var fs []*ir.Factor
	c := xfloat{1, 0}
	add := func(f *ir.Factor) {
		g := restrict(f, r.obs)
		if len(g.Vars) == 0 {
			c = c.mulf(g.Vals[0])
			return
		}
		fs = append(fs, g)
	}
	for v := range r.m.Vars {
		if f := r.m.Factor(ir.VarID(v)); f != nil && mark[v] {
			add(f)
		}
	}
	// Potentials (Markov networks) are always relevant: relevant marks
	// every variable of a model that has them.
	for _, f := range r.m.Potentials {
		add(f)
	}
	return fs, c
}

// free returns the marked unobserved discrete variables that are not in
// keep, in VarID order.
func (r *ve) free(mark []bool, keep []ir.VarID) []ir.VarID {
	var out []ir.VarID
	for v := range r.m.Vars {
		if mark[v] && r.obs[v] < 0 && r.card[v] > 0 && indexOf(keep, ir.VarID(v)) < 0 {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// joint returns P(keep, e) as a factor over keep, in that order, times the
// returned scale. The variables of keep must be unobserved and discrete.
func (r *ve) joint(keep []ir.VarID) (*ir.Factor, xfloat, error) {
	mark := r.relevant(keep)
	fs, c := r.factors(mark)
	elim := r.free(mark, keep)
	order := elimOrder(r.opt.Order, r.card, scopes(fs), elim)
	fs, c, _, err := r.eliminate(fs, c, order, len(order))
	if err != nil {
		return nil, c, err
	}
	kc := make([]int, len(keep))
	for i, v := range keep {
		kc[i] = r.card[v]
	}
	if err := r.check(keep, kc); err != nil {
		return nil, c, err
	}
	out := combineTo(newFactor(keep, kc), fs, opSum, nil)
	if c.m == 0 {
		// A constant factor is 0: the evidence is impossible. Callers
		// look only at the table, so make it say so.
		clear(out.Vals)
		return out, xfloat{}, nil
	}
	c.e += rescale(out)
	return out, c, nil
}

// eliminate eliminates the variables of order from fs in turn, summing out
// the first nSum and maximising out the rest (recording traces), and
// returns the factors left and the constant c times every factor that
// became a constant. Each new table is checked against MaxTable before it
// is allocated and rescaled to a maximum in [0.5, 1) after it is computed.
func (r *ve) eliminate(fs []*ir.Factor, c xfloat, order []ir.VarID, nSum int) ([]*ir.Factor, xfloat, []trace, error) {
	var tr []trace
	var bucket []*ir.Factor
	for k, v := range order {
		bucket = bucket[:0]
		rest := fs[:0:0]
		for _, f := range fs {
			if f.Pos(v) >= 0 {
				bucket = append(bucket, f)
			} else {
				rest = append(rest, f)
			}
		}
		fs = rest
		if len(bucket) == 0 {
			// v occurs in no factor (it cannot happen for a relevant
			// variable, whose CPT mentions it); summing gives card(v) and
			// maximising gives 1. Keep it exact anyway.
			if k < nSum {
				c = c.mulf(float64(r.card[v]))
			} else {
				tr = append(tr, trace{v: v, arg: []int32{0}})
			}
			continue
		}
		var vars []ir.VarID
		var card []int
		for _, f := range bucket {
			for i, w := range f.Vars {
				if w != v && indexOf(vars, w) < 0 {
					vars = append(vars, w)
					card = append(card, f.Card[i])
				}
			}
		}
		if err := r.check(vars, card); err != nil {
			return nil, c, nil, err
		}
		dst := newFactor(vars, card)
		if k < nSum {
			combineTo(dst, bucket, opSum, nil)
		} else {
			arg := make([]int32, len(dst.Vals))
			combineTo(dst, bucket, opMax, arg)
			tr = append(tr, trace{v: v, vars: dst.Vars, str: dst.Stride, arg: arg})
		}
		c.e += rescale(dst)
		if len(dst.Vars) == 0 {
			c = c.mulf(dst.Vals[0])
			continue
		}
		fs = append(fs, dst)
	}
	return fs, c, tr, nil
}

// check returns an error if a table over vars would be larger than MaxTable.
func (r *ve) check(vars []ir.VarID, card []int) error {
	limit := r.opt.maxTable()
	if tableSize(card, limit) >= 0 {
		return nil
	}
	e := &TooLargeError{What: OversizeTable, Vars: slices.Clone(vars), Size: product(card), Limit: int64(limit)}
	e.msg = fmt.Sprintf("variable elimination needs a table over %d variables (%s) with %s entries, more than the limit of %d; "+
		"try another elimination order, or fewer query variables", len(vars), varList(r.m, vars), sizeString(card), limit)
	return e.at(r.pos)
}

// scopes returns the scopes of fs.
func scopes(fs []*ir.Factor) [][]ir.VarID {
	out := make([][]ir.VarID, len(fs))
	for i, f := range fs {
		out[i] = f.Vars
	}
	return out
}
