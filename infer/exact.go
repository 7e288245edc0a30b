package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file is variable elimination in exact arithmetic: every entry of
// every table carries its own exponent (an factor.Scaled per entry), so that no
// product of any length or magnitude under- or overflows and no entry is
// lost however far it lies below its table's largest. It is several times
// slower than the scaled float64 tables of the fast run, which it
// replaces only when a product of that run fell below the normal range of
// float64 (the kernel's lost flag): factors whose entries span more than
// float64 can hold, or whose largest entries sit at incompatible
// assignments.

// runExact carries out a plan as run does, in exact arithmetic. It
// restricts the model's factors afresh: the fast run scales its copies in
// place.
func (r *ve) runExact(p *vePlan) (*ir.Factor, factor.Scaled, []trace, error) {
	k := r.k
	fs, own, c := r.factors(p.mark)
	if p.sep {
		// The same factors as the plan's: separate leaves out the same
		// components of what remains of them.
		fs, _, _ = r.separate(slices.Clone(p.mark), fs, own, p.keep)
	}
	tabs := make([]factor.Exact, len(fs)+len(p.steps))
	for i, f := range fs {
		tabs[i] = factor.ToExact(f)
	}
	var tr []trace
	var in []factor.Exact
	for s, st := range p.steps {
		if k.Poll() {
			return nil, c, nil, canceled(r.pos)
		}
		in = in[:0]
		for _, i := range st.in {
			in = append(in, tabs[i])
			tabs[i] = factor.Exact{}
		}
		if len(in) == 0 {
			if st.max {
				tr = append(tr, trace{v: st.v, arg: []int32{0}})
			} else {
				c = c.MulFloat(float64(r.card[st.v]))
			}
			continue
		}
		dst := factor.NewExact(st.vars, st.card)
		if st.max {
			arg := make([]int32, len(dst.Vals))
			factor.CombineExact(k, dst, in, factor.OpMax, arg)
			tr = append(tr, trace{v: st.v, vars: dst.Vars, str: dst.Stride, arg: arg})
		} else {
			factor.CombineExact(k, dst, in, factor.OpSum, nil)
		}
		if len(dst.Vars) == 0 {
			c = c.Mul(dst.At(0))
			continue
		}
		tabs[len(fs)+s] = dst
	}
	in = in[:0]
	for _, i := range p.final {
		in = append(in, tabs[i])
	}
	x := factor.NewExact(p.keep, p.kc)
	factor.CombineExact(k, x, in, factor.OpSum, nil)
	if k.Poll() {
		return nil, c, nil, canceled(r.pos)
	}
	// The result as float64 entries relative to its largest: an entry
	// below that by more than float64's range is an answer that
	// underflows.
	top := factor.Scaled{}
	for i := range x.Vals {
		if top.Less(x.At(i)) {
			top = x.At(i)
		}
	}
	out := x.Factor
	if c.M == 0 || top.M == 0 {
		clear(out.Vals)
		return out, factor.Scaled{}, tr, nil
	}
	for i := range out.Vals {
		if out.Vals[i] != 0 {
			out.Vals[i] = math.Ldexp(out.Vals[i], int(x.Exp[i])-top.E)
			if out.Vals[i] < factor.MinNormal {
				k.Coarse = true
			}
		}
	}
	return out, c.Mul(factor.Scaled{M: 1, E: top.E}), tr, nil
}
