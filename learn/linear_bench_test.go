package learn_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// linearNet returns the structure of a random linear Gaussian network of
// nv variables, each with 0 to 4 real parents among the ones before it,
// and rows of it in batches of rows per batch, the parents' coefficients
// random and a third of the intercepts far from 0 (as
// bench/linear_statsmodels.py makes them).
func linearNet(tb testing.TB, nv, n, rows int) (*ir.Model, []*data.Batch) {
	tb.Helper()
	r := rand.New(rand.NewPCG(31, 1))
	var src strings.Builder
	names := make([]string, nv)
	for i := range names {
		names[i] = fmt.Sprintf("V%02d", i)
	}
	fmt.Fprintf(&src, "var %s: real\n", strings.Join(names, ", "))
	parents := make([][]int, nv)
	coef := make([][]float64, nv)
	icpt := make([]float64, nv)
	for i := range nv {
		k := min(i, r.IntN(5))
		for _, p := range r.Perm(i)[:k] {
			parents[i] = append(parents[i], p)
			coef[i] = append(coef[i], (0.3+2.7*r.Float64())*float64(1-2*r.IntN(2)))
		}
		icpt[i] = 10 * r.NormFloat64()
		if r.IntN(3) == 0 {
			icpt[i] = 1e4 * (2*r.Float64() - 1)
		}
		given := ""
		if k > 0 {
			var ps []string
			for _, p := range parents[i] {
				ps = append(ps, names[p])
			}
			given = " | " + strings.Join(ps, ", ")
		}
		fmt.Fprintf(&src, "P(%s%s) = normal(0, 1)\n", names[i], given)
	}
	m, err := pbl.Load("lg.pbl", []byte(src.String()))
	if err != nil {
		tb.Fatal(err)
	}
	var batches []*data.Batch
	for s := 0; s < n; s += rows {
		b := &data.Batch{N: min(rows, n-s), Reals: make([][]float64, nv), Cols: make([][]int32, nv), Vars: make([]ir.VarID, nv)}
		for j := range nv {
			b.Reals[j] = make([]float64, b.N)
			b.Vars[j] = ir.VarID(j)
		}
		for i := range b.N {
			for j := range nv {
				x := icpt[j] + (0.2+5*float64(j%7))*r.NormFloat64()
				for q, p := range parents[j] {
					x += coef[j][q] * b.Reals[p][i]
				}
				b.Reals[j][i] = x
			}
		}
		batches = append(batches, b)
	}
	return m, batches
}

// BenchmarkLinearCount counts 100,000 rows of a 50-variable linear
// Gaussian network (in batches of 10,000, as the reader delivers them for
// 50 real columns) into one Counts: the least-squares statistics of every
// family, without reading. ns/row is per row of 50 cells.
func BenchmarkLinearCount(b *testing.B) {
	const n = 100_000
	m, batches := linearNet(b, 50, n, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		c := learn.NewCounts(m, learn.Options{})
		for _, bt := range batches {
			c.Add(bt)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}

// BenchmarkLinearLearnFile learns the linear Gaussian network
// bench/linear_statsmodels.sh writes, from its CSV, as pbl learn does
// (reading and counting on every core, then the least squares): set
// PBL_LINEAR_DIR to that script's directory (it skips otherwise). The
// throughput is in bytes of CSV.
func BenchmarkLinearLearnFile(b *testing.B) {
	dir := os.Getenv("PBL_LINEAR_DIR")
	if dir == "" {
		b.Skip("PBL_LINEAR_DIR not set (see bench/linear_statsmodels.sh)")
	}
	m, err := pbl.LoadFile(filepath.Join(dir, "lg.pbl"))
	if err != nil {
		b.Fatal(err)
	}
	csv := filepath.Join(dir, "lg.csv")
	fi, err := os.Stat(csv)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(csv, m, data.Options{}) }, learn.Options{Method: learn.MLE}); err != nil {
			b.Fatal(err)
		}
	}
}
