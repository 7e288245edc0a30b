package serve

import (
	"math"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// densityPoints is the number of points of a real variable's curve.
const densityPoints = 61

// densityRange returns the range a real variable's curve is drawn over:
// the widest of mean ± 4 standard deviations over its density's
// configurations; ok is false for a variable whose density is of no kind
// it knows (or is still to learn).
func densityRange(m *ir.Model, v ir.VarID) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	widen := func(mean, sd float64) {
		if math.IsNaN(mean) || math.IsNaN(sd) || math.IsInf(mean, 0) || math.IsInf(sd, 0) || sd <= 0 {
			return
		}
		lo, hi = min(lo, mean-4*sd), max(hi, mean+4*sd)
	}
	switch d := m.Dists[v].(type) {
	case *ir.Gaussian:
		for i := range d.Mean {
			widen(d.Mean[i], d.SD[i])
		}
	case *ir.MultiNormal:
		k := -1
		for i, c := range d.Children {
			if c == v {
				k = i
			}
		}
		if k < 0 {
			return 0, 0, false
		}
		n := len(d.Children)
		for u := range d.Mean {
			widen(d.Mean[u][k], math.Sqrt(d.Cov[u][k*n+k]))
		}
	}
	return lo, hi, lo < hi
}

// densityCurve returns the density of the real variable v given the
// conditions at densityPoints points over its range, each answered by
// infer.Answer (density(v=x | e)); nil where the variable's density is of
// no kind densityRange knows, or an answer fails.
func densityCurve(m *ir.Model, v ir.VarID, c ir.Conditions, opt infer.Options) (xs, ys []float64) {
	lo, hi, ok := densityRange(m, v)
	if !ok {
		return nil, nil
	}
	xs = make([]float64, densityPoints)
	ys = make([]float64, densityPoints)
	for i := range xs {
		x := lo + (hi-lo)*float64(i)/float64(densityPoints-1)
		d, err := densityAt(m, v, x, c, opt)
		if err != nil {
			return nil, nil
		}
		xs[i], ys[i] = x, d
	}
	return xs, ys
}

// densityAt answers density(v=x | c) by infer.Answer.
func densityAt(m *ir.Model, v ir.VarID, x float64, c ir.Conditions, opt infer.Options) (float64, error) {
	q := &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(" + ir.Quote(m.Vars[v].Name) + "=" + ir.FormatFloat(x) + ")"}, Conditions: c, Values: []ir.RealObs{{Var: v, Value: x}}}
	res, err := infer.Answer(m, q, opt)
	if err != nil {
		return 0, err
	}
	return res.(*infer.Density).Density, nil
}
