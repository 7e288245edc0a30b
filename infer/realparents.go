package infer

import (
	"errors"

	"github.com/pbl-lang/pbl/ir"
)

// ErrRealParents is the kind of error of a query on a model in which a
// real-valued variable has real-valued parents (a linear Gaussian or
// conditional linear Gaussian density) that observes a real value, asks
// for a density or names a real variable: the discrete engines make the
// likelihoods of real values from densities given discrete parents
// alone, and would answer it wrongly, so they refuse it. A query about
// the discrete variables alone, with discrete evidence, is answered: no
// discrete variable has a real parent, so the real variables, all
// unobserved, integrate to 1 and change nothing.
var ErrRealParents = errors.New("the model has real-valued variables with real-valued parents, which these engines cannot answer")

// hasRealParents reports whether a density of m has real-valued parents.
func hasRealParents(m *ir.Model) bool {
	for v := range m.Vars {
		if g := m.Gaussian(ir.VarID(v)); g != nil && len(g.Real) > 0 {
			return true
		}
	}
	return false
}

// refuseRealParents reports whether q is a query that the discrete
// engines cannot answer on m because of real parents (see ErrRealParents).
func refuseRealParents(m *ir.Model, q *query) bool {
	if q.Kind == kindIndep || !hasRealParents(m) {
		return false // d-separation reads the graph alone
	}
	if len(q.Real) > 0 || len(q.Values) > 0 || len(q.Soft) > 0 && realIn(m, softVars(q.Soft)) {
		return true
	}
	return realIn(m, q.Targets) || realIn(m, q.Free) || realIn(m, q.A) || realIn(m, q.B) || realIn(m, q.C)
}

func softVars(s []ir.SoftObs) []ir.VarID {
	out := make([]ir.VarID, len(s))
	for i, o := range s {
		out[i] = o.Var
	}
	return out
}

// realIn reports whether a variable of vs is real-valued.
func realIn(m *ir.Model, vs []ir.VarID) bool {
	for _, v := range vs {
		if !m.Vars[v].Discrete() {
			return true
		}
	}
	return false
}

// realParentsError is the error of a query q on a model with real-valued
// parents (see ErrRealParents), at the query.
func realParentsError(m *ir.Model, q *query) error {
	for v := range m.Vars {
		if g := m.Gaussian(ir.VarID(v)); g != nil && len(g.Real) > 0 {
			return &ir.Error{Pos: q.Pos, Err: ErrRealParents,
				Msg: "the density of " + ir.Quote(m.Vars[v].Name) + " has real-valued parents (" + realNames(m, g.Real) +
					"): exact inference given real values on linear Gaussian models is not available yet, and the discrete engines would answer it wrongly"}
		}
	}
	return nil
}

func realNames(m *ir.Model, vs []ir.VarID) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += ir.Quote(m.Vars[v].Name)
	}
	return s
}
