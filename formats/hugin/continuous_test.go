package hugin_test

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/hugin"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// sameDensities reports every difference between the variables, parents
// and densities of got and want, the numbers bit for bit.
func sameDensities(t *testing.T, got, want *ir.Model) {
	t.Helper()
	if len(got.Vars) != len(want.Vars) {
		t.Fatalf("%d variables, want %d", len(got.Vars), len(want.Vars))
	}
	for _, wv := range want.Vars {
		gv, ok := got.Lookup(wv.Name)
		if !ok || gv.Discrete() != wv.Discrete() || !slices.Equal(gv.States, wv.States) { // NET has no bool: a bool reads back as an enum
			t.Errorf("variable %q: %v, want %v", wv.Name, gv, wv)
			continue
		}
		gp, wp := formattest.Names(got, got.Parents[gv.ID]), formattest.Names(want, want.Parents[wv.ID])
		if !slices.Equal(gp, wp) {
			t.Errorf("%s: parents %q, want %q", wv.Name, gp, wp)
		}
		if wv.Discrete() {
			if !slices.Equal(got.Table(gv.ID).Written().Vals, want.Table(wv.ID).Written().Vals) {
				t.Errorf("%s: table differs", wv.Name)
			}
			continue
		}
		g, w := got.Gaussian(gv.ID), want.Gaussian(wv.ID)
		if g == nil || w == nil {
			t.Errorf("%s: density %v, want %v", wv.Name, g, w)
			continue
		}
		eq := func(a, b []float64) bool {
			return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
		}
		if !eq(g.Mean, w.Mean) || !eq(g.Coef, w.Coef) || !eq(g.SD, w.SD) {
			t.Errorf("%s: means %v coefficients %v sds %v, want %v %v %v", wv.Name, g.Mean, g.Coef, g.SD, w.Mean, w.Coef, w.SD)
		}
	}
}

// TestContinuousRoundTrip writes the CLG and Gaussian examples as NET,
// reads them back to the same densities bit for bit, and writes those as
// .pbl, which loads to the same model again.
func TestContinuousRoundTrip(t *testing.T) {
	for _, name := range []string{"clg.pbl", "gaussian.pbl", "linefit.pbl"} {
		t.Run(name, func(t *testing.T) {
			m, err := pbl.LoadFile(filepath.Join("..", "..", "examples", name))
			if err != nil {
				t.Fatal(err)
			}
			var net bytes.Buffer
			if err := hugin.Write(&net, m); err != nil {
				t.Fatal(err)
			}
			back, err := hugin.Read("back.net", net.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, net.Bytes())
			}
			sameDensities(t, back, m)
			var src bytes.Buffer
			if err := source.Write(&src, back, ""); err != nil {
				t.Fatal(err)
			}
			again, err := pbl.Load("again.pbl", src.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, src.Bytes())
			}
			sameDensities(t, again, m)
		})
	}
}

// handWritten is a CLG network in the NET language as Hugin's manual
// describes it: a continuous node's potential lists normal ( MEAN,
// VARIANCE ) per configuration of its discrete parents, the mean affine in
// its continuous parents; written here with and without spaces.
const handWritten = `
net { }
node S { states = ( "yes" "no" ); }
node T { states = ( "lo" "mid" "hi" ); }
continuous node X { label = "x"; }
continuous node Y { }
continuous node Z { position = (10 20); }
potential ( S ) { data = ( 0.25 0.75 ); }
potential ( T ) { data = ( 0.2 0.3 0.5 ); }
potential ( X ) { data = ( normal ( -1.5, 4 ) ); }
potential ( Y | S X ) { data = ( normal ( 1 + 2 * X, 0.25 )      % S=yes
                                 normal ( -3-0.5*X, 1e-2 ) ); }  % S=no
potential ( Z | Y S X T )
{
  data = (( normal ( 1 + Y - X, 1 ) normal ( 2 * Y + 3 * X - 2 * Y, 2 ) normal ( 0, 3 ) )
          ( normal ( 1e+1 + 2.5e-1 * X, 4 ) normal ( Y * 2, 5 ) normal ( -Y, 6 ) ));
}
`

// TestReadContinuous checks the hand-written network's densities against
// the numbers worked out from the text by hand.
func TestReadContinuous(t *testing.T) {
	m, err := hugin.Read("hand.net", []byte(handWritten))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		discrete, real []string
		mean, coef, sd []float64
	}
	wants := map[string]want{
		"X": {nil, nil, []float64{-1.5}, nil, []float64{2}},
		"Y": {[]string{"S"}, []string{"X"}, []float64{1, -3}, []float64{2, -0.5}, []float64{0.5, 0.1}},
		"Z": {[]string{"S", "T"}, []string{"Y", "X"},
			[]float64{1, 0, 0, 10, 0, 0},
			[]float64{1, -1, 0, 3, 0, 0, 0, 0.25, 2, 0, -1, 0},
			[]float64{1, math.Sqrt(2), math.Sqrt(3), 2, math.Sqrt(5), math.Sqrt(6)}},
	}
	for name, w := range wants {
		v, ok := m.Lookup(name)
		if !ok || v.Discrete() {
			t.Fatalf("%s: not a real variable", name)
		}
		g := m.Gaussian(v.ID)
		if g == nil {
			t.Fatalf("%s: no normal density", name)
		}
		if d, r := formattest.Names(m, g.Parents), formattest.Names(m, g.Real); !slices.Equal(d, w.discrete) || !slices.Equal(r, w.real) {
			t.Errorf("%s: parents %q and %q, want %q and %q", name, d, r, w.discrete, w.real)
		}
		close := func(a, b []float64) bool {
			if len(a) != len(b) {
				return false
			}
			for i := range a {
				if !(math.Abs(a[i]-b[i]) <= 1e-15) {
					return false
				}
			}
			return true
		}
		if !close(g.Mean, w.mean) || !close(g.Coef, w.coef) || !close(g.SD, w.sd) {
			t.Errorf("%s: means %v coefficients %v sds %v, want %v %v %v", name, g.Mean, g.Coef, g.SD, w.mean, w.coef, w.sd)
		}
	}
	// And it is written back to the same densities.
	var buf bytes.Buffer
	if err := hugin.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := hugin.Read("back.net", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	sameDensities(t, back, m)
	if !strings.Contains(buf.String(), "continuous node Y") {
		t.Errorf("no continuous node written:\n%s", buf.Bytes())
	}
}
