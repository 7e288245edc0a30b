package source_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/hugin"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/formats/xmlbif"
	"github.com/pbl-lang/pbl/ir"
)

// sameModel reports the first difference between two models' variables,
// states, parents and tables (compared bit for bit), or "".
func sameModel(a, b *ir.Model) string {
	if len(a.Vars) != len(b.Vars) {
		return "different numbers of variables"
	}
	for i, v := range a.Vars {
		w := b.Vars[i]
		if v.Name != w.Name || v.Kind != w.Kind || strings.Join(v.States, "\x00") != strings.Join(w.States, "\x00") {
			return "variable " + v.Name + " differs"
		}
		if fmt.Sprint(a.Parents[i]) != fmt.Sprint(b.Parents[i]) {
			return "parents of " + v.Name + " differ"
		}
		ga, gb := a.Gaussian(ir.VarID(i)), b.Gaussian(ir.VarID(i))
		if (ga == nil) != (gb == nil) {
			return "density presence of " + v.Name + " differs"
		}
		if ga != nil {
			if len(ga.Parents) != len(gb.Parents) || len(ga.Mean) != len(gb.Mean) || fmt.Sprint(ga.Real) != fmt.Sprint(gb.Real) || len(ga.Coef) != len(gb.Coef) {
				return "density of " + v.Name + " differs"
			}
			for j := range ga.Coef {
				if math.Float64bits(ga.Coef[j]) != math.Float64bits(gb.Coef[j]) {
					return "coefficients of " + v.Name + " differ"
				}
			}
			for j := range ga.Mean {
				if math.Float64bits(ga.Mean[j]) != math.Float64bits(gb.Mean[j]) || math.Float64bits(ga.SD[j]) != math.Float64bits(gb.SD[j]) {
					return "density of " + v.Name + " differs"
				}
			}
		}
		ca, cb := a.Table(ir.VarID(i)), b.Table(ir.VarID(i))
		if (ca == nil) != (cb == nil) {
			return "table presence of " + v.Name + " differs"
		}
		if ca == nil {
			continue
		}
		if len(ca.Parents) != len(cb.Parents) {
			return "parents of " + v.Name + " differ"
		}
		for j := range ca.Parents {
			if ca.Parents[j] != cb.Parents[j] {
				return "parents of " + v.Name + " differ"
			}
		}
		for j, x := range ca.Factor.Vals {
			if math.Float64bits(x) != math.Float64bits(cb.Factor.Vals[j]) {
				return "table of " + v.Name + " differs"
			}
		}
	}
	return ""
}

// roundTrip writes m as pbl and returns the model its text loads as.
func roundTrip(t *testing.T, m *ir.Model) *ir.Model {
	t.Helper()
	back, _ := writeRead(t, m, "round trip")
	return back
}

// writeRead writes m as pbl under the comment and returns the model the
// text loads as, and the text.
func writeRead(t *testing.T, m *ir.Model, comment string) (*ir.Model, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := source.Write(&buf, m, comment); err != nil {
		t.Fatal(err)
	}
	back, err := pbl.Load("back.pbl", buf.Bytes())
	if err != nil {
		t.Fatalf("written source does not load: %v\n%s", err, buf.String())
	}
	return back, buf.String()
}

// writeBack loads the model src, writes it as pbl and loads the text
// back, failing the test if the model read back differs; it returns the
// model, the model read back and the text.
func writeBack(t *testing.T, src string) (m, back *ir.Model, text string) {
	t.Helper()
	m, err := pbl.Load("m.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	back, text = writeRead(t, m, "")
	if d := sameModel(m, back); d != "" {
		t.Errorf("%s\n%s", d, text)
	}
	return m, back, text
}

// wantText checks that the written text holds each of wants.
func wantText(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("written text lacks %q:\n%s", want, text)
		}
	}
}

// TestRoundTripCorpus: every corpus network, written as pbl and read back,
// has the same variables, states, parents and bit-identical tables.
func TestRoundTripCorpus(t *testing.T) {
	dir := formattest.Corpus(t, "bif")
	files, _ := filepath.Glob(filepath.Join(dir, "*.bif*"))
	if len(files) == 0 {
		t.Skipf("no BIF files in %s (set PBL_CORPUS)", dir)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, err := bif.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameModel(m, roundTrip(t, m)); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestRoundTripExamples: the examples (bool and range variables, odd
// names) round-trip too, and the written text is as expected for one.
func TestRoundTripExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.pbl")
	for _, path := range files {
		m, err := pbl.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Spaces) > 0 {
			// A hypothesis space is not part of the network the writer
			// writes (pbl convert refuses such a model).
			continue
		}
		if len(m.Unlearned()) > 0 {
			// Its numbers come from its learn statements: run them.
			if fails := pbl.Run(m, io.Discard, pbl.RunOptions{}); len(fails) > 0 {
				t.Fatalf("%s: %v", path, fails)
			}
		}
		if m.Time != nil {
			continue // written as its template: TestTemplateRoundTrip
		}
		if d := sameModel(m, roundTrip(t, m)); d != "" {
			t.Errorf("%s: %s", path, d)
		}
	}
	_, _, text := writeBack(t, `var A, B: bool
var "odd name": {"x y", 0, var}
var G: 1..3
var H: real
var Len, Z: real
P(Len | A, G) = {
    true, 1: normal(1.5, 0.25)
    true, 2: normal(2, 1)
    true, 3: normal(-1e-3, 2)
    false, 1: normal(0, 1)
    false, 2: normal(0, 1)
    false, 3: normal(0, 3)
}
P(Z) = normal(0, 1)
P(A) = 0.25
P(B | A) = { true: 0.5, false: [0.1, 0.9] }
P("odd name" | B) = { true: [0.2, 0.3, 0.5], false: [1, 0, 0] }
P(G) = [0.5, 0.25, 0.25]
`)
	want := `var A, B: bool
var "odd name": {"x y", 0, var}
var G: 1..3
var H, Len, Z: real

P(A) = [0.25, 0.75]

P(B | A) = {
    true:  [0.5, 0.5]
    false: [0.1, 0.9]
}

P("odd name" | B) = {
    true:  [0.2, 0.3, 0.5]
    false: [1, 0, 0]
}

P(G) = [0.5, 0.25, 0.25]

P(Len | A, G) = {
    true,  1: normal(1.5, 0.25)
    true,  2: normal(2, 1)
    true,  3: normal(-0.001, 2)
    false, 1: normal(0, 1)
    false, 2: normal(0, 1)
    false, 3: normal(0, 3)
}

P(Z) = normal(0, 1)
`
	if text != want {
		t.Errorf("got:\n%s\nwant:\n%s", text, want)
	}
}

// TestRoundTripCompact: compact tables are written as they were given
// (noisy_or, noisy_max, a formula, a lookup), and read back to the same
// kinds and bit-identical tables, whatever their variables are named.
// A structure without numbers (or with some) keeps its edges: those into
// a variable with a table come with the table, the others are written as
// edge lines.
func TestRoundTripStructure(t *testing.T) {
	for _, src := range []string{
		"var C: {a, b}\nvar X, Y: bool\nC -> X, Y\n",
		"var C: {a, b}\nvar X, Y, Z: bool\nC -> X, Y\nX, C -> Z\nP(C) = [0.5, 0.5]\nP(X | C) = { a: 0.5  b: 0.2 }\n",
		"var \"odd name\", X: bool\n\"odd name\" -> X\n",
	} {
		writeBack(t, src)
	}
}

// TestRoundTripNamedSpread: normal's named spreads are written with their
// names and numbers as read (var = 2, whose square root squared is not 2,
// included), and read back to bit-identical densities.
func TestRoundTripNamedSpread(t *testing.T) {
	m, back, text := writeBack(t, `var A: bool
var x, y, u, v, r, s: real
P(A) = 0.3
P(x | A) = { true: normal(0, var = 2)  false: normal(1, sd = 0.1) }
P(r) = normal(-1, 3)
P(y, u | A) = { true: normal([0, 1], sd = [0.1, 3])  false: normal([1, 2], var = [2, 0.3]) }
P(v, s) = normal([0, 0], sd = 0.7)
var e, f: real
P(e, f | A) = { true: normal([0, 1], cov = [[1, 0.5], [0.5, 2]])  false: normal([1, -1], var = [1, 2]) }
`)
	for _, name := range []string{"y", "v", "e"} {
		a, _ := m.Lookup(name)
		da, db := m.MultiNormal(a.ID), back.MultiNormal(a.ID)
		for u := range da.Cov {
			for i, c := range da.Cov[u] {
				if math.Float64bits(c) != math.Float64bits(db.Cov[u][i]) {
					t.Errorf("the covariance of %s, row %d, entry %d: %v read back as %v\n%s", name, u, i, c, db.Cov[u][i], text)
				}
			}
		}
	}
	wantText(t, text, "normal(0, var = 2)", "normal(1, sd = 0.1)", "normal(-1, 3)",
		"normal([0, 1], sd = [0.1, 3])", "normal([1, 2], var = [2, 0.3])", "normal([0, 0], sd = 0.7)",
		"normal([0, 1], cov = [[1, 0.5], [0.5, 2]])", "normal([1, -1], var = [1, 2])")
}

// TestRoundTripFormulaNe: A != s (a state) is written as such and reads
// back as the same table; A != B (a parent) stays a comparison of parents.
func TestRoundTripFormulaNe(t *testing.T) {
	_, _, text := writeBack(t, `var A, Y, Z: bool
var S, lo: {lo, hi, "not"}
P(A) = 0.3
P(S) = [0.2, 0.3, 0.5]
P(lo) = [0.6, 0.3, 0.1]
P(Y | A, S) = A and S != hi or not S != "not"
P(Z | S, lo) = S != lo or S == hi
`)
	wantText(t, text, `= A and S != hi or not S != "not"`, `= S != lo or S = hi`)
}

func TestRoundTripCompact(t *testing.T) {
	m, back, text := writeBack(t, `var A, leak, not, Y, Z, W: bool
var S: {hi, "else", no}
var C: {severe, mild, absent}
var G: {x, y}
P(A) = 0.3
P(leak) = 0.2
P(not) = 0.6
P(S) = [0.2, 0.3, 0.5]
P(Y | A, "leak", S) = noisy_or(A: 0.8, "leak": 0.3, S: { hi: 0.9, "else": 0.1 }, leak: 0.01)
P(C | A, S) = noisy_max(A: [0.1, 0.3, 0.6], S: { hi: [0.5, 0.25, 0.25] }, leak: [0, 0.01, 0.99])
P(Z | A, "not", S) = not (A or "not") and not S = "else" or A == "not"
P(W | A, S) = A and (S = hi or not S = no)
P(G | A, S) = lookup { true, hi: y  false, "else": x  else: y }
`)
	for _, v := range m.Vars {
		if a, b := fmt.Sprintf("%T", m.Dist(v.ID)), fmt.Sprintf("%T", back.Dist(v.ID)); a != b {
			t.Errorf("%s: %s read back as %s\n%s", v.Name, a, b, text)
		}
	}
	wantText(t, text, "noisy_or(", "noisy_max(", " and ", "lookup {")
}

// TestRoundTripLinear: linear Gaussian densities (a mean affine in the
// real parents, per configuration of the discrete parents) are written as
// an expression and read back to bit-identical intercepts, coefficients
// and standard deviations, whatever the signs, the coefficients of 0 and
// ±1, and the names.
func TestRoundTripLinear(t *testing.T) {
	m, back, text := writeBack(t, `var Smoker: bool
var Age, Pressure, Dose, "odd x", Y: real
P(Smoker) = 0.3
P(Age) = normal(50, 12)
P("odd x") = normal(0, 1)
P(Pressure | Age, Smoker) = {
    true:  normal(90 + 0.6 * Age, 8)
    false: normal(80 + 0.5 * Age, var = 49)
}
P(Dose | Pressure, Age, "odd x") = normal(-1.5e-3 - 0.1 * Pressure + Age - "odd x" / 3, 0.3)
P(Y | Smoker, Age, Dose) = { true: normal(Age - Dose, 1)  false: normal(4, 2) }
`)
	if d := sameModel(m, back); d != "" {
		t.Errorf("%s\n%s", d, text)
	}
	wantText(t, text, "P(Pressure | Smoker, Age) = {", "true:  normal(90 + 0.6 * Age, 8)", "false: normal(80 + 0.5 * Age, var = 49)",
		`normal(-0.0015 - 0.1 * Pressure + Age - 0.3333333333333333 * "odd x", 0.3)`,
		"true:  normal(Age - Dose, 1)", "false: normal(4, 2)")
}

// TestTableFormatsRefuseLinear: the discrete formats (BIF, XMLBIF, UAI)
// refuse a model with real parents, as any with a real variable, before
// writing anything, with a message naming it; Hugin's NET writes it as
// continuous nodes (formats/hugin checks the numbers).
func TestTableFormatsRefuseLinear(t *testing.T) {
	m, err := pbl.Load("m.pbl", []byte("var A: bool\nvar X, Y: real\nP(A) = 0.5\nP(X) = normal(0, 1)\nP(Y | X, A) = { true: normal(1 + 2 * X, 1) false: normal(X, 2) }\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(io.Writer, *ir.Model) error{"bif": bif.Write, "xmlbif": xmlbif.Write, "uai": uai.Write} {
		var out bytes.Buffer
		err := write(&out, m)
		if err == nil || out.Len() > 0 || !strings.Contains(err.Error(), "real-valued") {
			t.Errorf("%s: error %v, %d bytes written; want a refusal naming a real-valued variable", name, err, out.Len())
		}
	}
	var out bytes.Buffer
	if err := hugin.Write(&out, m); err != nil || !strings.Contains(out.String(), "continuous node Y") {
		t.Errorf("hugin: error %v, wrote:\n%s", err, out.Bytes())
	}
}
