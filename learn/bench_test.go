package learn_test

import (
	"bufio"
	"os"
	"path/filepath"
	"sync"
	"testing"

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
