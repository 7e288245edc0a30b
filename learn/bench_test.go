package learn_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/sample"
)

// alarmCSV writes 1,000,000 rows sampled from ALARM (seed 1) to a file in
// the temporary directory, once per process (reusing it across runs of
// the benchmark binary when it is already there), and returns its path.
var alarmCSV = sync.OnceValues(func() (string, error) {
	path := filepath.Join(os.TempDir(), "pbl-learn-bench-alarm-1000000-seed1.csv")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	m, err := pbl.LoadFile(corpusPath("alarm.bif"))
	if err != nil {
		return "", err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = sample.WriteCSV(w, m, 1_000_000, 1, 0)
	if err == nil {
		err = w.Flush()
	}
	if err1 := f.Close(); err == nil {
		err = err1
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	return path, err
})

func corpusPath(name string) string {
	dir := os.Getenv("PBL_CORPUS")
	if dir == "" {
		dir = "../../shared/corpus"
	}
	return filepath.Join(dir, "bif", name)
}

// BenchmarkLearnAlarm learns ALARM's 37 CPTs (with Laplace smoothing) from
// a 1,000,000-row CSV file sampled from it: reading, counting on every
// core, estimating. The throughput is in bytes of CSV.
func BenchmarkLearnAlarm(b *testing.B) {
	if _, err := os.Stat(corpusPath("alarm.bif")); err != nil {
		b.Skipf("corpus not found (set PBL_CORPUS): %v", err)
	}
	path, err := alarmCSV()
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	m, err := pbl.LoadFile(corpusPath("alarm.bif"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := learnInto(&m, func(m *ir.Model) (*data.Reader, error) { return data.Open(path, m, data.Options{}) }, learn.Options{Method: learn.Bayes, Alpha: 1})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Rows != 1_000_000 {
			b.Fatalf("%d rows", rep.Rows)
		}
	}
}

// BenchmarkEMAlarm runs EM on ALARM from 10,000 rows sampled with seed 5
// and 20% of cells missing (as the acceptance check's data), from uniform
// tables with --tol 0: each op is a whole run of 1 and of 11 iterations,
// and the metric iter-ms is their difference over 10, the cost of one
// iteration (E-step on every pattern, M-step), with 1 and 2 workers.
func BenchmarkEMAlarm(b *testing.B) {
	if _, err := os.Stat(corpusPath("alarm.bif")); err != nil {
		b.Skipf("alarm.bif not found (set PBL_CORPUS): %v", err)
	}
	m, err := pbl.LoadFile(corpusPath("alarm.bif"))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sample.WriteCSV(&buf, m, 10_000, 5, 0.2); err != nil {
		b.Fatal(err)
	}
	src := buf.Bytes()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			run := func(iters int) time.Duration {
				start := time.Now()
				_, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
					return data.NewReader("alarm.csv", bytes.NewReader(src), m, data.Options{})
				}, learn.Options{Method: learn.EM, Init: learn.InitUniform, MaxIter: iters, Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			var per time.Duration
			for b.Loop() {
				per += (run(11) - run(1)) / 10
			}
			b.ReportMetric(float64(per.Microseconds())/1000/float64(b.N), "iter-ms")
		})
	}
}
