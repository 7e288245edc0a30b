package dbn

import (
	"fmt"
	"math"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// Seq is one sequence's evidence. Steps[t][i] is the value of the
// template variable Net.Vars()[i] at step t: a state's index for a
// discrete variable (-1 when missing), a real value for a real one (NaN
// when missing). Static[j] is the value of Net.Statics()[j] the same way
// (nil: every static unknown). This is pbl.Sequence's layout.
type Seq struct {
	Steps  [][]float64
	Static []float64
}

// target is a resolved target: a template variable or a static one.
type target struct {
	static bool
	i      int
	card   int
}

// kindState is one kind of step's buffers within one call.
type kindState struct {
	p     *plan
	j     *factor.Factor    // the step's joint over out ∪ the step's targets
	msg   [2]*factor.Factor // the interface after the step, by parity of the step
	ind   []*factor.Factor  // per template variable (statics for the prior): the evidence indicator, nil for a real one
	lik   []*factor.Factor  // per density: its likelihood over its parents
	marg  []*factor.Factor  // per target: its marginal
	fs    []*factor.Factor  // the inputs of the step's product
	fold  []factor.Var      // the variables a max-product step folds, in Combine's order (Viterbi)
	foldC []int
	one   []*factor.Factor // {j}: the input of the marginals
	lnorm [][]float64      // per density: ir.LogNorm of each configuration's SD
	logl  [][]float64      // per density: the log densities' buffer
}

// run is one call's state: the net, the targets, every kind's buffers.
type run struct {
	n     *Net
	k     *factor.Kernel
	tg    []target
	kinds []*kindState
	post  [][]float64
}

// resolve returns the targets named.
func (n *Net) resolve(names []string, discrete bool) ([]target, error) {
	out := make([]target, len(names))
	for j, name := range names {
		found := false
		for i, x := range n.names {
			if x == name {
				out[j], found = target{i: i, card: n.card[i]}, true
				if n.real[i] && discrete {
					return nil, fmt.Errorf("%s is real-valued: it has no states to report: %w", ir.Quote(name), ErrTarget)
				}
			}
		}
		for i, x := range n.snames {
			if x == name {
				out[j], found = target{static: true, i: i, card: n.scard[i]}, true
				if n.sreal[i] && discrete {
					return nil, fmt.Errorf("%s is real-valued: it has no states to report: %w", ir.Quote(name), ErrTarget)
				}
			}
		}
		if !found {
			msg := fmt.Sprintf("%s is not a variable of the model", ir.Quote(name))
			if s := spell.Nearest(name, append(n.Vars(), n.snames...)); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", ir.Quote(s))
			}
			return nil, fmt.Errorf("%s: %w", msg, ErrTarget)
		}
	}
	return out, nil
}

// check checks a sequence's shape and values.
func (n *Net) check(s Seq) error {
	value := func(x float64, real bool, card int) bool {
		if real {
			return !math.IsInf(x, 0)
		}
		return x == math.Trunc(x) && x >= -1 && x < float64(card)
	}
	if s.Static != nil {
		if len(s.Static) != n.nS {
			return fmt.Errorf("%d static values for %d static variables: %w", len(s.Static), n.nS, ErrSequence)
		}
		for j, x := range s.Static {
			if !value(x, n.sreal[j], n.scard[j]) {
				return fmt.Errorf("static %s: %v is not a value of it: %w", ir.Quote(n.snames[j]), x, ErrSequence)
			}
		}
	}
	for t, row := range s.Steps {
		if len(row) != len(n.names) {
			return fmt.Errorf("step %d has %d values for %d time-indexed variables: %w", t, len(row), len(n.names), ErrSequence)
		}
		for i, x := range row {
			if !value(x, n.real[i], n.card[i]) {
				return fmt.Errorf("step %d: %v is not a value of %s: %w", t, x, ir.Quote(n.names[i]), ErrSequence)
			}
		}
	}
	return nil
}

// newRun checks s and the targets and makes the buffers of a call.
func (n *Net) newRun(s Seq, names []string, discrete bool) (*run, error) {
	if err := n.check(s); err != nil {
		return nil, err
	}
	tg, err := n.resolve(names, discrete)
	if err != nil {
		return nil, err
	}
	r := &run{n: n, k: factor.NewKernel(nil), tg: tg, post: make([][]float64, len(tg))}
	for _, p := range n.kinds {
		ks := &kindState{p: p}
		jv := append([]factor.Var(nil), p.out...)
		if p.slice >= 0 {
			for _, x := range tg {
				v := factor.Var(x.i)
				if !x.static {
					if n.real[x.i] {
						continue
					}
					v = n.tlocal(x.i, p.slice)
				} else if n.sreal[x.i] {
					continue
				}
				if factor.IndexOf(jv, v) < 0 {
					jv = append(jv, v)
				}
			}
		}
		ks.j = factor.New(jv, n.cards(jv))
		ks.msg[0] = factor.New(p.out, n.cards(p.out))
		ks.msg[1] = factor.New(p.out, n.cards(p.out))
		if p.slice < 0 {
			for j := range n.nS {
				ks.ind = append(ks.ind, indicator(factor.Var(j), n.scard[j], n.sreal[j]))
			}
		} else {
			for i := range n.names {
				ks.ind = append(ks.ind, indicator(n.tlocal(i, p.slice), n.card[i], n.real[i]))
			}
		}
		for _, d := range p.gauss {
			ks.lik = append(ks.lik, factor.New(d.parents, d.card))
			ln := make([]float64, len(d.d.SD))
			for u, sd := range d.d.SD {
				ln[u] = ir.LogNorm(sd)
			}
			ks.lnorm = append(ks.lnorm, ln)
			ks.logl = append(ks.logl, make([]float64, len(d.d.SD)))
		}
		ks.one = []*factor.Factor{ks.j}
		for _, x := range tg {
			v := factor.Var(x.i)
			if !x.static {
				v = n.tlocal(x.i, max(p.slice, 0))
			}
			ks.marg = append(ks.marg, factor.New([]factor.Var{v}, []int{max(x.card, 1)}))
		}
		r.kinds = append(r.kinds, ks)
	}
	return r, nil
}

// indicator returns the evidence factor of a discrete local variable, or
// nil for a real one.
func indicator(v factor.Var, card int, real bool) *factor.Factor {
	if real {
		return nil
	}
	return factor.New([]factor.Var{v}, []int{card})
}

// inputs sets ks.fs to the step's factors given its observations obs
// (a step's values, or the static values; nil: none), prev the
// interface before it (nil for the prior), and returns the log of the
// densities' scale taken off their likelihoods.
func (r *run) inputs(ks *kindState, prev *factor.Factor, obs []float64) (float64, error) {
	fs := ks.fs[:0]
	if prev != nil {
		fs = append(fs, prev)
	}
	fs = append(fs, ks.p.cpts...)
	logs := 0.0
	for i, f := range ks.ind {
		if f == nil || obs == nil || obs[i] < 0 {
			continue
		}
		clear(f.Vals)
		f.Vals[int(obs[i])] = 1
		fs = append(fs, f)
	}
	for j, d := range ks.p.gauss {
		if obs == nil || math.IsNaN(obs[d.v]) {
			continue
		}
		// Discrete parents only (Compile checks): the densities of the
		// parents' configurations, as ir.LogDensities computes them.
		l := ks.logl[j]
		shift := ir.NormalLogDensities(obs[d.v], d.d.Mean, d.d.SD, ks.lnorm[j], l)
		mx := math.Inf(-1)
		for _, x := range l {
			mx = max(mx, x)
		}
		if math.IsInf(mx, 0) || math.IsNaN(mx) {
			return math.Inf(-1), nil
		}
		f := ks.lik[j]
		for u, x := range l {
			f.Vals[u] = math.Exp(x - mx)
		}
		logs += mx + shift
		fs = append(fs, f)
	}
	ks.fs = fs
	return logs, nil
}

// normalise divides xs by their sum and returns it.
func normalise(xs []float64) float64 {
	z := 0.0
	for _, x := range xs {
		z += x
	}
	if z > 0 {
		for i := range xs {
			xs[i] /= z
		}
	}
	return z
}

// staticsMsg computes into the prior's message (the parity of step -1)
// the statics' tables given their values, unnormalised, and returns it
// with the log of the constants the values contributed.
func (r *run) staticsMsg(s Seq) (*factor.Factor, float64, error) {
	ks := r.kinds[0]
	logs, err := r.inputs(ks, nil, s.Static)
	if err != nil {
		return nil, 0, err
	}
	msg := ks.msg[1]
	if len(ks.fs) == 0 {
		for i := range msg.Vals {
			msg.Vals[i] = 1
		}
	} else {
		factor.Combine(r.k, msg, ks.fs, factor.OpSum, nil)
	}
	return msg, logs, nil
}

// prior computes the statics' prior given their values into the prior's
// message and returns its log normaliser.
func (r *run) prior(s Seq) (*factor.Factor, float64, error) {
	msg, logs, err := r.staticsMsg(s)
	if err != nil {
		return nil, 0, err
	}
	z := normalise(msg.Vals)
	if !(z > 0) || math.IsInf(logs, -1) {
		return nil, 0, &ImpossibleError{Step: -1}
	}
	return msg, math.Log(z) + logs, nil
}

// forward runs step t from prev (the interface after step t-1) with the
// observations obs (nil: none): it sets the step's joint (normalised) and
// the interface after it, and returns that and the step's log
// normaliser.
func (r *run) forward(t int, prev *factor.Factor, obs []float64) (*factor.Factor, float64, error) {
	ks := r.kinds[r.n.kindOf(t)]
	logs, err := r.inputs(ks, prev, obs)
	if err != nil {
		return nil, 0, err
	}
	factor.Combine(r.k, ks.j, ks.fs, factor.OpSum, nil)
	z := normalise(ks.j.Vals)
	if !(z > 0) || math.IsInf(logs, -1) {
		return nil, 0, &ImpossibleError{Step: t}
	}
	msg := ks.msg[t&1]
	if len(ks.j.Vars) == len(msg.Vars) {
		copy(msg.Vals, ks.j.Vals)
	} else {
		factor.Combine(r.k, msg, ks.one, factor.OpSum, nil)
	}
	return msg, math.Log(z) + logs, nil
}

// posts returns the targets' marginals of the joint j of a step of
// kind ks (valid until the next step).
func (r *run) posts(ks *kindState, j *factor.Factor) [][]float64 {
	for a, f := range ks.marg {
		marginal(f.Vals, j, j.Pos(f.Vars[0]))
		normalise(f.Vals)
		r.post[a] = f.Vals
	}
	return r.post
}

// marginal sets dst to the sums of j's entries by the state of its
// variable at position p (a target's marginal: a loop over j's entries,
// without allocating).
func marginal(dst []float64, j *factor.Factor, p int) {
	clear(dst)
	str, card := j.Stride[p], j.Card[p]
	for i, x := range j.Vals {
		dst[(i/str)%card] += x
	}
}
