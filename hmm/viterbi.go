package hmm

import "math"

// Viterbi returns the most probable sequence of hidden states given s and
// its log-probability log P(z_0..z_{T-1}, x_0..x_{T-1}), by the Viterbi
// recursion in log space. Of equally probable paths it returns the one
// whose states are lowest, comparing the last step first. Its
// back-pointers take T×K bytes (4TK when K > 256), which must fit in
// MaxBytes (else a *TooLargeError, before allocating). Observations that
// no hidden path explains are an *Error of kind ErrImpossible. An empty
// sequence has the empty path, of log-probability 0.
func (h *HMM) Viterbi(s Seq) ([]int, float64, error) {
	T, err := h.prepare(s)
	if err != nil {
		return nil, 0, err
	}
	if T == 0 {
		return []int{}, 0, nil
	}
	if h.K <= 256 {
		return viterbi[uint8](h, s, T, 1)
	}
	return viterbi[int32](h, s, T, 4)
}

func viterbi[P uint8 | int32](h *HMM, s Seq, T int, size int64) ([]int, float64, error) {
	k := h.K
	if err := checkBytes("Viterbi's back-pointers", int64(T), int64(k)*size); err != nil {
		return nil, 0, err
	}
	if err := checkBytes("the Viterbi path", int64(T), 8); err != nil {
		return nil, 0, err
	}
	back := make([]P, T*k)
	logAT := make([]float64, k*k) // transposed: logAT[j*k+i] = log A_ij
	for i := range k {
		for j := range k {
			logAT[j*k+i] = math.Log(h.Trans[i*k+j])
		}
	}
	em := h.Emit.prepare(k)
	chunk := min(T, filterChunk)
	lb := make([]float64, chunk*k)
	delta, next := make([]float64, k), make([]float64, k)
	for lo := 0; lo < T; lo += chunk {
		hi := min(lo+chunk, T)
		em.logProbs(s, lo, hi, lb)
		for t := lo; t < hi; t++ {
			b := lb[(t-lo)*k : (t-lo+1)*k]
			if t == 0 {
				for j := range k {
					delta[j] = math.Log(h.Init[j]) + b[j]
				}
				continue
			}
			bp := back[t*k : (t+1)*k]
			for j := range k {
				col := logAT[j*k : (j+1)*k]
				best, arg := math.Inf(-1), 0
				for i, d := range delta {
					if v := d + col[i]; v > best {
						best, arg = v, i
					}
				}
				next[j] = best + b[j]
				bp[j] = P(arg)
			}
			delta, next = next, delta
		}
	}
	best, arg := math.Inf(-1), 0
	for j, d := range delta {
		if d > best {
			best, arg = d, j
		}
	}
	if math.IsInf(best, -1) || math.IsNaN(best) {
		return nil, math.Inf(-1), seqErrorf(ErrImpossible, -1, -1, "the observations have probability zero")
	}
	path := make([]int, T)
	path[T-1] = arg
	for t := T - 1; t > 0; t-- {
		path[t-1] = int(back[t*k+path[t]])
	}
	return path, best, nil
}
