package infer

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestRealParentsRefused: on a model in which a real variable has a real
// parent (a linear Gaussian density), every query that the discrete
// engines would answer from likelihoods of the real values — P of a
// discrete variable given a real value, a density, MPE given a real value
// — is an error of kind ErrRealParents at the query, and never a number;
// the same model without the real parent is answered as before. A query
// with no real value is answered: P(A) = 0.3, the table's, whatever the
// densities.
func TestRealParentsRefused(t *testing.T) {
	build := func(linear bool) (*ir.Model, ir.VarID, ir.VarID, ir.VarID) {
		b := ir.NewBuilder("clg")
		p := ir.Pos{File: "clg", Line: 1, Col: 1}
		a, _ := b.AddVar(p, "A", ir.Bool, nil, 0)
		x, _ := b.AddVar(p, "X", ir.Real, nil, 0)
		y, _ := b.AddVar(p, "Y", ir.Real, nil, 0)
		b.SetCPT(p, a, nil, []float64{0.3, 0.7}, nil)
		b.SetGaussian(p, x, nil, []float64{0}, []float64{1})
		if linear {
			b.SetLinearGaussian(p, y, []ir.VarID{a}, []ir.VarID{x}, []float64{1, 0}, []float64{2, -1}, []float64{1, 2})
		} else {
			b.SetGaussian(p, y, []ir.VarID{a}, []float64{1, 0}, []float64{1, 2})
		}
		m, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return m, a, x, y
	}
	at := ir.Pos{File: "q.pbl", Line: 3, Col: 7}
	queries := func(a, x, y ir.VarID) map[string]ir.Query {
		h := ir.QueryHeader{Pos: at}
		return map[string]ir.Query{
			"P(A | Y=1)":       &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{-1}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: 1}}}},
			"P(A | X=0, Y=1)":  &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{-1}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: x, Value: 0}, {Var: y, Value: 1}}}},
			"density(Y=1)":     &ir.DensityQuery{QueryHeader: h, Values: []ir.RealObs{{Var: y, Value: 1}}},
			"MPE(Y=1)":         &ir.MPEQuery{QueryHeader: h, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: 1}}}},
			"P(A=true | Y=-3)": &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{0}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: -3}}}},
		}
	}
	m, a, x, y := build(true)
	if !hasRealParents(m) {
		t.Fatal("hasRealParents: false for a linear Gaussian density")
	}
	for text, q := range queries(a, x, y) {
		r, err := Answer(m, q, Options{})
		var le *ir.Error
		if r != nil || !errors.Is(err, ErrRealParents) || !errors.As(err, &le) || le.Pos != at {
			t.Errorf("%s: result %v, error %v; want an error of kind ErrRealParents at %s", text, r, err, at)
		}
		if jt, err := Compile(m, Options{}); err == nil {
			if r, err := jt.Answer(q, Options{}); r != nil || !errors.Is(err, ErrRealParents) {
				t.Errorf("%s by a compiled tree: result %v, error %v; want ErrRealParents", text, r, err)
			}
		}
	}
	h := ir.QueryHeader{Pos: at}
	r, err := Answer(m, &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{0}}, Options{})
	if err != nil {
		t.Fatalf("P(A=true) with no real value: %v", err)
	}
	if p := r.(*Number).P; p != 0.3 {
		t.Errorf("P(A=true) = %v, want 0.3", p)
	}
	m, a, x, y = build(false)
	if hasRealParents(m) {
		t.Fatal("hasRealParents: true for densities given discrete parents")
	}
	for text, q := range queries(a, x, y) {
		if _, err := Answer(m, q, Options{}); err != nil {
			t.Errorf("%s without real parents: %v", text, err)
		}
	}
}
