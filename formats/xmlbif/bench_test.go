package xmlbif

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// benchFiles are the networks of the corpus the benchmarks read and write.
var benchFiles = []string{"alarm.xml", "hailfinder.xml"}

// BenchmarkRead reads XMLBIF networks of the corpus; the throughput is in
// bytes of XML.
func BenchmarkRead(b *testing.B) { formattest.BenchRead(b, "xmlbif", benchFiles, Read) }

// BenchmarkWrite writes the networks of BenchmarkRead; the throughput is
// in bytes of XML written.
func BenchmarkWrite(b *testing.B) { formattest.BenchWrite(b, "xmlbif", benchFiles, ReadFile, Write) }
