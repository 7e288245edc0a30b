package approx

import (
	"math"
)

// This file is the estimate that likelihood weighting and importance
// sampling share: weighted samples summed in log space, self-normalised
// marginals with their errors, and ln Z.
//
// # Error estimates
//
// Each sample i has the weight w_i = P(x_i, e) / Q(x_i) (Q the proposal).
// The marginal estimate is self-normalised, p̂ = Σ w_i 1[x_i(v) = s] / Σ
// w_i, with the delta method's variance
//
//	Var p̂ ≈ Σ w_i² (1[x_i(v) = s] − p̂)² / (Σ w_i)²
//
// floored by p̂(1 − p̂)/ESS, ESS = (Σ w_i)² / Σ w_i² the effective sample
// size. The reported error Result.Err is smpZ (2.5) standard errors, and at
// least 3/ESS (the "rule of three": a state never drawn in ESS samples
// may still have that probability), so that it is an honest ~95 % bound,
// not one standard error. Z is estimated by the mean weight, ln Ẑ = ln(Σ
// w_i / N), with the delta method's standard error of the log, √(1/ESS −
// 1/N); LogZErr is smpZ of them. Both assume the weights' variance is
// finite and seen: a proposal far from the posterior (unlikely evidence
// with likelihood weighting) can hide its heaviest weights, and the errors
// are then too small, which is why importance sampling learns its
// proposal.

// smpZ is the multiple of a standard error that the samplers report as a
// number's error: a ~95 % half-width with a margin for the error of the
// standard error itself (the normal quantile is 1.96).
const smpZ = 2.5

// smpErrFloor is the smallest error reported: the rounding of sums of
// many numbers, so that an estimate that is exact (a Rao-Blackwellised
// conditional that never changes) is not reported as exact to the last
// bit.
const smpErrFloor = 1e-12

// wacc sums weighted samples. The sums are scaled by exp(−max) (the
// squared ones by exp(−2·max)), max the largest log weight seen, so that
// they cannot overflow or underflow whatever the weights' range.
type wacc struct {
	n      int     // samples drawn, those of weight 0 included
	max    float64 // the largest log weight; -Inf while every weight is 0
	w1, w2 float64 // Σ w, Σ w²
	a1, a2 []float64
	// a1[off[v]+s], a2[…]: Σ w·1[x(v)=s], Σ w²·1[x(v)=s] over the samples,
	// for unobserved v
}

func newWacc(total int) *wacc {
	return &wacc{max: math.Inf(-1), a1: make([]float64, total), a2: make([]float64, total)}
}

func (a *wacc) reset() {
	a.n, a.max, a.w1, a.w2 = 0, math.Inf(-1), 0, 0
	clear(a.a1)
	clear(a.a2)
}

// addBlock adds the samples xs (len(lw) samples of nv variables each,
// sample i at xs[i*nv:]) with log weights lw.
func (a *wacc) addBlock(f *fwdNet, lw []float64, xs []int) {
	nv := len(f.card)
	a.n += len(lw)
	m := math.Inf(-1)
	for _, l := range lw {
		m = max(m, l)
	}
	if math.IsInf(m, -1) {
		return
	}
	a.rescale(m)
	for i, l := range lw {
		if math.IsInf(l, -1) {
			continue
		}
		w := math.Exp(l - a.max)
		w2 := w * w
		a.w1 += w
		a.w2 += w2
		x := xs[i*nv : (i+1)*nv]
		for _, v := range f.order {
			if f.obs[v] >= 0 {
				continue
			}
			j := f.off[v] + x[v]
			a.a1[j] += w
			a.a2[j] += w2
		}
	}
}

// rescale brings the sums to the scale exp(−m) if m is above the current
// one.
func (a *wacc) rescale(m float64) {
	if m <= a.max {
		return
	}
	if !math.IsInf(a.max, -1) {
		r := math.Exp(a.max - m)
		r2 := r * r
		a.w1 *= r
		a.w2 *= r2
		for j := range a.a1 {
			a.a1[j] *= r
			a.a2[j] *= r2
		}
	}
	a.max = m
}

// merge adds b's sums to a's.
func (a *wacc) merge(b *wacc) {
	a.n += b.n
	if math.IsInf(b.max, -1) {
		return
	}
	a.rescale(b.max)
	r := math.Exp(b.max - a.max)
	r2 := r * r
	a.w1 += b.w1 * r
	a.w2 += b.w2 * r2
	for j := range a.a1 {
		a.a1[j] += b.a1[j] * r
		a.a2[j] += b.a2[j] * r2
	}
}

// result fills r's marginals, errors and ln Z from the sums: ErrNoAnswer
// if no sample was drawn, ErrImpossible if every one has weight 0.
func (a *wacc) result(f *fwdNet, r *Result) error {
	if a.n == 0 {
		return ErrNoAnswer
	}
	if math.IsInf(a.max, -1) || !(a.w1 > 0) {
		return ErrImpossible
	}
	ess := a.w1 * a.w1 / a.w2
	r.Marg = make([][]float64, len(f.card))
	r.Err = make([][]float64, len(f.card))
	for v, c := range f.card {
		if c == 0 {
			continue
		}
		m := make([]float64, c)
		e := make([]float64, c)
		r.Marg[v], r.Err[v] = m, e
		if o := f.obs[v]; o >= 0 {
			m[o] = 1
			continue
		}
		for s := range c {
			j := f.off[v] + s
			p := min(1, max(0, a.a1[j]/a.w1))
			vd := (a.a2[j]*(1-2*p) + p*p*a.w2) / (a.w1 * a.w1)
			vd = max(vd, p*(1-p)/ess)
			m[s] = p
			e[s] = min(1, max(smpZ*math.Sqrt(vd), 3/ess, smpErrFloor))
		}
		smpNormRow(m)
	}
	n := float64(a.n)
	r.LogZ = a.max + math.Log(a.w1) - math.Log(n)
	if ess < 2 {
		r.LogZErr = math.Inf(1)
	} else {
		r.LogZErr = max(smpZ*math.Sqrt(max(0, 1/ess-1/n)), smpErrFloor)
	}
	r.LogZLo, r.LogZHi = math.Inf(-1), math.Inf(1)
	return nil
}

// smpNormRow scales m to sum to 1 (a row of estimates whose sum rounding
// took off 1), keeping every entry in [0, 1].
func smpNormRow(m []float64) {
	t := 0.0
	for _, x := range m {
		t += x
	}
	if !(t > 0) {
		return
	}
	for i := range m {
		m[i] = min(1, m[i]/t)
	}
}
