package approx

import (
	"math"
)

// smpDefaultSamples is the number of samples of likelihood weighting and
// importance sampling when Settings give neither Samples nor a Deadline.
const smpDefaultSamples = 1 << 16

// LikelihoodWeighting estimates p's marginals and ln P(e) by likelihood
// weighting (Fung & Chang 1989; Shachter & Peot 1989), the plain baseline
// of the samplers: each sample is drawn forward in p.BN.Order from the
// CPTs, the observed variables clamped to their states, and weighted by
// the product of the CPT entries of the observed variables and of the
// extra factors (p.Likelihood, and any factor that is not a CPT), in log
// space. It needs a Bayesian network (ErrNotBayesNet otherwise).
//
// The marginals are self-normalised: p̂(v = s) = Σ w·1[v = s] / Σ w, and
// ln Z = ln of the mean weight (ln P(e), the likelihood factors
// included). Result.Err and LogZErr are ~95 % half-widths (2.5 standard
// errors of the delta method with the effective sample size, see
// weighted.go); they assume the weights' spread is seen, which fails when
// the evidence is very unlikely: use [Importance] then. LogZLo and LogZHi
// are −Inf and +Inf (no bound).
//
// Settings.Samples is the number of samples (default 65536, or until the
// Deadline when one is set). The samples are drawn in blocks of 256, block
// k from the stream (Seed, k), so that the numbers are the same on any
// number of Workers. At the Deadline or Cancel it returns the estimate of
// the blocks drawn (Stopped set), or ErrNoAnswer if there is none; it
// returns ErrImpossible when every sample has weight 0 — the evidence is
// then impossible, or too unlikely for likelihood weighting to reach (a
// finding that the CPTs' deterministic zeros rule out for most of the
// samples): [Importance] and [Gibbs] reach such evidence. Result.Iterations
// is the number of samples; Converged is always false (there is no test
// of convergence, only the error estimates).
func LikelihoodWeighting(p *Problem, s Settings) (*Result, error) {
	f, err := newFwdNet(p)
	if err != nil {
		return nil, err
	}
	acc, stopped := f.run(s, nil, smpTagLW, smpSampleCount(s))
	r := &Result{Engine: "lw", Iterations: acc.n, Stopped: stopped}
	if err := acc.result(f, r); err != nil {
		return nil, err
	}
	return r, nil
}

// smpSampleCount returns the number of samples Settings ask for: Samples,
// or the default without a deadline, or -1 (until stopped).
func smpSampleCount(s Settings) int {
	switch {
	case s.Samples > 0:
		return s.Samples
	case s.Deadline.IsZero():
		return smpDefaultSamples
	}
	return -1
}

// smpScratch is one worker's buffers for a block of forward samples.
type smpScratch struct {
	lw  []float64
	xs  []int // smpBlock samples of len(card) states
	ids []int // the samples' table offsets (learning only), like xs
	acc *wacc
}

// run draws n samples (n < 0: until stopped) from the proposal prop (nil:
// the CPTs) on the streams tag|k and returns their sums and whether it was
// stopped.
func (f *fwdNet) run(s Settings, prop *smpProp, tag uint64, n int) (*wacc, bool) {
	workers := smpWorkers(s)
	st := smpStopper{s.Deadline, s.Cancel}
	sc := make([]smpScratch, workers)
	nv := len(f.card)
	for j := range sc {
		sc[j] = smpScratch{lw: make([]float64, smpBlock), xs: make([]int, smpBlock*nv), acc: newWacc(f.total)}
	}
	total := newWacc(f.total)
	blocks := -1
	if n >= 0 {
		blocks = (n + smpBlock - 1) / smpBlock
	}
	draw := func(k, j int) bool {
		size := smpBlock
		if n >= 0 {
			size = min(smpBlock, n-k*smpBlock)
		}
		b := &sc[j]
		if !f.drawBlock(s.Seed, tag|uint64(k), prop, st, b.lw[:size], b.xs, nil) {
			return false
		}
		b.acc.reset()
		b.acc.addBlock(f, b.lw[:size], b.xs)
		return true
	}
	_, stopped := smpRunBlocks(workers, 0, blocks, st, draw, func(j int) { total.merge(sc[j].acc) })
	return total, stopped
}

// drawBlock draws len(lw) samples from the stream (seed, stream) into lw
// and xs (and ids if not nil), checking st every 16 samples; false if
// stopped before the end.
func (f *fwdNet) drawBlock(seed, stream uint64, prop *smpProp, st smpStopper, lw []float64, xs, ids []int) bool {
	rng := smpRNG(seed, stream)
	nv := len(f.card)
	for i := range lw {
		if i%16 == 15 && st.stopped() {
			return false
		}
		x := xs[i*nv : (i+1)*nv]
		var id []int
		if ids != nil {
			id = ids[i*nv : (i+1)*nv]
		}
		lw[i] = f.sample(rng, prop, x, id)
		if math.IsNaN(lw[i]) {
			lw[i] = math.Inf(-1)
		}
	}
	return true
}
