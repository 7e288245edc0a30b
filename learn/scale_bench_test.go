package learn_test

import (
	"os"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// The benchmarks of learning from a large CSV file in constant memory
// (docs/performance.md, "Local scale"): the file is $PBL_SCALE_CSV and
// the model $PBL_SCALE_MODEL (any format pbl reads); they are skipped
// without them. Each op is one pass over the file; the bytes per second
// are the file's. Run with -benchtime 1x and GOMAXPROCS=1 or 2.

func scaleInput(b *testing.B) (*ir.Model, string, int64) {
	path, model := os.Getenv("PBL_SCALE_CSV"), os.Getenv("PBL_SCALE_MODEL")
	if path == "" || model == "" {
		b.Skip("set PBL_SCALE_CSV and PBL_SCALE_MODEL to a CSV file and a model")
	}
	m, err := pbl.LoadFile(model)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return m, path, st.Size()
}

// BenchmarkScaleCount counts every family of the model over the file on
// every core (Counts.AddReader), as pbl learn --method bayes does.
func BenchmarkScaleCount(b *testing.B) {
	m, path, size := scaleInput(b)
	b.SetBytes(size)
	opt := learn.Options{Method: learn.Bayes, Alpha: 1}
	rows := 0
	for b.Loop() {
		r, err := data.Open(path, m, data.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c := learn.NewCounts(m, opt)
		if err := c.AddReader(r); err != nil {
			b.Fatal(err)
		}
		r.Close()
		rows = c.Rows()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkScaleEMIteration runs one EM iteration by streaming the file
// (EMPlan: the E-step's statistics per batch, on every core, merged, then
// the M-step): memory does not depend on the number of rows or of
// distinct rows. A model variable without a column in the file is hidden.
func BenchmarkScaleEMIteration(b *testing.B) {
	m, path, size := scaleInput(b)
	b.SetBytes(size)
	opt := learn.Options{Method: learn.EM, Seed: 1}
	var rows int64
	for b.Loop() {
		r, err := data.Open(path, m, data.Options{})
		if err != nil {
			b.Fatal(err)
		}
		plan, err := learn.NewEMPlan(m, r.Vars, opt)
		if err != nil {
			b.Fatal(err)
		}
		params, err := plan.Start(0, nil)
		if err != nil {
			b.Fatal(err)
		}
		es, err := plan.EStep(params)
		if err != nil {
			b.Fatal(err)
		}
		parts := make([]*learn.EMStats, r.Workers())
		for i := range parts {
			parts[i] = es.NewStats()
		}
		if err := r.ReadParallel(func(w int, batch *data.Batch) error { return es.Add(parts[w], batch) }); err != nil {
			b.Fatal(err)
		}
		r.Close()
		for _, p := range parts[1:] {
			parts[0].Merge(p)
		}
		if _, err := plan.MStep(params, parts[0]); err != nil {
			b.Fatal(err)
		}
		rows = parts[0].Rows
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
