//go:build !js

package infer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pbl-lang/pbl/approx"
	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file is likelihood weighting on a hybrid model as the answerer's
// engine (see hybrid.go); the WebAssembly page leaves it out
// (hybrid_js.go).

// answerHybrid answers q on m, which has a discrete variable with a real
// parent: by likelihood weighting when Options.Engine names it (Auto's
// fallback does), else the refusal.
func answerHybrid(m *ir.Model, q *query, opt Options) (Result, error) {
	switch opt.Engine {
	case hybridEngine:
	case "", Auto:
		return nil, hybridRefusal(q.Pos, m, "")
	default:
		if kind, _, err := resolve(opt.Engine); err == nil && kind != kindOther {
			return nil, hybridRefusal(q.Pos, m, "")
		}
		return nil, hybridRefusal(q.Pos, m, opt.Engine)
	}
	switch {
	case q.Kind == kindDensity || q.Kind == kindProb && q.Form() == formEvidence && len(q.Real) > 0:
		return densityHybrid(m, q, opt)
	case realTargets(m, q) > 0:
		return momentsHybrid(m, q, opt)
	}
	for _, o := range q.Real {
		if int(o.Var) < 0 || int(o.Var) >= len(m.Vars) || m.Discrete(o.Var) {
			return nil, ir.Errorf(q.Pos, "query observes a real value of a variable that is not real-valued")
		}
		if math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
			return nil, ir.Errorf(q.Pos, "the value of %s must be finite", ir.Quote(m.Vars[o.Var].Name))
		}
	}
	a := getAnswerer()
	defer putAnswerer(a)
	a.fq = *q
	a.fq.Real, a.fq.Do, a.fq.DoReal, a.fq.Soft = nil, nil, nil, nil
	a.m, a.q, a.opt = m, &a.fq, opt
	a.sel, a.ext = kindOther, &hybridLW{real: q.Real, do: q.Do, doReal: q.DoReal, soft: q.Soft}
	if err := a.validate(); err != nil {
		return nil, err
	}
	if err := a.choose(); err != nil {
		return nil, err
	}
	defer a.release()
	r, err := a.answer()
	if err != nil {
		var e *ir.Error
		if errors.As(err, &e) && !e.Pos.IsValid() {
			return nil, at(q.Pos, err) // the sampler's, which has no position
		}
		return nil, err
	}
	a.approximate(r)
	return r, nil
}

// hybridObs returns q's discrete evidence as an observation per
// variable (-1 where none).
func hybridObs(m *ir.Model, q *query) ([]int, error) {
	obs := make([]int, len(m.Vars))
	for v := range obs {
		obs[v] = -1
	}
	for _, o := range q.Evidence {
		if int(o.Var) < 0 || int(o.Var) >= len(m.Vars) || !m.Discrete(o.Var) || o.State < 0 || o.State >= len(m.Vars[o.Var].States) {
			return nil, ir.Errorf(q.Pos, "query observes a state that the model does not have")
		}
		obs[o.Var] = o.State
	}
	return obs, nil
}

// hybridLogZ estimates, by likelihood weighting on m with the evidence obs
// and the real values real, ln of their probability times density, and
// its error.
func hybridLogZ(m *ir.Model, q *query, obs []int, real []ir.RealObs, opt Options) (lz, lzErr float64, stopped bool, err error) {
	if len(real) == 0 && len(q.Soft) == 0 && !slices.ContainsFunc(obs, func(s int) bool { return s >= 0 }) {
		return 0, 0, false, nil // no evidence: ln 1
	}
	h, err := hybridOf(m, obs, real, q.Do, q.DoReal, q.Soft)
	if err != nil {
		return 0, 0, false, at(q.Pos, err)
	}
	in := &hybridInstance{h: h, opt: opt}
	smp, err := in.samples()
	if err != nil {
		if errors.Is(err, ErrImpossible) {
			return 0, 0, false, impossible(q.Pos, m, q.Evidence)
		}
		return 0, 0, false, at(q.Pos, err)
	}
	lz, lzErr = smp.LogZ()
	return lz, lzErr, smp.Stopped, nil
}

// densityHybrid answers density(x=v | e) — p(x=v, e) / p(e), two runs of
// likelihood weighting with half the time each — and P(e) with real
// values observed, the density of the real values times the probability
// of the discrete evidence, on a hybrid model. The error is the density
// times e^(the errors of its logarithms) − 1.
func densityHybrid(m *ir.Model, q *query, opt Options) (Result, error) {
	obs, err := hybridObs(m, q)
	if err != nil {
		return nil, err
	}
	both := slices.Clone(q.Real)
	for _, o := range q.Values {
		if int(o.Var) < 0 || int(o.Var) >= len(m.Vars) || m.Discrete(o.Var) {
			return nil, ir.Errorf(q.Pos, "density(...) takes real-valued variables")
		}
		if slices.ContainsFunc(q.Real, func(r ir.RealObs) bool { return r.Var == o.Var }) {
			return nil, ir.Errorf(q.Pos, "%s is both asked and given", ir.Quote(m.Vars[o.Var].Name))
		}
		both = append(both, o)
	}
	o1 := opt
	if dl := opt.deadline(time.Now()); !dl.IsZero() && q.Kind == kindDensity {
		o1.Deadline, o1.TimeLimit = time.Now().Add(time.Until(dl)/2), 0
	}
	lz1, e1, s1, err := hybridLogZ(m, q, obs, both, o1)
	if err != nil {
		return nil, err
	}
	var lz0, e0 float64
	var s0 bool
	if q.Kind == kindDensity {
		if lz0, e0, s0, err = hybridLogZ(m, q, obs, q.Real, opt); err != nil {
			return nil, err
		}
	}
	ld := lz1 - lz0
	r := &Density{Header: exact(q), Density: math.Exp(ld), LogDensity: ld}
	r.Exact, r.Engine, r.Stopped = false, hybridEngine, s0 || s1
	r.ErrorEstimate = []float64{math.Exp(ld) * math.Expm1(e0+e1)}
	if !opt.fallback {
		r.Why = &Why{Caller: true}
	}
	return r, nil
}

// momentsHybrid answers P(X, Y | e) for real X, Y on a hybrid model: the
// posterior means and covariance by likelihood weighting (its shape is
// not normal: Normals.Moments), each variable's mean and standard
// deviation with its error.
func momentsHybrid(m *ir.Model, q *query, opt Options) (Result, error) {
	switch {
	case q.Kind != kindProb:
		return nil, ir.Errorf(q.Pos, "%s asks about a real-valued variable; ask P(X | e) for its posterior", q.Text)
	case realTargets(m, q) < len(q.Targets):
		return nil, ir.Errorf(q.Pos, "ask for the real-valued and the discrete variables in separate queries: P(X | e) of real X is its posterior mean and standard deviation, of discrete ones a table")
	case len(q.Free) > 0:
		return nil, ir.Errorf(q.Pos, "the posterior of a real-valued variable is given for the evidence only: give the conditioning variables states, as in P(X | %s=%s)",
			ir.Quote(m.Vars[q.Free[0]].Name), ir.Quote(m.Vars[q.Free[0]].States[0]))
	}
	obs, err := hybridObs(m, q)
	if err != nil {
		return nil, err
	}
	vs := make([]int, len(q.Targets))
	for i, v := range q.Targets {
		for _, o := range q.Real {
			if o.Var == v {
				return nil, ir.Errorf(q.Pos, "%s is observed: its posterior is its value", ir.Quote(m.Vars[v].Name))
			}
		}
		if slices.Index(q.Targets, v) != i {
			return nil, ir.Errorf(q.Pos, "%s is named twice in the query", ir.Quote(m.Vars[v].Name))
		}
		vs[i] = int(v)
	}
	h, err := hybridOf(m, obs, q.Real, q.Do, q.DoReal, q.Soft)
	if err != nil {
		return nil, at(q.Pos, err)
	}
	in := &hybridInstance{h: h, opt: opt}
	smp, err := in.samples()
	if err != nil {
		if errors.Is(err, ErrImpossible) {
			return nil, impossible(q.Pos, m, q.Evidence)
		}
		return nil, at(q.Pos, err)
	}
	mean, cov := smp.Cov(vs)
	errs := make([]float64, 0, 2*len(vs))
	for _, v := range vs {
		_, me, _, se, _ := smp.Moments(v)
		errs = append(errs, me, se)
	}
	r := &Normals{Header: exact(q), Vars: slices.Clone(q.Targets), Moments: true,
		Components: []NormalComponent{{Weight: 1, Mean: mean, Cov: cov}}}
	r.Exact, r.Engine, r.ErrorEstimate, r.Stopped = false, hybridEngine, errs, smp.Stopped
	if !opt.fallback {
		r.Why = &Why{Caller: true}
	}
	return r, nil
}

// hybridLW is likelihood weighting on a hybrid model as an [Engine] for
// the answerer, the real evidence of the query built in.
type hybridLW struct {
	real   []ir.RealObs
	do     []ir.Obs     // do(X=x) of discrete variables
	doReal []ir.RealObs // do(X=2.5) of real ones
	soft   []ir.SoftObs // likelihood evidence X~[l1, ...]
}

func (*hybridLW) Name() string { return hybridEngine }
func (*hybridLW) Doc() string  { return "likelihood weighting on a hybrid model" }
func (*hybridLW) Exact() bool  { return false }

// Prepare builds the hybrid network of m with the evidence obs and the
// real evidence; the samples are drawn at the first Joint.
func (e *hybridLW) Prepare(m *ir.Model, obs []int, opt Options) (Instance, error) {
	h, err := hybridOf(m, obs, e.real, e.do, e.doReal, e.soft)
	if err != nil {
		return nil, err
	}
	return &hybridInstance{h: h, opt: opt}, nil
}

// hybridOf builds the hybrid network of m with the evidence obs and real
// and the interventions do and doReal (graph surgery: the variables set,
// their distributions cut off), and the likelihood evidence soft.
func hybridOf(m *ir.Model, obs []int, real []ir.RealObs, do []ir.Obs, doReal []ir.RealObs, soft []ir.SoftObs) (*approx.Hybrid, error) {
	n := len(m.Vars)
	h := &approx.Hybrid{Card: make([]int, n), Nodes: make([]approx.HybridNode, n), Obs: append([]int(nil), obs...), Value: make([]float64, n)}
	ints := func(vs []ir.VarID) []int {
		out := make([]int, len(vs))
		for i, v := range vs {
			out[i] = int(v)
		}
		return out
	}
	for v := range n {
		h.Value[v] = math.NaN()
		id := ir.VarID(v)
		if m.Discrete(id) {
			h.Card[v] = len(m.Vars[v].States)
		}
		nd := &h.Nodes[v]
		switch d := m.Dist(id).(type) {
		case *ir.Softmax:
			nd.Disc, nd.Real, nd.Bias, nd.Coef = ints(d.Parents), ints(d.Real), d.Bias, d.Coef
		case *ir.Gaussian:
			nd.Disc, nd.Bias, nd.SD = ints(d.Parents), d.Mean, d.SD
			nd.Real, nd.Coef = []int{}, d.Coef
			if len(d.Real) > 0 {
				nd.Real = ints(d.Real)
			}
		default:
			if t := m.Table(id); t != nil && len(t.Parents) == len(m.Parents[v]) {
				nd.Disc, nd.Table = ints(t.Parents), t.Factor.Vals
				break
			}
			return nil, &ir.Error{Pos: ir.Pos{File: m.Source}, Err: ErrDiscreteChildOfReal, Msg: fmt.Sprintf(
				"likelihood weighting on a hybrid model needs a table, a logistic or softmax, or a normal density for each variable; %s has %s", ir.Quote(m.Vars[v].Name), distName(m.Dist(id)))}
		}
	}
	for _, o := range real {
		h.Value[o.Var] = o.Value
	}
	if len(do)+len(doReal) > 0 {
		h.Fixed = make([]bool, n)
	}
	for _, o := range do {
		if !m.Discrete(o.Var) || o.State < 0 || o.State >= h.Card[o.Var] || h.Obs[o.Var] >= 0 {
			return nil, ir.Errorf(ir.Pos{File: m.Source}, "do(%s=...) sets a variable that is not discrete, not to one of its states, or observed too", ir.Quote(m.Vars[o.Var].Name))
		}
		h.Obs[o.Var], h.Fixed[o.Var] = o.State, true
	}
	for _, o := range soft {
		if !m.Discrete(o.Var) || len(o.Lambda) != h.Card[o.Var] {
			return nil, ir.Errorf(ir.Pos{File: m.Source}, "%s~[...] needs one likelihood per state of a discrete variable", ir.Quote(m.Vars[o.Var].Name))
		}
		if h.Lik == nil {
			h.Lik = make([][]float64, n)
		}
		h.Lik[o.Var] = o.Lambda
	}
	for _, o := range doReal {
		if m.Discrete(o.Var) || !math.IsNaN(h.Value[o.Var]) || math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
			return nil, ir.Errorf(ir.Pos{File: m.Source}, "do(%s=...) sets a variable that is not real-valued, not to a finite value, or observed too", ir.Quote(m.Vars[o.Var].Name))
		}
		h.Value[o.Var], h.Fixed[o.Var] = o.Value, true
	}
	order, ok := hybridOrder(m)
	if !ok {
		return nil, ir.Errorf(ir.Pos{File: m.Source}, "the model's parents form a cycle")
	}
	h.Order = order
	return h, nil
}

// distName names a distribution's kind in a message.
func distName(d ir.Dist) string {
	switch d.(type) {
	case nil:
		return "none"
	case *ir.MultiNormal:
		return "a joint normal density with other variables"
	}
	return "a distribution whose parents are not its variable's"
}

// hybridOrder returns the variables of m with each after its parents.
func hybridOrder(m *ir.Model) ([]int, bool) {
	n := len(m.Vars)
	state := make([]uint8, n) // 0 unseen, 1 on the stack, 2 done
	order := make([]int, 0, n)
	var visit func(v int) bool
	visit = func(v int) bool {
		switch state[v] {
		case 1:
			return false
		case 2:
			return true
		}
		state[v] = 1
		for _, p := range m.Parents[v] {
			if !visit(int(p)) {
				return false
			}
		}
		state[v] = 2
		order = append(order, v)
		return true
	}
	for v := range n {
		if !visit(v) {
			return nil, false
		}
	}
	return order, true
}

// hybridInstance is likelihood weighting's instance on one evidence set.
type hybridInstance struct {
	h      *approx.Hybrid
	opt    Options
	smp    *approx.HybridSamples
	cond   []float64 // the errors of the last Joint
	lz     LogErr
	maxErr LogErr // the error of ln of MaxAssign's value
}

// samples draws the samples once.
func (in *hybridInstance) samples() (*approx.HybridSamples, error) {
	if in.smp != nil {
		return in.smp, nil
	}
	s := approx.Settings{Seed: in.opt.Seed, Deadline: in.opt.deadline(time.Now()), Cancel: in.opt.Cancel, Samples: in.opt.Samples}
	smp, err := approx.HybridSample(in.h, s)
	switch {
	case errors.Is(err, approx.ErrImpossible):
		return nil, &ir.Error{Err: ErrImpossible, Msg: "every sample of likelihood weighting has weight 0: the evidence is impossible, or too unlikely for likelihood weighting to reach"}
	case errors.Is(err, approx.ErrNoAnswer):
		return nil, &ir.Error{Err: ErrCanceled, Msg: "likelihood weighting drew no sample within the time limit"}
	case err != nil:
		return nil, err
	}
	in.smp = smp
	return smp, nil
}

// Joint returns the estimate of P(keep | e) times that of P(e) (with the
// density of the real evidence).
func (in *hybridInstance) Joint(keep []ir.VarID) (*factor.Factor, factor.Scaled, error) {
	smp, err := in.samples()
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	k := make([]int, len(keep))
	card := make([]int, len(keep))
	for i, v := range keep {
		k[i], card[i] = int(v), in.h.Card[v]
	}
	p, errs := smp.Joint(k)
	f := factor.New(slices.Clone(keep), card)
	copy(f.Vals, p)
	lz, lzErr := smp.LogZ()
	in.cond, in.lz = errs, LogErr{Err: lzErr, Lo: math.Inf(-1), Hi: math.Inf(1)}
	return f, scaledExp(lz), nil
}

// Partition returns 1: the model is a Bayesian network.
func (in *hybridInstance) Partition() (factor.Scaled, error) { return factor.Scaled{M: 1}.Norm(), nil }

// hybridMaxTable is the most entries of the table over the discrete
// variables of an MPE or MAP query on a hybrid model.
const hybridMaxTable = 1 << 20

// MaxAssign answers MPE and MAP over the discrete variables of a hybrid
// model from the samples: the assignment of maxVars whose estimated
// posterior P(maxVars | e) (the share of the weight of the samples that
// have it) is the largest, and that estimate times P(e)'s. Two
// assignments whose estimates differ by less than their errors may be in
// the wrong order: the answer is approximate, its value's error is the
// estimate's. The real variables are summed out (MPE over the discrete
// part, as on a CLG model).
func (in *hybridInstance) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	var keep []ir.VarID
	card := []int{}
	for _, v := range maxVars {
		if in.h.Card[v] > 0 {
			keep = append(keep, v)
			card = append(card, in.h.Card[v])
		}
	}
	if size, ok := factor.TableSize(card); !ok || size > hybridMaxTable {
		return nil, factor.Scaled{}, &ir.Error{Err: ErrDiscreteChildOfReal,
			Msg: fmt.Sprintf("MPE and MAP on a model where a discrete variable has a real-valued parent are estimated from a table over the variables maximised, here more than %d entries: ask MAP over fewer variables", hybridMaxTable)}
	}
	f, pe, err := in.Joint(keep)
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	best := 0
	for i, x := range f.Vals {
		if x > f.Vals[best] {
			best = i
		}
	}
	out := make([]int, len(in.h.Card))
	for v := range out {
		out[v] = -1
	}
	a := f.Assignment(make([]int, len(keep)), best)
	for i, v := range keep {
		out[v] = a[i]
	}
	p := f.Vals[best]
	in.maxErr = LogErr{Err: in.lz.Err, Lo: math.Inf(-1), Hi: math.Inf(1)}
	if p > 0 && in.cond != nil {
		in.maxErr.Err += in.cond[best] / p
	}
	v := pe
	v.M *= p
	return out, v.Norm(), nil
}

func (in *hybridInstance) JointErr() ([]float64, LogErr) { return in.cond, in.lz }
func (in *hybridInstance) PartitionErr() LogErr          { return LogErr{} }
func (in *hybridInstance) MaxErr() LogErr                { return in.maxErr }
func (in *hybridInstance) Stopped() bool                 { return in.smp != nil && in.smp.Stopped }
