//go:build !js

package approx

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

// hybridChain is X ~ normal(0, 1), Y | X ~ normal(1 + 2X, 1), B | X
// logistic(3X) (B's first state has score 3X, its second 0), with Y=y
// observed (NaN for none) and B's state b (-1 for none).
func hybridChain(y float64, b int) *Hybrid {
	return &Hybrid{
		Card: []int{0, 0, 2},
		Nodes: []HybridNode{
			{Bias: []float64{0}, SD: []float64{1}, Real: []int{}},
			{Real: []int{0}, Bias: []float64{1}, Coef: []float64{2}, SD: []float64{1}},
			{Real: []int{0}, Bias: []float64{0, 0}, Coef: []float64{3, 0}},
		},
		Order: []int{0, 1, 2},
		Obs:   []int{-1, -1, b},
		Value: []float64{math.NaN(), y, math.NaN()},
	}
}

// TestHybridSampleClosedForm: with Y observed, ln of the mean weight is
// ln of Y's density, normal(1, sd √5) by hand; X's posterior mean and
// standard deviation are the Gaussian's, (y − 1)·2/5 and √(1/5); each
// within its reported error, and the error is not absurdly wide.
func TestHybridSampleClosedForm(t *testing.T) {
	y := 2.2
	want := -0.5*(y-1)*(y-1)/5 - 0.5*math.Log(2*math.Pi*5)
	for seed := range uint64(5) {
		s, err := HybridSample(hybridChain(y, -1), Settings{Seed: seed, Samples: 20000})
		if err != nil {
			t.Fatal(err)
		}
		lz, e := s.LogZ()
		if !(math.Abs(lz-want) <= e) || !(e < 0.05) {
			t.Errorf("seed %d: ln Z %v ± %v, want %v", seed, lz, e, want)
		}
		mean, me, sd, se, err := s.Moments(0)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(mean-(y-1)*2/5) <= 1.6*me) || !(math.Abs(sd-math.Sqrt(0.2)) <= 1.6*se) {
			t.Errorf("seed %d: X mean %v ± %v sd %v ± %v, want %v and %v", seed, mean, me, sd, se, (y-1)*2/5, math.Sqrt(0.2))
		}
		if _, _, _, _, err := s.Moments(2); !errors.Is(err, ErrDiscreteVar) {
			t.Errorf("Moments of a discrete variable: %v", err)
		}
	}
}

// TestHybridSampleRuns: the same seed gives the same samples, another
// seed others; a past deadline or a closed Cancel gives ErrNoAnswer;
// evidence no sample can meet gives ErrImpossible; a deadline stops the
// sampling, with Stopped.
func TestHybridSampleRuns(t *testing.T) {
	h := hybridChain(math.NaN(), 0)
	a, err := HybridSample(h, Settings{Seed: 4, Samples: 1000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := HybridSample(h, Settings{Seed: 4, Samples: 1000})
	c, _ := HybridSample(h, Settings{Seed: 5, Samples: 1000})
	if a.N != 1000 || !slices.Equal(a.X, b.X) || !slices.Equal(a.LogW, b.LogW) || slices.Equal(a.X, c.X) {
		t.Errorf("seeds: %d samples; equal with the same seed %v, with another %v", a.N, slices.Equal(a.X, b.X), slices.Equal(a.X, c.X))
	}
	closed := make(chan struct{})
	close(closed)
	for _, s := range []Settings{{Deadline: time.Now().Add(-time.Second)}, {Cancel: closed}} {
		if _, err := HybridSample(h, s); !errors.Is(err, ErrNoAnswer) {
			t.Errorf("%+v: %v, want ErrNoAnswer", s, err)
		}
	}
	imp := hybridChain(math.NaN(), 0)
	imp.Nodes[2] = HybridNode{Table: []float64{0, 1}} // B is never in state 0
	if _, err := HybridSample(imp, Settings{Samples: 500}); !errors.Is(err, ErrImpossible) {
		t.Errorf("impossible evidence: %v", err)
	}
	t0 := time.Now()
	s, err := HybridSample(h, Settings{Deadline: t0.Add(50 * time.Millisecond)})
	if err != nil || !s.Stopped || time.Since(t0) > 2*time.Second {
		t.Errorf("deadline: %v, stopped %v after %v", err, s != nil && s.Stopped, time.Since(t0))
	}
	p, errs := s.Joint([]int{2})
	if p[0] != 1 || p[1] != 0 || !(errs[0] >= 0) {
		t.Errorf("an observed variable's joint: %v ± %v", p, errs)
	}
}
