package hugin

import (
	"bytes"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// FuzzRead checks that no input makes Read panic or hang, that every
// error is an ir.ErrorList of *ir.Error with a valid position in the file,
// and that every model read is written and read back unchanged.
func FuzzRead(f *testing.F) {
	formattest.Seed(f, formattest.CorpusPath("net", "*.net"), "testdata/errors.net", "testdata/oil.net")
	f.Add([]byte(asia2))
	f.Add([]byte(`node a { states = ("y" "n"); } potential (a) { data = (0.5, 0.5); } % c`))
	f.Add([]byte(`decision d { } potential (d | a) { data = ( normal(0, 1) ); }`))
	f.Add([]byte(`node a { states = ("y" "n"); } decision d { states = ("go" "stay"); } utility u { }
potential (a) { data = (0.5 0.5); } potential (d | a) { data = ((1 0)(0 1)); }
potential (u | d a) { data = ((-1 2.5)(0 1e3)); }`))
	f.Add([]byte(`decision node d { states = ("x"); } utility node u { } potential (u | d) { data = (3); } potential (d) { }`))
	f.Add([]byte(`node s { states = ("y" "n"); } continuous node x { } continuous node y { }
potential (s) { data = (0.5 0.5); } potential (x) { data = ( normal ( -1, 4 ) ); }
potential (y | s x) { data = ( normal ( 1 + 2 * x, 0.25 ) normal ( -3-0.5*x, 1e-2 ) ); }`))
	f.Add([]byte(`continuous node x { } potential (x) { data = ( normal ( 1e+1 - x * 2, 0 ) ); }`))
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
				if g := m.Gaussian(ir.VarID(v)); g != nil {
					g2 := m2.Gaussian(ir.VarID(v))
					if g2 == nil || !slices.Equal(g.Mean, g2.Mean) || !slices.Equal(g.Coef, g2.Coef) || !slices.Equal(g.SD, g2.SD) {
						t.Fatalf("%s: density %+v after a round trip, was %+v", m.Vars[v].Name, g2, g)
					}
				}
				if m.Vars[v].Decision != m2.Vars[v].Decision || !slices.Equal(m.Parents[v], m2.Parents[v]) {
					t.Fatalf("%s: decision %v with parents %v after a round trip, was %v with %v", m.Vars[v].Name, m2.Vars[v].Decision, m2.Parents[v], m.Vars[v].Decision, m.Parents[v])
				}
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
			if len(m.Utilities) != len(m2.Utilities) {
				t.Fatalf("%d utilities after a round trip, was %d", len(m2.Utilities), len(m.Utilities))
			}
			for i, u := range m.Utilities {
				if u2 := m2.Utilities[i]; u2.Name != u.Name || !slices.Equal(u2.Parents, u.Parents) || !slices.Equal(u2.Values, u.Values) {
					t.Fatalf("utility %+v after a round trip, was %+v", u2, u)
				}
			}
			return
		}
		if m != nil {
			t.Fatal("a model and an error")
		}
		formattest.CheckErrors(t, name, err)
	})
}
