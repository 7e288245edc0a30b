package infer

import (
	"fmt"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file answers queries on hybrid models in which a discrete variable
// has a real-valued parent (ir.Softmax: logistic or softmax of scores
// affine in the real parents). The posterior of the real variables is then
// not a mixture of normals, and the exact engines refuse such a model
// (ErrDiscreteChildOfReal). The approximate engine lw answers it by
// likelihood weighting on the whole hybrid network (approx.HybridSample:
// real variables drawn from their linear Gaussian densities, discrete ones
// from their tables or softmax, evidence weighted by its probability and
// real evidence by its density), as an [Instance] whose joints are read
// off one set of weighted samples, so that the answerer gives every kind
// of answer on discrete targets — tables, numbers, P(e), marginals,
// entropy — each number with its error; Auto falls back on it
// (approxplan.go); real targets get their posterior moments (a Normals
// with Moments), density(...) and P(e) with real values observed a
// Density; do(...) sets a variable in every sample without weight, and
// likelihood evidence multiplies it. MPE and MAP are not answered on such
// a model yet. The sampler is hybridlw.go; the WebAssembly page
// leaves it out (hybrid_js.go refuses), for issue 30's size limit.

// hybridEngine is the name of the engine that answers hybrid models.
const hybridEngine = "lw"

// discreteChildOfReal returns a discrete variable of m with a real-valued
// parent, and that parent, if there is one.
func discreteChildOfReal(m *ir.Model) (child, parent ir.VarID, ok bool) {
	for v, ps := range m.Parents {
		if !m.Discrete(ir.VarID(v)) {
			continue
		}
		for _, p := range ps {
			if !m.Discrete(p) {
				return ir.VarID(v), p, true
			}
		}
	}
	return 0, 0, false
}

// hasDiscreteChildOfReal reports whether a discrete variable of m has a
// real-valued parent.
func hasDiscreteChildOfReal(m *ir.Model) bool {
	_, _, ok := discreteChildOfReal(m)
	return ok
}

// HybridError is the exact engines' refusal of a model in which a
// discrete variable has a real-valued parent; errors.Is(err,
// ErrDiscreteChildOfReal) holds for it. Instead names the approximate
// engine that answers it.
type HybridError struct {
	Child, Parent string // the discrete variable and its real parent
	Engine        string // the engine refused, or "" for the exact engines
	Instead       string // the engine that answers it
}

func (e *HybridError) Error() string {
	who := "exact inference answers"
	if e.Engine != "" {
		who = "the engine " + e.Engine + " answers"
	}
	return fmt.Sprintf("%s is discrete and has the real-valued parent %s: %s only models whose discrete variables have discrete parents (the posterior of the real variables is then not a mixture of normals, and has no closed form); the approximate engine %s (likelihood weighting) answers it",
		ir.Quote(e.Child), ir.Quote(e.Parent), who, e.Instead)
}

// Is reports whether target is ErrDiscreteChildOfReal.
func (e *HybridError) Is(target error) bool { return target == ErrDiscreteChildOfReal }

// hybridRefusal returns the refusal of m, which has a discrete variable
// with a real parent, by the engine named engine ("" for the exact ones).
func hybridRefusal(pos ir.Pos, m *ir.Model, engine string) error {
	child, parent, _ := discreteChildOfReal(m)
	e := &HybridError{Child: m.Vars[child].Name, Parent: m.Vars[parent].Name, Engine: engine, Instead: hybridEngine}
	return &ir.Error{Pos: pos, Err: e, Msg: e.Error()}
}

// withoutBarren returns m with the distribution of each discrete variable
// that has a real parent replaced by a uniform table without parents, if
// none of them is an ancestor (inclusive) of a variable q names — a
// target, a given or observed variable, an intervention, a density's
// value — so that the exact engines answer q (those variables and their
// descendants are barren: q's answer does not depend on them); else nil.
// P(* | e) and MPE name every variable.
func withoutBarren(m *ir.Model, q *query) *ir.Model {
	if q.Kind == kindMPE || q.Kind == kindProb && q.Form() == formMarginals {
		return nil
	}
	named := slices.Clone(q.Targets)
	named = append(named, q.Free...)
	named = append(named, q.A...)
	named = append(named, q.B...)
	named = append(named, q.C...)
	for _, o := range q.Evidence {
		named = append(named, o.Var)
	}
	for _, o := range q.Do {
		named = append(named, o.Var)
	}
	for _, o := range q.Soft {
		named = append(named, o.Var)
	}
	for _, os := range [][]ir.RealObs{q.Real, q.DoReal, q.Values} {
		for _, o := range os {
			named = append(named, o.Var)
		}
	}
	in := make([]bool, len(m.Vars))
	for len(named) > 0 {
		v := named[len(named)-1]
		named = named[:len(named)-1]
		if int(v) < 0 || int(v) >= len(m.Vars) {
			return nil
		}
		if in[v] {
			continue
		}
		in[v] = true
		named = append(named, m.Parents[v]...)
	}
	var ds []ir.Dist
	for v, d := range m.Dists {
		if _, ok := d.(*ir.Softmax); !ok {
			continue
		}
		if in[v] {
			return nil
		}
		k := len(m.Vars[v].States)
		f := ir.NewFactor([]ir.VarID{ir.VarID(v)}, []int{k})
		for s := range f.Vals {
			f.Vals[s] = 1 / float64(k)
		}
		ds = append(ds, &ir.CPT{Pos: d.Position(), Child: ir.VarID(v), Factor: f})
	}
	m2, err := m.WithDists(ds...)
	if err != nil || hasDiscreteChildOfReal(m2) {
		return nil
	}
	return m2
}
