package uai

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// FuzzRead checks that no input makes Read panic or hang, that it returns
// a model or an error but not both, and that every error is an
// ir.ErrorList of *ir.Error with a valid position in the file. A model it
// accepts must survive Write and Read unchanged in shape. It also feeds
// each input to ReadEvidence, ReadPR and ReadMAR.
func FuzzRead(f *testing.F) {
	for _, src := range formattest.Files(formattest.CorpusPath("uai", "*.uai")) {
		if len(src) < 40000 {
			f.Add(src)
		}
	}
	formattest.Seed(f, "testdata/errors.uai")
	f.Add([]byte("MARKOV\n2\n2 3\n2\n1 0\n2 0 1\n2 1 3\n6 1 2 3 4 5 6\n"))
	f.Add([]byte("BAYES\n2\n2 2\n2\n1 0\n2 0 1\n2 0.5 0.5\n4 0.1 0.9 0.2 0.8\n"))
	f.Add([]byte("MARKOV 1 2 1 0 1 2.5"))
	f.Add([]byte("1\n1 0 1\n"))
	f.Add([]byte("MAR\n1 2 0.5 0.5\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.uai"
		m, err := Read(name, src)
		formattest.CheckErrors(t, name, err)
		if err == nil {
			if m == nil {
				t.Fatal("nil model and nil error")
			}
			var buf bytesBuffer
			if err := Write(&buf, m); err != nil {
				t.Fatalf("Write: %v", err)
			}
			m2, err := Read("again.uai", buf.b)
			if err != nil {
				t.Fatalf("reading the written model: %v\n%s", err, buf.b)
			}
			if len(m2.Vars) != len(m.Vars) || len(m2.Factors()) != len(m.Factors()) {
				t.Fatalf("round trip: %d variables and %d factors, want %d and %d",
					len(m2.Vars), len(m2.Factors()), len(m.Vars), len(m.Factors()))
			}
			_, err = ReadEvidence(name, src, m)
			formattest.CheckErrors(t, name, err)
		} else if m != nil {
			t.Fatal("a model and an error")
		}
		_, err = ReadPR(name, src)
		formattest.CheckErrors(t, name, err)
		_, err = ReadMAR(name, src)
		formattest.CheckErrors(t, name, err)
	})
}

// bytesBuffer is a minimal io.Writer.
type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
