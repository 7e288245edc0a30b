package bif

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// FuzzRead checks that no input makes Read panic or hang, and that every
// error is an ir.ErrorList of *ir.Error with a valid position in the file.
func FuzzRead(f *testing.F) {
	var seeds []string
	for _, name := range []string{"asia", "cancer", "earthquake", "survey", "sachs", "child"} {
		seeds = append(seeds, formattest.CorpusPath("bif", name+".bif"))
	}
	formattest.Seed(f, append(seeds, "testdata/errors.bif")...)
	f.Add([]byte(twoVars + `probability ( b | a ) { (no) 0.1, 0.2, 0.7; default 0.5, 0.25, 0.25; }`))
	f.Add([]byte(twoVars + `probability ( b | a ) { table 0.1, 0.2, 0.3, 0.4, 0.6, 0.4; }`))
	f.Add([]byte(`variable "x" { type discrete[2] { "t" "f" }; } probability ( "x" ) { table 0.5 0.5 ; } /* c */`))
	f.Add([]byte(gz(twoVars)))
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.bif"
		m, err := Read(name, src)
		if err == nil {
			if m == nil {
				t.Fatal("nil model and nil error")
			}
			return
		}
		if m != nil {
			t.Fatal("a model and an error")
		}
		formattest.CheckErrorLines(t, name, err) // an error in gzip data has no column
	})
}
