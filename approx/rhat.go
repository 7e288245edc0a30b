package approx

import (
	"math"
	"slices"
)

// This file is Gibbs sampling's convergence diagnostic: the
// rank-normalised split potential scale reduction factor of Vehtari,
// Gelman, Simpson, Carpenter and Bürkner (2021), on the chains' batch
// means.
//
// Each chain's kept batch means are split into two halves, so that a
// chain that drifts shows as two sequences that disagree. The 2M
// sequences' values are replaced by their normal scores (ranks r among all
// S values, ties averaged, mapped to Φ⁻¹((r − 3/8)/(S + 1/4))), and the
// classic split-R-hat (Gelman et al., BDA3 §11.4) is computed on them:
//
//	R = √(((n−1)/n·W + B/n) / W)
//
// W the mean within-sequence variance, B/n the variance of the sequences'
// means, n the length of a sequence. The same is done on the values
// folded about their median (|x − median|), which sees chains that agree
// in location but not in spread; the diagnostic is the larger of the two.
// Sequences that are each constant but disagree give +Inf; values
// constant up to rounding everywhere give 1.

// rhatBuf holds the diagnostic's buffers.
type rhatBuf struct {
	x, z, sorted []float64
	// score[i] is the normal score of the rank (i+2)/2 among len(x)
	// values (ranks are halves where ties are averaged), computed once.
	score []float64
}

// of returns the diagnostic of entry j of the batch means from ..
// from+2·half−1 of each chain.
func (r *rhatBuf) of(chains []*gibbsChain, from, half, j int) float64 {
	m := 2 * len(chains)
	r.x = r.x[:0]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, ch := range chains {
		for _, b := range ch.batches[from : from+2*half] {
			r.x = append(r.x, b[j])
			lo, hi = min(lo, b[j]), max(hi, b[j])
		}
	}
	if !(hi-lo > 1e-12) {
		return 1 // constant up to rounding: nothing to mix
	}
	bulk := splitRHatOf(r.normalScores(r.x), m, half)
	med := r.median()
	for i, v := range r.x {
		r.x[i] = math.Abs(v - med)
	}
	return max(bulk, splitRHatOf(r.normalScores(r.x), m, half))
}

// normalScores returns x's normal scores (into r.z), leaving x sorted in
// r.sorted.
func (r *rhatBuf) normalScores(x []float64) []float64 {
	s := len(x)
	r.sorted = append(r.sorted[:0], x...)
	slices.Sort(r.sorted)
	r.z = slices.Grow(r.z[:0], s)[:s]
	for i, v := range x {
		lo, _ := slices.BinarySearch(r.sorted, v) // the first of v's ties
		hi := lo + 1
		for hi < s && r.sorted[hi] == v {
			hi++
		}
		r.z[i] = r.scoreOf(lo+hi-1, s) // the ties' average rank is (lo+hi-1)/2 + 1
	}
	return r.z
}

// scoreOf returns the normal score of the rank h/2 + 1 among s values.
func (r *rhatBuf) scoreOf(h, s int) float64 {
	if len(r.score) != 2*s {
		r.score = make([]float64, 2*s)
		for i := range r.score {
			rank := float64(i)/2 + 1
			r.score[i] = normalQuantile((rank - 3.0/8) / (float64(s) + 1.0/4))
		}
	}
	return r.score[h]
}

// median returns the median of the values last given to normalScores.
func (r *rhatBuf) median() float64 {
	s := len(r.sorted)
	if s%2 == 1 {
		return r.sorted[s/2]
	}
	return (r.sorted[s/2-1] + r.sorted[s/2]) / 2
}

// splitRHatOf returns the potential scale reduction factor of m sequences
// of n values each, sequence i at x[i·n:(i+1)·n].
func splitRHatOf(x []float64, m, n int) float64 {
	fn := float64(n)
	mu, w := 0.0, 0.0
	means := make([]float64, m)
	for i := range m {
		seq := x[i*n : (i+1)*n]
		a := 0.0
		for _, v := range seq {
			a += v
		}
		a /= fn
		ss := 0.0
		for _, v := range seq {
			ss += (v - a) * (v - a)
		}
		means[i] = a
		mu += a
		w += ss / (fn - 1)
	}
	mu /= float64(m)
	w /= float64(m)
	bn := 0.0 // B/n: the variance of the sequences' means
	for _, a := range means {
		bn += (a - mu) * (a - mu)
	}
	bn /= float64(m - 1)
	vp := (fn-1)/fn*w + bn
	if !(w > 0) {
		if !(vp > 0) {
			return 1
		}
		return math.Inf(1)
	}
	return math.Sqrt(vp / w)
}
