//go:build !js

package factor

// fastLoops says that CombineChecked has its loops of constant strides
// (this file). The WebAssembly page (GOOS=js) leaves them out to stay
// under issue 30's 12 MB (combinefast_js.go) and runs the plain odometer,
// which gives the same numbers to the bit (TestCombinePathsAgree).
const fastLoops = true

// combineInner is CombineChecked's loop when at most one (merged)
// dimension is folded and combineLong does not apply (a maximum, an
// argmax, or products that need the underflow check): the innermost
// dimension, of constant strides, in a loop of its own — the maximum (or
// checked sum) of one entry of dst when it is folded, a run of dst's
// entries when nothing is.
func combineInner(k *Kernel, dst *Factor, vals [][]float64, card, str, back []int, nd int, o Op, arg []int32, check bool) {
	n, nf := len(card), len(vals)
	inner := n - 1
	L := card[inner]
	s := make([]int, nf) // the inputs' strides along the inner dimension
	for j := range nf {
		s[j] = str[j*n+inner]
	}
	fold := nd < n
	idx := make([]int, nf)
	at := make([]int, nf)
	cnt := make([]int, n)
	// entry returns the product of the inputs at step t of the inner
	// dimension.
	entry := func(t int) float64 {
		p := 1.0
		for j := range nf {
			p *= vals[j][idx[j]+t*s[j]]
		}
		if check && p < MinNormal {
			for j := range nf {
				at[j] = idx[j] + t*s[j]
			}
			if flushed(p, vals, at) {
				k.Flush()
			}
		}
		return p
	}
	work := 0
	for i := 0; i < len(dst.Vals); {
		if work += L; work >= PollEvery {
			work = 0
			if k.Poll() {
				return
			}
		}
		switch {
		case !fold:
			for t := range L {
				dst.Vals[i+t] = entry(t)
			}
			i += L
		case o == OpSum:
			acc := 0.0
			for t := range L {
				acc += entry(t)
			}
			dst.Vals[i] = acc
			i++
		default:
			acc, best := -1.0, 0
			for t := range L {
				if p := entry(t); p > acc {
					acc, best = p, t
				}
			}
			dst.Vals[i] = acc
			if arg != nil {
				arg[i] = int32(best)
			}
			i++
		}
		// Advance the odometer over the outer dimensions.
		for d := inner - 1; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < card[d] {
				for j := range nf {
					idx[j] += str[j*n+d]
				}
				break
			}
			cnt[d] = 0
			for j := range nf {
				idx[j] -= back[j*n+d]
			}
		}
	}
}

// combineLong is CombineChecked's loop for a sum (or a product, nothing
// folded) whose products need no check: the longest of dst's (merged)
// dimensions is the inner loop, of constant strides, and each product is
// added into its entry of dst (set to 0 first when something is folded).
// Each entry of dst receives its terms in the order of the folded
// configurations, row-major, as the plain loop adds them, so the sums are
// the same to the bit. Variable elimination on a grid spends its time here
// (BenchmarkGridEliminate: the frontier's million entries times three
// small factors, one variable summed out; the plain odometer stepped every
// dimension per entry).
func combineLong(k *Kernel, dst *Factor, vals [][]float64, card, str, back []int, nd int) {
	n, nf := len(card), len(vals)
	fold := nd < n
	// dst's strides along the odometer's dimensions (0 for folded ones).
	dstr := make([]int, n)
	for d, sz := nd-1, 1; d >= 0; d-- {
		dstr[d] = sz
		sz *= card[d]
	}
	inner := 0
	for d := 1; d < nd; d++ {
		if card[d] > card[inner] {
			inner = d
		}
	}
	if nd == 0 {
		inner = n - 1 // everything folded into one entry
	}
	L := card[inner]
	s := make([]int, nf)
	for j := range nf {
		s[j] = str[j*n+inner]
	}
	sd := dstr[inner]
	if k.Poll() {
		return
	}
	if fold {
		clear(dst.Vals)
	}
	out := dst.Vals
	idx := make([]int, nf)
	cnt := make([]int, n)
	di, work := 0, 0
	for {
		if work += L; work >= PollEvery {
			work = 0
			if k.Poll() {
				return
			}
		}
		switch {
		case nf == 0:
			for r := range L {
				if fold {
					out[di+r*sd]++
				} else {
					out[di+r*sd] = 1
				}
			}
		case nf == 1:
			a, sa := vals[0][idx[0]:], s[0]
			for r := range L {
				if fold {
					out[di+r*sd] += a[r*sa]
				} else {
					out[di+r*sd] = a[r*sa]
				}
			}
		case nf == 2:
			a, b, sa, sb := vals[0][idx[0]:], vals[1][idx[1]:], s[0], s[1]
			for r := range L {
				if fold {
					out[di+r*sd] += a[r*sa] * b[r*sb]
				} else {
					out[di+r*sd] = a[r*sa] * b[r*sb]
				}
			}
		case nf == 3:
			a, b, c := vals[0][idx[0]:], vals[1][idx[1]:], vals[2][idx[2]:]
			sa, sb, sc := s[0], s[1], s[2]
			for r := range L {
				if fold {
					out[di+r*sd] += a[r*sa] * b[r*sb] * c[r*sc]
				} else {
					out[di+r*sd] = a[r*sa] * b[r*sb] * c[r*sc]
				}
			}
		case nf == 4:
			a, b, c, e := vals[0][idx[0]:], vals[1][idx[1]:], vals[2][idx[2]:], vals[3][idx[3]:]
			sa, sb, sc, se := s[0], s[1], s[2], s[3]
			for r := range L {
				if fold {
					out[di+r*sd] += a[r*sa] * b[r*sb] * c[r*sc] * e[r*se]
				} else {
					out[di+r*sd] = a[r*sa] * b[r*sb] * c[r*sc] * e[r*se]
				}
			}
		default:
			for r := range L {
				p := vals[0][idx[0]+r*s[0]]
				for j := 1; j < nf; j++ {
					p *= vals[j][idx[j]+r*s[j]]
				}
				if fold {
					out[di+r*sd] += p
				} else {
					out[di+r*sd] = p
				}
			}
		}
		// Advance the odometer over the other dimensions, last fastest.
		d := n - 1
		for ; d >= 0; d-- {
			if d == inner {
				continue
			}
			cnt[d]++
			if cnt[d] < card[d] {
				for j := range nf {
					idx[j] += str[j*n+d]
				}
				di += dstr[d]
				break
			}
			cnt[d] = 0
			for j := range nf {
				idx[j] -= back[j*n+d]
			}
			di -= (card[d] - 1) * dstr[d]
		}
		if d < 0 {
			return
		}
	}
}
