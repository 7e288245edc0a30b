package hugin

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// FuzzRead checks that no input makes Read panic or hang, that every
// error is an ir.ErrorList of *ir.Error with a valid position in the file,
// and that every model read is written and read back unchanged.
func FuzzRead(f *testing.F) {
	root := os.Getenv("PBL_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	files, _ := filepath.Glob(filepath.Join(root, "net", "*.net"))
	for _, path := range files {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(src)
		}
	}
	if src, err := os.ReadFile(filepath.Join("testdata", "errors.net")); err == nil {
		f.Add(src)
	}
	f.Add([]byte(asia2))
	f.Add([]byte(`node a { states = ("y" "n"); } potential (a) { data = (0.5, 0.5); } % c`))
	f.Add([]byte(`decision d { } potential (d | a) { data = ( normal(0, 1) ); }`))
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.net"
		m, err := Read(name, src)
		if err == nil {
			if m == nil {
				t.Fatal("nil model and nil error")
			}
			var buf bytes.Buffer
			if err := Write(&buf, m); err != nil {
				return // a name NET cannot write back
			}
			m2, err := Read(name, buf.Bytes())
			if err != nil {
				t.Fatalf("reading back what Write wrote: %v\n%s", err, buf.Bytes())
			}
			for v := range m.Vars {
				c := m.Table(ir.VarID(v))
				if c == nil {
					continue
				}
				for i, x := range c.Factor.Vals {
					if y := m2.Table(ir.VarID(v)).Factor.Vals[i]; !(x == y) {
						t.Fatalf("%s: value %d is %v after a round trip, was %v", m.Vars[v].Name, i, y, x)
					}
				}
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
			if e.Pos.File != name || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("error with a bad position: %q", e)
			}
		}
	})
}
