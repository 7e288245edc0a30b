package dbn

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pbl-lang/pbl/hmm"
	"github.com/pbl-lang/pbl/ir"
)

// fastHMM is a net that is a plain hidden Markov model: one hidden
// discrete chain X (X[0] without parents, X[t] given X[t-1]), every
// other template variable a child of X[t] alone with the same numbers at
// every slice, all categorical (at most one) or all Gaussian, and no
// static variable. Package hmm answers it.
type fastHMM struct {
	x    int   // the chain's template variable
	emis []int // the emissions' template variables
	cat  bool  // the emission is one categorical variable (or none)
	h    *hmm.HMM
}

// fastPath returns n's hidden Markov model, or nil if n is not one.
func (n *Net) fastPath() *fastHMM {
	m, t := n.m, n.m.Time
	if n.nS != 0 || n.order != 1 {
		return nil
	}
	sl := func(i, s int) ir.VarID { return t.Vars[i].Slices[s] }
	x := -1
	for i := range t.Vars {
		if !n.real[i] && slices.Equal(m.Parents[sl(i, 1)], []ir.VarID{sl(i, 0)}) && len(m.Parents[sl(i, 0)]) == 0 {
			if x >= 0 {
				return nil
			}
			x = i
		}
	}
	if x < 0 {
		return nil
	}
	f := &fastHMM{x: x, cat: true}
	K := n.card[x]
	h := &hmm.HMM{K: K, Init: m.Factor(sl(x, 0)).Vals, Trans: m.Factor(sl(x, 1)).Vals}
	var mean, vr []float64
	var prob []float64
	M := 1
	for i := range t.Vars {
		if i == x {
			continue
		}
		if !slices.Equal(m.Parents[sl(i, 1)], []ir.VarID{sl(x, 1)}) || !slices.Equal(m.Parents[sl(i, 0)], []ir.VarID{sl(x, 0)}) {
			return nil
		}
		f.emis = append(f.emis, i)
		if n.real[i] {
			g0, g1 := m.Gaussian(sl(i, 0)), m.Gaussian(sl(i, 1))
			if !slices.Equal(g0.Mean, g1.Mean) || !slices.Equal(g0.SD, g1.SD) {
				return nil
			}
			f.cat = false
			continue
		}
		t0, t1 := m.Factor(sl(i, 0)), m.Factor(sl(i, 1))
		if !slices.Equal(t0.Vals, t1.Vals) {
			return nil
		}
		prob, M = t1.Vals, n.card[i]
	}
	switch {
	case f.cat && len(f.emis) <= 1:
		if prob == nil {
			prob = make([]float64, K)
			for k := range prob {
				prob[k] = 1
			}
		}
		h.Emit = &hmm.Categorical{M: M, Prob: prob}
	case !f.cat:
		D := len(f.emis)
		mean, vr = make([]float64, K*D), make([]float64, K*D)
		for d, i := range f.emis {
			if !n.real[i] {
				return nil
			}
			g := m.Gaussian(sl(i, 1))
			for k := range K {
				mean[k*D+d], vr[k*D+d] = g.Mean[k], g.SD[k]*g.SD[k]
			}
		}
		h.Emit = &hmm.Gaussian{D: D, Mean: mean, Var: vr}
	default:
		return nil
	}
	if h.Validate() != nil {
		return nil
	}
	f.h = h
	return f
}

// covers reports whether every target is the chain.
func (f *fastHMM) covers(n *Net, targets []string) bool {
	for _, x := range targets {
		if x != n.names[f.x] {
			return false
		}
	}
	return true
}

// hidden reports whether s never observes the chain (package hmm's
// chain is hidden).
func (f *fastHMM) hidden(s Seq) bool {
	for _, row := range s.Steps {
		if f.x < len(row) && row[f.x] != -1 {
			return false
		}
	}
	return true
}

// complete reports whether s observes the categorical emission at every
// step: then the Viterbi path, which maximises over a missing
// observation where package hmm sums it out, is package hmm's.
func (f *fastHMM) complete(s Seq) bool {
	if !f.cat || len(f.emis) == 0 {
		return true
	}
	for _, row := range s.Steps {
		if row[f.emis[0]] < 0 {
			return false
		}
	}
	return true
}

// seq converts s to package hmm's sequence.
func (f *fastHMM) seq(n *Net, s Seq) (hmm.Seq, error) {
	if err := n.check(s); err != nil {
		return hmm.Seq{}, err
	}
	T := len(s.Steps)
	if f.cat {
		sym := make([]int, T)
		for t, row := range s.Steps {
			sym[t] = -1
			if len(f.emis) == 1 {
				sym[t] = int(row[f.emis[0]])
			}
		}
		return hmm.Seq{Sym: sym}, nil
	}
	D := len(f.emis)
	x := make([]float64, T*D)
	for t, row := range s.Steps {
		for d, i := range f.emis {
			x[t*D+d] = row[i]
		}
	}
	return hmm.Seq{X: x}, nil
}

// fromHMM turns package hmm's errors into this package's.
func fromHMM(err error) error {
	var e *hmm.Error
	if errors.As(err, &e) && errors.Is(err, hmm.ErrImpossible) {
		return &ImpossibleError{Step: e.Step}
	}
	if errors.Is(err, hmm.ErrTooLarge) {
		var t *hmm.TooLargeError
		if errors.As(err, &t) {
			return &TooLargeError{What: t.What, Size: t.Bytes, Limit: t.Limit, Unit: "bytes"}
		}
	}
	if err != nil {
		return fmt.Errorf("%v: %w", err, ErrSequence)
	}
	return nil
}

func (f *fastHMM) emitAll(n *Net, targets int, emit func(int, [][]float64) error) (func(int, []float64), *error) {
	var first error
	post := make([][]float64, targets)
	return func(t int, p []float64) {
		if first != nil || emit == nil {
			return
		}
		for a := range post {
			post[a] = p
		}
		first = emit(t, post)
	}, &first
}

func (f *fastHMM) filter(n *Net, s Seq, targets int, emit func(int, [][]float64) error) error {
	q, err := f.seq(n, s)
	if err != nil {
		return err
	}
	fn, first := f.emitAll(n, targets, emit)
	if _, err := f.h.Filter(q, fn); err != nil {
		return fromHMM(err)
	}
	return *first
}

func (f *fastHMM) smooth(n *Net, s Seq, targets int, emit func(int, [][]float64) error) error {
	q, err := f.seq(n, s)
	if err != nil {
		return err
	}
	fn, first := f.emitAll(n, targets, emit)
	if _, err := f.h.SmoothEach(q, fn); err != nil {
		return fromHMM(err)
	}
	return *first
}

func (f *fastHMM) loglik(n *Net, s Seq) (float64, error) {
	q, err := f.seq(n, s)
	if err != nil {
		return 0, err
	}
	ll, err := f.h.LogLik(q)
	if err != nil {
		return 0, fromHMM(err)
	}
	return ll, nil
}

func (f *fastHMM) predict(n *Net, s Seq, targets, steps int) ([][][]float64, error) {
	q, err := f.seq(n, s)
	if err != nil {
		return nil, err
	}
	p, err := f.h.Predict(q, 1)
	if err != nil {
		return nil, fromHMM(err)
	}
	K := f.h.K
	out := make([][][]float64, steps)
	for k := range steps {
		if k > 0 {
			next := make([]float64, K)
			for i, pi := range p {
				for j, a := range f.h.Trans[i*K : (i+1)*K] {
					next[j] += pi * a
				}
			}
			normalise(next)
			p = next
		}
		out[k] = make([][]float64, targets)
		for a := range out[k] {
			out[k][a] = slices.Clone(p)
		}
	}
	return out, nil
}

func (f *fastHMM) viterbi(n *Net, s Seq, targets int) ([][]int, float64, error) {
	q, err := f.seq(n, s)
	if err != nil {
		return nil, 0, err
	}
	z, lp, err := f.h.Viterbi(q)
	if err != nil {
		return nil, 0, fromHMM(err)
	}
	path := make([][]int, len(z))
	for t, k := range z {
		path[t] = make([]int, targets)
		for a := range path[t] {
			path[t][a] = k
		}
	}
	return path, lp, nil
}
