package infer

import (
	"errors"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file holds the maximisation queries. MPE maximises over every
// unobserved variable; MAP sums out the other variables first and then
// maximises over the MAP variables (a constrained elimination order:
// max and sum do not commute). The engines return the maximum of
// P(maxVars, e); Answer divides by P(e). The Auto engine, unless a
// junction tree is compiled for the model already, answers both by branch
// and bound (mpesearch.go, mapsearch.go), and falls back on max-product
// elimination (the junction tree, else VE) if the search gives up.

// trace records one max-elimination for the traceback: v was maximised
// out, and arg holds its maximising state for each entry of a table over
// vars (all eliminated after v).
type trace struct {
	v    ir.VarID
	vars []ir.VarID
	str  []int
	arg  []int32
}

// MaxAssign maximises over maxVars after summing out every other relevant
// unobserved variable (max-product VE with a constrained order), and returns
// the maximising states (indexed by VarID; -1 elsewhere) and the maximum of
// P(maxVars, e).
func (r *ve) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	p, err := r.plan(nil, maxVars)
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	r.k.Lost = false
	out, c, tr, err := r.run(p, false)
	if err == nil && r.k.Lost {
		out, c, tr, err = r.run(p, true)
	}
	if err != nil {
		return nil, c, err
	}
	// Every variable is eliminated: the result is a constant.
	c = factor.Scaled{M: c.M * out.Vals[0], E: c.E}.Norm()
	a := make([]int, len(r.m.Vars))
	for i := range a {
		a[i] = -1
	}
	for i := len(tr) - 1; i >= 0; i-- {
		t := tr[i]
		off := 0
		for k, w := range t.vars {
			off += a[w] * t.str[k]
		}
		a[t.v] = int(t.arg[off])
	}
	return a, c, nil
}

// MaxAssign returns the assignment of maxVars (indexed by VarID; -1
// elsewhere) that maximises P(maxVars, e), and that maximum. Among ties it
// returns the first in lexicographic order of maxVars as given.
func (e *enum) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	if len(maxVars) == len(e.free()) {
		// MPE: every unobserved variable. Walk without a table.
		var best []int
		var bp factor.Scaled
		err := e.walk(func(a []int, p factor.Scaled) {
			if best == nil || bp.Less(p) {
				best = append(best[:0], a...)
				bp = p
			}
		})
		if err != nil {
			return nil, bp, err
		}
		for v, s := range e.obs {
			if s >= 0 || e.card[v] == 0 || e.mark != nil && !e.mark[v] {
				best[v] = -1
			}
		}
		return best, bp, nil
	}
	f, c, err := e.Joint(maxVars)
	if err != nil {
		return nil, c, err
	}
	best := 0
	for i, x := range f.Vals {
		if x > f.Vals[best] {
			best = i
		}
	}
	a := make([]int, len(e.card))
	for i := range a {
		a[i] = -1
	}
	st := f.Assignment(make([]int, len(maxVars)), best)
	for i, v := range maxVars {
		a[v] = st[i]
	}
	return a, factor.Scaled{M: c.M * f.Vals[best], E: c.E}.Norm(), nil
}

func (a *answerer) mpe() (Result, error) {
	vars := a.unobserved()
	if (a.sel == kindAuto || a.sel == kindSearch) && a.kind == kindVE && a.need == nil {
		// Auto without a compiled tree: branch and bound (mpesearch.go),
		// which is max-product elimination when the width allows it.
		pe, err := a.pe()
		if err != nil {
			return nil, err
		}
		best, mx, ok, err := searchMPE(a.m, a.obs, a.card, a.k, a.q.Pos)
		if err != nil {
			return nil, err
		}
		if ok {
			return a.maxResult(vars, best, mx, pe), nil
		}
		// The search gave up: max-product on the junction tree, if it
		// compiles within the limits (Auto), else VE.
		if a.sel == kindAuto {
			t, err := cachedCompile(a.m, a.opt)
			if errors.Is(err, ErrCanceled) {
				return nil, canceled(a.q.Pos)
			}
			if err == nil {
				a.kind, a.tree = kindJT, t
				a.eng = a.engine(a.obs)
			}
		}
	}
	return a.maximise(vars)
}

func (a *answerer) mapQuery() (Result, error) {
	if (a.sel == kindAuto || a.sel == kindSearch) && a.kind == kindVE && a.need == nil {
		// Auto: the other variables summed out, then branch and bound
		// over the MAP variables (mapsearch.go).
		pe, err := a.pe()
		if err != nil {
			return nil, err
		}
		best, mx, ok, err := searchMAP(a.m, a.obs, a.card, a.q.Targets, a.k, a.q.Pos, searchOverride)
		if err != nil {
			return nil, err
		}
		if ok {
			return a.maxResult(a.q.Targets, best, mx, pe), nil
		}
	}
	return a.maximise(a.q.Targets)
}

// maximise answers MPE (vars = every unobserved variable) and MAP.
func (a *answerer) maximise(vars []ir.VarID) (Result, error) {
	pe, err := a.pe()
	if err != nil {
		return nil, err
	}
	best, mx, err := a.eng.MaxAssign(vars)
	if err != nil {
		return nil, err
	}
	return a.maxResult(vars, best, mx, pe), nil
}

// maxResult is the answer of a maximisation: the states best[v] of vars,
// of joint probability mx with the evidence, whose probability is pe.
func (a *answerer) maxResult(vars []ir.VarID, best []int, mx, pe factor.Scaled) *Assignment {
	r := &Assignment{Header: exact(a.q), Assignment: make([]ir.Obs, len(vars))}
	for i, v := range vars {
		r.Assignment[i] = ir.Obs{Var: v, State: best[v]}
	}
	// P(assignment | e) = max / P(e), two sums computed apart: clamp the
	// rounding that takes an assignment with all the mass to 1 + ulp.
	r.LogP = min(0, mx.Log()-pe.Log())
	r.P = prob(mx.Div(pe))
	if ie := a.inexact(); ie != nil {
		// P = max / P(e): the errors of their logarithms add.
		_, le := ie.JointErr()
		a.addErr(probErr(r.P, ie.MaxErr().Err+le.Err))
	}
	return r
}
