package learn

import (
	"errors"
	"math"

	"github.com/pbl-lang/pbl/hmm"
)

// This file is LearnSequences's fast path for a hidden Markov model: one
// hidden discrete time-indexed variable X, P(X[0]) and P(X[t] | X[t-1]),
// and observed children of X[t] alone, either one discrete one (a
// categorical emission) or real ones (a Gaussian emission, one dimension
// each), and no static variable. Its E-step is package hmm's
// forward–backward (hmm.HMM.EStep, on every core, the same bits on any
// number), whose statistics are the groups' own: the expected initial
// states, transitions and emissions, the Gaussian ones about the current
// means. The M-step, the checks and the stopping rule are the general
// path's, so both paths give the same numbers.

// hmmShape is a model's hidden Markov model: its groups.
type hmmShape struct {
	init, trans int   // the groups of P(X[0]) and P(X[t] | X[t-1])
	emit        []int // the emissions' groups: one table, or Gaussians
	ys          []int // their time-indexed variables
	k           int   // X's states
	gauss       bool
}

// hmmShape returns r's model as a hidden Markov model, or nil if it is
// not one.
func (r *seqRun) hmmShape() *hmmShape {
	m := r.m
	tvs := m.Time.Vars
	if len(r.statics) > 0 || len(r.hidden) != 1 {
		return nil
	}
	x := -1
	for i, tv := range tvs {
		if tv.Slices[0] == r.hidden[0] {
			x = i
		}
	}
	if x < 0 {
		return nil
	}
	sh := &hmmShape{init: -1, trans: -1, k: len(m.Vars[tvs[x].Slices[0]].States)}
	var ys []int
	for gi, g := range r.groups {
		switch {
		case g.tv == x && g.slice == 0:
			if len(g.parents) != 0 {
				return nil
			}
			sh.init = gi
		case g.tv == x && g.slice < 0:
			last := g.vars[len(g.vars)-1]
			if len(g.vars) != len(tvs[x].Slices)-1 || len(g.parents) != 1 || m.Parents[last][0] != tvs[x].Slices[len(tvs[x].Slices)-2] {
				return nil
			}
			sh.trans = gi
		case g.tv == x:
			return nil
		default:
			// A child of X[t] in every slice.
			if g.slice >= 0 || len(g.parents) != 1 || len(g.vars) != len(tvs[g.tv].Slices) {
				return nil
			}
			for s, v := range g.vars {
				if m.Parents[v][0] != tvs[x].Slices[s] {
					return nil
				}
			}
			if g.real {
				sh.gauss = true
			}
			sh.emit = append(sh.emit, gi)
			ys = append(ys, g.tv)
		}
	}
	if sh.init < 0 || sh.trans < 0 || len(sh.emit) == 0 {
		return nil
	}
	for _, gi := range sh.emit {
		if r.groups[gi].real != sh.gauss {
			return nil
		}
	}
	if !sh.gauss && len(sh.emit) != 1 {
		return nil
	}
	sh.ys = ys
	return sh
}

// convert returns seqs as package hmm's sequences.
func (sh *hmmShape) convert(seqs []Seq) []hmm.Seq {
	out := make([]hmm.Seq, len(seqs))
	d := len(sh.ys)
	for q, sq := range seqs {
		if sh.gauss {
			xs := make([]float64, len(sq.Steps)*d)
			for t, row := range sq.Steps {
				for j, i := range sh.ys {
					xs[t*d+j] = row[i]
				}
			}
			out[q].X = xs
			continue
		}
		sym := make([]int, len(sq.Steps))
		for t, row := range sq.Steps {
			sym[t] = int(row[sh.ys[0]])
		}
		out[q].Sym = sym
	}
	return out
}

// hmm returns the numbers ps as an HMM.
func (sh *hmmShape) hmm(r *seqRun, ps []seqParams) *hmm.HMM {
	h := &hmm.HMM{K: sh.k, Init: ps[sh.init].vals, Trans: ps[sh.trans].vals}
	if !sh.gauss {
		h.Emit = &hmm.Categorical{M: r.groups[sh.emit[0]].k, Prob: ps[sh.emit[0]].vals}
		return h
	}
	d := len(sh.emit)
	g := &hmm.Gaussian{D: d, Mean: make([]float64, sh.k*d), Var: make([]float64, sh.k*d)}
	for j, gi := range sh.emit {
		for k := range sh.k {
			g.Mean[k*d+j] = ps[gi].mean[k]
			g.Var[k*d+j] = ps[gi].sd[k] * ps[gi].sd[k]
		}
	}
	h.Emit = g
	return h
}

// hmmExpect adds to st the statistics of seqs (hs, as package hmm's),
// the data's sequences first, first+1, ..., under h (the numbers ps) by
// package hmm. Its Gaussian statistics are about h's means, ps's.
func (r *seqRun) hmmExpect(h *hmm.HMM, seqs []Seq, hs []hmm.Seq, first int, st *SeqStats) error {
	sh := r.hmm
	es, err := h.EStep(hs, r.opt.Workers)
	if err != nil {
		var he *hmm.Error
		if errors.As(err, &he) && errors.Is(err, hmm.ErrImpossible) && he.Seq >= 0 {
			return &impossibleRow{line: seqs[he.Seq].Line, file: seqs[he.Seq].File, index: first + he.Seq, what: "sequence"}
		}
		return err
	}
	if math.IsNaN(es.LogLik) {
		return errors.New("learn: the hmm E-step's log-likelihood is NaN")
	}
	addTo(st.Groups[sh.init], es.Init)
	addTo(st.Groups[sh.trans], es.Trans)
	if !sh.gauss {
		addTo(st.Groups[sh.emit[0]], es.Count)
	} else {
		d := len(sh.emit)
		for j, gi := range sh.emit {
			n := st.Groups[gi]
			for k := range sh.k {
				l := k*d + j
				n[3*k] += es.Count[l]
				n[3*k+1] += es.Sum[l]
				n[3*k+2] += es.SumSq[l]
			}
		}
	}
	st.LogLik += es.LogLik
	for _, sq := range seqs {
		st.Steps += int64(len(sq.Steps))
	}
	st.Seqs += int64(len(seqs))
	return nil
}
