package source_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/internal/dbntest"
	"github.com/pbl-lang/pbl/ir"
)

// handDBN is a time-indexed model with what the template writer must
// keep: a second-order template whose initial slice 1 has parents its
// arcs do not give (written as an arc from slices), a static parent, a
// normal density given a slice and a static real parent, a compact table
// at an initial slice, a quoted name, and a variable without a
// distribution (a structure to learn).
const handDBN = `var A[t]: bool
var B[t]: {lo, mid, hi}
var Season: {wet, dry}
var Base: real
var Level[t]: real
var Wet[t]: bool
var "odd name"[t]: bool
var C[t]: bool

C[t-1], A[t] -> C[t]

P(Season) = [0.4, 0.6]
P(Base) = normal(0, 2)
P(A[0] | Season) = { wet: 0.3  dry: 0.6 }
P(A[1] | A[0], B[0], Season) = {
    true,  lo,  wet: 0.1
    true,  lo,  dry: 0.2
    true,  mid, wet: 0.3
    true,  mid, dry: 0.4
    true,  hi,  wet: 0.5
    true,  hi,  dry: 0.6
    false, lo,  wet: 0.7
    false, lo,  dry: 0.8
    false, mid, wet: 0.9
    false, mid, dry: 0.15
    false, hi,  wet: 0.25
    false, hi,  dry: 0.35
}
P(A[t] | A[t-2], Season) = {
    true,  wet: 0.9
    true,  dry: 0.7
    false, wet: 0.2
    false, dry: 0.1
}
P(B[t] | A[t]) = { true: [0.2, 0.3, 0.5]  false: [0.6, 0.3, 0.1] }
P(Level[t] | B[t], Base) = {
    lo:  normal(Base, 1)
    mid: normal(2 + 0.5 * Base, sd = 2)
    hi:  normal(-1, var = 0.25)
}
P(Wet[0] | A[0]) = noisy_or(A[0]: 0.8, leak: 0.1)
P(Wet[t] | A[t], Wet[t-1]) = {
    true,  true:  0.9
    true,  false: 0.8
    false, true:  0.5
    false, false: 0.01
}
P("odd name"[t] | Wet[t]) = { true: 0.1  false: 0.2 }
`

// TestTemplateRoundTrip: a time-indexed model is written as its template
// (var X[t], no slice declared) in the layout of pbl fmt, and the text,
// unrolled to the same horizon, loads back to the same variables,
// parents, numbers (bit for bit) and time structure; the random models'
// numbers are also checked against the generator's own.
func TestTemplateRoundTrip(t *testing.T) {
	type tcase struct {
		name string
		path string // the file, or src
		src  string
		dbn  *dbntest.DBN // the numbers the model was made of, or nil
	}
	var cases []tcase
	for _, name := range []string{"umbrella", "treatment", "weather_hmm"} {
		cases = append(cases, tcase{name: name + ".pbl", path: "../../examples/" + name + ".pbl"})
	}
	cases = append(cases, tcase{name: "hand", src: handDBN + "query P(A[6])\n"},
		// The template's arcs would give Rain[0] the parent Season, which
		// its distribution does not list: no arc line, the distributions
		// give the parents.
		tcase{name: "initial without the static parent", src: `var Rain[t]: bool
var Season: {wet, dry}
P(Season) = [0.5, 0.5]
P(Rain[0]) = 0.5
P(Rain[t] | Rain[t-1], Season) = { true, wet: 0.8  true, dry: 0.6  false, wet: 0.4  false, dry: 0.1 }
query P(Rain[4])
`})
	r := rand.New(rand.NewPCG(32, 7))
	for trial := range 16 {
		order := 1 + trial%2
		d := dbntest.New(r, 1+trial%3, 2+trial%2, order, trial%4 >= 2)
		h := order + 1 + r.IntN(4)
		cases = append(cases, tcase{name: fmt.Sprintf("random%d", trial), src: d.Src + fmt.Sprintf("query P(X0[%d])\n", h), dbn: d})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m *ir.Model
			var err error
			if c.path != "" {
				m, err = pbl.LoadFile(c.path)
			} else {
				m, err = pbl.Load(c.name, []byte(c.src))
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, c.src)
			}
			if len(m.Unlearned()) > 0 && c.path != "" {
				if fails := pbl.Run(m, io.Discard, pbl.RunOptions{}); len(fails) > 0 {
					t.Fatal(fails)
				}
			}
			var buf bytes.Buffer
			if err := source.Write(&buf, m, "a header"); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			if out, err := format.Source(c.name, buf.Bytes()); err != nil || string(out) != text {
				t.Errorf("the written text is not as pbl fmt lays it out (%v):\n%s\nformatted:\n%s", err, text, out)
			}
			tm := m.Time
			if strings.Contains(text, "unrolled") {
				t.Fatalf("written unrolled:\n%s", text)
			}
			for _, tv := range tm.Vars {
				if want := "var " + ir.Quote(tv.Name) + "[t]"; !strings.Contains(text, ir.Quote(tv.Name)+"[t]:") && !strings.Contains(text, ir.Quote(tv.Name)+"[t],") {
					t.Errorf("no template declaration %s:\n%s", want, text)
				}
				// No slice after the template's first is named.
				for s := tm.Horizon; s > tv.First && s > tm.Order; s-- {
					if name := ir.SliceName(tv.Name, s); strings.Contains(text, name) {
						t.Errorf("the text names the slice %s:\n%s", name, text)
					}
				}
			}
			// The model unrolled further (as pbl query does) is the same
			// template.
			further, err := ir.Unroll(m, tm.Horizon+3)
			if err != nil {
				t.Fatal(err)
			}
			var fbuf bytes.Buffer
			if err := source.Write(&fbuf, further, "a header"); err != nil {
				t.Fatal(err)
			}
			if fbuf.String() != text {
				t.Errorf("unrolled to slice %d, the model is written\n%s\nnot as its template:\n%s", tm.Horizon+3, fbuf.String(), text)
			}
			// Unrolled to the horizon of the original (the queries set it,
			// and the writer writes none).
			last := ir.SliceName(tm.Vars[0].Name, tm.Horizon)
			back, err := pbl.Load("back.pbl", []byte(text+"query P("+ir.Quote(last)+")\n"))
			if err != nil {
				t.Fatalf("the written text does not load: %v\n%s", err, text)
			}
			if d := sameModel(m, back); d != "" {
				t.Fatalf("%s\n%s", d, text)
			}
			if d := numbersNaN(back); d != "" {
				t.Errorf("%s\n%s", d, text) // sameModel compares bits: NaN would equal NaN
			}
			if d := sameTime(tm, back.Time); d != "" {
				t.Errorf("%s\n%s", d, text)
			}
			if c.dbn != nil {
				if d := generatorNumbers(c.dbn, back); d != "" {
					t.Errorf("%s\n%s", d, text)
				}
			}
		})
	}
}

// numbersNaN names the first variable of m with a NaN among its numbers,
// or returns "".
func numbersNaN(m *ir.Model) string {
	for _, v := range m.Vars {
		var xs []float64
		if c := m.Table(v.ID); c != nil {
			xs = c.Factor.Vals
		}
		if g := m.Gaussian(v.ID); g != nil {
			xs = append(append(append(xs, g.Mean...), g.SD...), g.Coef...)
		}
		if slices.ContainsFunc(xs, math.IsNaN) {
			return v.Name + " has a NaN"
		}
	}
	return ""
}

// sameTime reports the first difference between two models' time
// structures, or "".
func sameTime(a, b *ir.Time) string {
	switch {
	case b == nil:
		return "read back without time"
	case a.Horizon != b.Horizon || a.Order != b.Order || len(a.Vars) != len(b.Vars):
		return fmt.Sprintf("horizon, order or variables: %d, %d, %d read back as %d, %d, %d", a.Horizon, a.Order, len(a.Vars), b.Horizon, b.Order, len(b.Vars))
	}
	for i, v := range a.Vars {
		w := b.Vars[i]
		if v.Name != w.Name || v.First != w.First || fmt.Sprint(v.Slices) != fmt.Sprint(w.Slices) {
			return fmt.Sprintf("%s (first %d, slices %v) read back as %s (first %d, slices %v)", v.Name, v.First, v.Slices, w.Name, w.First, w.Slices)
		}
	}
	return ""
}

// generatorNumbers reports the first table of m, the model d describes,
// whose parents or numbers are not d's (within 1e-15: the lowering
// renormalises rows that do not sum to 1), or "".
func generatorNumbers(d *dbntest.DBN, m *ir.Model) string {
	check := func(name string, parents []string, want []float64) string {
		v, ok := m.Lookup(name)
		if !ok {
			return name + " is missing"
		}
		c := m.Table(v.ID)
		if c == nil {
			return name + " has no table"
		}
		got := make([]string, len(c.Parents))
		for i, p := range c.Parents {
			got[i] = m.Vars[p].Name
		}
		if fmt.Sprint(got) != fmt.Sprint(parents) {
			return fmt.Sprintf("%s's parents are %v, want %v", name, got, parents)
		}
		if len(c.Factor.Vals) != len(want) {
			return fmt.Sprintf("%s has %d numbers, want %d", name, len(c.Factor.Vals), len(want))
		}
		for i, x := range c.Factor.Vals {
			if !(math.Abs(x-want[i]) <= 1e-15) {
				return fmt.Sprintf("%s's number %d is %v, want %v", name, i, x, want[i])
			}
		}
		return ""
	}
	if d.STable != nil {
		if why := check("S", nil, d.STable); why != "" {
			return why
		}
	}
	for s := 0; s <= m.Time.Horizon; s++ {
		for v := range d.N {
			ps, table := d.Parents[v], d.Template[v]
			if s < d.First(v) {
				ps, table = d.InitParents[s][v], d.Initial[s][v]
			}
			names := make([]string, len(ps))
			for i, p := range ps {
				names[i] = "S"
				if p[0] >= 0 {
					names[i] = ir.SliceName(fmt.Sprintf("X%d", p[0]), s-p[1])
				}
			}
			if why := check(ir.SliceName(fmt.Sprintf("X%d", v), s), names, table); why != "" {
				return why
			}
		}
	}
	return ""
}

// TestTemplateText: the treatment example is written as its template,
// the arcs once, the initial slice's distribution and the template's.
func TestTemplateText(t *testing.T) {
	m, err := pbl.LoadFile("../../examples/treatment.pbl")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := source.Write(&buf, m, ""); err != nil {
		t.Fatal(err)
	}
	want := `var Treatment: {drug, placebo}
var Health[t]: {good, poor}
var Symptom[t]: bool

Health[t-1], Treatment -> Health[t]
Health[t] -> Symptom[t]

P(Treatment) = [0.5, 0.5]

P(Health[0] | Treatment) = {
    drug:    [0.3, 0.7]
    placebo: [0.3, 0.7]
}

P(Health[t] | Health[t-1], Treatment) = {
    good, drug:    [0.9, 0.1]
    good, placebo: [0.7, 0.3]
    poor, drug:    [0.6, 0.4]
    poor, placebo: [0.2, 0.8]
}

P(Symptom[t] | Health[t]) = {
    good: [0.1, 0.9]
    poor: [0.8, 0.19999999999999996]
}
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestTemplateUntied: a model whose slices of a template do not carry
// the same numbers (one slice's table changed after loading) is written
// unrolled, with a comment naming the slice, and reads back to the same
// slices and numbers; nothing is dropped.
func TestTemplateUntied(t *testing.T) {
	m, err := pbl.LoadFile("../../examples/umbrella.pbl")
	if err != nil {
		t.Fatal(err)
	}
	rain3, _ := m.Lookup("Rain[3]")
	rain2, _ := m.Lookup("Rain[2]")
	f := ir.NewFactor([]ir.VarID{rain2.ID, rain3.ID}, []int{2, 2})
	f.Vals = []float64{0.75, 0.25, 0.3, 0.7} // the template's is 0.7, 0.3 after true
	m, err = m.WithDists(&ir.CPT{Child: rain3.ID, Parents: []ir.VarID{rain2.ID}, Factor: f})
	if err != nil {
		t.Fatal(err)
	}
	if m.Time == nil {
		t.Fatal("the model lost its time structure")
	}
	back, text := writeRead(t, m, "a header")
	wantText(t, text, "// a header\n//\n// Written unrolled, slice by slice: Rain[3]'s parents or numbers are not Rain[1]'s: the slices of Rain[t] are not tied.\n",
		`var "Rain[0]", "Rain[1]"`, "P(Rain[3] | Rain[2]) = {\n    true:  [0.75, 0.25]")
	if d := sameModel(m, back); d != "" {
		t.Errorf("%s\n%s", d, text)
	}
}

// TestTemplateQuotedSlices: the initial slices of a variable whose name
// is quoted are written as the template names them, "my rain"[0] (they
// were written "my rain[0]", one quoted name that reads back to the same
// variable), and the file reads back to the same model.
func TestTemplateQuotedSlices(t *testing.T) {
	const src = `var "my rain"[t]: {"no rain", "a-lot"}
var "Um.b"[t]: bool
"my rain"[t-1] -> "my rain"[t]
"my rain"[t-2] -> "my rain"[t]
"my rain"[t] -> "Um.b"[t]
P("my rain"[0]) = [0.5, 0.5]
P("my rain"[1] | "my rain"[0]) = { "no rain": [0.6, 0.4]  "a-lot": [0.3, 0.7] }
P("my rain"[t] | "my rain"[t-1], "my rain"[t-2]) = {
  "no rain", "no rain": [0.9, 0.1]
  "no rain", "a-lot": [0.5, 0.5]
  "a-lot", "no rain": [0.4, 0.6]
  "a-lot", "a-lot": [0.2, 0.8]
}
P("Um.b"[t] | "my rain"[t]) = { "no rain": 0.1  "a-lot": 0.9 }
`
	m, err := pbl.Load("q.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := source.Write(&buf, m, ""); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{`P("my rain"[0]) = [0.5, 0.5]`, `P("my rain"[1] | "my rain"[0]) = {`} {
		if !strings.Contains(got, want) {
			t.Errorf("written:\n%s\nlacks %s", got, want)
		}
	}
	back, err := pbl.Load("back.pbl", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if fmt.Sprint(back.Names()) != fmt.Sprint(m.Names()) {
		t.Errorf("read back %v, want %v", back.Names(), m.Names())
	}
}
