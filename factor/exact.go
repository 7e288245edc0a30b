package factor

import "math"

// Exact is a table in exact arithmetic: entry i is Vals[i]·2^Exp[i], with
// Vals[i] in [0.5, 1) or 0, so that no product of any length or magnitude
// under- or overflows and no entry is lost however far it lies below its
// table's largest. Its kernel, [CombineExact], is several times slower
// than [Combine] on scaled float64 tables, which it replaces only when a
// product of those fell below the normal range (the kernel's Lost flag).
type Exact struct {
	*Factor         // the scope; Vals holds the mantissas
	Exp     []int32 // the exponents
}

// NewExact returns a zero table over vars. Time and memory O(n).
func NewExact(vars []Var, card []int) Exact {
	f := New(vars, card)
	return Exact{f, make([]int32, len(f.Vals))}
}

// ToExact returns f in exact form (sharing f's scope, not its values).
// Time and memory O(n).
func ToExact(f *Factor) Exact {
	x := Exact{&Factor{Vars: f.Vars, Card: f.Card, Stride: f.Stride, Vals: make([]float64, len(f.Vals))}, make([]int32, len(f.Vals))}
	for i, v := range f.Vals {
		m, e := math.Frexp(v)
		x.Vals[i], x.Exp[i] = m, int32(e)
	}
	return x
}

// At returns entry i.
func (x Exact) At(i int) Scaled { return Scaled{x.Vals[i], int(x.Exp[i])} }

// CombineExact is [Combine] in exact arithmetic: dst receives the product
// of fs with the variables not in its scope summed or maximised out, arg
// (with OpMax, if not nil) the first maximising configuration. Cost: time
// O(n·b·k), several times Combine's; memory O(k·v) beside dst.
func CombineExact(k *Kernel, dst Exact, fs []Exact, o Op, arg []int32) {
	in := make([]*Factor, len(fs))
	for j, f := range fs {
		in[j] = f.Factor
	}
	u, card := UnionScope(dst.Vars, in)
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
	str, back := strides(u, card, in)
	idx := make([]int, nf)
	cnt := make([]int, n)
	work := 0
	for i := range dst.Vals {
		if work += block; work >= PollEvery/4 {
			work = 0
			if k.Poll() {
				return
			}
		}
		var acc Scaled
		best, first := 0, true
		for b := 0; b < block; b++ {
			pm, pe := 1.0, 0
			for j, f := range fs {
				pm *= f.Vals[idx[j]]
				pe += int(f.Exp[idx[j]])
				if pm < 0x1p-900 && pm != 0 {
					var x int
					pm, x = math.Frexp(pm)
					pe += x
				}
			}
			p := Scaled{pm, pe}.Norm()
			if o == OpSum {
				acc = acc.Add(p)
			} else if first || acc.Less(p) {
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
		acc = acc.Norm()
		dst.Vals[i], dst.Exp[i] = acc.M, int32(acc.E)
		if arg != nil {
			arg[i] = int32(best)
		}
	}
}
