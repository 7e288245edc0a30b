package formattest

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/ir"
)

// BenchRead runs read on each of the files names of the corpus directory
// sub, in a sub-benchmark named by the file. The throughput is in bytes
// of text: for a gzip-compressed file, of the decompressed text (the time
// includes decompression).
func BenchRead(b *testing.B, sub string, names []string, read func(filename string, src []byte) (*ir.Model, error)) {
	dir := Corpus(b, sub)
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		size := len(src)
		if importer.IsGzip(src) {
			text, err := importer.Gunzip(src)
			if err != nil {
				b.Fatal(err)
			}
			size = len(text)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := read(name, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchWrite runs write on the models of the files names of the corpus
// directory sub, read with readFile, in a sub-benchmark named by the file.
// The throughput is in bytes written.
func BenchWrite(b *testing.B, sub string, names []string, readFile func(path string) (*ir.Model, error), write func(w io.Writer, m *ir.Model) error) {
	dir := Corpus(b, sub)
	for _, name := range names {
		m, err := readFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			n := &countWriter{}
			if err := write(n, m); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n.n)
			b.ReportAllocs()
			for b.Loop() {
				if err := write(io.Discard, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
