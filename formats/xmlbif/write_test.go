package xmlbif

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// TestRoundTrip reads every BIF network of the corpus (.bif.gz included),
// writes it as XMLBIF, reads that back, and checks that the two models are
// identical: variables and states in order, parents in order, and every
// CPT value bit for bit.
func TestRoundTrip(t *testing.T) {
	dir := formattest.Corpus(t, "bif")
	files, err := filepath.Glob(filepath.Join(dir, "*.bif*"))
	if err != nil || len(files) == 0 {
		t.Skipf("no BIF files in %s", dir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if testing.Short() && strings.HasSuffix(file, ".gz") {
				t.Skip("large network in -short mode")
			}
			want, err := bif.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, want)
		})
	}
}

// sameModel fails unless got and want are identical in everything XMLBIF
// carries.
func sameModel(t *testing.T, got, want *ir.Model) {
	t.Helper()
	if len(got.Vars) != len(want.Vars) {
		t.Fatalf("%d variables, want %d", len(got.Vars), len(want.Vars))
	}
	for i, wv := range want.Vars {
		gv := got.Vars[i]
		if gv.Name != wv.Name || strings.Join(gv.States, "\x00") != strings.Join(wv.States, "\x00") {
			t.Errorf("variable %d is %q %q, want %q %q", i, gv.Name, gv.States, wv.Name, wv.States)
			continue
		}
		gc, wc := got.Table(ir.VarID(i)), want.Table(ir.VarID(i))
		if gc == nil || wc == nil {
			if (gc == nil) != (wc == nil) {
				t.Errorf("%q: table %v, want %v", wv.Name, gc, wc)
			}
			continue // decisions have none
		}
		if len(gc.Parents) != len(wc.Parents) {
			t.Errorf("%q has parents %v, want %v", wv.Name, gc.Parents, wc.Parents)
			continue
		}
		for j := range wc.Parents {
			if gc.Parents[j] != wc.Parents[j] {
				t.Errorf("%q has parents %v, want %v", wv.Name, gc.Parents, wc.Parents)
				break
			}
		}
		if len(gc.Factor.Vals) != len(wc.Factor.Vals) {
			t.Errorf("%q has %d values, want %d", wv.Name, len(gc.Factor.Vals), len(wc.Factor.Vals))
			continue
		}
		for j, w := range wc.Factor.Vals {
			if g := gc.Factor.Vals[j]; math.Float64bits(g) != math.Float64bits(w) {
				t.Errorf("%q value %d is %v, want %v", wv.Name, j, g, w)
				break
			}
		}
	}
}

// TestRoundTripNames checks names that need escaping.
func TestRoundTripNames(t *testing.T) {
	src := `<BIF><NETWORK>
<VARIABLE><NAME>a&lt;b&amp;"c'</NAME><OUTCOME>&lt;5</OUTCOME><OUTCOME>5-12</OUTCOME><OUTCOME>line&#xA;break</OUTCOME></VARIABLE>
<VARIABLE><NAME>é ü</NAME><OUTCOME>]]&gt;</OUTCOME><OUTCOME>t&#x9;ab</OUTCOME></VARIABLE>
<DEFINITION><FOR>a&lt;b&amp;"c'</FOR><TABLE>0.1 0.2 0.7</TABLE></DEFINITION>
<DEFINITION><FOR>é ü</FOR><GIVEN>a&lt;b&amp;"c'</GIVEN><TABLE>0.3 0.7 1e-300 1 0.30000000000000004 0.7</TABLE></DEFINITION>
</NETWORK></BIF>`
	want, err := Read("names.xml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, want)
}

// roundTrip checks that m, written as XMLBIF, reads back as the same model.
func roundTrip(t *testing.T, m *ir.Model) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := Read("again.xml", buf.Bytes())
	if err != nil {
		t.Fatalf("reading back what Write wrote: %v\n%s", err, buf.Bytes())
	}
	sameModel(t, back, m)
	for v := range m.Vars {
		if back.Vars[v].Decision != m.Vars[v].Decision || !slices.Equal(back.Parents[v], m.Parents[v]) {
			t.Fatalf("%s: decision %v with parents %v after a round trip, was %v with %v", m.Vars[v].Name, back.Vars[v].Decision, back.Parents[v], m.Vars[v].Decision, m.Parents[v])
		}
	}
	if len(back.Utilities) != len(m.Utilities) {
		t.Fatalf("%d utilities after a round trip, was %d", len(back.Utilities), len(m.Utilities))
	}
	for i, u := range m.Utilities {
		if b := back.Utilities[i]; b.Name != u.Name || !slices.Equal(b.Parents, u.Parents) || !slices.Equal(b.Values, u.Values) {
			t.Fatalf("utility %+v after a round trip, was %+v", b, u)
		}
	}
}

// TestWriteErrors checks that names XMLBIF cannot carry are refused, and
// that nothing is written then.
func TestWriteErrors(t *testing.T) {
	for _, tc := range []struct{ name, states, want string }{
		{" x", "a b", `cannot write variable " x" as XMLBIF: it begins or ends with white space`},
		{"x", "a\x01 b", `cannot write state "a\\x01" as XMLBIF: XML does not allow the character U\+0001`},
		{"x\xff", "a b", `not valid UTF-8`},
	} {
		b := ir.NewBuilder("w.pbl")
		states := strings.Fields(tc.states)
		id, _ := b.AddVar(ir.Pos{File: "w.pbl", Line: 1, Col: 1}, tc.name, ir.Enum, states, 0)
		vals := make([]float64, len(states))
		vals[0] = 1
		b.SetCPT(ir.Pos{File: "w.pbl", Line: 2, Col: 1}, id, nil, vals, nil)
		m, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		err = Write(&buf, m)
		if err == nil || !regexpMatch(tc.want, err.Error()) {
			t.Errorf("Write(%q) = %v, want an error matching %s", tc.name, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("Write(%q) wrote %d bytes with an error", tc.name, buf.Len())
		}
	}
}

// TestWriteLayout checks the layout of the output on a small network.
func TestWriteLayout(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "rain.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read("rain.xml", src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(src) {
		t.Errorf("Write gave\n%s\nwant (testdata/rain.xml)\n%s", got, src)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
