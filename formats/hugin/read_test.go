package hugin

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// within reports whether a and b are within tol; it is false if either is NaN.
func within(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// compareModels reports every difference between got and want: variables
// (matched by name), their states, their parents in order, and their CPT
// values, equal within tol (0: bit for bit). It returns the largest
// difference between two CPT values.
func compareModels(t *testing.T, got, want *ir.Model, tol float64) float64 {
	t.Helper()
	if len(got.Vars) != len(want.Vars) {
		t.Errorf("%d variables, want %d", len(got.Vars), len(want.Vars))
	}
	maxDiff := 0.0
	for _, wv := range want.Vars {
		gv, ok := got.Lookup(wv.Name)
		if !ok {
			t.Errorf("variable %q missing", wv.Name)
			continue
		}
		if !slices.Equal(gv.States, wv.States) {
			t.Errorf("%s: states %q, want %q", wv.Name, gv.States, wv.States)
			continue
		}
		gp, wp := formattest.Names(got, got.Parents[gv.ID]), formattest.Names(want, want.Parents[wv.ID])
		if !slices.Equal(gp, wp) {
			t.Errorf("%s: parents %q, want %q", wv.Name, gp, wp)
			continue
		}
		gc, wc := got.Table(gv.ID).Written(), want.Table(wv.ID).Written()
		if len(gc.Vals) != len(wc.Vals) {
			t.Errorf("%s: %d values, want %d", wv.Name, len(gc.Vals), len(wc.Vals))
			continue
		}
		for i, w := range wc.Vals {
			g := gc.Vals[i]
			if tol == 0 {
				if math.Float64bits(g) != math.Float64bits(w) {
					t.Errorf("%s: value %d is %v, want %v", wv.Name, i, g, w)
					break
				}
				continue
			}
			if !within(g, w, tol) {
				t.Errorf("%s: value %d is %v, want %v within %g", wv.Name, i, g, w, tol)
				break
			}
			if d := math.Abs(g - w); d > maxDiff {
				maxDiff = d
			}
		}
	}
	return maxDiff
}

// TestCorpusTwins reads every .net file of the corpus and checks it
// against its BIF twin: the same variables, states and parents, and CPT
// values that are equal bit for bit.
func TestCorpusTwins(t *testing.T) {
	formattest.Twins(t, "net", ".net", ReadFile, bif.ReadFile, func(t *testing.T, _ string, got, want *ir.Model) {
		compareModels(t, got, want, 0)
	})
}

// TestRoundTrip writes every BIF network of the corpus as NET, reads it
// back and compares every value bit for bit.
func TestRoundTrip(t *testing.T) {
	bifDir := formattest.Corpus(t, "bif")
	files, _ := filepath.Glob(filepath.Join(bifDir, "*.bif*"))
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			if testing.Short() && strings.HasSuffix(name, ".gz") {
				t.Skip("large network in -short mode")
			}
			want, err := bif.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, want); err != nil {
				t.Fatal(err)
			}
			got, err := Read(name+".net", buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			compareModels(t, got, want, 0)
			// Writing again gives the same text.
			var again bytes.Buffer
			if err := Write(&again, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Error("writing the model read back gives a different text")
			}
		})
	}
}

const asia2 = `net
{
}
node smoke
{
  states = ( "yes" "no" );
}
node lung
{
  states = ( "yes" "no" );
}
potential ( smoke )
{
  data = ( 0.5 0.5 );
}
potential ( lung | smoke )
{
  data = ((0.1 0.9)(0.01 0.99));
}
`

// TestWriteLayout checks the text Write produces.
func TestWriteLayout(t *testing.T) {
	m, err := Read("a.net", []byte(asia2))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != asia2 {
		t.Errorf("got\n%s\nwant\n%s", got, asia2)
	}
}

// TestWriteThreeParents checks the nesting of a table over three parents
// of different sizes, against a table written by hand.
func TestWriteThreeParents(t *testing.T) {
	src := `net { }
node a { states = ("a0" "a1"); }
node b { states = ("b0" "b1" "b2"); }
node c { states = ("c0" "c1"); }
node x { states = ("x0" "x1"); }
potential (a) { data = (0.5 0.5); }
potential (b) { data = (0.25 0.25 0.5); }
potential (c) { data = (0.5 0.5); }
potential (x | a b c) { data = (((( 0.01 0.99) (0.02 0.98))
  ((0.03 0.97) (0.04 0.96)) ((0.05 0.95) (0.06 0.94)))
  (((0.07 0.93) (0.08 0.92)) ((0.09 0.91) (0.1 0.9)) ((0.11 0.89) (0.12 0.88)))); }
`
	m, err := Read("x.net", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := m.Lookup("x")
	f := m.Table(ir.VarID(x.ID)).Factor
	// x = x0 given a=a1, b=b2, c=c0 is the 11th row, 0.11.
	if got := f.Vals[f.Index([]int{1, 2, 0, 0})]; got != 0.11 {
		t.Errorf("P(x0 | a1, b2, c0) = %v, want 0.11", got)
	}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	want := "data = ((((0.01 0.99)(0.02 0.98))((0.03 0.97)(0.04 0.96))((0.05 0.95)(0.06 0.94)))" +
		"(((0.07 0.93)(0.08 0.92))((0.09 0.91)(0.1 0.9))((0.11 0.89)(0.12 0.88))));"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("got\n%s\nwant a line %s", buf.String(), want)
	}
}

// TestDialect reads forms the bnlearn files do not use.
func TestDialect(t *testing.T) {
	for _, src := range []string{
		// Flat data, commas, comments, unknown attributes, potentials
		// before nodes, escapes in strings.
		`% a comment
net { node_size = (80 40); name = "x"; }
potential ( b | a ) { data = ( 0.1, 0.9, 0.2, 0.8 ); experience = (1 1); }
node a { label = "A \"quoted\""; position = (10 20); states = ("y\\n" "n"); subtype = labelled; }
discrete node b { states = ( "t" "f" ); HR_Desc = ""; } % trailing
potential ( a | ) { data = ( 0.3 0.7 ) ; }`,
		// A byte order mark and CRLF line endings; no net block.
		"\uFEFFnode a\r\n{\r\n  states = ( \"y\\\\n\" \"n\" );\r\n}\r\nnode b { states = (\"t\" \"f\"); }\r\n" +
			"potential (a) { data = (0.3 0.7); }\r\npotential (b | a) { data = ((0.1 0.9) (0.2 0.8)); }\r\n",
	} {
		m, err := Read("d.net", []byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		a, _ := m.Lookup("a")
		if !slices.Equal(a.States, []string{`y\n`, "n"}) {
			t.Errorf("states of a: %q", a.States)
		}
		b, _ := m.Lookup("b")
		if got := m.Table(ir.VarID(b.ID)).Factor.Vals; !slices.Equal(got, []float64{0.1, 0.9, 0.2, 0.8}) {
			t.Errorf("P(b | a) = %v", got)
		}
	}
}

// TestErrorType checks that errors are an ir.ErrorList.
func TestErrorType(t *testing.T) {
	_, err := Read("e.net", []byte("node a { }"))
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %T %v is not an ir.ErrorList", err, err)
	}
	if _, err := ReadFile(filepath.Join("testdata", "no such file.net")); err == nil {
		t.Error("no error for a missing file")
	}
}

// TestWriteRejects checks the models Write cannot represent.
func TestWriteRejects(t *testing.T) {
	for _, tc := range []struct{ name, state, want string }{
		{"a b", "x", "node name"},
		{"a", "x\ny", "NET string"},
	} {
		bld := ir.NewBuilder("w")
		id, _ := bld.AddVar(ir.Pos{}, tc.name, ir.Enum, []string{tc.state}, 0)
		bld.SetCPT(ir.Pos{}, id, nil, []float64{1}, nil)
		m, err := bld.Finish()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		err = Write(&buf, m)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%q, %q): error %v, want one about %s", tc.name, tc.state, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("Write(%q, %q) wrote %d bytes before failing", tc.name, tc.state, buf.Len())
		}
	}
}

// TestTwinsDiscriminateLayout makes sure that TestCorpusTwins would catch
// a wrong reading of the data layout: for every twin, reading the data
// with the first parent fastest instead of the last (or with the child
// slowest) changes some table.
func TestTwinsDiscriminateLayout(t *testing.T) {
	netDir := formattest.Corpus(t, "net")
	files, _ := filepath.Glob(filepath.Join(netDir, "*.net"))
	for _, path := range files {
		m, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		parentsReversed, childSlowest := false, false
		for v := range m.Vars {
			c := m.Table(ir.VarID(v))
			if c == nil {
				continue
			}
			f := c.Factor
			n := len(f.Card)
			if n < 2 {
				continue
			}
			a := make([]int, n)
			for i, x := range f.Vals {
				f.Assignment(a, i)
				// The offset of the same assignment in the other layouts.
				rev, child := 0, 0
				for k := 0; k < n-1; k++ {
					rev = rev*f.Card[n-2-k] + a[n-2-k]
				}
				rev = rev*f.Card[n-1] + a[n-1]
				child = a[n-1]
				for k := 0; k < n-1; k++ {
					child = child*f.Card[k] + a[k]
				}
				if f.Vals[rev] != x {
					parentsReversed = true
				}
				if f.Vals[child] != x {
					childSlowest = true
				}
			}
		}
		if !parentsReversed || !childSlowest {
			t.Errorf("%s: the twin test does not tell the layouts apart (parents reversed: %v, child slowest: %v)",
				filepath.Base(path), parentsReversed, childSlowest)
		}
	}
}

// TestDocExample reads the layout example of the package documentation.
func TestDocExample(t *testing.T) {
	src := `node lung { states = ("yes" "no"); }
node tub { states = ("yes" "no"); }
node either { states = ("yes" "no"); }
potential (lung) { data = (0.1 0.9); }
potential (tub) { data = (0.1 0.9); }
potential ( either | lung tub )
{
  data = (((1 0)      % lung=yes, tub=yes
           (1 0))     % lung=yes, tub=no
          ((1 0)      % lung=no,  tub=yes
           (0 1)));   % lung=no,  tub=no
}
`
	m, err := Read("doc.net", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := m.Lookup("either")
	f := m.Table(ir.VarID(e.ID)).Factor
	// P(either=no | lung=no, tub=no) = 1; every other row says yes.
	if got := f.Vals[f.Index([]int{1, 1, 1})]; got != 1 {
		t.Errorf("P(either=no | lung=no, tub=no) = %v, want 1", got)
	}
	if got := f.Vals[f.Index([]int{0, 1, 1})]; got != 0 {
		t.Errorf("P(either=no | lung=yes, tub=no) = %v, want 0", got)
	}
}
