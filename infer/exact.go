package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file is variable elimination in exact arithmetic: every entry of
// every table carries its own exponent (an xfloat per entry), so that no
// product of any length or magnitude under- or overflows and no entry is
// lost however far it lies below its table's largest. It is several times
// slower than the scaled float64 tables of the fast run, which it
// replaces only when a product of that run fell below the normal range of
// float64 (the kernel's lost flag): factors whose entries span more than
// float64 can hold, or whose largest entries sit at incompatible
// assignments.

// xtable is a table whose entry i is m[i]·2^e[i], with m[i] in [0.5, 1)
// or 0.
type xtable struct {
	*ir.Factor         // the scope; Vals holds the mantissas
	e          []int32 // the exponents
}

// newXTable returns a zero table over vars.
func newXTable(vars []ir.VarID, card []int) xtable {
	f := newFactor(vars, card)
	return xtable{f, make([]int32, len(f.Vals))}
}

// toX returns f in exact form.
func toX(f *ir.Factor) xtable {
	x := xtable{&ir.Factor{Vars: f.Vars, Card: f.Card, Stride: f.Stride, Vals: make([]float64, len(f.Vals))}, make([]int32, len(f.Vals))}
	for i, v := range f.Vals {
		m, e := math.Frexp(v)
		x.Vals[i], x.e[i] = m, int32(e)
	}
	return x
}

// at returns entry i.
func (x xtable) at(i int) xfloat { return xfloat{x.Vals[i], int(x.e[i])} }

// combineX is combineTo in exact arithmetic.
func combineX(k *kernel, dst xtable, fs []xtable, o op, arg []int32) {
	in := make([]*ir.Factor, len(fs))
	for j, f := range fs {
		in[j] = f.Factor
	}
	u, card := unionScope(dst.Vars, in)
	for i := range dst.Vars {
		if card[i] < 0 {
			card[i] = dst.Card[i]
		}
	}
	n, nf := len(u), len(fs)
	block := 1
	for _, c := range card[len(dst.Vars):] {
		block *= c
	}
	if len(dst.Vals)*block == 0 {
		return
	}
	str := make([]int, nf*n)
	back := make([]int, nf*n)
	for j, f := range fs {
		for i, v := range f.Vars {
			p := indexOf(u, v)
			str[j*n+p] = f.Stride[i]
			back[j*n+p] = (card[p] - 1) * f.Stride[i]
		}
	}
	idx := make([]int, nf)
	cnt := make([]int, n)
	work := 0
	for i := range dst.Vals {
		if work += block; work >= pollEvery/4 {
			work = 0
			if k.poll() {
				return
			}
		}
		var acc xfloat
		best, first := 0, true
		for b := 0; b < block; b++ {
			pm, pe := 1.0, 0
			for j, f := range fs {
				pm *= f.Vals[idx[j]]
				pe += int(f.e[idx[j]])
				if pm < 0x1p-900 && pm != 0 {
					var x int
					pm, x = math.Frexp(pm)
					pe += x
				}
			}
			p := xfloat{pm, pe}.norm()
			if o == opSum {
				acc = acc.add(p)
			} else if first || acc.less(p) {
				acc, best, first = p, b, false
			}
			for d := n - 1; d >= 0; d-- {
				cnt[d]++
				if cnt[d] < card[d] {
					for j := range fs {
						idx[j] += str[j*n+d]
					}
					break
				}
				cnt[d] = 0
				for j := range fs {
					idx[j] -= back[j*n+d]
				}
			}
		}
		acc = acc.norm()
		dst.Vals[i], dst.e[i] = acc.m, int32(acc.e)
		if arg != nil {
			arg[i] = int32(best)
		}
	}
}

// runExact carries out a plan as run does, in exact arithmetic. It
// restricts the model's factors afresh: the fast run scales its copies in
// place.
func (r *ve) runExact(p *vePlan) (*ir.Factor, xfloat, []trace, error) {
	k := r.k
	fs, own, c := r.factors(p.mark)
	if p.sep {
		// The same factors as the plan's: separate leaves out the same
		// components of what remains of them.
		fs, _, _ = r.separate(slices.Clone(p.mark), fs, own, p.keep)
	}
	tabs := make([]xtable, len(fs)+len(p.steps))
	for i, f := range fs {
		tabs[i] = toX(f)
	}
	var tr []trace
	var in []xtable
	for s, st := range p.steps {
		if k.poll() {
			return nil, c, nil, canceled(r.pos)
		}
		in = in[:0]
		for _, i := range st.in {
			in = append(in, tabs[i])
			tabs[i] = xtable{}
		}
		if len(in) == 0 {
			if st.max {
				tr = append(tr, trace{v: st.v, arg: []int32{0}})
			} else {
				c = c.mulf(float64(r.card[st.v]))
			}
			continue
		}
		dst := newXTable(st.vars, st.card)
		if st.max {
			arg := make([]int32, len(dst.Vals))
			combineX(k, dst, in, opMax, arg)
			tr = append(tr, trace{v: st.v, vars: dst.Vars, str: dst.Stride, arg: arg})
		} else {
			combineX(k, dst, in, opSum, nil)
		}
		if len(dst.Vars) == 0 {
			c = c.mul(dst.at(0))
			continue
		}
		tabs[len(fs)+s] = dst
	}
	in = in[:0]
	for _, i := range p.final {
		in = append(in, tabs[i])
	}
	x := newXTable(p.keep, p.kc)
	combineX(k, x, in, opSum, nil)
	if k.poll() {
		return nil, c, nil, canceled(r.pos)
	}
	// The result as float64 entries relative to its largest: an entry
	// below that by more than float64's range is an answer that
	// underflows.
	top := xfloat{}
	for i := range x.Vals {
		if top.less(x.at(i)) {
			top = x.at(i)
		}
	}
	out := x.Factor
	if c.m == 0 || top.m == 0 {
		clear(out.Vals)
		return out, xfloat{}, tr, nil
	}
	for i := range out.Vals {
		if out.Vals[i] != 0 {
			out.Vals[i] = math.Ldexp(out.Vals[i], int(x.e[i])-top.e)
			if out.Vals[i] < minNormal {
				k.coarse = true
			}
		}
	}
	return out, c.mul(xfloat{1, top.e}), tr, nil
}
