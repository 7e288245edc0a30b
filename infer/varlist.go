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

// minNormal is the smallest positive normal float64.
const minNormal = 0x1p-1022

// kernel is what one computation's loops share: the channel that cancels
// it, polled between blocks of work, and whether a product of nonzero
// entries fell below the normal range of float64 (lost), which makes the
// fast, scaled answer inexact and calls for the exact one (exact.go). A
// nil *kernel is never canceled and records nothing.
type kernel struct {
	cancel   <-chan struct{}
	canceled bool
	lost     bool
	coarse   bool // the last table an engine returned has entries flushed to 0 below its largest (exact runs, enumeration)
}

// newKernel returns the kernel of a computation canceled by cancel (nil
// for never).
func newKernel(cancel <-chan struct{}) *kernel { return &kernel{cancel: cancel} }

// fork returns a kernel for a computation run beside k's: the same
// cancellation, its own record of lost products.
func (k *kernel) fork() *kernel {
	if k == nil {
		return &kernel{}
	}
	return &kernel{cancel: k.cancel, canceled: k.canceled}
}

// poll reports whether the computation has been canceled.
func (k *kernel) poll() bool {
	if k == nil {
		return false
	}
	if k.canceled {
		return true
	}
	if k.cancel == nil {
		return false
	}
	select {
	case <-k.cancel:
		k.canceled = true
		return true
	default:
		return false
	}
}

// cancelChan returns k's cancellation channel (nil for a nil kernel).
func (k *kernel) cancelChan() <-chan struct{} {
	if k == nil {
		return nil
	}
	return k.cancel
}

// stop is poll for hot loops: without a cancellation channel it is one
// inlined comparison.
func (k *kernel) stop() bool { return k.cancel != nil && k.poll() }

// canceledNow is poll for a kernel whose forks may have seen the
// cancellation first.
func (k *kernel) canceledNow() bool { return k.poll() }

// flush records that a product of nonzero entries fell below the normal
// range.
func (k *kernel) flush() {
	if k != nil {
		k.lost = true
	}
}

// pollEvery is the number of entries a kernel computes between two polls
// of its cancellation: a few milliseconds of work.
const pollEvery = 1 << 16

// minNonzero returns the smallest nonzero entry of xs, or +Inf if there is
// none.
func minNonzero(xs []float64) float64 {
	mn := math.Inf(1)
	for _, x := range xs {
		if x != 0 && x < mn {
			mn = x
		}
	}
	return mn
}

// mayFlush reports whether a product of one entry of each factor of fs can
// fall below the normal range: whether the product of their smallest
// nonzero entries does.
func mayFlush(fs []*ir.Factor) bool {
	mins := make([]float64, len(fs))
	for i, f := range fs {
		mins[i] = minNonzero(f.Vals)
	}
	return productMayFlush(mins)
}

// productMayFlush reports whether a product of numbers no smaller than
// mins (+Inf for a factor without nonzero entries) can fall below the
// normal range, computing in exponents so as not to underflow itself.
func productMayFlush(mins []float64) bool {
	e := 0
	for _, mn := range mins {
		if math.IsInf(mn, 1) {
			continue
		}
		_, x := math.Frexp(mn)
		e += x - 1
	}
	return e < -1021+len(mins)
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
// The inputs must be scaled (their entries at most about 1, see
// [rescale]), so that no product overflows; a product of nonzero entries
// that falls below the normal range is recorded in k (k.lost), and k's
// cancellation is polled every pollEvery terms (dst is then left
// incomplete). The entries of dst may alias those of an input with dst's
// own layout when nothing is folded: each entry is read before it is
// written.
//
// The product is taken over the union scope U = (dst.Vars, folded...), the
// folded variables fastest, so each entry of dst is one contiguous block of
// the odometer and is written once. Each input keeps a running offset that
// the odometer updates with the input's stride for the variable that moved
// (0 if the input does not mention it).
func combineTo(k *kernel, dst *ir.Factor, fs []*ir.Factor, o op, arg []int32) *ir.Factor {
	return combineChecked(k, dst, fs, o, arg, mayFlush(fs))
}

// combineChecked is combineTo for inputs whose products may fall below the
// normal range only if check is set (see mayFlush).
func combineChecked(k *kernel, dst *ir.Factor, fs []*ir.Factor, o op, arg []int32, check bool) *ir.Factor {
	u, card := unionScope(dst.Vars, fs)
	for i := range dst.Vars {
		if card[i] < 0 {
			card[i] = dst.Card[i]
		} else if card[i] != dst.Card[i] {
			panic("infer: combineTo: cardinality mismatch")
		}
	}
	n, nf := len(u), len(fs)
	block := 1
	for _, c := range card[len(dst.Vars):] {
		block *= c
	}
	if len(dst.Vals)*block == 0 {
		return dst
	}
	str := make([]int, nf*n)  // str[j*n+i]: stride of u[i] in fs[j]
	back := make([]int, nf*n) // back[j*n+i]: (card[i]-1)*str[j*n+i]
	vals := make([][]float64, nf)
	for j, f := range fs {
		vals[j] = f.Vals
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
		if work += block; work >= pollEvery {
			work = 0
			if k.poll() {
				return dst
			}
		}
		acc, best := 0.0, 0
		if o == opMax {
			acc = -1
		}
		for b := 0; b < block; b++ {
			p := 1.0
			for j := 0; j < nf; j++ {
				p *= vals[j][idx[j]]
			}
			if check && p < minNormal && flushed(p, vals, idx) {
				k.flush()
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
					for j := 0; j < nf; j++ {
						idx[j] += str[j*n+d]
					}
					break
				}
				cnt[d] = 0
				for j := 0; j < nf; j++ {
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

// flushed reports whether p, a product below the normal range of the
// entries vals[j][idx[j]], lost digits: it is subnormal, or 0 although no
// entry is.
func flushed(p float64, vals [][]float64, idx []int) bool {
	if p != 0 {
		return true
	}
	for j, v := range vals {
		if v[idx[j]] == 0 {
			return false
		}
	}
	return true
}

// maxInputs is the largest number of factors combineTo multiplies at once
// in multiplyInto: the product of that many scaled entries stays far from
// the bottom of the normal range.
const maxInputs = 32

// multiplyInto multiplies the factors fs, each over a subset of dst's
// scope, into dst (over its own values), maxInputs at a time, rescaling
// after each pass, and returns the exponent taken off (see rescale).
func multiplyInto(k *kernel, dst *ir.Factor, fs []*ir.Factor) int {
	e := 0
	in := make([]*ir.Factor, 0, maxInputs)
	for len(fs) > 0 {
		n := min(len(fs), maxInputs-1)
		in = append(append(in[:0], dst), fs[:n]...)
		fs = fs[n:]
		combineTo(k, dst, in, opSum, nil)
		e += rescale(k, dst)
	}
	return e
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
// bit for bit on the mantissas, unless an entry falls below the normal
// range, which is recorded in k. A zero factor is left alone and gives 0.
func rescale(k *kernel, f *ir.Factor) int {
	mx := 0.0
	for _, x := range f.Vals {
		if x > mx {
			mx = x
		}
	}
	return scaleBy(k, f.Vals, mx)
}

// scaleBy is rescale for the values xs whose largest is mx.
func scaleBy(k *kernel, xs []float64, mx float64) int {
	if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) {
		return 0
	}
	_, e := math.Frexp(mx)
	if e == 0 {
		return 0
	}
	// Multiplying by 2^-e is exact (the same as math.Ldexp, without its
	// per-element cost) while 2^-e is a normal float64 and the product
	// stays normal; beyond that, fall back to Ldexp. Scaling down may push
	// an entry below the normal range, which is checked as it is written.
	lost := false
	if -e > -1022 && -e < 1023 {
		scale := math.Ldexp(1, -e)
		if e < 0 {
			for i := range xs {
				xs[i] *= scale
			}
			return e
		}
		for i, x := range xs {
			y := x * scale
			xs[i] = y
			if y < minNormal && x != 0 {
				lost = true
			}
		}
	} else {
		for i, x := range xs {
			y := math.Ldexp(x, -e)
			xs[i] = y
			if y < minNormal && x != 0 {
				lost = true
			}
		}
	}
	if lost {
		k.flush()
	}
	return e
}

// scaled returns f, or a rescaled copy of f and its exponent when f's
// largest entry is far from 1: the form in which a model's factor enters
// the kernels, whose products must not overflow. CPTs (largest entry in
// (0, 1]) are used as they are. It also returns the smallest nonzero
// entry of the result (+Inf if none), found in the same pass.
func scaled(k *kernel, f *ir.Factor) (*ir.Factor, int, float64) {
	mx, mn := 0.0, math.Inf(1)
	for _, x := range f.Vals {
		if x > mx {
			mx = x
		}
		if x < mn && x != 0 {
			mn = x
		}
	}
	if mx == 0 || mx >= 0x1p-32 && mx <= 1+0x1p-10 {
		return f, 0, mn
	}
	g := f.Clone()
	e := scaleBy(k, g.Vals, mx)
	return g, e, math.Ldexp(mn, -e)
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

// log returns ln x (-Inf for 0): the logarithm of the float64 x itself
// where it is a normal float64, so that it is as exact as math.Log.
func (x xfloat) log() float64 {
	if x.m == 0 {
		return math.Inf(-1)
	}
	if x.e > -1020 && x.e < 1020 {
		return math.Log(math.Ldexp(x.m, x.e))
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
