//go:build !js

package approx

import (
	"errors"
	"math"
)

// This file is likelihood weighting on a hybrid network: discrete
// variables with tables or, given real-valued parents, the softmax of
// scores affine in them (logistic regression), and real variables with
// linear Gaussian densities given their discrete and real parents. Such a
// network's posterior is not a mixture of normals when a discrete
// variable has a real parent, and the exact engines do not answer it;
// this sampler does, for the discrete variables' joint posterior, ln of
// the evidence's probability (times the density of the real evidence),
// and the real variables' posterior means and standard deviations.
//
// Each sample draws the variables forward in topological order: an
// unobserved discrete one from its table's row or its softmax given the
// parents drawn, an unobserved real one from its normal given them; an
// observed one keeps its value and multiplies the sample's weight by its
// probability (discrete) or density (real). The estimates are
// self-normalised, with the delta method's errors of weighted.go (smpZ
// standard errors, at least 3/ESS for a probability).
//
// The WebAssembly page leaves this file out (issue 30's size limit): its
// caller, infer/hybridlw.go, is not built there either.
//
// The samples are kept (the states and values of every variable and the
// log weights), so that every joint a query asks for, and every real
// variable's moments, are read off the same samples: the answers of one
// query agree with each other.

// Hybrid is a hybrid network with evidence. Variables are numbered 0..n−1;
// Card[v] is the number of states of a discrete variable, 0 for a real
// one.
type Hybrid struct {
	Card  []int
	Nodes []HybridNode // one per variable
	Order []int        // a topological order of every variable
	Obs   []int        // a discrete variable's observed state, or -1
	Value []float64    // a real variable's observed value, or NaN
	// Fixed marks the variables set by an intervention, do(X=x): X
	// takes its Obs or Value without weighting the sample, its
	// distribution cut off (graph surgery); nil for none.
	Fixed []bool
	// Lik holds, for a discrete variable with likelihood evidence
	// X~[l1, ..., lk], the likelihood of each state, which multiplies
	// the weight of a sample in that state; nil (or a nil entry) for
	// none.
	Lik [][]float64
}

// HybridNode is one variable's distribution given its discrete parents
// Disc (whose configuration u is row-major, the last fastest) and its
// real parents Real (their values x):
//
//   - a discrete variable of k states with no real parents: the table
//     Table[u*k+s];
//   - a discrete variable with real parents: P(s) ∝ exp(Bias[u*k+s] +
//     Σ_j Coef[(u*k+s)*len(Real)+j]·x_j);
//   - a real variable: normal with mean Bias[u] + Σ_j
//     Coef[u*len(Real)+j]·x_j and standard deviation SD[u].
type HybridNode struct {
	Disc, Real []int
	Table      []float64
	Bias, Coef []float64
	SD         []float64
}

// HybridSamples are the weighted samples of a [Hybrid] network.
type HybridSamples struct {
	N       int       // samples drawn
	X       []float64 // N rows of len(Card): a discrete variable's state, a real one's value
	LogW    []float64 // each sample's log weight (−Inf for weight 0)
	Stopped bool      // stopped at the deadline or canceled before the samples asked for

	card []int
	max  float64   // the largest log weight
	w    []float64 // the weights scaled by exp(−max)
	w1   float64   // Σ w
	w2   float64   // Σ w²
}

// hybridMaxValues is the most numbers (samples × variables) the sampler
// keeps: 2^23, 64 MiB.
const hybridMaxValues = 1 << 23

// HybridSample draws weighted samples of h by likelihood weighting:
// Settings.Samples of them (default 65536 without a Deadline; until the
// Deadline with one), at most 2^23 numbers in all. Block k of 256 samples
// comes from the stream (Seed, k), so that the same seed gives the same
// samples. It returns ErrNoAnswer if no block was drawn before the
// Deadline or Cancel, and ErrImpossible when every sample has weight 0.
func HybridSample(h *Hybrid, s Settings) (*HybridSamples, error) {
	n := len(h.Card)
	if len(h.Nodes) != n || len(h.Order) != n || len(h.Obs) != n || len(h.Value) != n {
		panic("approx: HybridSample: slices of different lengths")
	}
	want := smpSampleCount(s)
	limit := hybridMaxValues / max(1, n)
	if want < 0 || want > limit {
		want = limit
	}
	st := smpStopper{s.Deadline, s.Cancel}
	out := &HybridSamples{card: h.Card}
	probs := make([]float64, 0, 16)
	for k := 0; out.N < want; k++ {
		if st.stopped() {
			out.Stopped = true
			break
		}
		rng := smpRNG(s.Seed, smpTagHybrid|uint64(k))
		size := min(smpBlock, want-out.N)
		for range size {
			out.X = append(out.X, make([]float64, n)...)
			row := out.X[len(out.X)-n:]
			lw := 0.0
			for _, v := range h.Order {
				nd := &h.Nodes[v]
				u := 0
				for _, p := range nd.Disc {
					u = u*h.Card[p] + int(row[p])
				}
				if h.Fixed != nil && h.Fixed[v] {
					if h.Card[v] > 0 {
						row[v] = float64(h.Obs[v])
					} else {
						row[v] = h.Value[v]
					}
					continue
				}
				if c := h.Card[v]; c > 0 {
					probs = probs[:c]
					if nd.Real == nil {
						copy(probs, nd.Table[u*c:(u+1)*c])
					} else {
						softmaxTo(probs, nd, u, row)
					}
					if o := h.Obs[v]; o >= 0 {
						lw += math.Log(probs[o])
						if h.Lik != nil && h.Lik[v] != nil {
							lw += math.Log(h.Lik[v][o])
						}
						row[v] = float64(o)
						continue
					}
					x := rng.Float64()
					s, acc := c-1, 0.0
					for i, p := range probs {
						acc += p
						if x < acc {
							s = i
							break
						}
					}
					for probs[s] == 0 && s > 0 { // rounding past the last state of mass
						s--
					}
					row[v] = float64(s)
					if h.Lik != nil && h.Lik[v] != nil {
						lw += math.Log(h.Lik[v][s])
					}
					continue
				}
				mean := nd.Bias[u]
				nr := len(nd.Real)
				for j, p := range nd.Real {
					mean += nd.Coef[u*nr+j] * row[p]
				}
				sd := nd.SD[u]
				if y := h.Value[v]; !math.IsNaN(y) {
					z := (y - mean) / sd
					lw += -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
					row[v] = y
					continue
				}
				row[v] = mean + sd*rng.NormFloat64()
			}
			if math.IsNaN(lw) {
				lw = math.Inf(-1)
			}
			out.LogW = append(out.LogW, lw)
			out.N++
		}
	}
	if out.N == 0 {
		return nil, ErrNoAnswer
	}
	out.max = math.Inf(-1)
	for _, l := range out.LogW {
		out.max = max(out.max, l)
	}
	if math.IsInf(out.max, -1) {
		return nil, ErrImpossible
	}
	out.w = make([]float64, out.N)
	for i, l := range out.LogW {
		w := math.Exp(l - out.max)
		out.w[i] = w
		out.w1 += w
		out.w2 += w * w
	}
	return out, nil
}

// smpTagHybrid tags the streams of HybridSample.
const smpTagHybrid = 4 << 56

// softmaxTo writes into dst the softmax of nd's scores in configuration u
// given the real parents' values in row, shifted by the largest score so
// that none overflows.
func softmaxTo(dst []float64, nd *HybridNode, u int, row []float64) {
	k, nr := len(dst), len(nd.Real)
	hi := math.Inf(-1)
	for s := range k {
		a := nd.Bias[u*k+s]
		for j, p := range nd.Real {
			if c := nd.Coef[(u*k+s)*nr+j]; c != 0 {
				a += c * row[p]
			}
		}
		if math.IsNaN(a) {
			a = math.Inf(-1)
		}
		dst[s] = a
		hi = max(hi, a)
	}
	if math.IsInf(hi, 0) {
		for s, a := range dst {
			dst[s] = 0
			if a == hi {
				dst[s] = 1
			}
		}
		smpNormRow(dst)
		return
	}
	sum := 0.0
	for s, a := range dst {
		dst[s] = math.Exp(a - hi)
		sum += dst[s]
	}
	for s := range dst {
		dst[s] /= sum
	}
}

// ess is the effective sample size, (Σ w)² / Σ w².
func (h *HybridSamples) ess() float64 { return h.w1 * h.w1 / h.w2 }

// Joint estimates P(keep | e), the joint posterior of the discrete
// variables keep, row-major over them (the last fastest), each entry with
// its error (a ~95 % half-width, see weighted.go).
func (h *HybridSamples) Joint(keep []int) (p, errs []float64) {
	size := 1
	for _, v := range keep {
		if h.card[v] == 0 {
			panic("approx: HybridSamples.Joint of a real variable")
		}
		size *= h.card[v]
	}
	n := len(h.card)
	a1 := make([]float64, size)
	a2 := make([]float64, size)
	for i, w := range h.w {
		if w == 0 {
			continue
		}
		row := h.X[i*n : (i+1)*n]
		j := 0
		for _, v := range keep {
			j = j*h.card[v] + int(row[v])
		}
		a1[j] += w
		a2[j] += w * w
	}
	ess := h.ess()
	p = make([]float64, size)
	errs = make([]float64, size)
	for j := range p {
		q := min(1, max(0, a1[j]/h.w1))
		vd := (a2[j]*(1-2*q) + q*q*h.w2) / (h.w1 * h.w1)
		vd = max(vd, q*(1-q)/ess)
		p[j] = q
		errs[j] = min(1, max(smpZ*math.Sqrt(vd), 3/ess, smpErrFloor))
	}
	smpNormRow(p)
	return p, errs
}

// LogZ estimates ln of the mean weight — ln P(e), times the density of
// the real evidence when there is any — and its error (smpZ standard
// errors of the log by the delta method, +Inf below an ESS of 2).
func (h *HybridSamples) LogZ() (logZ, err float64) {
	n := float64(h.N)
	logZ = h.max + math.Log(h.w1) - math.Log(n)
	ess := h.ess()
	if ess < 2 {
		return logZ, math.Inf(1)
	}
	return logZ, max(smpZ*math.Sqrt(max(0, 1/ess-1/n)), smpErrFloor)
}

// ErrDiscreteVar is the error of [HybridSamples.Moments] of a discrete
// variable.
var ErrDiscreteVar = errors.New("approx: the moments of a discrete variable")

// Moments estimates the posterior mean and standard deviation of the
// real variable v, and the error of each (smpZ standard errors: the
// mean's by the delta method, the standard deviation's from the
// variance's by the same method, (Var of (x − mean)²)/(2·sd)).
func (h *HybridSamples) Moments(v int) (mean, meanErr, sd, sdErr float64, err error) {
	if h.card[v] != 0 {
		return 0, 0, 0, 0, ErrDiscreteVar
	}
	n := len(h.card)
	for i, w := range h.w {
		mean += w * h.X[i*n+v]
	}
	mean /= h.w1
	var m2, vm, vv float64
	for i, w := range h.w {
		d := h.X[i*n+v] - mean
		m2 += w * d * d
	}
	m2 /= h.w1
	for i, w := range h.w {
		d := h.X[i*n+v] - mean
		vm += w * w * d * d
		e := d*d - m2
		vv += w * w * e * e
	}
	vm /= h.w1 * h.w1
	vv /= h.w1 * h.w1
	sd = math.Sqrt(m2)
	meanErr = max(smpZ*math.Sqrt(vm), smpErrFloor)
	sdErr = math.Inf(1)
	if sd > 0 {
		sdErr = max(smpZ*math.Sqrt(vv)/(2*sd), smpErrFloor)
	}
	return mean, meanErr, sd, sdErr, nil
}

// Cov estimates the posterior means and covariance (row-major) of the
// real variables vs.
func (h *HybridSamples) Cov(vs []int) (mean, cov []float64) {
	n, k := len(h.card), len(vs)
	mean = make([]float64, k)
	cov = make([]float64, k*k)
	for i, w := range h.w {
		for a, v := range vs {
			mean[a] += w * h.X[i*n+v]
		}
	}
	for a := range mean {
		mean[a] /= h.w1
	}
	for i, w := range h.w {
		if w == 0 {
			continue
		}
		for a, v := range vs {
			da := h.X[i*n+v] - mean[a]
			for b := a; b < k; b++ {
				cov[a*k+b] += w * da * (h.X[i*n+vs[b]] - mean[b])
			}
		}
	}
	for a := range k {
		for b := a; b < k; b++ {
			cov[a*k+b] /= h.w1
			cov[b*k+a] = cov[a*k+b]
		}
	}
	return mean, cov
}
