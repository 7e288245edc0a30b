package xmlbif

import (
	"bytes"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// FuzzRead checks that no input makes Read panic or hang, that every error
// is an ir.ErrorList of *ir.Error with a valid position in the file, and
// that every model read is written by Write and read back unchanged.
func FuzzRead(f *testing.F) {
	for _, src := range formattest.Files(formattest.CorpusPath("xmlbif", "*.xml"), "testdata/*.xml") {
		f.Add(src)
		// Each chunk of an annotated file is a document of its own.
		if chunks := bytes.Split(src, []byte("\n---\n")); len(chunks) > 1 {
			for _, c := range chunks {
				f.Add(c)
			}
		}
	}
	f.Add([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><BIF><NETWORK><VARIABLE><NAME>caf` + "\xe9" + `</NAME><OUTCOME>t</OUTCOME></VARIABLE><DEFINITION><FOR>café</FOR><TABLE>1</TABLE></DEFINITION></NETWORK></BIF>`))
	f.Add([]byte("\uFEFF<NETWORK><VARIABLE><NAME>x&amp;y</NAME><OUTCOME><![CDATA[<5]]></OUTCOME><OUTCOME>b</OUTCOME></VARIABLE><DEFINITION><FOR>x&#38;y</FOR><TABLE>.5 5e-1</TABLE></DEFINITION></NETWORK>"))
	f.Add([]byte(`<BIF><NETWORK><VARIABLE TYPE="decision"><NAME>d</NAME><OUTCOME>a</OUTCOME><OUTCOME>b</OUTCOME></VARIABLE><VARIABLE><NAME>x</NAME><OUTCOME>t</OUTCOME><OUTCOME>f</OUTCOME></VARIABLE><VARIABLE TYPE="utility"><NAME>u</NAME><OUTCOME>0</OUTCOME></VARIABLE><DEFINITION><FOR>x</FOR><GIVEN>d</GIVEN><TABLE>1 0 .5 .5</TABLE></DEFINITION><DEFINITION><FOR>u</FOR><GIVEN>x</GIVEN><GIVEN>d</GIVEN><TABLE>-1 2.5 0 1e3</TABLE></DEFINITION></NETWORK></BIF>`))
	f.Add([]byte("<BIF><NETWORK><NAME>n</NAME>aaaaaaaaaaaaaaaaaaaaa<VARIABLE><NAME>A</NAME><OUTCOME>a</OUTCOME></VARIABLE></NETWORK></BIF>"))
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.xml"
		orig := bytes.Clone(src)
		m, err := Read(name, src)
		if !bytes.Equal(src, orig) {
			t.Fatalf("Read changed its input:\n%q\nto\n%q", orig, src)
		}
		if err != nil {
			if m != nil {
				t.Fatal("a model and an error")
			}
			formattest.CheckErrors(t, name, err)
			return
		}
		if m == nil {
			t.Fatal("nil model and nil error")
		}
		roundTrip(t, m)
	})
}
