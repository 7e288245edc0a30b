package dbn_test

import (
	"math"
	"testing"

	"github.com/pbl-lang/pbl/dbn"
	"pgregory.net/rapid"
)

// TestNoPanic feeds random sequences — states out of range, fractions,
// NaN and infinities, wrong widths, impossible evidence — to every call
// on models of both engines: no panic, no NaN in an answer, and an error
// or an answer whose posteriors sum to 1.
func TestNoPanic(t *testing.T) {
	nets := []*dbn.Net{compile(t, umbrella), compile(t, certain), compile(t, mixed), compile(t, threeVar)}
	nets = append(nets, dbn.Slow(nets[0]))
	values := []float64{-2, -1, 0, 1, 2, 0.5, math.NaN(), math.Inf(1), 1e300, -1e300}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.SampledFrom(nets).Draw(rt, "net")
		width := len(n.Vars())
		if rapid.IntRange(0, 9).Draw(rt, "badwidth") == 0 {
			width++
		}
		T := rapid.IntRange(0, 6).Draw(rt, "T")
		var s dbn.Seq
		for range T {
			row := make([]float64, width)
			for i := range row {
				row[i] = rapid.SampledFrom(values).Draw(rt, "v")
			}
			s.Steps = append(s.Steps, row)
		}
		if len(n.Statics()) > 0 && rapid.Bool().Draw(rt, "static") {
			for range n.Statics() {
				s.Static = append(s.Static, rapid.SampledFrom(values).Draw(rt, "s"))
			}
		}
		targets := n.Vars()[:1]
		sane := func(post [][]float64) {
			for _, p := range post {
				sum := 0.0
				for _, x := range p {
					if math.IsNaN(x) || x < 0 {
						rt.Fatalf("posterior %v", p)
					}
					sum += x
				}
				if !(math.Abs(sum-1) <= 1e-9) {
					rt.Fatalf("posterior %v sums to %v", p, sum)
				}
			}
		}
		emit := func(_ int, post [][]float64) error { sane(post); return nil }
		if ll, err := n.LogLik(s); err == nil && math.IsNaN(ll) {
			rt.Fatalf("LogLik NaN")
		}
		_ = n.Filter(s, targets, emit)
		_ = n.Smooth(s, targets, emit)
		if pred, err := n.Predict(s, targets, 2); err == nil {
			for _, p := range pred {
				sane(p)
			}
		}
		if _, lp, err := n.Viterbi(s, targets); err == nil && math.IsNaN(lp) {
			rt.Fatalf("Viterbi NaN")
		}
	})
}
