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

// wmbEnough is the error of ln Z (by the bound's variance alone) at which
// the sampling stops before its deadline or count: P(e) to 0.01 %, where
// the bound is tight enough that the rest of the time would buy digits
// few answers need.
const wmbEnough = 1e-4

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
	q := r.proposal()
	rng := rand.New(rand.NewPCG(seed, 0x3b3))
	a := make([]int, len(r.w.card))
	var s1, s2 float64
	drawn := 0
	for n == 0 || drawn < n {
		if drawn%64 == 0 && r.w.stop() {
			break
		}
		if drawn%1024 == 0 && drawn >= wmbMinSamples && s1 > 0 {
			// Enough when even the bound's variance puts the error
			// below wmbEnough: more samples would not show.
			if boundErr(s1/float64(drawn), drawn) < wmbEnough {
				break
			}
		}
		lq := q.logQ(a, rng)
		e := math.Exp(q.logF(a) - lq - ref) // in [0, 1] up to rounding
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
	emp := 2.5 * math.Sqrt(max(s2/nf-m*m, 0)/(nf-1)) / m
	est = wmbEstimate{logZ: ref + math.Log(m), err: max(emp, boundErr(m, drawn)), n: drawn}
	return est, true
}

// boundErr is the ~95 % half-width of ln of the mean of n weights whose
// mean is m times the bound U, from the bound's variance (U/Z − 1)·Z²
// with the mean for Z: 2.5 √((1/m − 1)/n).
func boundErr(m float64, n int) float64 {
	return 2.5 * math.Sqrt(math.Expm1(-math.Log(m))/float64(n))
}

// wmbProposal is a run's importance-sampling proposal, with the strides
// that index its tables and messages at an assignment.
type wmbProposal struct {
	r        *wmbRun
	str      [][]int // str[id]: node id's clique, row-major, its variable last
	tstr     [][]int // tstr[t]: table t's scope
	row, mix []float64
}

// proposal returns the proposal of r's current tables and messages.
func (r *wmbRun) proposal() *wmbProposal {
	q := &wmbProposal{r: r, str: make([][]int, len(r.pl.nodes)), tstr: make([][]int, len(r.w.tabs))}
	for id := range r.pl.nodes {
		q.str[id] = rowStrides(r.pl.nodes[id].card)
	}
	for t, tb := range r.w.tabs {
		q.tstr[t] = rowStrides(tb.card)
	}
	return q
}

// offset returns the index of a's values of vars[:upto] in a table over
// vars with strides str.
func offset(vars, str, a []int, upto int) int {
	o := 0
	for k := range upto {
		o += a[vars[k]] * str[k]
	}
	return o
}

// logQ draws the free variables into a, in the reverse of the
// elimination order, and returns ln q(a); with rng nil it draws nothing
// and returns ln q of a as given.
func (q *wmbProposal) logQ(a []int, rng *rand.Rand) (lq float64) {
	r, w, pl := q.r, q.r.w, q.r.pl
	for i := len(pl.buckets) - 1; i >= 0; i-- {
		x := w.order[i]
		cx := w.card[x]
		q.mix = append(q.mix[:0], make([]float64, cx)...)
		for _, id := range pl.buckets[i] {
			nd := &pl.nodes[id]
			o := offset(nd.clique, q.str[id], a, len(nd.clique)-1)
			q.row = append(q.row[:0], r.theta[id].vals[o:o+cx]...)
			for _, c := range nd.children {
				// The child's message is over its clique without its
				// own variable, x last: its strides are the clique's
				// divided by the child's cardinality.
				cn := &pl.nodes[c]
				ms := cn.clique[:len(cn.clique)-1]
				mo := offset(ms, q.str[c], a, len(ms)-1) / cn.card[len(cn.card)-1]
				for s := range cx {
					q.row[s] += r.fwd[c][mo+s]
				}
			}
			wt := r.weight[id]
			for s := range q.row {
				q.row[s] /= wt
			}
			z := ltLSE(q.row)
			if math.IsInf(z, 0) || math.IsNaN(z) {
				continue // no mass here in this group: the others share it
			}
			for s := range q.row {
				q.mix[s] += wt * math.Exp(q.row[s]-z)
			}
		}
		tot := 0.0
		for _, p := range q.mix {
			tot += p
		}
		if !(tot > 0) {
			// No group has mass here: every completion of the
			// variables drawn has f = 0 (a zero table, or a subtree
			// whose upper bound, and so its sum, is 0). x is drawn
			// uniformly, so that q stays a distribution; the weight
			// is 0 whatever comes next.
			for s := range q.mix {
				q.mix[s] = 1
			}
			tot = float64(cx)
		}
		if rng != nil {
			u := rng.Float64() * tot
			s := 0
			for s < cx-1 && u >= q.mix[s] {
				u -= q.mix[s]
				s++
			}
			a[x] = s
		}
		lq += math.Log(q.mix[a[x]] / tot)
	}
	return lq
}

// logF returns ln of the product of the tables (restricted to the
// evidence) at a.
func (q *wmbProposal) logF(a []int) float64 {
	w := q.r.w
	lf := w.konst
	for t, tb := range w.tabs {
		lf += tb.vals[offset(tb.vars, q.tstr[t], a, len(tb.vars))]
	}
	return lf
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
