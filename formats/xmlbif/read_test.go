package xmlbif

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// twinTol is how far the CPT values of each XMLBIF file of the corpus may
// be from its BIF twin. SamIam renormalised some rows when it exported
// them (0.3333333 became 0.33333333333333337, and so on); the bounds are
// the largest differences measured, rounded up.
var twinTol = map[string]float64{
	"asia":       0,
	"alarm":      4e-8,
	"insurance":  1e-9,
	"hailfinder": 2e-16,
	"sachs":      7e-8,
}

// TestTwins reads every XMLBIF file of the corpus and checks that it
// agrees with its BIF twin: the same variables, states and parents, and
// every CPT value within the file's tolerance.
func TestTwins(t *testing.T) {
	formattest.Twins(t, "xmlbif", ".xml", ReadFile, bif.ReadFile, func(t *testing.T, name string, got, want *ir.Model) {
		tol, ok := twinTol[name]
		if !ok {
			tol = 1e-12
		}
		diff, sameOrder := compareByName(t, got, want)
		if !(diff <= tol) {
			t.Errorf("largest difference from the BIF twin is %g, want at most %g", diff, tol)
		}
		t.Logf("%d variables; largest difference %g; parents in the BIF order: %v", len(got.Vars), diff, sameOrder)
	})
}

// compareByName checks that got and want have the same variables (in any
// order), states (in order) and parent sets, and returns the largest
// difference between corresponding CPT values (+Inf if a value is NaN) and
// whether every parent list is in the same order.
func compareByName(t *testing.T, got, want *ir.Model) (maxDiff float64, sameOrder bool) {
	t.Helper()
	sameOrder = true
	if len(got.Vars) != len(want.Vars) {
		t.Fatalf("%d variables, want %d", len(got.Vars), len(want.Vars))
	}
	for _, wv := range want.Vars {
		gv, ok := got.Lookup(wv.Name)
		if !ok {
			t.Errorf("no variable %q", wv.Name)
			continue
		}
		if strings.Join(gv.States, ",") != strings.Join(wv.States, ",") {
			t.Errorf("%q has states %q, want %q", wv.Name, gv.States, wv.States)
			continue
		}
		// The numbers as written: the twins are compared as files.
		gt, wt := got.Table(gv.ID), want.Table(wv.ID)
		gc := &ir.CPT{Parents: gt.Parents, Factor: gt.Written()}
		wc := &ir.CPT{Parents: wt.Parents, Factor: wt.Written()}
		// perm[i] is the index in gc's scope of wc's scope variable i.
		perm := make([]int, len(wc.Factor.Vars))
		okScope := len(gc.Factor.Vars) == len(wc.Factor.Vars)
		for i, w := range wc.Factor.Vars {
			perm[i] = -1
			for j, g := range gc.Factor.Vars {
				if got.Vars[g].Name == want.Vars[w].Name {
					perm[i] = j
				}
			}
			if perm[i] < 0 {
				okScope = false
			}
			if perm[i] != i {
				sameOrder = false
			}
		}
		if !okScope {
			t.Errorf("P(%s | %v): parents %v", wv.Name, formattest.Names(want, wc.Parents), formattest.Names(got, gc.Parents))
			continue
		}
		wa := make([]int, len(perm))
		ga := make([]int, len(perm))
		for i, w := range wc.Factor.Vals {
			wc.Factor.Assignment(wa, i)
			for k, j := range perm {
				ga[j] = wa[k]
			}
			g := gc.Factor.Vals[gc.Factor.Index(ga)]
			d := math.Abs(g - w)
			if math.IsNaN(d) {
				d = math.Inf(1)
			}
			maxDiff = max(maxDiff, d)
		}
	}
	return maxDiff, sameOrder
}

// TestRead checks small documents, including the allowances of the
// dialect.
func TestRead(t *testing.T) {
	const twoVars = `<BIF VERSION="0.3"><NETWORK><NAME>n</NAME>
<VARIABLE TYPE="nature"><NAME>a</NAME><OUTCOME>yes</OUTCOME><OUTCOME>no</OUTCOME></VARIABLE>
<VARIABLE TYPE="nature"><NAME>b</NAME><OUTCOME>lo</OUTCOME><OUTCOME>mid</OUTCOME><OUTCOME>hi</OUTCOME></VARIABLE>
`
	for _, tc := range []struct {
		name, src, want string
	}{
		{"basic", twoVars + `<DEFINITION><FOR>a</FOR><TABLE>0.25 0.75</TABLE></DEFINITION>
<DEFINITION><FOR>b</FOR><GIVEN>a</GIVEN><TABLE>0.1 0.2 0.7 0.5 0.25 0.25</TABLE></DEFINITION></NETWORK></BIF>`,
			"a{yes,no} [] 0.25 0.75; b{lo,mid,hi} [a] 0.1 0.2 0.7 0.5 0.25 0.25"},
		{"definition first, comments, PROBABILITY, lower case", `<?xml version="1.0"?>
<!DOCTYPE BIF [ <!ELEMENT BIF ( NETWORK )*> ]>
<bif version="0.5"><network>
<probability><for>b</for><given>a</given><table><!-- a=yes -->0.1 0.2 0.7
<!-- a=no --> 0.5 0.25 0.25</table><property>x</property></probability>
<variable><name> a </name><outcome>yes</outcome><outcome>no</outcome><property>position = (1, 2)</property></variable>
<variable type="nature"><name>b</name><value>lo</value><value>mid</value><value>hi</value></variable>
<definition><for>a</for><table>1.0E-1 +.9</table></definition>
</network></bif>`,
			"a{yes,no} [] 0.1 0.9; b{lo,mid,hi} [a] 0.1 0.2 0.7 0.5 0.25 0.25"},
		{"bare network, entities, CDATA", `<NETWORK>
<VARIABLE><NAME>x&amp;y</NAME><OUTCOME>&lt;5</OUTCOME><OUTCOME><![CDATA[>=5]]></OUTCOME></VARIABLE>
<DEFINITION><FOR>x&#38;y</FOR><TABLE><![CDATA[0.5]]> 0.5</TABLE></DEFINITION></NETWORK>`,
			"x&y{<5,>=5} [] 0.5 0.5"},
		{"BOM", "\uFEFF<BIF><NETWORK><VARIABLE><NAME>x</NAME><OUTCOME>t</OUTCOME></VARIABLE><DEFINITION><FOR>x</FOR><TABLE>1</TABLE></DEFINITION></NETWORK></BIF>",
			"x{t} [] 1"},
		{"latin-1", "<?xml version='1.0' encoding='ISO-8859-1'?><BIF><NETWORK><VARIABLE><NAME>caf\xe9</NAME><OUTCOME>s\xed</OUTCOME><OUTCOME>no</OUTCOME></VARIABLE><DEFINITION><FOR>caf\xe9</FOR><TABLE>.5 .5</TABLE></DEFINITION></NETWORK></BIF>",
			"café{sí,no} [] 0.5 0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Read("t.xml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(m); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// dump renders a model compactly: name{states} [parents] values; ...
func dump(m *ir.Model) string {
	var parts []string
	for _, v := range m.Vars {
		c := m.Table(ir.VarID(v.ID))
		var vals []string
		for _, x := range c.Factor.Vals {
			vals = append(vals, ir.FormatFloat(x))
		}
		parts = append(parts, v.Name+"{"+strings.Join(v.States, ",")+"} ["+strings.Join(formattest.Names(m, c.Parents), ",")+"] "+strings.Join(vals, " "))
	}
	return strings.Join(parts, "; ")
}

// TestPositions checks line:col in input with CRLF line ends, tabs and
// non-ASCII text, and errors inside a multi-line table.
func TestPositions(t *testing.T) {
	src := "<BIF>\r\n<NETWORK>\r\n<VARIABLE><NAME>é</NAME><OUTCOME>t</OUTCOME><OUTCOME>f</OUTCOME></VARIABLE>\r\n" +
		"<VARIABLE><NAME>a</NAME><OUTCOME>t</OUTCOME><OUTCOME>f</OUTCOME></VARIABLE><DEFINITION><FOR>a</FOR><TABLE>1 0</TABLE></DEFINITION>\r\n" +
		"<DEFINITION><FOR>é</FOR><GIVEN>a</GIVEN><TABLE>\r\n\t0.5 0.5\r\n\t0.5 x</TABLE></DEFINITION>\r\n" +
		"<DEFINITION><FOR>é</FOR><GIVEN>zz</GIVEN><TABLE>1</TABLE></DEFINITION>\r\n</NETWORK></BIF>"
	_, err := Read("p.xml", []byte(src))
	var list ir.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want an ir.ErrorList", err)
	}
	want := []string{
		`p.xml:7:6: malformed number "x" in the table of "é"`,
		`p.xml:8:18: second distribution for "é" (first at p.xml:5:18)`,
		`p.xml:8:32: <GIVEN> variable "zz" is not declared by any <VARIABLE>`,
	}
	if got := strings.TrimSpace(list.Lines()); got != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestBadCharPositions checks that a character XML does not allow, or a
// byte that is not UTF-8, is reported where it is, not where encoding/xml
// noticed it.
func TestBadCharPositions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"<BIF>\x02</BIF>", "p.xml:1:6: malformed XML: illegal character code U+0002"},
		// gzip data is decompressed (since the readers of every format
		// take it): four bytes of it are a truncated file.
		{"\x1f\x8b\x08\x00", "p.xml:1: the file starts as gzip data but is not valid gzip (unexpected EOF): is it truncated?"},
		{"PK\x03\x04garbage", "p.xml:1:3: malformed XML: illegal character code U+0003"},
		{"<BIF>\n<NETWORK><NAME>é\x01</NAME>", "p.xml:2:17: malformed XML: illegal character code U+0001"},
		{"<BIF>\n<NETWORK><NAME>a\xffb</NAME>", "p.xml:2:17: malformed XML: invalid UTF-8"},
	} {
		_, err := Read("p.xml", []byte(tc.src))
		var list ir.ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%q: got %v, want one error", tc.src, err)
			continue
		}
		if got := list[0].Error(); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestReadFile checks that a missing file is reported as the os error.
func TestReadFile(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "missing.xml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want a not-exist error", err)
	}
}

// TestStrayTextLeavesSource checks that reporting long stray text does not
// write into the document (the text the tokenizer returns is a slice of
// it): the errors after it keep their lines, and the source is unchanged.
func TestStrayTextLeavesSource(t *testing.T) {
	src := []byte("<BIF VERSION=\"0.3\"><NETWORK><NAME>n</NAME>\naaaaaaaaaaaaaaaaaaaaa\n\n\n" +
		"<VARIABLE TYPE=\"nature\"><NAME>A</NAME><OUTCOME>a</OUTCOME><OUTCOME>b</OUTCOME></VARIABLE>\n" +
		"<DEFINITION><FOR>B</FOR><TABLE>0.4 0.6</TABLE></DEFINITION></NETWORK></BIF>")
	orig := string(src)
	_, err := Read("stray.xml", src)
	if string(src) != orig {
		t.Fatalf("Read changed its input to %q", src)
	}
	var list ir.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v, want an ir.ErrorList", err)
	}
	var lines []int
	for _, e := range list {
		lines = append(lines, e.Pos.Line)
	}
	if want := []int{2, 5, 6}; !slices.Equal(lines, want) {
		t.Errorf("errors on lines %v, want %v: %v", lines, want, err)
	}
}
