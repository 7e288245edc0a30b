package pbl_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
)

// bankRows are the rows of an inline data table and of the CSV file that
// holds the same data: real cells in the number forms a CSV file takes,
// and missing ones (?, empty, NA, NaN).
var bankRows = []struct{ risk, savings, inline, csv string }{
	{"low", "120.5", "120.5", "120.5"},
	{"low", "98", "98", "98"},
	{"low", "1.5e2", "1.5e2", "1.5e2"},
	{"high", "-3", "-3", "-3"},
	{"high", "", "?", ""},
	{"high", "10.25", "10.25", "10.25"},
	{"low", "", "NA", "NA"},
	{"high", "0.5", ".5", ".5"},
	{"low", "", "NaN", "NaN"},
	{"high", "", "\"\"", "\"\""},
	{"low", "2E1", "2E1", "2E1"},
}

// TestInlineRealTable: a learn statement over an inline data table with a
// real-valued column learns the Gaussian as from the same CSV file
// (identical numbers, by mle and em), and they are the closed form's: the
// mean and the variance with divisor n, plus 1e-9 (DefaultVarSmoothing) of
// the largest variance of a learned real variable by mle, plus 1e-6 by em.
func TestInlineRealTable(t *testing.T) {
	dir := t.TempDir()
	inline := "data bank = {\n    Risk, savings\n"
	csv := "Risk,savings\n"
	for _, r := range bankRows {
		inline += "    " + r.risk + ", " + r.inline + "\n"
		csv += r.risk + "," + r.csv + "\n"
	}
	inline += "}\n"
	if err := os.WriteFile(filepath.Join(dir, "bank.csv"), []byte(csv), 0o666); err != nil {
		t.Fatal(err)
	}
	const decls = "var Risk: {low, high}\nvar savings: real\nRisk -> savings\n"
	// The closed form, from the values as numbers.
	vals := map[string][]float64{}
	var all []float64
	risks := map[string]int{}
	for _, r := range bankRows {
		risks[r.risk]++
		if r.savings == "" {
			continue
		}
		x := map[string]float64{"120.5": 120.5, "98": 98, "1.5e2": 150, "-3": -3, "10.25": 10.25, "0.5": 0.5, "2E1": 20}[r.savings]
		vals[r.risk] = append(vals[r.risk], x)
		all = append(all, x)
	}
	meanVar := func(xs []float64) (float64, float64) {
		m := 0.0
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		v := 0.0
		for _, x := range xs {
			v += (x - m) * (x - m)
		}
		return m, v / float64(len(xs))
	}
	_, top := meanVar(all)
	for _, method := range []string{"mle", "em"} {
		fromTable, err := pbl.Load(filepath.Join(dir, "inline.pbl"), []byte(decls+inline+"learn from bank with "+method+"\n"))
		if err != nil {
			t.Fatalf("%s: inline: %v", method, err)
		}
		fromCSV, err := pbl.Load(filepath.Join(dir, "csv.pbl"), []byte(decls+"learn from \"bank.csv\" with "+method+"\n"))
		if err != nil {
			t.Fatalf("%s: csv: %v", method, err)
		}
		risk, _ := fromTable.Lookup("Risk")
		sv, _ := fromTable.Lookup("savings")
		g, gc := fromTable.Gaussian(sv.ID), fromCSV.Gaussian(sv.ID)
		if g == nil || gc == nil {
			t.Fatalf("%s: no density learned: %v, %v", method, g, gc)
		}
		if !slices.Equal(g.Mean, gc.Mean) || !slices.Equal(g.SD, gc.SD) {
			t.Errorf("%s: inline table learned normal(%v, %v), the CSV file normal(%v, %v)", method, g.Mean, g.SD, gc.Mean, gc.SD)
		}
		if a, b := fromTable.Factor(risk.ID).Vals, fromCSV.Factor(risk.ID).Vals; !slices.Equal(a, b) {
			t.Errorf("%s: P(Risk) %v from the table, %v from the CSV file", method, a, b)
		}
		for u, s := range risk.States {
			m, v := meanVar(vals[s])
			sd := math.Sqrt(v + 1e-9*top)
			if method == "em" {
				sd = math.Sqrt(v + 1e-6) // EM's reg_covar (docs/language.md)
			}
			if !(math.Abs(g.Mean[u]-m) <= 1e-12*math.Abs(m)) || !(math.Abs(g.SD[u]-sd) <= 1e-12*sd) {
				t.Errorf("%s: P(savings | Risk=%s) = normal(%v, %v), want normal(%v, %v)", method, s, g.Mean[u], g.SD[u], m, sd)
			}
		}
		// P(Risk) by counting (mle; em reaches the same, every cell of
		// Risk observed): 6 low of 11.
		if p := fromTable.Factor(risk.ID).Vals[0]; !(math.Abs(p-float64(risks["low"])/float64(len(bankRows))) <= 1e-12) {
			t.Errorf("%s: P(Risk=low) = %v, want 6/11", method, p)
		}
	}
}

// TestInlineRealTableMixture: a mixture learns from an inline table as
// from the CSV file with the same cells.
func TestInlineRealTableMixture(t *testing.T) {
	dir := t.TempDir()
	xs := []string{"-2.1", "-1.9", "-2.0", "-2.3", "3.1", "2.8", "3.3", "2.9", "3.0", "-1.7"}
	ys := []string{"0.5", "0.4", "0.7", "0.6", "-1.0", "-1.2", "-0.9", "-1.1", "-1.0", "0.3"}
	inline := "data pts = {\n    x, y\n"
	csv := "x,y\n"
	for i := range xs {
		inline += "    " + xs[i] + ", " + ys[i] + "\n"
		csv += xs[i] + "," + ys[i] + "\n"
	}
	inline += "}\n"
	if err := os.WriteFile(filepath.Join(dir, "pts.csv"), []byte(csv), 0o666); err != nil {
		t.Fatal(err)
	}
	const decls = "var G: {a, b}\nvar x, y: real\nmixture G of x, y (covariance = diag)\n"
	a, err := pbl.Load(filepath.Join(dir, "inline.pbl"), []byte(decls+inline+"learn from pts with em(seed = 3)\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := pbl.Load(filepath.Join(dir, "csv.pbl"), []byte(decls+"learn from \"pts.csv\" with em(seed = 3)\n"))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := a.Lookup("x")
	da, db := a.MultiNormal(x.ID), b.MultiNormal(x.ID)
	if da == nil || db == nil {
		t.Fatalf("no joint density learned: %v, %v", da, db)
	}
	if !slices.EqualFunc(da.Mean, db.Mean, slices.Equal[[]float64]) || !slices.EqualFunc(da.Cov, db.Cov, slices.Equal[[]float64]) {
		t.Errorf("inline: %v %v; CSV: %v %v", da.Mean, da.Cov, db.Mean, db.Cov)
	}
}

// TestInlineRealTableErrors: a real-valued cell that is not a finite
// number is an error at the cell, as a CSV file's is; a table with a real
// column is refused, at the query, as data for P(H | D) over a variable.
func TestInlineRealTableErrors(t *testing.T) {
	const decls = "var Risk: {low, high}\nvar savings: real\nRisk -> savings\n"
	for _, test := range []struct {
		cell string
		col  int
	}{
		{"abc", 10}, {"1e999", 10}, {"\"12 \"", 10}, {"Inf", 10}, {"low", 10}, {"true", 10},
	} {
		src := decls + "data bank = {\n    Risk, savings\n    low, " + test.cell + "\n}\nlearn from bank\n"
		_, err := pbl.Load("bank.pbl", []byte(src))
		var e *ir.Error
		if !errors.As(err, &e) || e.Pos.Line != 6 || e.Pos.Col != test.col {
			t.Errorf("cell %s: %v, want an error at bank.pbl:6:%d", test.cell, err, test.col)
		}
		if err != nil && strings.Contains(err.Error(), "NaN") {
			t.Errorf("cell %s: %v", test.cell, err)
		}
	}
	src := decls + "P(Risk) = [0.5, 0.5]\nP(savings | Risk) = { low: normal(0, 1)  high: normal(5, 1) }\n" +
		"data d = {\n    savings\n    4.9\n    5.2\n}\nquery P(Risk | d)\n"
	if _, err := pbl.Load("vh.pbl", []byte(src)); err == nil {
		t.Error("P(Risk | d) over a real column: no error")
	}
	// From a CSV file, the real column was left out of the likelihood:
	// P(Risk | d) printed the prior, 0.5 and 0.5.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte("savings\n4.9\n5.2\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	src = decls + "P(Risk) = [0.5, 0.5]\nP(savings | Risk) = { low: normal(0, 1)  high: normal(5, 1) }\ndata d = \"d.csv\"\n"
	m, err := pbl.Load(filepath.Join(dir, "vh.pbl"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ans, err := pbl.Ask(m, "P(Risk | d)")
	var e *ir.Error
	if !errors.As(err, &e) || e.Pos.Line != 1 {
		t.Errorf("P(Risk | d) from a CSV file with a real column: %v, %v; want an error", ans, err)
	}
}
