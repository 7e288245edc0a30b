package hmm

import (
	"runtime"
	"slices"

	"github.com/pbl-lang/pbl/internal/par"
)

// Stats are the expected sufficient statistics of Baum–Welch's E-step
// over some sequences, under one HMM: the expected counts of initial
// states, of transitions and of emissions given the observations. They
// merge by adding, so sequences may be split into shards whose statistics
// are gathered apart (on other goroutines, processes or machines) under
// the same HMM and merged in any grouping; one MStep of the merged
// statistics is the next HMM.
//
// A Gaussian emission's statistics are about fixed centres, the means of
// the HMM they are gathered under, so that a variance is not the
// difference of two large sums:
//
//	W_kd = Σ_t γ_t(k) [x_td observed],  S_kd = Σ_t γ_t(k) (x_td − c_kd),  Q_kd = Σ_t γ_t(k) (x_td − c_kd)²
//
// and the M-step's mean is c + S/W, its variance Q/W − (S/W)².
type Stats struct {
	K      int
	Init   []float64 // K: Σ over sequences of P(z_0 = k | x)
	Trans  []float64 // K×K: Σ over sequences and steps of P(z_t = i, z_{t+1} = j | x)
	Count  []float64 // categorical: K×M expected symbol counts; Gaussian: K×D, W
	Sum    []float64 // Gaussian: K×D, S (nil for a categorical emission)
	SumSq  []float64 // Gaussian: K×D, Q (nil for a categorical emission)
	Center []float64 // Gaussian: K×D, the centres c (nil for a categorical emission)
	LogLik float64   // Σ over sequences of log P(x)
	Seqs   int64     // the number of sequences added
	Steps  int64     // the number of steps added
}

// NewStats returns empty statistics for h, or h's error if it is not
// valid.
func (h *HMM) NewStats() (*Stats, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return h.newStats(), nil
}

// newStats is NewStats for a valid h.
func (h *HMM) newStats() *Stats {
	st := &Stats{K: h.K, Init: make([]float64, h.K), Trans: make([]float64, h.K*h.K)}
	h.Emit.initStats(st, h.K)
	return st
}

// Merge adds o's sequences to s. Statistics of different shapes, or
// gathered about different centres, are an *Error of kind ErrShape.
func (s *Stats) Merge(o *Stats) error {
	if s.K != o.K || len(s.Init) != len(o.Init) || len(s.Trans) != len(o.Trans) ||
		len(s.Count) != len(o.Count) || len(s.Sum) != len(o.Sum) || len(s.SumSq) != len(o.SumSq) {
		return errorf(ErrShape, "statistics of different shapes")
	}
	if !slices.Equal(s.Center, o.Center) {
		return errorf(ErrShape, "statistics gathered under different means")
	}
	add(s.Init, o.Init)
	add(s.Trans, o.Trans)
	add(s.Count, o.Count)
	add(s.Sum, o.Sum)
	add(s.SumSq, o.SumSq)
	s.LogLik += o.LogLik
	s.Seqs += o.Seqs
	s.Steps += o.Steps
	return nil
}

// add adds src to dst.
func add(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// seqBlock is the number of sequences in a block: the unit of work of an
// E-step and of its partial sums. It is fixed, so that the sums do not
// depend on the number of workers.
const seqBlock = 8

// EStep returns the statistics of seqs under h (the E-step of
// Baum–Welch), on up to workers goroutines (GOMAXPROCS if workers ≤ 0).
// The sequences are taken in fixed blocks of consecutive sequences, each
// block's statistics summed apart and the blocks added in order, so the
// result is the same bit for bit with any number of workers. An invalid
// HMM or sequence, or a sequence that no hidden path explains, is an
// *Error (Seq the first such sequence).
func (h *HMM) EStep(seqs []Seq, workers int) (*Stats, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if err := h.checkSeqs(seqs); err != nil {
		return nil, err
	}
	return h.estep(seqs, workers)
}

// checkSeqs checks every sequence under h's emission kind.
func (h *HMM) checkSeqs(seqs []Seq) error {
	for i, s := range seqs {
		if _, err := h.Len(s); err != nil {
			err.(*Error).Seq = i
			return err
		}
	}
	return nil
}

// estep is EStep on checked sequences.
func (h *HMM) estep(seqs []Seq, workers int) (*Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nb := (len(seqs) + seqBlock - 1) / seqBlock
	blocks := make([]*Stats, nb)
	errs := make([]error, nb)
	e := newEngine(h)
	ws := make([]*work, workers)
	par.Workers(workers, nb, func(wk, b int) {
		st := h.newStats()
		blocks[b] = st
		w := ws[wk]
		for i := b * seqBlock; i < min((b+1)*seqBlock, len(seqs)); i++ {
			s := seqs[i]
			T, _ := h.Len(s)
			w = ensureWork(w, h.K, blockSize(h.K, T), T)
			ll, err := e.smooth(s, T, w, func(t int, g []float64) {
				if t == 0 {
					add(st.Init, g)
				}
				h.Emit.accum(st, s, t, g)
			})
			if err != nil {
				err.(*Error).Seq = i
				errs[b] = err
				break
			}
			st.LogLik += ll
			st.Seqs++
			st.Steps += int64(T)
		}
		for i, v := range w.xiM {
			st.Trans[i] = v * h.Trans[i]
		}
		clear(w.xiM)
		ws[wk] = w
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	total := h.newStats()
	for _, st := range blocks {
		total.Merge(st)
	}
	return total, nil
}

// ensureWork returns w, or new work, with room for blocks of s steps of a
// sequence of t steps, its block size set to s.
func ensureWork(w *work, k, s, t int) *work {
	nb := (t + s - 1) / s
	s = min(s, max(t, 1))
	if w == nil || len(w.m) < s || len(w.ck) < nb*k {
		var old []float64
		if w != nil {
			old = w.xiM
		}
		w = newWork(k, max(s, 64), nb)
		w.xiM = old
		if w.xiM == nil {
			w.xiM = make([]float64, k*k)
		}
	}
	w.s = s
	return w
}
