package bif

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/formats/internal/importer"
)

// BenchmarkRead reads networks of the corpus. The throughput is in bytes
// of BIF text: for .bif.gz files, of the decompressed text (the time
// includes decompression).
func BenchmarkRead(b *testing.B) {
	dir := formattest.Corpus(b, "bif")
	for _, name := range []string{"alarm.bif", "hepar2.bif", "pathfinder.bif.gz", "munin.bif.gz", "link.bif"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Logf("%s: %v", name, err)
			continue
		}
		size := len(src)
		if text, err := importer.Gunzip(src); err == nil {
			size = len(text)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(name, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
