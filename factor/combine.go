package factor

import "math"

// Op says how [Combine] folds the variables of the product that are not in
// the destination's scope.
type Op int

const (
	OpSum Op = iota // sum them out (sum-marginalisation)
	OpMax           // maximise them out (max-marginalisation)
)

// MinNormal is the smallest positive normal float64.
const MinNormal = 0x1p-1022

// MinNonzero returns the smallest nonzero entry of xs, or +Inf if there is
// none. Time O(len(xs)).
func MinNonzero(xs []float64) float64 {
	mn := math.Inf(1)
	for _, x := range xs {
		if x != 0 && x < mn {
			mn = x
		}
	}
	return mn
}

// MayFlush reports whether a product of one entry of each factor of fs can
// fall below the normal range: whether the product of their smallest
// nonzero entries does. Time O(total entries of fs).
func MayFlush(fs []*Factor) bool {
	mins := make([]float64, len(fs))
	for i, f := range fs {
		mins[i] = MinNonzero(f.Vals)
	}
	return ProductMayFlush(mins)
}

// ProductMayFlush reports whether a product of numbers no smaller than
// mins (+Inf for a factor without nonzero entries) can fall below the
// normal range, computing in exponents so as not to underflow itself.
func ProductMayFlush(mins []float64) bool {
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

// Combine sets dst to the product of fs with every variable that is not in
// dst's scope summed (OpSum) or maximised (OpMax) out, and returns dst: the
// product of factors, and their sum- and max-marginalisation, in one pass.
// The scope and cardinalities of dst must already be set; a variable of dst
// that no factor mentions makes the result constant along it. With OpMax
// and a non-nil arg, arg[i] receives, for each entry i of dst, the index
// (in row-major order over the folded variables) of the first maximising
// configuration — with a single folded variable, its state. Ties therefore
// go to the lowest state.
//
// The inputs must be scaled (their entries at most about 1, see
// [Rescale]), so that no product overflows; a product of nonzero entries
// that falls below the normal range is recorded in k (k.Lost), and k's
// cancellation is polled every PollEvery terms (dst is then left
// incomplete). The entries of dst may alias those of an input with dst's
// own layout when nothing is folded: each entry is read before it is
// written.
//
// Cost: time O(n·b·k) multiplications plus one pass over the inputs'
// entries to find their smallest (see [MayFlush]); memory O(k·v) beside
// dst. The product is taken over the union scope U = (dst.Vars,
// folded...), the folded variables fastest, so each entry of dst is one
// contiguous block of the odometer and is written once. Each input keeps a
// running offset that the odometer updates with the input's stride for the
// variable that moved (0 if the input does not mention it).
func Combine(k *Kernel, dst *Factor, fs []*Factor, o Op, arg []int32) *Factor {
	return CombineChecked(k, dst, fs, o, arg, MayFlush(fs))
}

// CombineChecked is [Combine] for inputs whose products may fall below the
// normal range only if check is set (see [MayFlush]): a caller that knows
// the inputs' smallest entries saves Combine's pass over them. Cost:
// time O(n·b·k), memory O(k·v) beside dst.
func CombineChecked(k *Kernel, dst *Factor, fs []*Factor, o Op, arg []int32, check bool) *Factor {
	u, card := UnionScope(dst.Vars, fs)
	for i := range dst.Vars {
		if card[i] < 0 {
			card[i] = dst.Card[i]
		} else if card[i] != dst.Card[i] {
			panic("factor: Combine: cardinality mismatch")
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
	str, back := strides(u, card, fs)
	vals := make([][]float64, nf)
	for j, f := range fs {
		vals[j] = f.Vals
	}
	card, str, back, nd := fuse(card, str, nf, len(dst.Vars))
	n = len(card)
	if fastLoops && n > 0 && !check && arg == nil && (o == OpSum || nd == n) {
		combineLong(k, dst, vals, card, str, back, nd)
		return dst
	}
	if fastLoops && n > 0 && n-nd <= 1 {
		combineInner(k, dst, vals, card, str, back, nd, o, arg, check)
		return dst
	}
	idx := make([]int, nf)
	cnt := make([]int, n)
	work := 0
	for i := range dst.Vals {
		if work += block; work >= PollEvery {
			work = 0
			if k.Poll() {
				return dst
			}
		}
		acc, best := 0.0, 0
		if o == OpMax {
			acc = -1
		}
		for b := 0; b < block; b++ {
			p := 1.0
			for j := 0; j < nf; j++ {
				p *= vals[j][idx[j]]
			}
			if check && p < MinNormal && flushed(p, vals, idx) {
				k.Flush()
			}
			if o == OpSum {
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

// fuse merges adjacent dimensions of the odometer over the union scope
// (cardinalities card, strides str and back as strides returns them, nf
// inputs, the first nd dimensions dst's) that every input steps through
// as one: dimension d−1 and d when each input's stride for d−1 is its
// stride for d times card[d] (0 for both when it mentions neither). A
// dimension of dst's is never merged with a folded one. It returns the
// merged odometer and its number of dst's dimensions: the product visits
// the same entries in the same order, with fewer, longer dimensions.
func fuse(card, str []int, nf, nd int) (fcard, fstr, fback []int, fnd int) {
	n := len(card)
	keep := make([]int, 0, n) // the last original dimension of each merged one: its stride is the merged one's
	fcard = make([]int, 0, n)
	for d := range n {
		if l := len(fcard) - 1; d > 0 && d != nd {
			ok := true
			for j := range nf {
				if str[j*n+d-1] != str[j*n+d]*card[d] {
					ok = false
					break
				}
			}
			if ok {
				fcard[l] *= card[d]
				keep[l] = d
				continue
			}
		}
		if d == nd {
			fnd = len(fcard)
		}
		keep = append(keep, d)
		fcard = append(fcard, card[d])
	}
	if nd == n {
		fnd = len(fcard)
	}
	m := len(fcard)
	fstr = make([]int, nf*m)
	fback = make([]int, nf*m)
	for j := range nf {
		for i, d := range keep {
			fstr[j*m+i] = str[j*n+d]
			fback[j*m+i] = (fcard[i] - 1) * str[j*n+d]
		}
	}
	return fcard, fstr, fback, fnd
}

// strides returns, for the odometer over the union scope u (of
// cardinalities card) of the factors fs, str[j*len(u)+i], the stride of
// u[i] in fs[j] (0 if fs[j] does not mention it), and back[j*len(u)+i],
// (card[i]-1) times that: what the input's offset gains when u[i] moves
// one state, and loses when it wraps around.
func strides(u []Var, card []int, fs []*Factor) (str, back []int) {
	n := len(u)
	str = make([]int, len(fs)*n)
	back = make([]int, len(fs)*n)
	for j, f := range fs {
		for i, v := range f.Vars {
			p := IndexOf(u, v)
			str[j*n+p] = f.Stride[i]
			back[j*n+p] = (card[p] - 1) * f.Stride[i]
		}
	}
	return str, back
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

// MaxInputs is the largest number of factors [MultiplyInto] hands
// [Combine] at once: the product of that many scaled entries stays far
// from the bottom of the normal range.
const MaxInputs = 32

// MultiplyInto multiplies the factors fs, each over a subset of dst's
// scope, into dst (over its own values), MaxInputs at a time, rescaling
// after each pass, and returns the exponent taken off (see [Rescale]):
// the product is dst·2^e. Cost: time O(n·k) for k factors (plus one
// rescale per MaxInputs factors); memory O(k·v) beside dst.
func MultiplyInto(k *Kernel, dst *Factor, fs []*Factor) int {
	e := 0
	in := make([]*Factor, 0, MaxInputs)
	for len(fs) > 0 {
		n := min(len(fs), MaxInputs-1)
		in = append(append(in[:0], dst), fs[:n]...)
		fs = fs[n:]
		Combine(k, dst, in, OpSum, nil)
		e += Rescale(k, dst)
	}
	return e
}

// Restrict returns f with every variable v for which obs[v] >= 0 fixed at
// state obs[v] and dropped from the scope: f restricted to the evidence
// obs (indexed by variable). It returns f itself (not a copy) when no
// variable of f is observed; f is never modified. Cost: time O(m) for a
// result of m entries, memory the result.
func Restrict(f *Factor, obs []int) *Factor {
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
	vars := make([]Var, 0, kept)
	card := make([]int, 0, kept)
	str := make([]int, 0, kept)
	for i, v := range f.Vars {
		if obs[v] < 0 {
			vars = append(vars, v)
			card = append(card, f.Card[i])
			str = append(str, f.Stride[i])
		}
	}
	return RestrictTo(New(vars, card), f, base, str)
}

// RestrictTo fills dst (whose scope is a subset of f's, in f's order) with
// the entries of f at offset base plus the strides str of dst's variables
// in f, and returns dst. Cost: time O(n) for n entries of dst, memory
// O(len(str)).
func RestrictTo(dst, f *Factor, base int, str []int) *Factor {
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

// Rescale normalises f by a power of two: it multiplies the values of f by
// 2^-e so that the largest lies in [0.5, 1), and returns the exponent e
// with old = new·2^e. Scaling by a power of two is exact, so engines that
// scale differently still agree bit for bit on the mantissas, unless an
// entry falls below the normal range, which is recorded in k. A zero
// factor is left alone and gives 0. Cost: time O(n), no allocation.
func Rescale(k *Kernel, f *Factor) int {
	mx := 0.0
	for _, x := range f.Vals {
		if x > mx {
			mx = x
		}
	}
	return ScaleBy(k, f.Vals, mx)
}

// ScaleBy is [Rescale] for the values xs whose largest is mx. Cost: time
// O(len(xs)), no allocation.
func ScaleBy(k *Kernel, xs []float64, mx float64) int {
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
			if y < MinNormal && x != 0 {
				lost = true
			}
		}
	} else {
		for i, x := range xs {
			y := math.Ldexp(x, -e)
			xs[i] = y
			if y < MinNormal && x != 0 {
				lost = true
			}
		}
	}
	if lost {
		k.Flush()
	}
	return e
}

// Prepare returns f, or a rescaled copy of f and its exponent when f's
// largest entry is far from 1: the form in which a model's factor enters
// the kernels, whose products must not overflow. CPTs (largest entry in
// (0, 1]) are used as they are. It also returns the smallest nonzero
// entry of the result (+Inf if none), found in the same pass. Cost: time
// O(n); memory O(n) when it copies, none otherwise.
func Prepare(k *Kernel, f *Factor) (*Factor, int, float64) {
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
	e := ScaleBy(k, g.Vals, mx)
	return g, e, math.Ldexp(mn, -e)
}
