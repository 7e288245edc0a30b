package hypothesis

import (
	"context"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func benchmarkEvaluate(b *testing.B, s *ir.Space, cols ...[]float64) {
	d, err := FromColumns(s, nil, cols)
	if err != nil {
		b.Fatal(err)
	}
	var n int
	b.ResetTimer()
	for b.Loop() {
		p, err := Evaluate(context.Background(), s, nil, d)
		if err != nil {
			b.Fatal(err)
		}
		_ = p.ML()
		n = p.Len()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "hypotheses/s")
}

// BenchmarkLineFitML: ML(H | D) of the line fit, 1,000 rows, the
// 1001×1001 grid, by sufficient statistics.
func BenchmarkLineFitML(b *testing.B) {
	x, d := lineData(1000, 1)
	g := grid(-5, 5, 0.01)
	benchmarkEvaluate(b, lineSpace(b, g, g, "1"), d, x)
}

// BenchmarkSigmoidGridML: bernoulli(sigmoid(w0 + w1*x)), 1,000 rows, a
// 201×201 grid, a column at a time (no sufficient statistics).
func BenchmarkSigmoidGridML(b *testing.B) {
	x, d := sigmoidData(1000, 1)
	g := grid(-2, 2, 0.02)
	benchmarkEvaluate(b, newSpace(b, []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", "d ~ bernoulli(sigmoid(w0 + w1 * x))"), d, x)
}

// BenchmarkLineFitDirect: the line fit evaluated a column at a time (the
// mean multiplied by 1 ^ (w0·x), which defeats the sufficient
// statistics), 1,000 rows, a 201×201 grid.
func BenchmarkLineFitDirect(b *testing.B) {
	x, d := lineData(1000, 1)
	g := grid(-5, 5, 0.05)
	benchmarkEvaluate(b, newSpace(b, []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", "d ~ normal((w0 + w1 * x) * 1 ^ (w0 * x), 1)"), d, x)
}
