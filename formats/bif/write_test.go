package bif

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
	"gonum.org/v1/gonum/floats"
)

// sameModel reports the first difference between a and b in variables,
// states, parents and CPT values (compared bit for bit), or "".
func sameModel(a, b *ir.Model) string {
	if len(a.Vars) != len(b.Vars) {
		return fmt.Sprintf("%d variables, want %d", len(b.Vars), len(a.Vars))
	}
	for v, x := range a.Vars {
		y := b.Vars[v]
		if x.Name != y.Name {
			return fmt.Sprintf("variable %d is %q, want %q", v, y.Name, x.Name)
		}
		if !slices.Equal(x.States, y.States) {
			return fmt.Sprintf("states of %q are %q, want %q", x.Name, y.States, x.States)
		}
		if !slices.Equal(a.Parents[v], b.Parents[v]) {
			return fmt.Sprintf("parents of %q are %v, want %v", x.Name, b.Parents[v], a.Parents[v])
		}
		ca, cb := a.Table(ir.VarID(v)), b.Table(ir.VarID(v))
		if !slices.Equal(ca.Parents, cb.Parents) || !slices.Equal(ca.Factor.Vars, cb.Factor.Vars) ||
			!slices.Equal(ca.Factor.Card, cb.Factor.Card) || len(ca.Factor.Vals) != len(cb.Factor.Vals) {
			return fmt.Sprintf("the CPT of %q has another shape", x.Name)
		}
		for i, p := range ca.Factor.Vals {
			if q := cb.Factor.Vals[i]; math.Float64bits(p) != math.Float64bits(q) {
				return fmt.Sprintf("value %d of the CPT of %q is %v, want %v", i, x.Name, q, p)
			}
		}
	}
	return ""
}

// roundTrip writes m, reads the output back and checks that it is the same
// model, and that writing that model gives the same text. It returns the
// text.
func roundTrip(t *testing.T, what string, m *ir.Model) string {
	t.Helper()
	var out bytes.Buffer
	if err := Write(&out, m); err != nil {
		t.Errorf("%s: Write: %v", what, err)
		return ""
	}
	m2, err := Read(what, out.Bytes())
	if err != nil {
		t.Errorf("%s: reading the written model: %v\n%s", what, err, out.Bytes())
		return ""
	}
	if d := sameModel(m, m2); d != "" {
		t.Errorf("%s: after Write and Read: %s", what, d)
	}
	var again bytes.Buffer
	if err := Write(&again, m2); err != nil {
		t.Errorf("%s: second Write: %v", what, err)
	} else if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Errorf("%s: the second Write differs from the first", what)
	}
	return out.String()
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	dir := formattest.Corpus(t, "bif")
	files, err := filepath.Glob(filepath.Join(dir, "*.bif*"))
	if err != nil || len(files) == 0 {
		t.Skipf("no BIF files in %s", dir)
	}
	return files
}

// TestWriteCorpusRoundTrip reads every network of the corpus, writes it and
// reads it back.
func TestWriteCorpusRoundTrip(t *testing.T) {
	for _, f := range corpusFiles(t) {
		m, err := ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		roundTrip(t, filepath.Base(f), m)
	}
}

// canonical normalises BIF text in the bnlearn layout for comparison:
// probabilities are reformatted in their shortest form, and the rows of
// each probability block are sorted.
func canonical(src string) string {
	lines := strings.SplitAfter(src, "\n")
	var out []string
	var rows []string // rows of the current probability block
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "  (") || strings.HasPrefix(l, "  table "):
			i := strings.IndexByte(l, ')')
			if strings.HasPrefix(l, "  table ") {
				i = len("  table")
			}
			nums := strings.Split(strings.TrimSuffix(strings.TrimSpace(l[i+1:]), ";"), ",")
			for j, s := range nums {
				x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					nums[j] = "?" + s
					continue
				}
				nums[j] = strconv.FormatFloat(x, 'g', -1, 64)
			}
			rows = append(rows, l[:i+1]+" "+strings.Join(nums, ", ")+";\n")
		default:
			out = append(out, rows...)
			rows = rows[:0]
			out = append(out, l)
		}
	}
	out = append(out, rows...)
	return strings.Join(out, "")
}

// TestWriteCorpusLayout checks that Write reproduces the plain-text files
// of the corpus up to the spelling of numbers (bnlearn writes 0.90 and
// 1.0, Write 0.9 and 1), rows in the same order (the first parent
// fastest), and byte for byte where the corpus spells numbers in shortest
// form (cancer, earthquake).
func TestWriteCorpusLayout(t *testing.T) {
	var exact, near []string
	for _, f := range corpusFiles(t) {
		if !strings.HasSuffix(f, ".bif") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(f, src)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var out bytes.Buffer
		if err := Write(&out, m); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		base := filepath.Base(f)
		if bytes.Equal(out.Bytes(), src) {
			exact = append(exact, base)
			continue
		}
		got, want := canonical(out.String()), canonical(string(src))
		if got != want {
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := 0; i < len(gl) && i < len(wl); i++ {
				if gl[i] != wl[i] {
					t.Errorf("%s: canonical line %d is %q, want %q", base, i+1, gl[i], wl[i])
					break
				}
			}
			if len(gl) != len(wl) {
				t.Errorf("%s: %d canonical lines, want %d", base, len(gl), len(wl))
			}
			continue
		}
		near = append(near, base)
	}
	t.Logf("reproduced byte for byte: %v", exact)
	t.Logf("reproduced up to number spelling: %v", near)
	if len(corpusFiles(t)) > 0 && (!slices.Contains(exact, "cancer.bif") || !slices.Contains(exact, "earthquake.bif")) {
		t.Errorf("cancer.bif and earthquake.bif should be reproduced byte for byte; exact: %v", exact)
	}
}

// TestWriteChildNames checks that the odd names of child.bif are written
// bare and read back.
func TestWriteChildNames(t *testing.T) {
	dir := formattest.Corpus(t, "bif")
	m, err := ReadFile(filepath.Join(dir, "child.bif"))
	if err != nil {
		t.Fatal(err)
	}
	out := roundTrip(t, "child.bif", m)
	for _, want := range []string{
		"type discrete [ 3 ] { <5, 5-12, 12+ };",
		"type discrete [ 2 ] { <7.5, >=7.5 };",
		"{ Normal, Oligaemic, Plethoric, Grd_Glass, Asy/Patch };",
		"(Asy/Patch) ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the written child.bif lacks %q", want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		ok         bool
	}{
		{"rain", "rain", true},
		{"<5", "<5", true},
		{">=7.5", ">=7.5", true},
		{"Asy/Patch", "Asy/Patch", true},
		{"a/", "a/", true},
		{"*/", "*/", true},
		{"1_1", "1_1", true},
		{"table", "table", true},
		{"variable", "variable", true},
		{`a\b`, `a\b`, true},
		{"café", "café", true},
		{"", `""`, true},
		{"light on", `"light on"`, true},
		{"x,y", `"x,y"`, true},
		{"a|b", `"a|b"`, true},
		{"f(x)", `"f(x)"`, true},
		{"{", `"{"`, true},
		{"a;", `"a;"`, true},
		{"[1]", `"[1]"`, true},
		{"a//b", `"a//b"`, true},
		{"/*", `"/*"`, true},
		{`say "hi"`, `"say \"hi\""`, true},
		{`"`, `"\""`, true},
		{`a b\`, `"a b\\"`, true},
		{"tab\there", "\"tab\there\"", true},
		{"cr\r", "\"cr\r\"", true},
		{"del\x7f", "\"del\x7f\"", true},
		{"two\nlines", `"two\nlines"`, false},
	} {
		got, ok := quote(tt.name)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("quote(%q) = %q, %v, want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestWriteSmall checks the exact output for small models given in BIF,
// in any of the dialects the reader accepts.
func TestWriteSmall(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{
			name: "root",
			in:   `variable x { type discrete [ 3 ] { a, b, c }; } probability ( x ) { table 0.2, 0.30, 5e-1; }`,
			want: `network unknown {
}
variable x {
  type discrete [ 3 ] { a, b, c };
}
probability ( x ) {
  table 0.2, 0.3, 0.5;
}
`,
		},
		{
			name: "two parents, rows in any order, default, properties",
			in: `network "net" { property author = me; }
variable a { type discrete [ 2 ] { yes, no }; property position = (1, 2); }
variable b { type discrete [ 3 ] { lo, mid, hi }; }
variable c { type discrete [ 2 ] { t, f }; }
probability ( c | a, b ) {
  (no, hi) 0.125, 0.875;
  (yes, lo) 1.0, 0.0;
  default 0.5, 0.5;
}
probability ( a ) { table 0.25, 0.75; }
probability ( b ) { table 0.2, 0.3, 0.5; }
`,
			want: `network unknown {
}
variable a {
  type discrete [ 2 ] { yes, no };
}
variable b {
  type discrete [ 3 ] { lo, mid, hi };
}
variable c {
  type discrete [ 2 ] { t, f };
}
probability ( a ) {
  table 0.25, 0.75;
}
probability ( b ) {
  table 0.2, 0.3, 0.5;
}
probability ( c | a, b ) {
  (yes, lo) 1, 0;
  (no, lo) 0.5, 0.5;
  (yes, mid) 0.5, 0.5;
  (no, mid) 0.5, 0.5;
  (yes, hi) 0.5, 0.5;
  (no, hi) 0.125, 0.875;
}
`,
		},
		{
			name: "table with parents, JavaBayes quoting, no commas",
			in: `variable "family-out" { type discrete[2] { "true" "false" }; }
variable "light on" { type discrete[2] { "true" "false" }; }
probability ( "family-out" ) { table 0.15 0.85 ; }
probability ( "light on" "family-out" ) { table 0.6 0.05 0.4 0.95 ; }
`,
			want: `network unknown {
}
variable family-out {
  type discrete [ 2 ] { true, false };
}
variable "light on" {
  type discrete [ 2 ] { true, false };
}
probability ( family-out ) {
  table 0.15, 0.85;
}
probability ( "light on" | family-out ) {
  (true) 0.6, 0.4;
  (false) 0.05, 0.95;
}
`,
		},
		{
			name: "odd names",
			in: `variable "say \"hi\"" { type discrete [ 2 ] { "a\\b", "x, y" }; }
variable " " { type discrete [ 1 ] { <5 }; }
probability ( "say \"hi\"" ) { table 1e-300, 1; }
probability ( " " | "say \"hi\"" ) { ("a\\b") 1; ("x, y") 1; }
`,
			want: `network unknown {
}
variable "say \"hi\"" {
  type discrete [ 2 ] { a\b, "x, y" };
}
variable " " {
  type discrete [ 1 ] { <5 };
}
probability ( "say \"hi\"" ) {
  table 1e-300, 1;
}
probability ( " " | "say \"hi\"" ) {
  (a\b) 1;
  ("x, y") 1;
}
`,
		},
	} {
		m, err := Read(tt.name, []byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := roundTrip(t, tt.name, m); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestWriteKinds checks models built with ir.Builder, with bool and range
// variables, which BIF writes as discrete variables with the same states.
func TestWriteKinds(t *testing.T) {
	b := ir.NewBuilder("kinds.pbl")
	r, _ := b.AddVar(ir.Pos{}, "rain", ir.Bool, nil, 0)
	n, _ := b.AddVar(ir.Pos{}, "n", ir.Range, ir.RangeStates(-1, 1), -1)
	b.SetCPT(ir.Pos{}, r, nil, []float64{0.1, 0.9}, nil)
	b.SetCPT(ir.Pos{}, n, []ir.VarID{r}, []float64{0.5, 0.25, 0.25, 0, 0, 1}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := `network unknown {
}
variable rain {
  type discrete [ 2 ] { true, false };
}
variable n {
  type discrete [ 3 ] { -1, 0, 1 };
}
probability ( rain ) {
  table 0.1, 0.9;
}
probability ( n | rain ) {
  (true) 0.5, 0.25, 0.25;
  (false) 0, 0, 1;
}
`
	if got := roundTrip(t, "kinds", m); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteErrors(t *testing.T) {
	pos := ir.Pos{File: "bad.pbl", Line: 3, Col: 1}
	for _, tt := range []struct {
		name  string
		build func(b *ir.Builder)
		edit  func(m *ir.Model) // applied after Finish, for what Finish rejects
		want  string
	}{
		{
			name: "real",
			build: func(b *ir.Builder) {
				x, _ := b.AddVar(pos, "x", ir.Enum, []string{"a", "b"}, 0)
				b.SetCPT(pos, x, nil, []float64{0.5, 0.5}, nil)
				b.AddVar(pos, "height", ir.Real, nil, 0)
			},
			want: `bad.pbl:3:1: variable "height" is real-valued: BIF has only discrete variables`,
		},
		{
			name: "newline in a variable name",
			build: func(b *ir.Builder) {
				x, _ := b.AddVar(pos, "two\nlines", ir.Enum, []string{"a", "b"}, 0)
				b.SetCPT(pos, x, nil, []float64{0.5, 0.5}, nil)
			},
			want: `bad.pbl:3:1: variable name "two\nlines" cannot be written in BIF: it contains a line break`,
		},
		{
			name: "newline in a state",
			build: func(b *ir.Builder) {
				x, _ := b.AddVar(pos, "x", ir.Enum, []string{"a", "b\n"}, 0)
				b.SetCPT(pos, x, nil, []float64{0.5, 0.5}, nil)
			},
			want: `bad.pbl:3:1: state "b\n" of variable "x" cannot be written in BIF: it contains a line break`,
		},
		{
			name: "NaN",
			build: func(b *ir.Builder) {
				x, _ := b.AddVar(pos, "x", ir.Enum, []string{"a", "b"}, 0)
				b.SetCPT(pos, x, nil, []float64{0.5, 0.5}, nil)
			},
			edit: func(m *ir.Model) { m.Table(ir.VarID(0)).Factor.Vals[1] = math.NaN() },
			want: `bad.pbl:3:1: probability NaN in the CPT of "x" is outside [0, 1]`,
		},
		{
			name: "no CPT",
			build: func(b *ir.Builder) {
				b.AddVar(pos, "x", ir.Enum, []string{"a", "b"}, 0)
			},
			want: `bad.pbl:3:1: variable "x" has no CPT: BIF describes only Bayesian networks`,
		},
	} {
		b := ir.NewBuilder("bad.pbl")
		tt.build(b)
		m, err := b.Finish()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.edit != nil {
			tt.edit(m)
		}
		var out bytes.Buffer
		err = Write(&out, m)
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: Write returned %v, want an ir.ErrorList", tt.name, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s: got error %s, want %s", tt.name, got, tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("%s: Write wrote %d bytes before failing", tt.name, out.Len())
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteWriterError(t *testing.T) {
	m, err := Read("x", []byte(`variable x { type discrete [ 2 ] { a, b }; } probability ( x ) { table 0.5, 0.5; }`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(failWriter{}, m); err == nil || err.Error() != "disk full" {
		t.Errorf("Write to a failing writer = %v, want disk full", err)
	}
}

// randomName returns a short random name, often with characters that BIF
// must quote.
func randomName(r *rand.Rand) string {
	const alphabet = `ab_Z09-+.<>=/*"\ ,;|(){}[]` + "\t\r\x00é"
	runes := []rune(alphabet)
	n := r.IntN(4)
	if r.IntN(8) == 0 {
		n = 0
	}
	var s strings.Builder
	for range n {
		s.WriteRune(runes[r.IntN(len(runes))])
	}
	return s.String()
}

// randomModel returns a random discrete model of a few variables with odd
// names, declared in an order that need not be topological, and random
// probabilities including 0, 1 and tiny and subnormal values.
func randomModel(r *rand.Rand) *ir.Model {
	b := ir.NewBuilder("random")
	nv := 1 + r.IntN(6)
	used := map[string]bool{}
	var ids []ir.VarID
	for i := 0; len(ids) < nv; i++ {
		name := randomName(r)
		if name == "" {
			continue // a variable needs a name (a state does not)
		}
		if used[name] {
			name += strconv.Itoa(i)
			if used[name] {
				continue
			}
		}
		used[name] = true
		k := 1 + r.IntN(4)
		states := make([]string, 0, k)
		seen := map[string]bool{}
		for j := 0; len(states) < k; j++ {
			s := randomName(r)
			if seen[s] {
				s += strconv.Itoa(j)
			}
			if !seen[s] {
				seen[s] = true
				states = append(states, s)
			}
		}
		id, ok := b.AddVar(ir.Pos{}, name, ir.Enum, states, 0)
		if !ok {
			panic(b.Errs.Err())
		}
		ids = append(ids, id)
	}
	// A random topological order; each variable's parents come before it.
	order := r.Perm(nv)
	for i, v := range order {
		var parents []ir.VarID
		for _, j := range r.Perm(i) {
			if len(parents) < 3 && r.IntN(2) == 0 {
				parents = append(parents, ids[order[j]])
			}
		}
		size := len(b.Model().Vars[v].States)
		for _, p := range parents {
			size *= len(b.Model().Vars[p].States)
		}
		k := len(b.Model().Vars[v].States)
		vals := make([]float64, size)
		for row := 0; row < size; row += k {
			randomRow(r, vals[row:row+k])
		}
		b.SetCPT(ir.Pos{}, ids[v], parents, vals, nil)
	}
	m, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return m
}

// randomRow fills row with a random distribution.
func randomRow(r *rand.Rand, row []float64) {
	switch r.IntN(4) {
	case 0: // one certain state
		clear(row)
		row[r.IntN(len(row))] = 1
		return
	case 1: // tiny values next to a large one
		for i := range row {
			row[i] = []float64{5e-324, 1e-300, 1e-17, 0}[r.IntN(4)]
		}
		row[r.IntN(len(row))] = 1
		return
	}
	for i := range row {
		row[i] = r.Float64()
	}
	floats.Scale(1/floats.Sum(row), row)
}

// TestWriteRandom checks that random small models round-trip exactly.
func TestWriteRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := range 500 {
		m := randomModel(r)
		roundTrip(t, fmt.Sprintf("random model %d", i), m)
		if t.Failed() {
			var out bytes.Buffer
			Write(&out, m)
			t.Fatalf("random model %d:\n%s", i, out.Bytes())
		}
	}
}

func ExampleWrite() {
	m, err := Read("rain.bif", []byte(`
variable rain { type discrete [ 2 ] { yes, no }; }
variable "wet grass" { type discrete [ 2 ] { yes, no }; }
probability ( rain ) { table 0.2, 0.8; }
probability ( "wet grass" | rain ) { (yes) 0.90, 0.10; (no) 0.1, 0.9; }
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := Write(os.Stdout, m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// network unknown {
	// }
	// variable rain {
	//   type discrete [ 2 ] { yes, no };
	// }
	// variable "wet grass" {
	//   type discrete [ 2 ] { yes, no };
	// }
	// probability ( rain ) {
	//   table 0.2, 0.8;
	// }
	// probability ( "wet grass" | rain ) {
	//   (yes) 0.9, 0.1;
	//   (no) 0.1, 0.9;
	// }
}
