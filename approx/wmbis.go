package approx

import (
	"math"
	"math/rand/v2"
)

// This file is importance sampling from the weighted mini-buckets' upper
// bound (Liu, Fisher and Ihler, "Probabilistic variational bounds for
// graphical models", NIPS 2015): an estimate of ln Z far tighter than the
// bounds' midpoint when the bounds are loose.
//
// The proposal samples the variables in the reverse of the elimination
// order. Variable X's bucket holds mini-buckets r with weights w_r
// (Σ w_r = 1) and, once every variable eliminated after X has its value,
// each gives X the distribution
//
//	q_r(x) ∝ (θ_r(x, ·) · Π children's forward messages(x, ·))^{1/w_r},
//
// the same power sum whose total is r's forward message; X is drawn from
// the mixture q(x) = Σ_r w_r q_r(x). The weight f(X)/q(X) of a sample
// (f the product of the tables) has mean Z, and by the arithmetic–
// geometric mean inequality it never exceeds the upper bound U of the
// forward pass the messages come from: the weights lie in [0, U] and their
// variance is at most Z·U − Z². The estimate is ln of the weights' mean;
// its error is 2.5 times the relative standard error of that mean (the
// samplers' ~95 % half-width, by the delta method), the variance taken as
// the larger of the samples' own and the bound's, (U/Ẑ − 1)·Ẑ². It is
// small only when n ≫ U/Z: where the bound is within a few nats of ln Z,
// ten thousand samples make the error of ln Z a few hundredths; where it
// is loose, the bounds' midpoint stays WMB's answer.

// wmbSamples is the number of samples drawn without a deadline when
// Settings.Samples is 0.
const wmbSamples = 10000

// wmbMinSamples is the fewest samples whose mean WMB reports instead of
// the bounds' midpoint.
const wmbMinSamples = 100

// wmbEstimate is the outcome of the importance sampling.
type wmbEstimate struct {
	logZ, err float64 // ln of the weights' mean, and its ~95 % half-width
	n         int     // samples drawn
}

// sample draws importance samples from r's upper-bound proposal: n of
// them, or until the deadline or Cancel when n is 0. It first runs a
// forward pass with r's upper-bound weights, matching each bucket's groups
// again, so that the tables and messages are the upper bound's (the lower
// bound's passes matched them for its negative weights: a proposal made
// from those was 50 nats looser on a random network, and useless). ok is false
// when too few samples were drawn or every weight was 0.
func (r *wmbRun) sample(n int, seed uint64) (est wmbEstimate, ok bool) {
	ref, fine := r.forward(r.weight, true, 0)
	if !fine || math.IsInf(ref, 0) || math.IsNaN(ref) {
		return est, false
	}
	w := r.w
	pl := r.pl
	// Strides, row-major with the last variable fastest, of each node's
	// clique and of each child's message (the child's clique without its
	// own variable: the parent's variable is its last).
	str := make([][]int, len(pl.nodes))
	for id := range pl.nodes {
		str[id] = rowStrides(pl.nodes[id].card)
	}
	tstr := make([][]int, len(w.tabs))
	for t, tb := range w.tabs {
		tstr[t] = rowStrides(tb.card)
	}
	at := func(vars, strides []int, a []int, upto int) int {
		o := 0
		for k := range upto {
			o += a[vars[k]] * strides[k]
		}
		return o
	}
	rng := rand.New(rand.NewPCG(seed, 0x3b3))
	a := make([]int, len(w.card))
	var row, mix []float64
	var s1, s2 float64
	drawn := 0
	for n == 0 || drawn < n {
		if drawn%64 == 0 && w.stop() {
			break
		}
		lq := 0.0
		for i := len(pl.buckets) - 1; i >= 0; i-- {
			x := w.order[i]
			cx := w.card[x]
			mix = append(mix[:0], make([]float64, cx)...)
			for _, id := range pl.buckets[i] {
				nd := &pl.nodes[id]
				last := len(nd.clique) - 1
				o := at(nd.clique, str[id], a, last)
				row = append(row[:0], r.theta[id].vals[o:o+cx]...)
				for _, c := range nd.children {
					cn := &pl.nodes[c]
					ms := cn.clique[:len(cn.clique)-1]
					mo := at(ms, str[c][:len(ms)], a, len(ms)-1) / cn.card[len(cn.card)-1]
					for s := range cx {
						row[s] += r.fwd[c][mo+s]
					}
				}
				wt := r.weight[id]
				for s := range row {
					row[s] /= wt
				}
				z := ltLSE(row)
				if math.IsInf(z, 0) || math.IsNaN(z) {
					continue // this group has no mass here: its share goes to the others
				}
				for s := range row {
					mix[s] += wt * math.Exp(row[s]-z)
				}
			}
			tot := 0.0
			for _, p := range mix {
				tot += p
			}
			if !(tot > 0) {
				return est, false // cannot happen: a forward message would be -Inf
			}
			u := rng.Float64() * tot
			s := 0
			for s < cx-1 && u >= mix[s] {
				u -= mix[s]
				s++
			}
			lq += math.Log(mix[s] / tot)
			a[x] = s
		}
		lf := w.konst
		for t, tb := range w.tabs {
			lf += tb.vals[at(tb.vars, tstr[t], a, len(tb.vars))]
		}
		e := math.Exp(lf - lq - ref) // in [0, 1] up to rounding
		if math.IsNaN(e) {
			e = 0
		}
		s1 += e
		s2 += e * e
		drawn++
	}
	if drawn < wmbMinSamples || !(s1 > 0) {
		return est, false
	}
	// The samples' own spread misses the rare large weights of a heavy
	// tail; the bound's variance (U/Z − 1)·Z², with the mean for Z (too
	// small on average, never too large), does not.
	m := s1 / float64(drawn)
	nf := float64(drawn)
	emp := max(s2/nf-m*m, 0) * nf / (nf - 1) / (m * m)
	rel := max(emp, math.Expm1(-math.Log(m))) / nf
	est = wmbEstimate{logZ: ref + math.Log(m), err: 2.5 * math.Sqrt(rel), n: drawn}
	return est, true
}

// rowStrides returns the row-major strides of a table with cardinalities
// card (the last variable fastest).
func rowStrides(card []int) []int {
	str := make([]int, len(card))
	s := 1
	for k := len(card) - 1; k >= 0; k-- {
		str[k] = s
		s *= card[k]
	}
	return str
}
