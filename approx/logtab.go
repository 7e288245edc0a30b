package approx

import (
	"math"

	"github.com/pbl-lang/pbl/factor"
)

// This file is the log-domain table the weighted mini-buckets work on:
// ln of a non-negative function of a few variables (−Inf for 0), stored
// row-major with the scope in a fixed variable order (the caller's: WMB
// sorts every scope latest-eliminated first, so the bucket's own variable
// is last and varies fastest), and the few kernels on it. Every kernel
// maps a table onto a sub-scope through an index map (one int32 per entry
// of the larger table, in a reused buffer), so the inner loops are flat.

// ltab is a table of logarithms over vars (with cardinalities card).
type ltab struct {
	vars []int
	card []int
	vals []float64
}

// newLtab returns the table of zeros (ln 1) over vars.
func newLtab(vars, card []int) *ltab {
	n := 1
	for _, c := range card {
		n *= c
	}
	return &ltab{vars: vars, card: card, vals: make([]float64, n)}
}

// ltFromFactor returns ln f as a table over vars (a permutation of f's
// scope, with cardinalities card).
func ltFromFactor(f *factor.Factor, vars, card []int) *ltab {
	t := newLtab(vars, card)
	str := make([]int, len(vars)) // f's stride of each of t's variables
	for i, v := range vars {
		str[i] = f.Stride[f.Pos(factor.Var(v))]
	}
	cnt := make([]int, len(vars))
	o := 0
	for i := range t.vals {
		t.vals[i] = math.Log(f.Vals[o])
		for d := len(vars) - 1; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < card[d] {
				o += str[d]
				break
			}
			cnt[d] = 0
			o -= (card[d] - 1) * str[d]
		}
	}
	return t
}

// ltIndexMap sets dst[i], for each entry i of big, to the index in sub (whose
// variables are among big's) of the entry that agrees with it, and returns
// dst (grown as needed).
func ltIndexMap(dst []int32, big *ltab, subVars []int, subCard []int) []int32 {
	if cap(dst) < len(big.vals) {
		dst = make([]int32, len(big.vals))
	}
	dst = dst[:len(big.vals)]
	n := len(big.vars)
	str := make([]int, n)
	s := 1
	for k := len(subVars) - 1; k >= 0; k-- {
		for d, v := range big.vars {
			if v == subVars[k] {
				str[d] = s
			}
		}
		s *= subCard[k]
	}
	cnt := make([]int, n)
	o := 0
	for i := range dst {
		dst[i] = int32(o)
		for d := n - 1; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < big.card[d] {
				o += str[d]
				break
			}
			cnt[d] = 0
			o -= (big.card[d] - 1) * str[d]
		}
	}
	return dst
}

// ltAddMapped adds c·sub[ix[i]] to big[i] for every entry.
func ltAddMapped(big []float64, sub []float64, ix []int32, c float64) {
	for i, j := range ix {
		big[i] += c * sub[j]
	}
}

// ltLSEMapped sets dst[j] to ln Σ exp(s·src[i]) over the entries i with
// ix[i] = j (−Inf where every term is 0; +Inf where a term is).
func ltLSEMapped(dst, src []float64, ix []int32, s float64) {
	for j := range dst {
		dst[j] = math.Inf(-1)
	}
	for i, j := range ix {
		if x := s * src[i]; x > dst[j] {
			dst[j] = x
		}
	}
	acc := make([]float64, len(dst))
	for i, j := range ix {
		m := dst[j]
		if math.IsInf(m, 0) {
			continue
		}
		acc[j] += math.Exp(s*src[i] - m)
	}
	for j, m := range dst {
		if !math.IsInf(m, 0) {
			dst[j] = m + math.Log(acc[j])
		}
	}
}

// ltLSE returns ln Σ exp(xs) (−Inf for no terms or all −Inf; +Inf if a term
// is +Inf).
func ltLSE(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// ltPowerSum returns w·ln Σ exp(xs/w), the weighted ("power") sum of the
// row xs with weight w: for w = 1 the log of the sum, towards 0⁺ the
// maximum, towards 0⁻ the minimum (w = 0 with lower set: the minimum).
func ltPowerSum(xs []float64, w float64) float64 {
	if w == 0 {
		m := math.Inf(1)
		for _, x := range xs {
			m = min(m, x)
		}
		return m
	}
	if w == 1 {
		return ltLSE(xs)
	}
	m := math.Inf(-1)
	for _, x := range xs {
		if y := x / w; y > m {
			m = y
		}
	}
	if math.IsInf(m, 0) {
		return w * m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x/w - m)
	}
	return w * (m + math.Log(s))
}
