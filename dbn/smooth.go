package dbn

import (
	"math"

	"github.com/pbl-lang/pbl/factor"
)

// Smooth calls emit(t, post) for t from T-1 down to 0 (the last step
// first, as hmm.SmoothEach), post[a] being P(target_a at step t | every
// observation of the sequence and the static values). It works by
// checkpointing: a forward pass keeps the interface's message before
// each block of ⌈√T⌉ steps, and the backward pass recomputes each
// block's forward joints from its checkpoint, so that its memory is
// O(√T) messages and joints (a *TooLargeError beyond MaxBytes, before
// allocating). post is valid only during the call; an error from emit
// stops the run and is returned.
func (n *Net) Smooth(s Seq, targets []string, emit func(t int, post [][]float64) error) error {
	if n.fast != nil && n.fast.covers(n, targets) && n.fast.hidden(s) {
		return n.fast.smooth(n, s, len(targets), emit)
	}
	r, err := n.newRun(s, targets, true)
	if err != nil {
		return err
	}
	T := len(s.Steps)
	if T == 0 {
		_, _, err := r.prior(s)
		return err
	}
	S := max(int(math.Ceil(math.Sqrt(float64(T)))), 1)
	nb := (T + S - 1) / S
	maxMsg, maxJ := 0, 0
	for _, ks := range r.kinds {
		maxMsg = max(maxMsg, len(ks.msg[0].Vals))
		maxJ = max(maxJ, len(ks.j.Vals))
	}
	need := int64(nb)*int64(maxMsg) + int64(S)*int64(maxJ)
	if need > MaxBytes/8 {
		return &TooLargeError{What: "smoothing's checkpoints", Size: need * 8, Limit: MaxBytes, Unit: "bytes"}
	}
	// The forward pass, keeping the message before each block.
	ckpt := make([][]float64, nb)
	msg, _, err := r.prior(s)
	if err != nil {
		return err
	}
	for t, obs := range s.Steps {
		if t%S == 0 {
			ckpt[t/S] = append([]float64(nil), msg.Vals...)
		}
		if msg, _, err = r.forward(t, msg, obs); err != nil {
			return err
		}
	}
	// The backward pass, block by block.
	beta := make([][2]*factor.Factor, len(r.kinds))
	for k, ks := range r.kinds {
		beta[k][0] = factor.New(ks.p.out, n.cards(ks.p.out))
		beta[k][1] = factor.New(ks.p.out, n.cards(ks.p.out))
	}
	b := beta[n.kindOf(T-1)][(T-1)&1]
	for i := range b.Vals {
		b.Vals[i] = 1
	}
	joints := make([][]float64, S)
	for blk := nb - 1; blk >= 0; blk-- {
		lo, hi := blk*S, min(blk*S+S, T)
		prev := view(r.kinds[n.kindOf(lo-1)].msg[0], ckpt[blk])
		for t := lo; t < hi; t++ {
			if prev, _, err = r.forward(t, prev, s.Steps[t]); err != nil {
				return err
			}
			joints[t-lo] = append(joints[t-lo][:0], r.kinds[n.kindOf(t)].j.Vals...)
		}
		for t := hi - 1; t >= lo; t-- {
			ks := r.kinds[n.kindOf(t)]
			j := view(ks.j, joints[t-lo])
			factor.Combine(r.k, j, []*factor.Factor{j, b}, factor.OpSum, nil)
			normalise(j.Vals)
			if emit != nil {
				if err := emit(t, r.posts(ks, j)); err != nil {
					return err
				}
			}
			if t == 0 {
				break
			}
			if _, err := r.inputs(ks, nil, s.Steps[t]); err != nil {
				return err
			}
			nb := beta[n.kindOf(t-1)][(t-1)&1]
			factor.Combine(r.k, nb, append(ks.fs, b), factor.OpSum, nil)
			normalise(nb.Vals)
			b = nb
		}
	}
	return nil
}

// view returns a factor of f's scope over the values vals.
func view(f *factor.Factor, vals []float64) *factor.Factor {
	g := *f
	g.Vals = vals
	return &g
}
