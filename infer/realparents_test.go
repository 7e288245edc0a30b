package infer

import (
	"math"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestRealParentsAnswered: on a model in which a real variable has a real
// parent (A bool; X ~ normal(0, 1); Y given A and X normal(1 + 2X, 1) or
// normal(−X, 2)), the queries the discrete engines cannot answer — P of a
// discrete variable given real values, a density, MPE given a real value
// — are answered by the CLG engine (MPE's P is P(A=false | Y=1)), by Answer and by a compiled tree,
// and equal their closed forms: with X integrated out, Y given A=true is
// normal(1, var 5), given A=false normal(0, var 5); with X=0 observed,
// normal(1, 1) and normal(0, 4).
func TestRealParentsAnswered(t *testing.T) {
	b := ir.NewBuilder("clg")
	p := ir.Pos{File: "clg", Line: 1, Col: 1}
	a, _ := b.AddVar(p, "A", ir.Bool, nil, 0)
	x, _ := b.AddVar(p, "X", ir.Real, nil, 0)
	y, _ := b.AddVar(p, "Y", ir.Real, nil, 0)
	b.SetCPT(p, a, nil, []float64{0.3, 0.7}, nil)
	b.SetGaussian(p, x, nil, []float64{0}, []float64{1})
	b.SetLinearGaussian(p, y, []ir.VarID{a}, []ir.VarID{x}, []float64{1, 0}, []float64{2, -1}, []float64{1, 2})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	npdf := func(v, mean, variance float64) float64 {
		return math.Exp(-(v-mean)*(v-mean)/(2*variance)) / math.Sqrt(2*math.Pi*variance)
	}
	post := func(lt, lf float64) float64 { return 0.3 * lt / (0.3*lt + 0.7*lf) }
	h := ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 3, Col: 7}}
	for _, c := range []struct {
		text string
		q    ir.Query
		want float64
	}{
		{"P(A=true | Y=1)", &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{0}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: 1}}}},
			post(npdf(1, 1, 5), npdf(1, 0, 5))},
		{"P(A=true | X=0, Y=1)", &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{0}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: x, Value: 0}, {Var: y, Value: 1}}}},
			post(npdf(1, 1, 1), npdf(1, 0, 4))},
		{"P(A=true | Y=-3)", &ir.ProbQuery{QueryHeader: h, Targets: []ir.VarID{a}, TargetStates: []int{0}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: -3}}}},
			post(npdf(-3, 1, 5), npdf(-3, 0, 5))},
		{"density(Y=1)", &ir.DensityQuery{QueryHeader: h, Values: []ir.RealObs{{Var: y, Value: 1}}},
			0.3*npdf(1, 1, 5) + 0.7*npdf(1, 0, 5)},
		{"MPE(Y=1)", &ir.MPEQuery{QueryHeader: h, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: 1}}}},
			// P(assignment | e): A=false, the more probable.
			1 - post(npdf(1, 1, 5), npdf(1, 0, 5))},
	} {
		jt, err := Compile(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range []string{"Answer", "a compiled tree"} {
			var r Result
			if by == "Answer" {
				r, err = Answer(m, c.q, Options{})
			} else {
				r, err = jt.Answer(c.q, Options{})
			}
			if err != nil {
				t.Errorf("%s by %s: %v", c.text, by, err)
				continue
			}
			var got float64
			switch r := r.(type) {
			case *Number:
				got = r.P
			case *Density:
				got = r.Density
			case *Assignment:
				got = r.P
			default:
				t.Fatalf("%s: %T", c.text, r)
			}
			if !(math.Abs(got-c.want) <= 1e-12*math.Max(1, math.Abs(c.want))) {
				t.Errorf("%s by %s = %.17g, want %.17g", c.text, by, got, c.want)
			}
		}
	}
}
