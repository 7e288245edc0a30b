package learn

import (
	"errors"
	"math"

	"github.com/pbl-lang/pbl/hmm"
	"github.com/pbl-lang/pbl/ir"
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

// hmmShape is a model's hidden Markov model: its groups and the
// sequences as package hmm's.
type hmmShape struct {
	init, trans int   // the groups of P(X[0]) and P(X[t] | X[t-1])
	emit        []int // the emissions' groups: one table, or Gaussians
	k           int   // X's states
	gauss       bool
	seqs        []hmm.Seq
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
	sh.seqs = make([]hmm.Seq, len(r.seqs))
	d := len(ys)
	for q, sq := range r.seqs {
		if sh.gauss {
			xs := make([]float64, len(sq.Steps)*d)
			for t, row := range sq.Steps {
				for j, i := range ys {
					xs[t*d+j] = row[i]
				}
			}
			sh.seqs[q].X = xs
			continue
		}
		sym := make([]int, len(sq.Steps))
		for t, row := range sq.Steps {
			sym[t] = int(row[ys[0]])
		}
		sh.seqs[q].Sym = sym
	}
	return sh
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

// hmmExpect is the E-step at m by package hmm.
func (r *seqRun) hmmExpect(m *ir.Model, ps []seqParams) (*seqStats, error) {
	sh := r.hmm
	h := sh.hmm(r, ps)
	hs, err := h.EStep(sh.seqs, r.opt.Workers)
	if err != nil {
		var he *hmm.Error
		if errors.As(err, &he) && errors.Is(err, hmm.ErrImpossible) && he.Seq >= 0 {
			return nil, &impossibleRow{line: r.seqs[he.Seq].Line, index: he.Seq, what: "sequence"}
		}
		return nil, err
	}
	st := r.newStats(ps)
	copy(st.groups[sh.init], hs.Init)
	copy(st.groups[sh.trans], hs.Trans)
	if !sh.gauss {
		copy(st.groups[sh.emit[0]], hs.Count)
	} else {
		d := len(sh.emit)
		for j, gi := range sh.emit {
			n := st.groups[gi]
			c := make([]float64, sh.k)
			for k := range sh.k {
				l := k*d + j
				n[3*k], n[3*k+1], n[3*k+2] = hs.Count[l], hs.Sum[l], hs.SumSq[l]
				c[k] = hs.Center[l]
			}
			st.center[gi] = c
		}
	}
	st.ll = hs.LogLik
	if math.IsNaN(st.ll) {
		return nil, errors.New("learn: the hmm E-step's log-likelihood is NaN")
	}
	return st, nil
}
