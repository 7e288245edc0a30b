package ir_test

import (
	"math"
	"testing"
)

// TestRowsRenormalised: rows accepted within the tolerance are
// renormalised when the model is built, so that every engine answers the
// same model; the numbers as written are kept for writers.
func TestRowsRenormalised(t *testing.T) {
	m := lower(t, `var A, B: bool
A -> B
P(A) = [0.5, 0.5000001]
P(B | A) = { true: [0.25, 0.75]  false: [0.3, 0.7000004] }
`)
	a, _ := m.Lookup("A")
	b, _ := m.Lookup("B")
	for _, tc := range []struct {
		name             string
		got, written     []float64
		wantWritten      []float64
		renormalisedRows [][2]int // rows whose entries must sum to 1 exactly or within an ulp
	}{
		{"A", m.Factor(a.ID).Vals, m.Table(a.ID).Written().Vals, []float64{0.5, 0.5000001}, [][2]int{{0, 2}}},
		{"B", m.Factor(b.ID).Vals, m.Table(b.ID).Written().Vals, []float64{0.25, 0.75, 0.3, 0.7000004}, [][2]int{{0, 2}, {2, 4}}},
	} {
		for i, w := range tc.wantWritten {
			if math.Float64bits(tc.written[i]) != math.Float64bits(w) {
				t.Errorf("%s: written value %d is %v, want %v", tc.name, i, tc.written[i], w)
			}
		}
		for _, r := range tc.renormalisedRows {
			sum := 0.0
			for _, x := range tc.got[r[0]:r[1]] {
				sum += x
			}
			if d := math.Abs(sum - 1); !(d <= 2e-16) {
				t.Errorf("%s: row %v sums to %v after renormalising", tc.name, r, sum)
			}
		}
	}
	if got := m.Factor(a.ID).Vals[0]; !(math.Abs(got-0.5/1.0000001) <= 1e-16) {
		t.Errorf("P(A=true) = %v, want 0.5/1.0000001", got)
	}
	// A row that sums to 1 exactly is kept as it is, and so is its table.
	if m.Table(b.ID).Factor.Vals[0] != 0.25 || m.Table(b.ID).Factor.Vals[1] != 0.75 {
		t.Errorf("an exact row changed: %v", m.Table(b.ID).Factor.Vals[:2])
	}
	exact := lower(t, "var C: bool\nP(C) = [0.25, 0.75]\n")
	c, _ := exact.Lookup("C")
	if tab := exact.Table(c.ID); tab.Written() != tab.Factor {
		t.Error("a table whose rows sum to 1 keeps a second copy of its numbers")
	}
}

// TestNormalizeHugeWeights: weights whose sum overflows float64 are still
// normalised, to their exact ratios.
func TestNormalizeHugeWeights(t *testing.T) {
	m := lower(t, "var A: {x, y, z}\nP(A) = normalize [1e308, 1e308, 5e307]\n")
	a, _ := m.Lookup("A")
	got := m.Factor(a.ID).Vals
	for i, want := range []float64{0.4, 0.4, 0.2} {
		if !(math.Abs(got[i]-want) <= 1e-15) {
			t.Errorf("P(A=%s) = %v, want %v", a.States[i], got[i], want)
		}
	}
}
