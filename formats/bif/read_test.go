package bif

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// within reports whether a and b are within tol; it is false if either is NaN.
func within(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// rowOf returns the values of P(child | parents = states), looked up by name.
func rowOf(t *testing.T, m *ir.Model, child string, parents map[string]string) []float64 {
	t.Helper()
	v, ok := m.Lookup(child)
	if !ok {
		t.Fatalf("no variable %q", child)
	}
	c := m.Table(ir.VarID(v.ID))
	a := make([]int, len(c.Factor.Vars))
	for i, p := range c.Parents {
		pv := m.Vars[p]
		s, ok := parents[pv.Name]
		if !ok {
			t.Fatalf("no state given for parent %q of %q", pv.Name, child)
		}
		if a[i] = pv.State(s); a[i] < 0 {
			t.Fatalf("no state %q of %q", s, pv.Name)
		}
	}
	if len(parents) != len(c.Parents) {
		t.Fatalf("%q has %d parents, %d states given", child, len(c.Parents), len(parents))
	}
	off := c.Factor.Index(a)
	return c.Factor.Vals[off : off+len(v.States)]
}

func checkVals(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	for i := range got {
		if !within(got[i], want[i], 1e-12) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

func TestCorpus(t *testing.T) {
	dir := formattest.Corpus(t, "bif")
	files, err := filepath.Glob(filepath.Join(dir, "*.bif*"))
	if err != nil || len(files) == 0 {
		t.Skipf("no BIF files in %s", dir)
	}
	// Variables and arcs per network, as published by the bnlearn repository.
	want := map[string][2]int{
		"asia": {8, 8}, "cancer": {5, 4}, "earthquake": {5, 4}, "survey": {6, 6},
		"sachs": {11, 17}, "child": {20, 25}, "insurance": {27, 52}, "water": {32, 66},
		"mildew": {35, 46}, "alarm": {37, 46}, "barley": {48, 84}, "hailfinder": {56, 66},
		"hepar2": {70, 123}, "win95pts": {76, 112}, "pathfinder": {109, 195},
		"munin1": {186, 273}, "andes": {223, 338}, "diabetes": {413, 602},
		"pigs": {441, 592}, "link": {724, 1125}, "munin2": {1003, 1244},
		"munin3": {1041, 1306}, "munin4": {1038, 1388}, "munin": {1041, 1397},
	}
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".bif")
		m, err := ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		arcs := 0
		for _, ps := range m.Parents {
			arcs += len(ps)
		}
		if w, ok := want[base]; ok {
			if len(m.Vars) != w[0] || arcs != w[1] {
				t.Errorf("%s: %d variables and %d arcs, want %d and %d", base, len(m.Vars), arcs, w[0], w[1])
			}
		} else {
			t.Logf("%s: %d variables and %d arcs (not checked)", base, len(m.Vars), arcs)
		}
		if m.Source != f {
			t.Errorf("%s: Source = %q", base, m.Source)
		}
		switch base {
		case "asia":
			checkVals(t, "asia P(tub | asia=yes)", rowOf(t, m, "tub", map[string]string{"asia": "yes"}), []float64{0.05, 0.95})
			checkVals(t, "asia P(either | lung=no, tub=yes)", rowOf(t, m, "either", map[string]string{"lung": "no", "tub": "yes"}), []float64{1, 0})
			checkVals(t, "asia P(dysp | bronc=yes, either=no)", rowOf(t, m, "dysp", map[string]string{"bronc": "yes", "either": "no"}), []float64{0.8, 0.2})
		case "alarm":
			checkVals(t, "alarm P(HYPOVOLEMIA)", rowOf(t, m, "HYPOVOLEMIA", nil), []float64{0.2, 0.8})
		case "child":
			// States with unusual characters.
			v, _ := m.Lookup("Age")
			if got := strings.Join(v.States, " "); got != "0-3_days 4-10_days 11-30_days" {
				t.Errorf("child: states of Age = %s", got)
			}
			v, _ = m.Lookup("LowerBodyO2")
			if got := strings.Join(v.States, " "); got != "<5 5-12 12+" {
				t.Errorf("child: states of LowerBodyO2 = %s", got)
			}
			checkVals(t, "child P(LungParench | Disease=TGA)", rowOf(t, m, "LungParench", map[string]string{"Disease": "TGA"}), []float64{0.80, 0.05, 0.15})
		case "link":
			v, _ := m.Lookup("N56_d_g")
			if got := strings.Join(v.States, " "); got != "1_1 1_2 2_2" {
				t.Errorf("link: states of N56_d_g = %s", got)
			}
		}
	}
}

// dump renders a model compactly: one entry per variable,
// name{states}|parents=values, separated by "; ".
func dump(m *ir.Model) string {
	var parts []string
	for _, v := range m.Vars {
		s := fmt.Sprintf("%s{%s}", v.Name, strings.Join(v.States, ","))
		c := m.Table(ir.VarID(v.ID))
		if len(c.Parents) > 0 {
			var ps []string
			for _, p := range c.Parents {
				ps = append(ps, m.Vars[p].Name)
			}
			s += "|" + strings.Join(ps, ",")
		}
		var vals []string
		for _, x := range c.Factor.Vals {
			vals = append(vals, ir.FormatFloat(x))
		}
		parts = append(parts, s+"="+strings.Join(vals, " "))
	}
	return strings.Join(parts, "; ")
}

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

const twoVars = `variable a { type discrete [ 2 ] { yes, no }; }
variable b { type discrete [ 3 ] { x, y, z }; }
probability ( a ) { table 0.25, 0.75; }
`

func TestRead(t *testing.T) {
	for _, test := range []struct {
		name, input, want string
	}{
		{"prior", `network n { } variable a { type discrete [ 2 ] { yes, no }; } probability ( a ) { table 0.2, 0.8; }`,
			"a{yes,no}=0.2 0.8"},
		{"rows in any order", twoVars + `probability ( b | a ) { (no) 0.1, 0.2, 0.7; (yes) 0.3, 0.3, 0.4; }`,
			"a{yes,no}=0.25 0.75; b{x,y,z}|a=0.3 0.3 0.4 0.1 0.2 0.7"},
		{"two parents, rows shuffled", twoVars + `variable c { type discrete [ 2 ] { t, f }; }
probability ( c | b, a ) {
  (z, no) 0.6, 0.4; (x, yes) 0.1, 0.9; (y, no) 0.4, 0.6;
  (x, no) 0.2, 0.8; (z, yes) 0.5, 0.5; (y, yes) 0.3, 0.7;
}
probability ( b | a ) { default 0.5, 0.5, 0; }`, "a{yes,no}=0.25 0.75; b{x,y,z}|a=0.5 0.5 0 0.5 0.5 0; c{t,f}|b,a=0.1 0.9 0.2 0.8 0.3 0.7 0.4 0.6 0.5 0.5 0.6 0.4"},
		{"default", twoVars + `probability ( b | a ) { (no) 0.1, 0.2, 0.7; default 0.5, 0.25, 0.25; }`,
			"a{yes,no}=0.25 0.75; b{x,y,z}|a=0.5 0.25 0.25 0.1 0.2 0.7"},
		{"default first", twoVars + `probability ( b | a ) { default 0.5, 0.25, 0.25; (yes) 0.1, 0.2, 0.7; }`,
			"a{yes,no}=0.25 0.75; b{x,y,z}|a=0.1 0.2 0.7 0.5 0.25 0.25"},
		// table with parents: the child varies slowest, then the parents
		// (last fastest); here P(b=x|yes), P(b=x|no), P(b=y|yes), ...
		{"table with a parent", twoVars + `probability ( b | a ) { table 0.1, 0.2, 0.3, 0.4, 0.6, 0.4; }`,
			"a{yes,no}=0.25 0.75; b{x,y,z}|a=0.1 0.3 0.6 0.2 0.4 0.4"},
		{"table with two parents", twoVars + `variable c { type discrete [ 2 ] { t, f }; }
probability ( b | a ) { default 0.5, 0.5, 0; }
probability ( c | a, b ) { table 0.1, 0.2, 0.3, 0.4, 0.5, 0.6,  0.9, 0.8, 0.7, 0.6, 0.5, 0.4; }`,
			"a{yes,no}=0.25 0.75; b{x,y,z}|a=0.5 0.5 0 0.5 0.5 0; c{t,f}|a,b=0.1 0.9 0.2 0.8 0.3 0.7 0.4 0.6 0.5 0.5 0.6 0.4"},
		{"BIF 0.15 style", `// JavaBayes
network "Dog-Problem" { //5 variables
	property "credal-set constant-density-bounded 1.1" ;
}
variable "family-out" { //2 values
	type discrete[2] { "true" "false" };
	property "position = (257, 99)" ;
}
variable "light-on" {
	type discrete[2] { "true" "false" };
}
probability ( "family-out" ) { //1 variable(s) and 2 values
	table 0.15 0.85 ;
}
probability ( "light-on" "family-out" ) { //2 variable(s) and 4 values
	table 0.6 0.05 0.4 0.95 ;
}`, "family-out{true,false}=0.15 0.85; light-on{true,false}|family-out=0.6 0.4 0.05 0.95"},
		{"odd names and comments", `/* child.bif */ variable LowerBodyO2 { type discrete [ 3 ] { <5, 5-12, 12+ }; }
variable X { type discrete [ 2 ] { Asy/Patch, >=7.5 }; } // comment
probability ( LowerBodyO2 ) { table 0.1, 0.2, 0.7; }
probability ( X | LowerBodyO2 ) { (5-12) 0.1, 0.9; (<5)/*c*/0.2, 0.8; (12+) 1, 0; }`,
			"LowerBodyO2{<5,5-12,12+}=0.1 0.2 0.7; X{Asy/Patch,>=7.5}|LowerBodyO2=0.2 0.8 0.1 0.9 1 0"},
		{"numbers", `variable a { type discrete [ 4 ] { a, b, c, d }; } probability ( a ) { table 1e-01, .2, +0.3, 4.000000e-01; }`,
			"a{a,b,c,d}=0.1 0.2 0.3 0.4"},
		{"keywords as names", `variable table { type discrete [ 2 ] { default, table }; } probability ( table ) { table 0.5, 0.5; }`,
			"table{default,table}=0.5 0.5"},
		{"properties and CRLF", "\ufeffnetwork x {\r\n property a b c;\r\n}\r\nvariable a {\r\n type discrete [ 1 ] { s };\r\n property p = 1;\r\n}\r\nprobability ( a ) {\r\n property q;\r\n table 1;\r\n}\r\n",
			"a{s}=1"},
		{"gzip", gz(twoVars + `probability ( b | a ) { (no) 0.1, 0.2, 0.7; (yes) 0.3, 0.3, 0.4; }`),
			"a{yes,no}=0.25 0.75; b{x,y,z}|a=0.3 0.3 0.4 0.1 0.2 0.7"},
	} {
		m, err := Read("test.bif", []byte(test.input))
		if err != nil {
			t.Errorf("%s: %v", test.name, err)
			continue
		}
		if got := dump(m); got != test.want {
			t.Errorf("%s:\ngot  %s\nwant %s", test.name, got, test.want)
		}
	}
}

func TestReadErrorList(t *testing.T) {
	_, err := Read("x.bif", []byte("variable a { type discrete [ 2 ] { yes, no }; }\nprobability ( a ) { table 0.5, 0.6; }\nprobability ( b ) { table 1; }\n"))
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("got %v, want an ir.ErrorList of 2", err)
	}
	if got := list[0].Pos.String(); got != "x.bif:2:21" {
		t.Errorf("first error at %s, want x.bif:2:21", got)
	}
	if got := list[1].Pos.String(); got != "x.bif:3:15" {
		t.Errorf("second error at %s, want x.bif:3:15", got)
	}
	// Rune columns.
	_, err = Read("x.bif", []byte("variable é { type discrete [ 2 ] { ü, ÿ }; } probability ( é ) { table 0.5, 0.5; } zz"))
	if !errors.As(err, &list) || list[0].Pos.String() != "x.bif:1:84" {
		t.Errorf("got %v, want an error at x.bif:1:84", err)
	}
	// Broken gzip.
	_, err = Read("x.bif.gz", []byte(gz(twoVars))[:20])
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "gzip") || list[0].Pos.Line != 1 {
		t.Errorf("truncated gzip: got %v", err)
	}
}

func TestReadFile(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.bif")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
	path := filepath.Join(t.TempDir(), "m.bif.gz")
	if err := os.WriteFile(path, []byte(gz(twoVars+"probability ( b ) { table 0.5, 0.5, 0; }")), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source != path || len(m.Vars) != 2 {
		t.Errorf("got source %q and %d variables", m.Source, len(m.Vars))
	}
}

// TestReadLimits checks inputs that are small but describe large or
// numerous things: they must be read (or rejected) quickly.
func TestReadLimits(t *testing.T) {
	states := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprint("s", i))
		}
		return strings.Join(s, ", ")
	}
	big := func(n int) string {
		var b strings.Builder
		for _, v := range []string{"a", "b", "c"} {
			fmt.Fprintf(&b, "variable %s { type discrete [ %d ] { %s }; }\n", v, n, states(n))
			fmt.Fprintf(&b, "probability ( %s ) { default %s; }\n", v, strings.TrimSuffix(strings.Repeat(fmt.Sprint(1/float64(n), ", "), n), ", "))
		}
		b.WriteString("variable x { type discrete [ 2 ] { t, f }; }\nprobability ( x | a, b, c ) { default 0.5, 0.5; }\n")
		return b.String()
	}
	// 64³ rows: within the limit, filled by the default row.
	m, err := Read("big.bif", []byte(big(64)))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Lookup("x"); len(m.Table(ir.VarID(v.ID)).Factor.Vals) != 2*64*64*64 {
		t.Errorf("got %d values", len(m.Table(ir.VarID(v.ID)).Factor.Vals))
	}
	// 200³·2 entries: too large.
	_, err = Read("big.bif", []byte(big(200)))
	if err == nil || !strings.Contains(err.Error(), "big.bif:8:15: the table of P(x | a, b, c) is too large") {
		t.Errorf("got %v", err)
	}
	for name, src := range map[string]string{
		"many undeclared names": strings.Repeat("variable v { type discrete [ 1 ] { s }; } probability ( w ) { table 1; } ", 5000),
		"parentheses":           strings.Repeat("( ", 100000),
		"braces":                strings.Repeat("{ ", 100000),
		"comments":              strings.Repeat("/* x */ ", 100000) + "/*",
	} {
		if _, err := Read("x.bif", []byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
