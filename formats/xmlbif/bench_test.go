package xmlbif

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// BenchmarkRead reads XMLBIF networks of the corpus; the throughput is in
// bytes of XML.
func BenchmarkRead(b *testing.B) {
	dir := formattest.Corpus(b, "xmlbif")
	for _, name := range []string{"alarm.xml", "hailfinder.xml"} {
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

// BenchmarkWrite writes the networks of BenchmarkRead; the throughput is
// in bytes of XML written.
func BenchmarkWrite(b *testing.B) {
	dir := formattest.Corpus(b, "xmlbif")
	for _, name := range []string{"alarm.xml", "hailfinder.xml"} {
		m, err := ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := Write(&buf, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
