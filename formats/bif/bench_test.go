package bif

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// BenchmarkRead reads networks of the corpus. The throughput is in bytes
// of BIF text: for .bif.gz files, of the decompressed text (the time
// includes decompression).
func BenchmarkRead(b *testing.B) {
	formattest.BenchRead(b, "bif", []string{"alarm.bif", "pigs.bif", "hepar2.bif", "pathfinder.bif.gz", "munin.bif.gz", "link.bif"}, Read)
}
