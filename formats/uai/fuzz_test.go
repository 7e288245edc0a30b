package uai

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// FuzzRead checks that no input makes Read panic or hang, that it returns
// a model or an error but not both, and that every error is an
// ir.ErrorList of *ir.Error with a valid position in the file. A model it
// accepts must survive Write and Read unchanged in shape. It also feeds
// each input to ReadEvidence, ReadPR and ReadMAR.
func FuzzRead(f *testing.F) {
	root := os.Getenv("PBL_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	files, _ := filepath.Glob(filepath.Join(root, "uai", "*.uai"))
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil && len(src) < 40000 {
			f.Add(src)
		}
	}
	if src, err := os.ReadFile(filepath.Join("testdata", "errors.uai")); err == nil {
		f.Add(src)
	}
	f.Add([]byte("MARKOV\n2\n2 3\n2\n1 0\n2 0 1\n2 1 3\n6 1 2 3 4 5 6\n"))
	f.Add([]byte("BAYES\n2\n2 2\n2\n1 0\n2 0 1\n2 0.5 0.5\n4 0.1 0.9 0.2 0.8\n"))
	f.Add([]byte("MARKOV 1 2 1 0 1 2.5"))
	f.Add([]byte("1\n1 0 1\n"))
	f.Add([]byte("MAR\n1 2 0.5 0.5\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.uai"
		m, err := Read(name, src)
		checkErr(t, name, err)
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
			checkErr(t, name, err)
		} else if m != nil {
			t.Fatal("a model and an error")
		}
		_, err = ReadPR(name, src)
		checkErr(t, name, err)
		_, err = ReadMAR(name, src)
		checkErr(t, name, err)
	})
}

func checkErr(t *testing.T, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list ir.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ir.ErrorList: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatal("empty error list")
	}
	for _, e := range list {
		if e == nil {
			t.Fatal("nil *ir.Error in the list")
		}
		if e.Pos.File != name || e.Pos.Line < 1 || e.Pos.Col < 1 {
			t.Fatalf("error with a bad position: %q", e)
		}
	}
}

// bytesBuffer is a minimal io.Writer.
type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
