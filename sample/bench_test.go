package sample_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// corpus returns the path of a corpus network, or "" if the corpus
// (../shared/corpus or $PBL_CORPUS) is absent.
func corpus(name string) string {
	dir := os.Getenv("PBL_CORPUS")
	if dir == "" {
		dir, _ = filepath.Abs("../../shared/corpus")
	}
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// countWriter discards its input, counting the bytes.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkWriteCSV writes 1,000,000 rows per operation to a discarding
// writer and reports rows/s and MB/s. Run it on one core with
// go test -bench WriteCSV -cpu 1 ./sample.
func BenchmarkWriteCSV(b *testing.B) {
	for _, tc := range []struct{ name, path string }{
		{"campfire", "../examples/campfire.pbl"},
		{"asia", "../examples/asia.pbl"},
		{"alarm", corpus("bif/alarm.bif")},
		{"hepar2", corpus("bif/hepar2.bif")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.path == "" {
				b.Skip("corpus not found: set PBL_CORPUS")
			}
			s := newSampler(b, load(b, tc.path))
			const rows = 1_000_000
			var w countWriter
			if err := s.WriteCSV(&w, rows, 1, 0); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(w.n)
			b.ResetTimer()
			for b.Loop() {
				if err := s.WriteCSV(io.Discard, rows, 1, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
