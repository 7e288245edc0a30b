package sample_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/pbl-lang/pbl"
)

// TestSampleHybrid: rows of a model where a discrete variable has real
// parents (examples/alarm_logistic.pbl) have each state's frequency and
// the real values' means within 4 standard errors of 200,000 rows of the
// values by quadrature (the example's comment: P(Alarm=true) = 0.18986,
// E[Pressure] = 0.1·150 + 0.9·110 = 114, P(Level=normal) by Simpson's
// rule in Python, 0.83655), and Gauge follows Pressure.
func TestSampleHybrid(t *testing.T) {
	m, err := pbl.LoadFile("../examples/alarm_logistic.pbl")
	if err != nil {
		t.Fatal(err)
	}
	s := newSampler(t, m)
	const n = 200_000
	recs := readCSV(t, writeCSV(t, s, n, 5, 0))
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	var alarm, normal, pressure, diff float64
	for _, r := range recs[1:] {
		if r[col["Alarm"]] == "true" {
			alarm++
		}
		if r[col["Level"]] == "normal" {
			normal++
		}
		p, err := strconv.ParseFloat(r[col["Pressure"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		g, err := strconv.ParseFloat(r[col["Gauge"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		pressure += p
		diff += g - p
	}
	prop := func(name string, count, want float64) {
		got := count / n
		se := math.Sqrt(want * (1 - want) / n)
		if !(math.Abs(got-want) <= 4*se) {
			t.Errorf("%s: %v, want %v (se %v)", name, got, want, se)
		}
	}
	prop("P(Alarm=true)", alarm, 0.18986)
	prop("P(Level=normal)", normal, 0.83655)
	// Var Pressure = 0.1·100 + 0.9·225 + 0.1·0.9·40² = 356.5.
	if se := math.Sqrt(356.5 / n); !(math.Abs(pressure/n-114) <= 4*se) {
		t.Errorf("E[Pressure] = %v, want 114 (se %v)", pressure/n, se)
	}
	if se := 5 / math.Sqrt(n); !(math.Abs(diff/n) <= 4*se) {
		t.Errorf("E[Gauge − Pressure] = %v, want 0", diff/n)
	}
}
