package hugin

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// benchFiles are the networks of the corpus the benchmarks read and write.
var benchFiles = []string{"alarm.net", "hailfinder.net"}

// BenchmarkRead reads networks of the corpus; the throughput is in bytes
// of NET text.
func BenchmarkRead(b *testing.B) { formattest.BenchRead(b, "net", benchFiles, Read) }

// BenchmarkWrite writes the same networks.
func BenchmarkWrite(b *testing.B) { formattest.BenchWrite(b, "net", benchFiles, ReadFile, Write) }
