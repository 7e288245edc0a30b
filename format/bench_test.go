package format_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
)

// corpusDir finds ../shared/corpus (or $PBL_CORPUS), or returns "".
func corpusDir() string {
	if d := os.Getenv("PBL_CORPUS"); d != "" {
		return d
	}
	d, _ := filepath.Abs("../../shared/corpus")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// converted returns the corpus network name (bif/NAME.bif or .bif.gz)
// written as pbl source by pbl convert's writer.
func converted(tb testing.TB, name string) []byte {
	tb.Helper()
	dir := corpusDir()
	if dir == "" {
		tb.Skip("corpus not found: set PBL_CORPUS")
	}
	path := filepath.Join(dir, "bif", name+".bif")
	if _, err := os.Stat(path); err != nil {
		path += ".gz"
	}
	m, err := pbl.LoadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := pbl.Write(&b, m, ".pbl"); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// BenchmarkSource formats corpus networks written as pbl: small (alarm,
// 37 variables), medium (munin1, 186 variables, 0.2 MB of source) and
// large (mildew, 35 variables with big tables, 2.1 MB).
func BenchmarkSource(b *testing.B) {
	for _, name := range []string{"alarm", "munin1", "mildew"} {
		b.Run(name, func(b *testing.B) {
			src := converted(b, name)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := format.Source(name+".pbl", src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
