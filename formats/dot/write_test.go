package dot

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// model builds a model from BIF source.
func model(t *testing.T, file, src string) *ir.Model {
	t.Helper()
	m, err := bif.Read(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWriteSmall(t *testing.T) {
	m := model(t, "testdata/sprinkler.bif", `
variable Rain { type discrete [ 2 ] { yes, no }; }
variable Sprinkler { type discrete [ 2 ] { on, off }; }
variable Grass { type discrete [ 7 ] { s1, s2, s3, s4, s5, s6, s7 }; }
probability ( Rain ) { table 0.2, 0.8; }
probability ( Sprinkler | Rain ) { (yes) 0.01, 0.99; (no) 0.4, 0.6; }
probability ( Grass | Sprinkler, Rain ) { default 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.4; }
`)
	want := `digraph "sprinkler" {
  "Rain" [label="Rain\nyes, no"];
  "Sprinkler" [label="Sprinkler\non, off"];
  "Grass" [label="Grass\n7 states"];
  "Rain" -> "Sprinkler";
  "Sprinkler" -> "Grass";
  "Rain" -> "Grass";
}
`
	var out bytes.Buffer
	if err := Write(&out, m); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteKinds(t *testing.T) {
	b := ir.NewBuilder("")
	r, _ := b.AddVar(ir.Pos{}, "wet", ir.Bool, nil, 0)
	n, _ := b.AddVar(ir.Pos{}, "n", ir.Range, ir.RangeStates(0, 10), 0)
	b.AddVar(ir.Pos{}, "height", ir.Real, nil, 0)
	b.SetCPT(ir.Pos{}, r, nil, []float64{0.5, 0.5}, nil)
	vals := make([]float64, 22)
	vals[0], vals[21] = 1, 1
	b.SetCPT(ir.Pos{}, n, []ir.VarID{r}, vals, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := `digraph {
  "wet" [label="wet\ntrue, false"];
  "n" [label="n\n0..10"];
  "height" [label="height\nreal"];
  "wet" -> "n";
}
`
	var out bytes.Buffer
	if err := Write(&out, m); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"rain", `"rain"`},
		{"", `""`},
		{"node", `"node"`},
		{"a b", `"a b"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\b`, `"a\\b"`},
		{`\N`, `"\\N"`},
		{`end\`, `"end\\"`},
		{`\"`, `"\\\""`},
		{"two\nlines", `"two\nlines"`},
		{"cr\r", `"cr\r"`},
		{"tab\t", `"tab\\x09"`},
		{"nul\x00", `"nul\\x00"`},
		{"café", `"café"`},
		{"bad\xff", `"bad\\xff"`},
		{"<b>html</b>", `"<b>html</b>"`},
	} {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWriteEscapes(t *testing.T) {
	b := ir.NewBuilder("")
	add := func(name string, states []string, parents ...ir.VarID) ir.VarID {
		id, ok := b.AddVar(ir.Pos{}, name, ir.Enum, states, 0)
		if !ok {
			t.Fatal(b.Errs.Err())
		}
		n := len(states)
		for _, p := range parents {
			n *= len(b.Model().Vars[p].States)
		}
		vals := make([]float64, n)
		for i := 0; i < n; i += len(states) {
			vals[i] = 1
		}
		b.SetCPT(ir.Pos{}, id, parents, vals, nil)
		return id
	}
	hi := add(`say "hi"`, []string{`a\b`, `"`})
	bs := add(`back\slash\`, []string{`\N`, "x y"}, hi)
	q := add(`"`, []string{"only"}, bs)
	bq := add(`\"`, []string{"only"}, q)
	add("line\nbreak", []string{"cr\r"}, bq, hi)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := `digraph {
  "say \"hi\"" [label="say \"hi\"\na\\b, \""];
  "back\\slash\\" [label="back\\slash\\\n\\N, x y"];
  "\"" [label="\"\nonly"];
  "\\\"" [label="\\\"\nonly"];
  "line\nbreak" [label="line\nbreak\ncr\r"];
  "say \"hi\"" -> "back\\slash\\";
  "back\\slash\\" -> "\"";
  "\"" -> "\\\"";
  "\\\"" -> "line\nbreak";
  "say \"hi\"" -> "line\nbreak";
}
`
	var out bytes.Buffer
	if err := Write(&out, m); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := exec.LookPath("dot"); err == nil {
		svg := checkRender(t, "escapes", out.Bytes(), len(m.Vars), 5)
		// The labels show the names as they are.
		for _, text := range []string{`>say &quot;hi&quot;</text>`, `>a\b, &quot;</text>`, `>back\slash\</text>`,
			`>\N, x y</text>`, `>&quot;</text>`, `>\&quot;</text>`, `>line</text>`, `>break</text>`} {
			if !strings.Contains(svg, text) {
				t.Errorf("the SVG lacks the text %s", text)
			}
		}
	}
}

func TestWriteSameName(t *testing.T) {
	b := ir.NewBuilder("")
	x, _ := b.AddVar(ir.Pos{}, "a\x01", ir.Enum, []string{"s"}, 0)
	y, _ := b.AddVar(ir.Pos{}, `a\x01`, ir.Enum, []string{"s"}, 0)
	b.SetCPT(ir.Pos{}, x, nil, []float64{1}, nil)
	b.SetCPT(ir.Pos{}, y, nil, []float64{1}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = Write(&out, m)
	var list ir.ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "have the same name in DOT") {
		t.Errorf("Write = %v, want an error about names", err)
	}
	if out.Len() != 0 {
		t.Errorf("Write wrote %d bytes before failing", out.Len())
	}
}

// checkRender renders src with dot -Tsvg and checks that it succeeds and
// draws the given numbers of nodes and edges. It returns the SVG.
func checkRender(t *testing.T, what string, src []byte, nodes, edges int) string {
	t.Helper()
	cmd := exec.Command("dot", "-Tsvg")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	svg, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: dot -Tsvg: %v\n%s", what, err, stderr.Bytes())
	}
	if stderr.Len() > 0 {
		t.Errorf("%s: dot -Tsvg warned:\n%s", what, stderr.Bytes())
	}
	if n := bytes.Count(svg, []byte(`class="node"`)); n != nodes {
		t.Errorf("%s: the SVG has %d nodes, want %d", what, n, nodes)
	}
	if n := bytes.Count(svg, []byte(`class="edge"`)); n != edges {
		t.Errorf("%s: the SVG has %d edges, want %d", what, n, edges)
	}
	return string(svg)
}

func TestRenderAlarm(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("dot (Graphviz) is not installed; apt-get install graphviz to run this test")
	}
	m, err := bif.ReadFile(formattest.CorpusPath("bif", "alarm.bif"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("alarm.bif not found (%v); set PBL_CORPUS to the corpus directory", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte(`digraph "alarm" {`)) {
		t.Errorf("the graph is not named alarm: %.40q", out.Bytes())
	}
	arcs := 0
	for _, ps := range m.Parents {
		arcs += len(ps)
	}
	checkRender(t, "alarm", out.Bytes(), len(m.Vars), arcs)
}

func ExampleWrite() {
	m, err := bif.Read("asia.bif", []byte(`
variable smoke { type discrete [ 2 ] { yes, no }; }
variable lung { type discrete [ 2 ] { yes, no }; }
probability ( smoke ) { table 0.5, 0.5; }
probability ( lung | smoke ) { (yes) 0.1, 0.9; (no) 0.01, 0.99; }
`))
	if err != nil {
		panic(err)
	}
	if err := Write(os.Stdout, m); err != nil {
		panic(err)
	}
	// Output:
	// digraph "asia" {
	//   "smoke" [label="smoke\nyes, no"];
	//   "lung" [label="lung\nyes, no"];
	//   "smoke" -> "lung";
	// }
}

// TestWriteInfluenceDiagram: decisions are rectangles, utilities diamonds
// with an arc from each parent, after the variables' nodes and arcs.
func TestWriteInfluenceDiagram(t *testing.T) {
	want := `digraph "treat" {
  "Disease" [label="Disease\npresent, absent"];
  "Test" [label="Test\npositive, negative"];
  "Treat" [label="Treat\nyes, no", shape=box];
  "Cost" [label="Cost", shape=diamond];
  "Disease" -> "Test";
  "Test" -> "Treat";
  "Treat" -> "Cost";
  "Disease" -> "Cost";
}
`
	var out bytes.Buffer
	if err := Write(&out, formattest.InfluenceDiagram()); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := exec.LookPath("dot"); err == nil {
		svg := checkRender(t, "influence diagram", out.Bytes(), 4, 4)
		// Graphviz draws a box as a 4-point polygon, a diamond too, and
		// an ellipse for a chance variable.
		if n := strings.Count(svg, "<ellipse"); n != 2 {
			t.Errorf("the SVG has %d ellipses, want 2 (the chance variables)", n)
		}
	}
}
