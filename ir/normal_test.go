package ir_test

import (
	"math"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestLogDensitiesAt: over a subset of the parent configurations, the
// nearest of them is the reference, so that their differences survive
// where those to the others overflow. At x = 1e300 under normal(0, 0.01)
// and normal(0.5, 1), LogDensities keeps only normal(0.5, 1) (z = 1e300
// against 1e302: the other's difference overflows to −Inf); over {0}
// alone the entry is 0 and the other −Inf. Over {0, 2} of three, with x
// = 3: ln N(3; 0, 1) − ln N(3; 1, 2) = −4.5 + ln 2 + 0.5, in closed form.
func TestLogDensitiesAt(t *testing.T) {
	g := &ir.Gaussian{Child: 9, Parents: []ir.VarID{0}, Mean: []float64{0, 0.5}, SD: []float64{0.01, 1}}
	obs := []ir.RealObs{{Var: 9, Value: 1e300}}
	_, all, _, err := ir.LogDensities(g, obs)
	if err != nil || !math.IsInf(all[0], -1) || all[1] != 0 {
		t.Fatalf("LogDensities: %v, %v; want [-Inf 0]", all, err)
	}
	_, l, shift, err := ir.LogDensitiesAt(g, obs, []int{0})
	if err != nil || l[0] != 0 || !math.IsInf(l[1], -1) || math.IsNaN(shift) || math.IsInf(shift, 1) {
		t.Errorf("LogDensitiesAt {0}: %v, shift %v, %v; want [0 -Inf]", l, shift, err)
	}
	g3 := &ir.Gaussian{Child: 9, Parents: []ir.VarID{0}, Mean: []float64{0, 100, 1}, SD: []float64{1, 1, 2}}
	_, l, shift, err = ir.LogDensitiesAt(g3, []ir.RealObs{{Var: 9, Value: 3}}, []int{0, 2})
	want := -4.5 + math.Log(2) + 0.5
	if err != nil || !(math.Abs(l[0]-l[2]-want) <= 1e-12) || !math.IsInf(l[1], -1) {
		t.Errorf("LogDensitiesAt {0, 2}: %v, %v; want l[0] − l[2] = %v, l[1] = −Inf", l, err, want)
	}
	// shift + l[2] is ln N(3; 1, 2) itself.
	if w := -math.Log(2) - 0.5*math.Log(2*math.Pi) - 0.5; !(math.Abs(shift+l[2]-w) <= 1e-12) {
		t.Errorf("LogDensitiesAt {0, 2}: shift + l[2] = %v, want %v", shift+l[2], w)
	}
	m := &ir.MultiNormal{Children: []ir.VarID{8, 9}, Parents: []ir.VarID{0}, Mean: [][]float64{{0, 0}, {0.5, 0}},
		Cov: [][]float64{{1e-4, 0, 0, 1}, {1, 0, 0, 1}}, Form: ir.DiagCov}
	_, l, _, err = ir.LogDensitiesAt(m, []ir.RealObs{{Var: 8, Value: 1e300}}, []int{0})
	if err != nil || l[0] != 0 || !math.IsInf(l[1], -1) {
		t.Errorf("LogDensitiesAt, joint, {0}: %v, %v; want [0 -Inf]", l, err)
	}
}
