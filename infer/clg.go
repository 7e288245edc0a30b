package infer

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file answers queries on conditional linear Gaussian (CLG) models,
// whose real variables may have real parents (ir.Gaussian's Real, a mean
// linear in them) as well as discrete ones, exactly, by enumeration of the
// discrete configurations the real part depends on:
//
//   - the real variables in play are those observed or asked for and
//     their ancestors through real parents (clgnormal.go); D is the set of
//     the discrete parents of their densities;
//   - the unobserved ones are split into groups that share no density
//     (clgNet.split), each with the densities of its variables and its
//     own D; the density of the observations is the product of the
//     groups' integrals, so each group is solved by itself;
//   - for each configuration d of a group's D that the discrete evidence
//     allows (at most maxCLGConfigs), the real variables in play are jointly
//     normal; conditioned on the real evidence (clgNet.solve) they give
//     the density L(d) of the observed values and the posterior normal
//     of the real targets;
//   - L is a group's likelihood potential over its D, multiplied into the discrete
//     model as real.go does for densities with discrete parents only
//     (withDensities, which keeps likelihoods far apart exact), so that
//     the discrete engines answer P(discrete | all evidence), P(e) (a
//     density when real values are observed), MPE and MAP, and the
//     weights P(d | e) of the real targets' posterior: a mixture of the
//     normals of each d (a single normal when D is fixed or empty).
//
// A discrete variable with a real parent makes the real part of the
// posterior non-Gaussian; the exact engines refuse it
// (ErrDiscreteChildOfReal).

// maxCLGConfigs is the most configurations of the real variables'
// discrete parents that a query on a CLG model enumerates.
const maxCLGConfigs = 1 << 20

// ErrDiscreteChildOfReal is the kind of error of a query on a model where
// a discrete variable has a real-valued parent: its posterior is not a
// mixture of normals, and the exact engines cannot answer it.
var ErrDiscreteChildOfReal = errors.New("a discrete variable has a real-valued parent")

// clgQuery reports whether q on m needs the real part answered first: the
// model has a density with real parents, or q asks for a real variable,
// sets one by do(...), or asks for the density of real evidence as P(e).
func clgQuery(m *ir.Model, q *query) bool {
	if q.noCLG || q.Kind == kindIndep || q.Kind == kindHyp {
		return false
	}
	if len(q.DoReal) > 0 || realTargets(m, q) > 0 {
		return true
	}
	if q.Kind == kindProb && len(q.Real) > 0 && q.Form() == formEvidence {
		return true
	}
	return hasLinearGaussian(m)
}

// hasLinearGaussian reports whether a density of m has real parents.
func hasLinearGaussian(m *ir.Model) bool {
	for _, d := range m.Dists {
		if g, ok := d.(*ir.Gaussian); ok && len(g.Real) > 0 {
			return true
		}
	}
	return false
}

// realTargets returns how many of q's targets are real-valued.
func realTargets(m *ir.Model, q *query) int {
	n := 0
	for _, v := range q.Targets {
		if int(v) >= 0 && int(v) < len(m.Vars) && !m.Discrete(v) {
			n++
		}
	}
	return n
}

// answerCLG answers q, whose real part clgQuery finds, on m (with t, the
// compiled junction tree of m or nil, where the query has no real part).
func answerCLG(m *ir.Model, q *query, opt Options, t *JTree) (Result, error) {
	if hasDiscreteChildOfReal(m) {
		return nil, hybridRefusal(q.Pos, m, "")
	}
	nt := realTargets(m, q)
	if nt > 0 {
		switch {
		case q.Kind != kindProb:
			return nil, ir.Errorf(q.Pos, "%s asks about a real-valued variable; ask P(X | e) for its posterior", q.Text)
		case nt < len(q.Targets):
			return nil, ir.Errorf(q.Pos, "ask for the real-valued and the discrete variables in separate queries: P(X | e) of real X is a normal or a mixture of normals, of discrete ones a table")
		case len(q.Free) > 0:
			return nil, ir.Errorf(q.Pos, "the posterior of a real-valued variable is given for the evidence only: give the conditioning variables states, as in P(X | %s=%s)",
				ir.Quote(m.Vars[q.Free[0]].Name), ir.Quote(m.Vars[q.Free[0]].States[0]))
		}
	}
	switch {
	case q.Kind == kindDensity:
		return densityCLG(m, q, opt)
	case nt > 0:
		return normalsCLG(m, q, opt)
	case len(q.Real) == 0 && len(q.DoReal) == 0:
		// Unobserved real variables integrate to 1: the discrete part
		// is the model's.
		q2 := *q
		q2.noCLG = true
		return answer(m, &q2, opt, t)
	}
	m2, scale, err := clgLikelihood(m, q, q.Real, nil, opt)
	if err != nil {
		return nil, err
	}
	q2 := *q
	q2.Real, q2.DoReal, q2.noCLG = nil, nil, true
	if q.Kind == kindProb && q.Form() == formEvidence && len(q.Real) > 0 {
		// The density of the real values with the discrete evidence.
		r, err := answerQ(m2, &q2, opt)
		if err != nil {
			return nil, err
		}
		e := r.(*Evidence)
		ld := e.LogZ + scale
		if !e.Exact {
			return nil, ir.Errorf(q.Pos, "%s: the density of real-valued evidence is answered exactly only, and the discrete part needed an approximate engine", q.Text)
		}
		return &Density{Header: exact(q), Density: math.Exp(ld), LogDensity: ld}, nil
	}
	r, err := answerQ(m2, &q2, opt)
	if err != nil {
		return nil, err
	}
	r.Head().Query = q.orig
	return r, nil
}

// clgLikelihood returns m with the likelihood of the real observations
// obs (given q's values set by do(...)) as potentials over the discrete
// parents of each group of the real variables in play, and ln of the
// factor they were divided by, as withLikelihoods does.
func clgLikelihood(m *ir.Model, q *query, obs []ir.RealObs, targets []ir.VarID, opt Options) (*ir.Model, float64, error) {
	m2, scale, _, _, err := clgSolve(m, q, obs, targets, opt)
	return m2, scale, err
}

// clgSolve is clgLikelihood, with the part of the real variables in
// play that holds the targets (clgNet.split) and the solution of each of
// its configurations of discrete parents that the evidence allows
// (row-major over its disc).
func clgSolve(m *ir.Model, q *query, obs []ir.RealObs, targets []ir.VarID, opt Options) (*ir.Model, float64, *clgNet, map[int]clgSolution, error) {
	if u := m.Unlearned(); len(u) > 0 {
		return nil, 0, nil, nil, &ir.Error{Pos: q.Pos, Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
	}
	whole, err := newCLGNet(m, q.Pos, obs, q.DoReal, targets)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	state := make([]int, len(m.Vars))
	for v := range state {
		state[v] = -1
	}
	for _, o := range q.Evidence {
		state[o.Var] = o.State
	}
	var ds []obsDensity
	var tnet *clgNet
	var tsols map[int]clgSolution
	for k, net := range whole.split() {
		want := k == 0 && len(targets) > 0
		open, l, sols, err := net.likelihoods(q.Pos, obs, state, want, opt)
		if err != nil {
			return nil, 0, nil, nil, err
		}
		ds = append(ds, obsDensity{parents: open, l: l})
		if want {
			tnet, tsols = net, sols
		}
	}
	m2, scale, err := withDensities(m, q.Pos, ds, state, obs, q.Evidence, q.Free, opt)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	return m2, scale, tnet, tsols, nil
}

// likelihoods returns the discrete parents of net.disc that the evidence
// state leaves open, and ln of the density of the observed values in each
// of their configurations (row-major; the others' states are the
// evidence's) and, if want, the solution of each configuration allowed,
// by its index over net.disc. At most maxCLGConfigs configurations are
// enumerated: more is a *TooLargeError before any.
func (net *clgNet) likelihoods(pos ir.Pos, obs []ir.RealObs, state []int, want bool, opt Options) ([]ir.VarID, []float64, map[int]clgSolution, error) {
	m := net.m
	card := make([]int, len(net.disc))
	var open []ir.VarID
	var ocard []int
	for k, v := range net.disc {
		card[k] = len(m.Vars[v].States)
		if state[v] < 0 {
			open = append(open, v)
			ocard = append(ocard, card[k])
		}
	}
	size, ok := ir.TableSize(ocard)
	if !ok || size > maxCLGConfigs || size > opt.maxTable() {
		n := 1.0 // the configurations the evidence allows
		for _, c := range ocard {
			n *= float64(c)
		}
		e := &TooLargeError{What: OversizeEnum, Vars: open, Size: n, Limit: maxCLGConfigs}
		e.msg = fmt.Sprintf("the real variables' normals are computed once per configuration of their discrete parents %s that the evidence leaves open (%s): %s configurations, more than the limit of %d (give some of them as evidence)",
			varList(m, open), sizeString(ocard), ir.FormatFloat(n), maxCLGConfigs)
		return nil, nil, nil, e.at(pos)
	}
	l := make([]float64, max(size, 1))
	for i := range l {
		l[i] = math.Inf(-1)
	}
	var sols map[int]clgSolution
	if want {
		sols = map[int]clgSolution{}
	}
	st := make([]int, len(m.Vars))
	var failed error
	count := 0
	forAllowed(m, net.disc, state, func(u int) {
		if failed != nil {
			return
		}
		if count++; count%1024 == 0 && closed(opt.Cancel) {
			failed = canceled(pos)
			return
		}
		r := u
		for k := len(net.disc) - 1; k >= 0; k-- {
			st[net.disc[k]] = r % card[k]
			r /= card[k]
		}
		uo := 0 // the index of the open parents' configuration
		for k, v := range open {
			uo = uo*ocard[k] + st[v]
		}
		s, err := net.solve(pos, st)
		if err != nil {
			failed = err
			return
		}
		if math.IsNaN(s.logL) || math.IsInf(s.logL, 0) {
			failed = &ir.Error{Pos: pos, Err: ErrRange, Msg: fmt.Sprintf("the density of %s is beyond float64's range", realList(m, obs))}
			return
		}
		l[uo] = s.logL
		if sols != nil {
			sols[u] = s
		}
	})
	if failed != nil {
		return nil, nil, nil, failed
	}
	return open, l, sols, nil
}

// normalsCLG answers P(X, Y | e) for real X, Y.
func normalsCLG(m *ir.Model, q *query, opt Options) (Result, error) {
	m2, _, net, sols, err := clgSolve(m, q, q.Real, q.Targets, opt)
	if err != nil {
		return nil, err
	}
	r := &Normals{Header: exact(q), Vars: slices.Clone(q.Targets)}
	var open []ir.VarID // the discrete parents the evidence leaves open
	pos := make([]int, 0, len(net.disc))
	for k, v := range net.disc {
		if !slices.ContainsFunc(q.Evidence, func(o ir.Obs) bool { return o.Var == v }) {
			open = append(open, v)
			pos = append(pos, k)
		}
	}
	base := *q
	base.Real, base.DoReal, base.Free, base.noCLG = nil, nil, nil, true
	base.Kind, base.Star = kindProb, false
	if len(open) == 0 {
		// One configuration: check that the evidence is possible.
		base.Targets, base.TargetStates = nil, nil
		res, err := answerQ(m2, &base, opt)
		if err != nil {
			return nil, err
		}
		if e := res.(*Evidence); e.LogZ == math.Inf(-1) {
			return nil, impossible(q.Pos, m, q.Evidence)
		}
		for _, s := range sols {
			r.Components = []NormalComponent{{Weight: 1, Mean: s.mean, Cov: s.cov}}
		}
		return r, nil
	}
	base.Targets, base.TargetStates = open, free(len(open))
	res, err := answerQ(m2, &base, opt)
	if err != nil {
		return nil, err
	}
	t := res.(*Table)
	if !t.Exact {
		return nil, ir.Errorf(q.Pos, "%s: the posterior of a real-valued variable is answered exactly only, and the weights of its normals needed an approximate engine", q.Text)
	}
	// The index (row-major over net.disc) of the observed part.
	stride := make([]int, len(net.disc))
	s := 1
	for k := len(net.disc) - 1; k >= 0; k-- {
		stride[k] = s
		s *= len(m.Vars[net.disc[k]].States)
	}
	baseU := 0
	for k, v := range net.disc {
		for _, o := range q.Evidence {
			if o.Var == v {
				baseU += o.State * stride[k]
			}
		}
	}
	for _, row := range t.Rows {
		if row.P == 0 {
			continue
		}
		u := baseU
		given := make([]ir.Obs, len(open))
		for i, st := range row.Values {
			u += st * stride[pos[i]]
			given[i] = ir.Obs{Var: open[i], State: st}
		}
		sol, ok := sols[u]
		if !ok {
			continue // ruled out by the evidence (weight 0)
		}
		r.Components = append(r.Components, NormalComponent{Weight: row.P, Given: given, Mean: sol.mean, Cov: sol.cov})
	}
	if len(r.Components) == 0 {
		return nil, impossible(q.Pos, m, q.Evidence)
	}
	return r, nil
}

// densityCLG answers density(values | reals, e) on a CLG model: ln
// p(values, reals, e) − ln p(reals, e).
func densityCLG(m *ir.Model, q *query, opt Options) (Result, error) {
	num, err := logJointCLG(m, q, append(slices.Clip(q.Real), q.Values...), opt)
	if err != nil {
		return nil, err
	}
	den := 0.0
	if len(q.Real) > 0 || len(q.Evidence) > 0 {
		if den, err = logJointCLG(m, q, q.Real, opt); err != nil {
			return nil, err
		}
		if math.IsInf(den, -1) {
			return nil, impossible(q.Pos, m, q.Evidence)
		}
	}
	ld := num - den
	return &Density{Header: exact(q), Density: math.Exp(ld), LogDensity: ld}, nil
}

// logJointCLG returns ln of the joint density of the real observations
// obs and q's discrete evidence, given q's do(...) of real variables.
func logJointCLG(m *ir.Model, q *query, obs []ir.RealObs, opt Options) (float64, error) {
	m2, scale, err := clgLikelihood(m, q, obs, nil, opt)
	if err != nil {
		return 0, err
	}
	res, err := answerQ(m2, &query{Pos: q.Pos, Kind: kindProb, Conditions: ir.Conditions{Evidence: q.Evidence}, Text: evidenceText(m, q.Evidence), noCLG: true}, opt)
	if err != nil {
		return 0, err
	}
	e := res.(*Evidence)
	if !e.Exact {
		return 0, ir.Errorf(q.Pos, "%s: densities are answered exactly only, and the discrete part needed an approximate engine", q.Text)
	}
	return e.LogZ + scale, nil
}
