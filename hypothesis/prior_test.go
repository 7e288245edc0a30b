package hypothesis

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestPriorInLogSpace: prior weights below (and above) float64's range
// keep their ratios, because the prior is evaluated as its log; a prior
// of 0 everywhere, or negative, is an error.
func TestPriorInLogSpace(t *testing.T) {
	tests := []struct {
		prior string
		want  []float64 // P(h|D) for w = 0, 1, 2; nil: ErrPrior
	}{
		{"2^(-2000 - w)", []float64{4.0 / 7, 2.0 / 7, 1.0 / 7}},
		{"2^(2000 - w)", []float64{4.0 / 7, 2.0 / 7, 1.0 / 7}},
		{"exp(-1000 * w) * exp(-1000)", []float64{1, 0, 0}},
		{"3 * 2^(-w) / 2^2000", []float64{4.0 / 7, 2.0 / 7, 1.0 / 7}},
		{"(w - 3) * (w - 4)", []float64{12.0 / 20, 6.0 / 20, 2.0 / 20}}, // two negative factors: ln w from w
		{"0^w", []float64{1, 0, 0}},
		{"0", nil},
		{"w - 1", nil},
		{"0 * w", nil},
	}
	for _, tt := range tests {
		s := newSpace(t, []*ir.SpaceParam{param("w", []float64{0, 1, 2})}, tt.prior, "d ~ bernoulli(0.5)")
		d, err := FromColumns(s, nil, [][]float64{{1, 0}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Evaluate(context.Background(), s, nil, d)
		if tt.want == nil {
			if !errors.Is(err, ErrPrior) {
				t.Errorf("prior %s: error %v, want ErrPrior", tt.prior, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("prior %s: %v", tt.prior, err)
			continue
		}
		for i, want := range tt.want {
			if got := math.Exp(p.LogPosterior(i)); !(math.Abs(got-want) <= 1e-12) {
				t.Errorf("prior %s: P(w=%d|D) = %v, want %v", tt.prior, i, got, want)
			}
		}
	}
}
