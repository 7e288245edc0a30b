package dbn

import (
	"math"

	"github.com/pbl-lang/pbl/factor"
)

// Viterbi returns the most probable joint assignment of every discrete
// variable not observed — at every step, and the static variables not
// given — by max-product with back-pointers, reported for the targets:
// path[t][a] is target a's state at step t. Unobserved real variables
// are integrated out (they are leaves). logp is log p(assignment,
// observations), the densities of real values included. Its
// back-pointers take 4 bytes per entry of each step's interface (a
// *TooLargeError beyond MaxBytes, before allocating). Of equally
// probable assignments it returns one; which is not specified.
func (n *Net) Viterbi(s Seq, targets []string) (path [][]int, logp float64, err error) {
	if n.fast != nil && n.fast.covers(n, targets) && n.fast.hidden(s) && n.fast.complete(s) {
		return n.fast.viterbi(n, s, len(targets))
	}
	r, err := n.newRun(s, targets, true)
	if err != nil {
		return nil, 0, err
	}
	T := len(s.Steps)
	var need int64
	for t := range T {
		need += int64(len(r.kinds[n.kindOf(t)].msg[0].Vals))
		if need > MaxBytes/4 {
			return nil, 0, &TooLargeError{What: "Viterbi's back-pointers", Size: sizeOf([]int{T, len(r.kinds[n.kindOf(t)].msg[0].Vals), 4}), Limit: MaxBytes, Unit: "bytes"}
		}
	}
	back := make([]int32, need)
	offs := make([]int, T+1)
	// The statics' prior, maximised over nothing (every discrete static
	// is in the interface): their joint with their values.
	msg, logs, err := r.staticsMsg(s)
	if err != nil {
		return nil, 0, err
	}
	mx := rescale(msg.Vals)
	if !(mx > 0) || math.IsInf(logs, -1) {
		return nil, 0, &ImpossibleError{Step: -1}
	}
	logp = math.Log(mx) + logs
	for t, obs := range s.Steps {
		ks := r.kinds[n.kindOf(t)]
		if logs, err = r.inputs(ks, msg, obs); err != nil {
			return nil, 0, err
		}
		if ks.fold == nil {
			u, card := factor.UnionScope(ks.p.out, ks.fs[:1+len(ks.p.cpts)])
			ks.fold, ks.foldC = u[len(ks.p.out):], card[len(ks.p.out):]
		}
		dst := ks.msg[t&1]
		offs[t+1] = offs[t] + len(dst.Vals)
		factor.Combine(r.k, dst, ks.fs, factor.OpMax, back[offs[t]:offs[t+1]])
		mx := rescale(dst.Vals)
		if !(mx > 0) || math.IsInf(logs, -1) {
			return nil, 0, &ImpossibleError{Step: t}
		}
		logp += math.Log(mx) + logs
		msg = dst
	}
	// The best final interface, then back through the steps.
	vals := make([]int, len(n.local))
	best := 0
	for i, x := range msg.Vals {
		if x > msg.Vals[best] {
			best = i
		}
	}
	a := msg.Assignment(make([]int, len(msg.Vars)), best)
	for i, v := range msg.Vars {
		vals[v] = a[i]
	}
	path = make([][]int, T)
	for t := T - 1; t >= 0; t-- {
		ks := r.kinds[n.kindOf(t)]
		idx := 0
		for i, v := range ks.p.out {
			idx += vals[v] * ks.msg[0].Stride[i]
		}
		f := int(back[offs[t]+idx])
		for i := len(ks.fold) - 1; i >= 0; i-- {
			vals[ks.fold[i]] = f % ks.foldC[i]
			f /= ks.foldC[i]
		}
		path[t] = make([]int, len(r.tg))
		for j, x := range r.tg {
			if x.static {
				path[t][j] = vals[x.i]
			} else {
				path[t][j] = vals[n.tlocal(x.i, t)]
			}
		}
	}
	return path, logp, nil
}

// rescale divides xs by their largest and returns it.
func rescale(xs []float64) float64 {
	mx := 0.0
	for _, x := range xs {
		mx = max(mx, x)
	}
	if mx > 0 {
		for i := range xs {
			xs[i] /= mx
		}
	}
	return mx
}
