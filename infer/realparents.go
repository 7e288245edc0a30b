package infer

import (
	"errors"

	"github.com/pbl-lang/pbl/ir"
)

// ErrRealParents is the kind of error of a query on a model in which a
// real-valued variable has real-valued parents (a linear Gaussian or
// conditional linear Gaussian density): the discrete engines make the
// likelihoods of real values from densities given discrete parents
// alone, and would answer such a model wrongly, so they refuse it.
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

// realParentsError is the error of a query q on a model with real-valued
// parents (see ErrRealParents), at the query.
func realParentsError(m *ir.Model, q *query) error {
	for v := range m.Vars {
		if g := m.Gaussian(ir.VarID(v)); g != nil && len(g.Real) > 0 {
			return &ir.Error{Pos: q.Pos, Err: ErrRealParents,
				Msg: "the density of " + ir.Quote(m.Vars[v].Name) + " has real-valued parents (" + realNames(m, g.Real) +
					"): exact inference on linear Gaussian models is not available yet, and the discrete engines would answer it wrongly"}
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
