package approx

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestStudentT975 checks studentT975 against gonum's distuv (the library it
// stands in for in the binaries) for 1 to 60 degrees of freedom and a few
// more, and the normal quantile of rhat against distuv's UnitNormal.
func TestStudentT975(t *testing.T) {
	nus := []int{100, 257, 1000, 4095}
	for nu := 1; nu <= 60; nu++ {
		nus = append(nus, nu)
	}
	for _, nu := range nus {
		got := studentT975(nu)
		want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}.Quantile(0.975)
		if !(math.Abs(got-want) <= 1e-9*want) {
			t.Errorf("ν = %d: %.15g, distuv %.15g", nu, got, want)
		}
	}
	for _, p := range []float64{1e-9, 0.001, 0.05, 0.3, 0.5, 0.77, 0.975, 0.999999} {
		got, want := normalQuantile(p), distuv.UnitNormal.Quantile(p)
		if !(math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))) {
			t.Errorf("Φ⁻¹(%g) = %.15g, distuv %.15g", p, got, want)
		}
	}
}
