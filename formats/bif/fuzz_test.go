package bif

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// FuzzRead checks that no input makes Read panic or hang, and that every
// error is an ir.ErrorList of *ir.Error with a valid position in the file.
func FuzzRead(f *testing.F) {
	root := os.Getenv("PBL_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	for _, name := range []string{"asia", "cancer", "earthquake", "survey", "sachs", "child"} {
		if src, err := os.ReadFile(filepath.Join(root, "bif", name+".bif")); err == nil {
			f.Add(src)
		}
	}
	if src, err := os.ReadFile(filepath.Join("testdata", "errors.bif")); err == nil {
		f.Add(src)
	}
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
			if e.Pos.File != name || e.Pos.Line < 1 {
				t.Fatalf("error with a bad position: %q", e)
			}
		}
	})
}
