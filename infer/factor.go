package infer

import (
	"fmt"
	"math"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// op says how combineTo folds the variables of the product that are not in
// the destination's scope.
type op int

const (
	opSum op = iota // sum them out
	opMax           // maximise them out
)

// newFactor is ir.NewFactor for scopes whose size has already been checked.
func newFactor(vars []ir.VarID, card []int) *ir.Factor { return ir.NewFactor(vars, card) }

// tableSize returns the number of entries of a table with the given
// cardinalities, or -1 if it exceeds limit (checked without overflow).
func tableSize(card []int, limit int) int {
	n := 1
	for _, c := range card {
		if c <= 0 {
			panic("infer: tableSize: non-positive cardinality")
		}
		if n > limit/c {
			return -1
		}
		n *= c
	}
	return n
}

// unionScope returns the variables of dst followed by the variables of fs
// that are not in dst, in order of first appearance, with their
// cardinalities. The variables after the first len(dst) are the ones
// combineTo folds.
func unionScope(dst []ir.VarID, fs []*ir.Factor) (vars []ir.VarID, card []int) {
	vars = append(vars, dst...)
	card = make([]int, len(dst))
	for i := range card {
		card[i] = -1
	}
	for _, f := range fs {
		for i, v := range f.Vars {
			k := indexOf(vars, v)
			if k < 0 {
				vars = append(vars, v)
				card = append(card, f.Card[i])
				continue
			}
			if card[k] < 0 {
				card[k] = f.Card[i]
			} else if card[k] != f.Card[i] {
				panic("infer: unionScope: cardinality mismatch")
			}
		}
	}
	return vars, card
}

func indexOf(vs []ir.VarID, v ir.VarID) int {
	for i, w := range vs {
		if w == v {
			return i
		}
	}
	return -1
}

// combineTo sets dst to the product of fs with every variable that is not
// in dst's scope summed (opSum) or maximised (opMax) out, and returns dst.
// The scope and cardinalities of dst must already be set; a variable of dst
// that no factor mentions makes the result constant along it. With opMax and
// a non-nil arg, arg[i] receives, for each entry i of dst, the index (in
// row-major order over the folded variables) of the first maximising
// configuration — with a single folded variable, its state. Ties therefore
// go to the lowest state.
//
// The product is taken over the union scope U = (dst.Vars, folded...), the
// folded variables fastest, so each entry of dst is one contiguous block of
// the odometer and is written once. Each input keeps a running offset that
// the odometer updates with the input's stride for the variable that moved
// (0 if the input does not mention it).
func combineTo(dst *ir.Factor, fs []*ir.Factor, o op, arg []int32) *ir.Factor {
	u, card := unionScope(dst.Vars, fs)
	for i := range dst.Vars {
		if card[i] < 0 {
			card[i] = dst.Card[i]
		} else if card[i] != dst.Card[i] {
			panic("infer: combineTo: cardinality mismatch")
		}
	}
	n, k := len(u), len(fs)
	block := 1
	for _, c := range card[len(dst.Vars):] {
		block *= c
	}
	if len(dst.Vals)*block == 0 {
		return dst
	}
	str := make([]int, k*n)  // str[j*n+i]: stride of u[i] in fs[j]
	back := make([]int, k*n) // back[j*n+i]: (card[i]-1)*str[j*n+i]
	vals := make([][]float64, k)
	for j, f := range fs {
		vals[j] = f.Vals
		for i, v := range f.Vars {
			p := indexOf(u, v)
			str[j*n+p] = f.Stride[i]
			back[j*n+p] = (card[p] - 1) * f.Stride[i]
		}
	}
	idx := make([]int, k)
	cnt := make([]int, n)
	for i := range dst.Vals {
		acc, best := 0.0, 0
		if o == opMax {
			acc = -1
		}
		for b := 0; b < block; b++ {
			p := 1.0
			for j := 0; j < k; j++ {
				p *= vals[j][idx[j]]
			}
			if o == opSum {
				acc += p
			} else if p > acc {
				acc, best = p, b
			}
			// Advance the odometer over u, last variable fastest.
			for d := n - 1; d >= 0; d-- {
				cnt[d]++
				if cnt[d] < card[d] {
					for j := 0; j < k; j++ {
						idx[j] += str[j*n+d]
					}
					break
				}
				cnt[d] = 0
				for j := 0; j < k; j++ {
					idx[j] -= back[j*n+d]
				}
			}
		}
		dst.Vals[i] = acc
		if arg != nil {
			arg[i] = int32(best)
		}
	}
	return dst
}

// restrict returns f with every variable v for which obs[v] >= 0 fixed at
// state obs[v] and dropped from the scope. It returns f itself (not a copy)
// when no variable of f is observed; f is never modified.
func restrict(f *ir.Factor, obs []int) *ir.Factor {
	base, kept := 0, 0
	for i, v := range f.Vars {
		if s := obs[v]; s >= 0 {
			base += s * f.Stride[i]
		} else {
			kept++
		}
	}
	if kept == len(f.Vars) {
		return f
	}
	vars := make([]ir.VarID, 0, kept)
	card := make([]int, 0, kept)
	str := make([]int, 0, kept)
	for i, v := range f.Vars {
		if obs[v] < 0 {
			vars = append(vars, v)
			card = append(card, f.Card[i])
			str = append(str, f.Stride[i])
		}
	}
	return restrictTo(newFactor(vars, card), f, base, str)
}

// restrictTo fills dst (whose scope is a subset of f's, in f's order) with
// the entries of f at offset base plus the strides str of dst's variables
// in f, and returns dst.
func restrictTo(dst, f *ir.Factor, base int, str []int) *ir.Factor {
	n := len(str)
	cnt := make([]int, n)
	off := base
	for i := range dst.Vals {
		dst.Vals[i] = f.Vals[off]
		for d := n - 1; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < dst.Card[d] {
				off += str[d]
				break
			}
			cnt[d] = 0
			off -= (dst.Card[d] - 1) * str[d]
		}
	}
	return dst
}

// rescale multiplies the values of f by a power of two so that the largest
// lies in [0.5, 1), and returns the exponent e with old = new·2^e. Scaling
// by a power of two is exact, so engines that scale differently still agree
// bit for bit on the mantissas. A zero factor is left alone and gives 0.
func rescale(f *ir.Factor) int {
	mx := 0.0
	for _, x := range f.Vals {
		if x > mx {
			mx = x
		}
	}
	if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) {
		return 0
	}
	_, e := math.Frexp(mx)
	if e == 0 {
		return 0
	}
	// Multiplying by 2^-e is exact (the same as math.Ldexp, without its
	// per-element cost) while 2^-e is a normal float64; beyond that, fall
	// back to Ldexp.
	if -e > -1022 && -e < 1023 {
		scale := math.Ldexp(1, -e)
		for i := range f.Vals {
			f.Vals[i] *= scale
		}
		return e
	}
	for i, x := range f.Vals {
		f.Vals[i] = math.Ldexp(x, -e)
	}
	return e
}

// xfloat is a non-negative number m·2^e with a float64 mantissa and an int
// exponent: a float64 with an unbounded exponent, for products of thousands
// of probabilities. The zero value is 0.
type xfloat struct {
	m float64
	e int
}

// norm brings m into [0.5, 1) (or 0).
func (x xfloat) norm() xfloat {
	if x.m == 0 {
		return xfloat{}
	}
	f, e := math.Frexp(x.m)
	return xfloat{f, x.e + e}
}

// mul returns x·y.
func (x xfloat) mul(y xfloat) xfloat { return xfloat{x.m * y.m, x.e + y.e}.norm() }

// mulf returns x·y for a plain float64 y.
func (x xfloat) mulf(y float64) xfloat { return xfloat{x.m * y, x.e}.norm() }

// add returns x+y.
func (x xfloat) add(y xfloat) xfloat {
	switch {
	case y.m == 0:
		return x
	case x.m == 0:
		return y
	case x.e >= y.e:
		return xfloat{x.m + math.Ldexp(y.m, y.e-x.e), x.e}.norm()
	}
	return xfloat{math.Ldexp(x.m, x.e-y.e) + y.m, y.e}.norm()
}

// less reports whether x < y.
func (x xfloat) less(y xfloat) bool {
	x, y = x.norm(), y.norm()
	switch {
	case y.m == 0:
		return false
	case x.m == 0:
		return true
	case x.e != y.e:
		return x.e < y.e
	}
	return x.m < y.m
}

// div returns x/y as a float64 (which may underflow or overflow).
func (x xfloat) div(y xfloat) float64 { return math.Ldexp(x.m/y.m, x.e-y.e) }

// float returns x as a float64 (0 if it underflows).
func (x xfloat) float() float64 { return math.Ldexp(x.m, x.e) }

// log returns ln x (-Inf for 0).
func (x xfloat) log() float64 {
	if x.m == 0 {
		return math.Inf(-1)
	}
	return math.Log(x.m) + float64(x.e)*math.Ln2
}

// varList names up to ten variables of m, for error messages.
func varList(m *ir.Model, vs []ir.VarID) string {
	var b strings.Builder
	for i, v := range vs {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(vs)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ir.Quote(m.Vars[v].Name))
	}
	return b.String()
}
