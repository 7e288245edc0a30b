package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// This file is pbl cluster --anomaly: anomaly detection with a fitted
// density, as in CS229's notes. A point is flagged anomalous when its
// density p(x) is below a threshold ε; ε is chosen on a labelled
// validation file as the one whose flags have the best F1 score for the
// anomalous class.

// anomalyResult is the threshold chosen and its scores on the validation
// rows.
type anomalyResult struct {
	file                  string
	rows, anomalies       int
	logEps                float64 // ln ε: flag rows whose log density is at most this
	f1, precision, recall float64
	flagged, caught       int // rows flagged, and anomalies among them
}

// positive reports whether a label names the anomalous class.
func positive(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "true", "1", "anomaly", "anomalous":
		return true
	}
	return false
}

// logDensity returns ln p(x) of the values x of the mixture's variables
// in m (the model mixtureModel makes): ln Σ_c P(c) N(x; c).
func logDensity(m *ir.Model, x []float64) float64 {
	mx := m.Mixtures[0]
	w := m.Factor(mx.Component).Vals
	obs := make([]ir.RealObs, len(mx.Vars))
	for i, v := range mx.Vars {
		obs[i] = ir.RealObs{Var: v, Value: x[i]}
	}
	_, l, shift, err := ir.LogDensities(m.Dist(mx.Vars[0]), obs)
	if err != nil {
		return math.NaN()
	}
	top := math.Inf(-1)
	for u := range l {
		l[u] += math.Log(w[u])
		top = max(top, l[u])
	}
	if math.IsInf(top, -1) {
		return math.Inf(-1)
	}
	s := 0.0
	for _, v := range l {
		s += math.Exp(v - top)
	}
	return shift + top + math.Log(s)
}

// chooseThreshold reads the labelled validation file at path (the
// mixture's columns, and the column label: yes, true, 1 or anomaly for an
// anomaly, anything else for a normal row) and returns the threshold with
// the best F1 for the anomalies (the smallest such threshold on ties).
func chooseThreshold(m *ir.Model, path, label string) (*anomalyResult, error) {
	mx := m.Mixtures[0]
	b := ir.NewBuilder(path)
	pos := ir.Pos{File: path, Line: 1}
	for _, v := range mx.Vars {
		b.AddVar(pos, m.Vars[v].Name, ir.Real, nil, 0)
	}
	lv, ok := b.AddOpenVar(pos, label)
	if !ok {
		return nil, fileErrorf(path, "the label column %q is one of the clustered columns", label)
	}
	vm, err := b.Finish()
	if err != nil {
		return nil, err
	}
	// Every cell is needed: a missing one is an error where it is.
	batch, err := readCSV(path, vm, data.Options{IgnoreUnknownColumns: true, Required: true})
	if err != nil {
		return nil, err
	}
	col := map[ir.VarID]int{}
	for j, v := range batch.Vars {
		col[v] = j
	}
	if _, ok := col[lv]; !ok {
		return nil, &ir.Error{Pos: pos, Msg: fmt.Sprintf("no label column %q in the header (--label names it)", label)}
	}
	for i, v := range mx.Vars {
		if _, ok := col[ir.VarID(i)]; !ok {
			return nil, &ir.Error{Pos: pos, Msg: fmt.Sprintf("no column %q in the header: the validation file needs every clustered column", m.Vars[v].Name)}
		}
	}
	states := batch.States[lv]
	type scored struct {
		logp float64
		anom bool
	}
	var rs []scored
	x := make([]float64, len(mx.Vars))
	res := &anomalyResult{file: path}
	for i := range batch.N {
		s := batch.Cols[col[lv]][i] // no cell is missing (Options.Required)
		for k := range mx.Vars {
			x[k] = batch.Reals[col[ir.VarID(k)]][i]
		}
		r := scored{logp: logDensity(m, x), anom: positive(states[s])}
		if !(r.logp > math.Inf(-1)) {
			// ln p(x) below −1.8e308 (x = 1e308): no threshold or
			// ranking of such rows can be written.
			return nil, &ir.Error{Pos: ir.Pos{File: path, Line: batch.Lines[i]}, Msg: "the fitted density here is too small for float64 (its logarithm is below -1.8e308): rescale the data"}
		}
		if r.anom {
			res.anomalies++
		}
		rs = append(rs, r)
	}
	res.rows = len(rs)
	if res.anomalies == 0 || res.anomalies == len(rs) {
		return nil, &ir.Error{Pos: pos, Msg: fmt.Sprintf("the validation rows need anomalies (labels yes, true, 1 or anomaly) and normal rows to choose a threshold; %d of %d are anomalies", res.anomalies, len(rs))}
	}
	// Flag the rows whose log density is at most each row's in turn,
	// lowest first: each threshold's flags are a prefix of the sorted rows.
	slices.SortStableFunc(rs, func(a, b scored) int {
		switch {
		case a.logp < b.logp:
			return -1
		case a.logp > b.logp:
			return 1
		}
		return 0
	})
	best, caught := -1.0, 0
	for i, r := range rs {
		if r.anom {
			caught++
		}
		if i+1 < len(rs) && rs[i+1].logp == r.logp {
			continue // a threshold flags every row of its density
		}
		p, rc := float64(caught)/float64(i+1), float64(caught)/float64(res.anomalies)
		f1 := 0.0
		if caught > 0 {
			f1 = 2 * p * rc / (p + rc)
		}
		if f1 > best {
			best = f1
			res.logEps, res.f1, res.precision, res.recall = r.logp, f1, p, rc
			res.flagged, res.caught = i+1, caught
		}
	}
	return res, nil
}

// anomalyObject adds the threshold to a JSON object.
func anomalyObject(o *report.Object, a *anomalyResult) {
	t := &report.Object{}
	t.Set("validation", a.file)
	t.Set("rows", a.rows)
	t.Set("anomalies", a.anomalies)
	t.Set("log_epsilon", report.Float(a.logEps))
	t.Set("epsilon", report.DensityJSON(math.Exp(a.logEps), a.logEps))
	t.Set("f1", report.Float(a.f1))
	t.Set("precision", report.Float(a.precision))
	t.Set("recall", report.Float(a.recall))
	t.Set("flagged", a.flagged)
	o.Set("anomaly", t)
}

// anomalyText writes the threshold for people.
func anomalyText(w io.Writer, a *anomalyResult) {
	fmt.Fprintf(w, "\nanomaly threshold from %s (%s, %s): flag a point whose density is at most\n",
		a.file, ir.Plural(a.rows, "row"), ir.Plural(a.anomalies, "anomaly"))
	fmt.Fprintf(w, "  ε = %s (ln ε = %s): F1 %s, precision %s, recall %s (%d of %d flagged are anomalies)\n",
		report.NumDensity(math.Exp(a.logEps), a.logEps), report.Num(a.logEps), report.Num(a.f1), report.Num(a.precision), report.Num(a.recall), a.caught, a.flagged)
}
