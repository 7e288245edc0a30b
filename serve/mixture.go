package serve

import (
	"slices"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// A MixtureInfo is one of the model's mixture declarations, `mixture C
// of x, y (covariance = diag)`, as the page labels it: the component
// variable, whose belief bars are the mixing weights given the evidence,
// and the real variables, whose density is drawn as the sum of the
// components' weighted densities.
type MixtureInfo struct {
	Component string   `json:"component"`
	Vars      []string `json:"vars"`
	// Covariance is the covariance form ("full", "diag", "spherical",
	// "tied"), or "variance = V" for a known shared variance.
	Covariance string `json:"covariance"`
}

// A Component is one component's share of a real variable's density
// given the evidence: Weight = P(C = State | e) and Density[i] =
// Weight · density(x = X[i] | C = State, e), at the points of the
// variable's curve; the components' densities sum to the variable's.
type Component struct {
	State   string    `json:"state"`
	Weight  float64   `json:"weight"`
	Density []float64 `json:"density"`
}

// mixturesOf returns the model's mixture declarations.
func mixturesOf(m *ir.Model) []MixtureInfo {
	out := []MixtureInfo{}
	for _, mx := range m.Mixtures {
		mi := MixtureInfo{Component: m.Vars[mx.Component].Name, Covariance: mx.Form.String()}
		if mx.Variance > 0 {
			mi.Covariance = "variance = " + ir.FormatFloat(mx.Variance)
		}
		for _, v := range mx.Vars {
			mi.Vars = append(mi.Vars, m.Vars[v].Name)
		}
		out = append(out, mi)
	}
	return out
}

// mixtureOf returns the component of the mixture declaration that the
// real variable v belongs to.
func mixtureOf(m *ir.Model, v ir.VarID) (ir.VarID, bool) {
	for _, mx := range m.Mixtures {
		if slices.Contains(mx.Vars, v) {
			return mx.Component, true
		}
	}
	return 0, false
}

// componentCurves returns the components of the real variable v's
// density given the conditions c, at the points xs of its curve: for each
// state k of its mixture's component C with P(C=k | e) = weights[k] > 0,
// that weight times density(v=x | C=k, e), each answered by infer.Answer.
// A component observed or set in c has one component, its state, of
// weight 1. It returns nil where an answer fails.
func componentCurves(m *ir.Model, v, comp ir.VarID, c ir.Conditions, weights []float64, xs []float64, opt infer.Options) []Component {
	states := m.Vars[comp].States
	hard := -1
	for _, o := range slices.Concat(c.Evidence, c.Do) {
		if o.Var == comp {
			hard = o.State
		}
	}
	var out []Component
	for k, s := range states {
		w := 0.0
		ck := c
		switch {
		case hard >= 0:
			if k == hard {
				w = 1
			}
		case k < len(weights):
			w = weights[k]
			ck.Evidence = append(slices.Clip(c.Evidence), ir.Obs{Var: comp, State: k})
		}
		if !(w > 0) {
			continue
		}
		ys := make([]float64, len(xs))
		for i, x := range xs {
			d, err := densityAt(m, v, x, ck, opt)
			if err != nil {
				return nil
			}
			ys[i] = w * d
		}
		out = append(out, Component{State: s, Weight: w, Density: ys})
	}
	return out
}
