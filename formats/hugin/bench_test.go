package hugin

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// BenchmarkRead reads networks of the corpus; the throughput is in bytes
// of NET text.
func BenchmarkRead(b *testing.B) {
	dir := formattest.Corpus(b, "net")
	for _, name := range []string{"alarm.net", "hailfinder.net"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(name, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWrite writes the same networks.
func BenchmarkWrite(b *testing.B) {
	dir := formattest.Corpus(b, "net")
	for _, name := range []string{"alarm.net", "hailfinder.net"} {
		m, err := ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			n := &countWriter{}
			if err := Write(n, m); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n.n)
			b.ReportAllocs()
			for b.Loop() {
				if err := Write(io.Discard, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
