package infer

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pbl-lang/pbl/approx"
	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file makes the algorithms of package approx engines of the
// registry (lbp, ijgp, is, lw, gibbs, wmb). Each engine's instance builds
// an approx.Problem from the model and the evidence — a Bayesian network's
// tables with its topological order, or a Markov network's potentials;
// the potentials a query adds to a Bayesian network (real-valued and
// likelihood evidence, infer/real.go and intervene.go) as
// Problem.Likelihood; do() has already been applied by graph surgery —
// runs the algorithm once on the evidence, and reads the primitives of
// [Instance] off its result:
//
//   - Joint(keep) for one variable is its marginal times the estimate of
//     P(e) (exp Result.LogZ); for several variables the chain rule,
//     P(x1, x2, ... | e) = P(x1 | e) P(x2 | x1, e) ..., each conditional
//     a further run with the earlier variables of keep as evidence (at
//     most maxChainRuns runs, the time left shared among them). An
//     entry's error is the widest its product can be off given each
//     factor's error (interval arithmetic, not a first-order sum).
//   - Partition runs the algorithm without the evidence. For P(e) of a
//     Markov network (Z_e / Z) the run on the evidence comes first, on
//     half the time, and Partition has the rest; under Options.LogZOnly,
//     Partition does not run and the run on the evidence has all of it.
//   - MaxAssign is approx.LocalSearchMPE started from the marginals; a
//     MAP query's value P(map, e) is a further run with the MAP states as
//     evidence.
//
// Every number carries the algorithm's own error (see [Inexact]).

// approxAlg is one algorithm of package approx as an engine.
type approxAlg struct {
	name, doc string
	run       func(*approx.Problem, approx.Settings) (*approx.Result, error)
	bn        bool // it samples a Bayesian network in topological order
}

// An answer's error estimate is the half-width of an interval meant to
// hold the exact value about 95 % of the time, which every algorithm of
// package approx reports (the samplers 2.5 standard errors, floored where a
// state was seldom or never drawn; propagation its residuals and bounds):
// the engines take the errors as they are.

// approxEngines are the approximate engines, registered from the start: a
// static table, as builtins is, so that loading the package runs no code.
// The samplers are samplerEngines (approxsamplers.go).
var approxEngines = [...]approxAlg{
	{"cascade", "cutset enumeration, weighted mini-buckets, then IJGP, the best-known answer kept: what auto falls back on; approximate", approx.Auto, false},
	{"ijgp", "iterative join-graph propagation within an i-bound; approximate", approx.IJGP, false},
	{"lbp", "loopy belief propagation, damped; approximate", approx.LBP, false},
	{"wmb", "weighted mini-buckets: bounds on P(e); approximate", wmbMarg, false},
}

// wmbMarg is weighted mini-buckets for ln Z and its bounds, with
// iterative join-graph propagation's marginals: those of the mini-buckets
// (forward-backward) held the exact value within their error for only 70 %
// of the numbers of TestApproxCalibration at an i-bound of 2, ijgp's for
// all of them. Each gets half the time.
func wmbMarg(p *approx.Problem, s approx.Settings) (*approx.Result, error) {
	half := s
	if !s.Deadline.IsZero() {
		half.Deadline = time.Now().Add(time.Until(s.Deadline) / 2)
	}
	r, err := approx.WMB(p, half)
	if err != nil {
		return r, err
	}
	m, err := approx.IJGP(p, s)
	if err != nil {
		return nil, err
	}
	r.Marg, r.Err = m.Marg, m.Err
	r.Stopped = r.Stopped || m.Stopped
	return r, nil
}

// approxNamed returns the approximate engine called name, or nil.
func approxNamed(name string) *approxAlg {
	for i := range approxEngines {
		if approxEngines[i].name == name {
			return &approxEngines[i]
		}
	}
	for i := range samplerEngines {
		if samplerEngines[i].name == name {
			return &samplerEngines[i]
		}
	}
	return nil
}

func (e *approxAlg) Name() string { return e.name }
func (e *approxAlg) Doc() string  { return e.doc }
func (e *approxAlg) Exact() bool  { return false }

// maxChainRuns bounds the runs of the chain rule for a joint of several
// variables.
const maxChainRuns = 4096

// Prepare builds the problem of m with the evidence obs. A sampler of
// Bayesian networks (is, lw) refuses a Markov network.
func (e *approxAlg) Prepare(m *ir.Model, obs []int, opt Options) (Instance, error) {
	card, err := evidenceCards(m, obs)
	if err != nil {
		return nil, err
	}
	p := problemOf(m, card, obs)
	if e.bn && p.BN == nil {
		return nil, &MarkovError{Engine: e.name}
	}
	deadline := opt.deadline(time.Now())
	in := &approxInstance{alg: e, m: m, p: p, opt: opt, deadline: deadline}
	in.pz = &approx.Problem{Card: p.Card, Factors: p.Factors, Likelihood: p.Likelihood, BN: p.BN, Obs: make([]int, len(obs))}
	for v := range in.pz.Obs {
		in.pz.Obs[v] = -1
	}
	in.shiftZ, in.flushedZ = rescale(in.pz, false)
	var flushed bool
	in.shift, flushed = rescale(p, true)
	if flushed {
		return nil, &ir.Error{Err: ErrRange, Msg: fmt.Sprintf("the engine %s holds potentials in float64: a potential of this model spans more than float64's range (2^1074) given the evidence, and its smallest entries would be taken for 0", e.name)}
	}
	if e.name != "cascade" && maxSpread(p) > maxSpreadBits {
		return nil, &ir.Error{Err: ErrRange, Msg: fmt.Sprintf("the engine %s multiplies potentials in float64: a potential of this model spans more than 2^%d given the evidence, so that products of two leave float64's range (taking possible states for impossible) and a sampler cannot move between its states", e.name, maxSpreadBits)}
	}
	return in, nil
}

// rescale divides each potential of p (a Markov network's factors, the
// likelihoods of a Bayesian network's evidence; not its tables) by the
// power of two nearest its largest entry, so that no algorithm's products
// overflow or underflow float64 on potentials that span 2^±600, and
// returns ln of the product of the divisors, which every logarithm of a
// sum the algorithms return is short of, and whether an entry was flushed
// to 0 (it was more than 2^1074 below its potential's largest): the
// algorithms would then take a possible configuration for impossible, and
// the engine refuses (ErrRange) rather than answer wrongly.
//
// With restrict, the potentials are first restricted to the evidence
// (the tables of a Bayesian network are not: the samplers need their
// scopes), so that the entries the evidence keeps are those scaled:
// within one potential, entries 2^1200 apart cannot all be held relative
// to one power of two.
func rescale(p *approx.Problem, restrict bool) (shift float64, flushed bool) {
	scale := func(fs []*factor.Factor) []*factor.Factor {
		out := fs
		for i, f := range fs {
			if restrict {
				if g := factor.Restrict(f, p.Obs); g != f {
					if &out[0] == &fs[0] {
						out = append([]*factor.Factor(nil), fs...)
					}
					out[i], f = g, g
				}
			}
			mx := 0.0
			for _, x := range f.Vals {
				mx = max(mx, x)
			}
			if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) {
				continue
			}
			_, e := math.Frexp(mx)
			if e == 0 || e == 1 {
				continue
			}
			if &out[0] == &fs[0] {
				out = append([]*factor.Factor(nil), fs...)
			}
			g := f
			if g == fs[i] {
				g = f.Clone()
			}
			for j, x := range g.Vals {
				g.Vals[j] = math.Ldexp(x, -e)
				if x != 0 && g.Vals[j] == 0 {
					flushed = true
				}
			}
			out[i] = g
			shift += float64(e) * math.Ln2
		}
		return out
	}
	if p.BN == nil {
		p.Factors = scale(p.Factors)
	}
	p.Likelihood = scale(p.Likelihood)
	return shift, flushed
}

// maxSpreadBits is the widest span, in powers of two, between the largest
// and the smallest positive entry of one potential given the evidence on
// which the single approximate engines answer (enginetest's markov1 spans
// 2^1200 and took possible evidence for impossible, or sampled one mode
// only): the product of two potentials spanning more than 2^512 each
// leaves float64's range. The cascade, whose exact stages answer such
// models, is not bounded by it.
const maxSpreadBits = 512

// maxSpread returns the widest span, in powers of two, of one potential
// of p given its evidence (a Bayesian network's tables and p's
// likelihoods alike).
func maxSpread(p *approx.Problem) float64 {
	spread := 0.0
	for _, fs := range [][]*factor.Factor{p.Factors, p.Likelihood} {
		for _, f := range fs {
			g := factor.Restrict(f, p.Obs)
			lo, hi := math.Inf(1), 0.0
			for _, x := range g.Vals {
				if x > 0 {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
			if hi > 0 {
				spread = max(spread, math.Log2(hi)-math.Log2(lo))
			}
		}
	}
	return spread
}

// MarkovError is the refusal of an engine that samples a Bayesian network
// (is, lw) to answer on a Markov network.
type MarkovError struct{ Engine string }

func (e *MarkovError) Error() string {
	return fmt.Sprintf("the engine %s samples a Bayesian network in topological order; this model is a Markov network", e.Engine)
}

// problemOf returns m as a problem with the evidence obs: a Bayesian
// network's tables (with its order) when every discrete variable has one,
// and the model's potentials as its likelihood; else every factor.
func problemOf(m *ir.Model, card, obs []int) *approx.Problem {
	p := &approx.Problem{Card: card, Obs: obs}
	bn := true
	for v, c := range card {
		if c > 0 && m.Factor(ir.VarID(v)) == nil {
			bn = false
			break
		}
	}
	if !bn {
		p.Factors = m.Factors()
		return p
	}
	net := &approx.Network{CPT: make([]int, len(card))}
	for v := range card {
		net.CPT[v] = -1
		if f := m.Factor(ir.VarID(v)); f != nil {
			net.CPT[v] = len(p.Factors)
			p.Factors = append(p.Factors, f)
		}
	}
	net.Order = topoOrder(m, card)
	p.BN = net
	p.Likelihood = m.Potentials
	return p
}

// topoOrder returns the discrete variables of the Bayesian network m,
// parents first (Kahn's algorithm, the lowest VarID first among those
// ready, so that the order is the same on every run).
func topoOrder(m *ir.Model, card []int) []factor.Var {
	n := len(card)
	indeg := make([]int, n)
	children := make([][]ir.VarID, n)
	for v := range n {
		if card[v] == 0 {
			continue
		}
		for _, u := range m.Parents[v] {
			if card[u] > 0 {
				indeg[v]++
				children[u] = append(children[u], ir.VarID(v))
			}
		}
	}
	out := make([]factor.Var, 0, n)
	for v := range n {
		if card[v] > 0 && indeg[v] == 0 {
			out = append(out, factor.Var(v))
		}
	}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if indeg[c]--; indeg[c] == 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// approxInstance is an approximate engine prepared for one model and one
// evidence set.
type approxInstance struct {
	alg      *approxAlg
	m        *ir.Model
	p        *approx.Problem
	opt      Options
	deadline time.Time

	base    *approx.Result // the run on the evidence, once made
	baseErr error
	zRun    bool // Partition has run

	cond     []float64 // the last Joint's errors
	logSum   LogErr
	zErr     LogErr
	maxErr   LogErr
	stopped  bool
	shift    float64         // ln of what rescale divided p's potentials by
	pz       *approx.Problem // the problem without evidence, for Partition
	shiftZ   float64         // ln of what rescale divided pz's potentials by
	flushedZ bool            // rescale flushed an entry of pz: Partition refuses
}

// settings returns the algorithm's settings for a run that has a share
// 1/share of the time left.
func (in *approxInstance) settings(share int) approx.Settings {
	s := approx.Settings{
		Seed:      in.opt.Seed,
		Cancel:    in.opt.Cancel,
		Workers:   in.opt.Workers,
		MaxMemory: in.opt.maxMemory(),
		IBound:    in.opt.IBound,
		Samples:   in.opt.Samples,
	}
	if !in.deadline.IsZero() {
		left := time.Until(in.deadline)
		s.Deadline = time.Now().Add(left / time.Duration(max(1, share)))
	}
	return s
}

// run runs alg on p with the settings s, and notes whether it stopped.
func (in *approxInstance) run(alg func(*approx.Problem, approx.Settings) (*approx.Result, error), p *approx.Problem, s approx.Settings) (*approx.Result, error) {
	shift := in.shift
	if p == in.pz {
		shift = in.shiftZ
	}
	r, err := alg(p, s)
	if err != nil {
		switch {
		case errors.Is(err, approx.ErrImpossible):
			return nil, ErrImpossible
		case errors.Is(err, approx.ErrNoAnswer):
			in.stopped = true
			return nil, ErrCanceled
		}
		return nil, err
	}
	if r.Stopped {
		in.stopped = true
	}
	// The potentials were rescaled (see rescale): so is every sum.
	r.LogZ += shift
	r.LogZLo += shift
	r.LogZHi += shift
	if r.Assign != nil {
		r.LogMax += shift
	}
	return r, nil
}

// runOwn runs the engine's own algorithm on p (see run).
func (in *approxInstance) runOwn(p *approx.Problem, s approx.Settings) (*approx.Result, error) {
	return in.run(in.alg.run, p, s)
}

// getBase returns the run on the evidence: for importance sampling
// started from loopy BP's marginals (a tenth of the time).
func (in *approxInstance) getBase() (*approx.Result, error) {
	if in.base != nil || in.baseErr != nil {
		return in.base, in.baseErr
	}
	share := 1
	if in.opt.partition && !in.zRun {
		share = 2 // Partition runs after, on the rest
	}
	s := in.settings(share)
	if in.alg.name == "is" {
		if init, err := in.run(approx.LBP, in.p, in.settings(10)); err == nil {
			s.Init = init.Marg
		}
		s.Deadline = in.settings(share).Deadline
	}
	in.base, in.baseErr = in.runOwn(in.p, s)
	return in.base, in.baseErr
}

// withEvidence returns the problem with the further evidence of the
// states st of vars.
func (in *approxInstance) withEvidence(vars []ir.VarID, st []int) *approx.Problem {
	p := *in.p
	p.Obs = append([]int(nil), in.p.Obs...)
	for i, v := range vars {
		p.Obs[v] = st[i]
	}
	return &p
}

// scaledExp returns e^l as a scaled number (0 for −Inf).
func scaledExp(l float64) factor.Scaled {
	if math.IsInf(l, -1) || math.IsNaN(l) {
		return factor.Scaled{}
	}
	e := math.Floor(l / math.Ln2)
	return factor.Scaled{M: math.Exp(l - e*math.Ln2), E: int(e)}.Norm()
}

// boundedLog returns the estimate l of a logarithm made consistent with
// the bounds of e: clamped into them, e.Err then at most the distance to
// the farther bound (the exact value lies between them).
func boundedLog(l float64, e *LogErr) float64 {
	if math.IsInf(e.Lo, 0) || math.IsInf(e.Hi, 0) || math.IsNaN(e.Lo) || math.IsNaN(e.Hi) || e.Lo > e.Hi {
		return l
	}
	if math.IsNaN(l) || math.IsInf(l, 0) {
		l = e.Lo + (e.Hi-e.Lo)/2
	}
	l = min(e.Hi, max(e.Lo, l))
	e.Err = min(e.Err, max(l-e.Lo, e.Hi-l))
	return l
}

// logErrOf returns r's error of LogZ, with its bounds.
func logErrOf(r *approx.Result) LogErr {
	return LogErr{Err: r.LogZErr, Lo: r.LogZLo, Hi: r.LogZHi}
}

func (in *approxInstance) Joint(keep []ir.VarID) (*factor.Factor, factor.Scaled, error) {
	base, err := in.getBase()
	if errors.Is(err, ErrImpossible) {
		f := factor.New(keep, cardsOf(in.p.Card, keep))
		in.cond = make([]float64, len(f.Vals))
		in.logSum = LogErr{Lo: math.Inf(-1), Hi: math.Inf(-1)}
		return f, factor.Scaled{}, nil
	}
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	in.logSum = logErrOf(base)
	z := scaledExp(boundedLog(base.LogZ, &in.logSum))
	card := cardsOf(in.p.Card, keep)
	// The further runs: one per configuration of keep[:j], for each j ≥ 1.
	runs, prefix := 0.0, 1.0
	for _, c := range card[:max(0, len(card)-1)] {
		prefix *= float64(c)
		runs += prefix
	}
	if runs > maxChainRuns {
		return nil, factor.Scaled{}, &TooLargeError{What: OversizeEnum, Vars: keep, Size: runs, Limit: maxChainRuns,
			msg: fmt.Sprintf("an approximate joint of %s needs %s runs of the engine (the chain rule), more than %d", varList(in.m, keep), sizeFloat(runs), maxChainRuns)}
	}
	f := factor.New(keep, card)
	in.cond = make([]float64, len(f.Vals))
	if len(keep) == 0 {
		f.Vals[0] = 1
		return f, z, nil
	}
	// The chain rule: lo and hi bound each entry, from each factor's
	// error.
	lo := make([]float64, len(f.Vals))
	hi := make([]float64, len(f.Vals))
	for i := range f.Vals {
		f.Vals[i], lo[i], hi[i] = 1, 1, 1
	}
	st := make([]int, len(keep))
	left := max(1, int(runs)) // further runs: the time left is shared among them
	for j, v := range keep {
		// The block of entries sharing the states of keep[:j].
		inner := 1
		for _, c := range card[j+1:] {
			inner *= c
		}
		outer := len(f.Vals) / (inner * card[j])
		for o := 0; o < outer; o++ {
			var marg, errs []float64
			r := base
			if j > 0 {
				f.Assignment(st, o*card[j]*inner)
				if f.Vals[o*card[j]*inner] == 0 && hi[o*card[j]*inner] == 0 {
					continue // the earlier states are impossible: 0
				}
				r, err = in.runOwn(in.withEvidence(keep[:j], st[:j]), in.settings(left))
				left = max(1, left-1)
				if errors.Is(err, ErrImpossible) {
					for i := o * card[j] * inner; i < (o+1)*card[j]*inner; i++ {
						f.Vals[i], lo[i] = 0, 0
					}
					continue
				}
				if err != nil {
					return nil, factor.Scaled{}, err
				}
			}
			marg, errs = r.Marg[v], r.Err[v]
			for s := 0; s < card[j]; s++ {
				p, d := marg[s], errs[s]
				for i := (o*card[j] + s) * inner; i < (o*card[j]+s+1)*inner; i++ {
					f.Vals[i] *= p
					lo[i] *= max(0, p-d)
					hi[i] *= min(1, p+d)
				}
			}
		}
	}
	for i, x := range f.Vals {
		in.cond[i] = max(hi[i]-x, x-lo[i])
	}
	return f, z, nil
}

// cardsOf returns the cardinalities of vars.
func cardsOf(card []int, vars []ir.VarID) []int {
	out := make([]int, len(vars))
	for i, v := range vars {
		out[i] = card[v]
	}
	return out
}

func (in *approxInstance) Partition() (factor.Scaled, error) {
	if in.flushedZ {
		return factor.Scaled{}, &ir.Error{Err: ErrRange, Msg: fmt.Sprintf("the engine %s holds potentials in float64: a potential of this model spans more than float64's range (2^1074), and its smallest entries would be taken for 0", in.alg.name)}
	}
	if in.opt.partition && in.base == nil && in.baseErr == nil {
		// P(e)'s run on the evidence first, on half the time: the
		// evidence narrows the network, so that it is often the quicker
		// (exact, where the cascade's stages reach its width), and the
		// partition function has what it leaves.
		in.getBase()
	}
	in.zRun = true
	r, err := in.runOwn(in.pz, in.settings(1))
	if err != nil {
		if errors.Is(err, ErrImpossible) {
			in.zErr = LogErr{}
			return factor.Scaled{}, nil
		}
		return factor.Scaled{}, err
	}
	in.zErr = logErrOf(r)
	return scaledExp(r.LogZ), nil
}

func (in *approxInstance) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	base, err := in.getBase()
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	s := in.settings(2)
	s.Init = base.Marg
	if s.Deadline.IsZero() {
		// Without a deadline, local search runs its default number of
		// restarts; with a Cancel channel it would run until canceled.
		s.Cancel = nil
	}
	r, err := in.run(approx.LocalSearchMPE, in.p, s)
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	out := make([]int, len(in.p.Card))
	for v := range out {
		out[v] = -1
	}
	st := make([]int, len(maxVars))
	for i, v := range maxVars {
		out[v] = r.Assign[v]
		st[i] = r.Assign[v]
	}
	free := 0
	for v, c := range in.p.Card {
		if c > 0 && in.p.Obs[v] < 0 {
			free++
		}
	}
	if len(maxVars) == free {
		in.maxErr = LogErr{Lo: r.LogMax, Hi: r.LogMax}
		return out, scaledExp(r.LogMax), nil
	}
	// MAP: P(map, e), the other variables summed, by a further run.
	rm, err := in.runOwn(in.withEvidence(maxVars, st), in.settings(1))
	if errors.Is(err, ErrImpossible) {
		in.maxErr = LogErr{Lo: math.Inf(-1), Hi: math.Inf(-1)}
		return out, factor.Scaled{}, nil
	}
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	in.maxErr = logErrOf(rm)
	return out, scaledExp(rm.LogZ), nil
}

func (in *approxInstance) JointErr() ([]float64, LogErr) { return in.cond, in.logSum }
func (in *approxInstance) PartitionErr() LogErr          { return in.zErr }
func (in *approxInstance) MaxErr() LogErr                { return in.maxErr }
func (in *approxInstance) Stopped() bool                 { return in.stopped }
