package pbl_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	pbl "github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
)

// writeFiles writes files (name → content) under a new temporary
// directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestImport(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.pbl": `import "lib/weather.pbl"
var Campfire: bool
Storm -> Campfire
P(Campfire | Storm) = { true: 0.4  false: 0.1 }
query P(Campfire | Storm=true)
`,
		// Relative to lib/, not to the main file's directory; imports
		// nested imports.
		"lib/weather.pbl": `import "base/storm.pbl"
var Lightning: bool
Storm -> Lightning
P(Lightning | Storm) = { true: 0.7  false: 0.05 }
query P(Lightning)   // an imported file's queries are dropped
`,
		"lib/base/storm.pbl": `var Storm: bool
P(Storm) = 0.3
query P(Storm)
`,
	})
	m, err := pbl.LoadFile(filepath.Join(dir, "main.pbl"))
	if err != nil {
		t.Fatal(err)
	}
	// Imports come first, in post-order.
	if got, want := strings.Join(m.Names(), " "), "Storm Lightning Campfire"; got != want {
		t.Errorf("got variables %s, want %s", got, want)
	}
	if len(m.Stmts) != 1 {
		t.Fatalf("got %d statements, want only the main file's query", len(m.Stmts))
	}
	q, ok := m.Stmts[0].(*ir.QueryStmt)
	if !ok {
		t.Fatalf("statement is a %T, want *ir.QueryStmt", m.Stmts[0])
	}
	if got, want := q.Query.Head().Text, "P(Campfire | Storm=true)"; got != want {
		t.Errorf("got query %s, want %s", got, want)
	}
	if !strings.HasSuffix(q.Pos.File, "main.pbl") || q.Pos.Line != 5 {
		t.Errorf("query at %s, want main.pbl:5", q.Pos)
	}
	storm, _ := m.Lookup("Storm")
	if !strings.HasSuffix(storm.Pos.File, filepath.FromSlash("lib/base/storm.pbl")) || storm.Pos.Line != 1 {
		t.Errorf("Storm declared at %s, want lib/base/storm.pbl:1", storm.Pos)
	}
}

// TestImportTwice checks that a file imported along two paths is read once
// (a diamond is not a cycle, and does not redeclare).
func TestImportTwice(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.pbl": `import "a.pbl" import "b.pbl" import "./a.pbl"
var C: bool
P(C) = 0.5`,
		"a.pbl": `import "sub/../base.pbl"`,
		"b.pbl": `import "base.pbl"`,
		"base.pbl": `var Base: bool
P(Base) = 0.5`,
	})
	m, err := pbl.LoadFile(filepath.Join(dir, "main.pbl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(m.Names(), " "), "Base C"; got != want {
		t.Errorf("got variables %s, want %s", got, want)
	}
}

func TestImportErrors(t *testing.T) {
	for _, test := range []struct {
		name  string
		files map[string]string
		want  string // regexp matched against every error line, in order
	}{
		{
			"cycle",
			map[string]string{
				"main.pbl": "var M: bool\nP(M) = 0.5\nimport \"a.pbl\"",
				"a.pbl":    "import \"b.pbl\"",
				"b.pbl":    "\n  import \"a.pbl\"",
			},
			`^DIR/b.pbl:2:3: import cycle: DIR/a.pbl -> DIR/b.pbl -> DIR/a.pbl$`,
		},
		{
			"self",
			map[string]string{"main.pbl": "import \"main.pbl\"\nvar M: bool\nP(M) = 0.5"},
			`^DIR/main.pbl:1:1: import cycle: DIR/main.pbl -> DIR/main.pbl$`,
		},
		{
			"missing",
			map[string]string{"main.pbl": "var M: bool\n\n   import \"nowhere.pbl\"\nP(M) = 0.5"},
			`^DIR/main.pbl:3:4: cannot import "DIR/nowhere.pbl": no such file or directory$`,
		},
		{
			"not a regular file",
			map[string]string{"main.pbl": "import \"lib\"\nvar M: bool\nP(M) = 0.5", "lib/x.pbl": ""},
			`^DIR/main.pbl:1:1: cannot import "DIR/lib": not a regular file$`,
		},
		{
			"a model of another format",
			map[string]string{"main.pbl": "import \"asia.bif\"\nvar M: bool\nP(M) = 0.5", "asia.bif": "network unknown {}\n"},
			`^DIR/main.pbl:1:1: cannot import "DIR/asia.bif": import takes .pbl files \(a .bif model can be converted: pbl convert asia.bif asia.pbl\)$`,
		},
		{
			"syntax error in an import",
			map[string]string{
				"main.pbl": "import \"a.pbl\"\nvar M: bool\nP(M) = 0.5",
				"a.pbl":    "var X: bool\nP(X) = ",
			},
			`^DIR/a.pbl:2:8: expected a probability, a vector \[p1, p2, \.\.\.\] or normal\(MEAN, SD\), found end of file$`,
		},
		{
			"redeclared across files",
			map[string]string{
				"main.pbl": "import \"a.pbl\"\nvar X: bool\nP(X) = 0.5",
				"a.pbl":    "var X: bool",
			},
			`^DIR/main.pbl:2:5: "X" redeclared \(first declared at DIR/a.pbl:1:5\)$`,
		},
		{
			"several files with errors",
			map[string]string{
				"main.pbl": "import \"a.pbl\"\nimport \"b.pbl\"\nvar M: bool\nP(M) = 0.5",
				"a.pbl":    "var A: bool\nP(A) = 2",
				"b.pbl":    "P(Zzz) = 0.5",
			},
			`^DIR/(a.pbl:2:8: probability 2 is outside \[0, 1\]|b.pbl:1:3: undefined variable "Zzz")$`,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := writeFiles(t, test.files)
			_, err := pbl.LoadFile(filepath.Join(dir, "main.pbl"))
			if err == nil {
				t.Fatal("no error")
			}
			list, ok := err.(ir.ErrorList)
			if !ok {
				t.Fatalf("error is a %T, not an ir.ErrorList: %v", err, err)
			}
			rx := regexp.MustCompile(strings.ReplaceAll(test.want, "DIR", regexp.QuoteMeta(filepath.ToSlash(dir))))
			for _, e := range list {
				if got := filepath.ToSlash(e.Error()); !rx.MatchString(got) {
					t.Errorf("got error %s, want one matching %s", got, test.want)
				}
			}
			if test.name == "several files with errors" && len(list) != 2 {
				t.Errorf("got %d errors, want 2: %v", len(list), list.Lines())
			}
		})
	}
}

// examples returns the paths of the examples, failing the test unless
// there are at least five.
func examples(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("examples/*.pbl")
	if err != nil || len(files) < 5 {
		tb.Fatalf("want at least five examples, found %d (%v)", len(files), err)
	}
	return files
}

// TestLoadExamples loads every example; they must be valid.
func TestLoadExamples(t *testing.T) {
	for _, f := range examples(t) {
		if heavyExample(f) {
			continue
		}
		if _, err := pbl.LoadFile(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// FuzzLoad loads arbitrary source. Errors must be ir.ErrorLists with valid
// positions; a model that loads must have CPT rows that are probability
// distributions.
func FuzzLoad(f *testing.F) {
	for _, name := range examples(f) {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	for _, src := range []string{
		"var A: bool\nP(A) = 0.5\nquery P(A)",
		"var A: {x, y}\nP(A) = normalize [1e308, 1e308]",
		"var A: {x, y}\nP(A) = normalize [1e-320, 1e-320]",
		"var A: {x, y}\nP(A) = [0.5, 0.5000005]",
		"var A: -3..3\nvar B: bool\nA -> B\nP(A) = normalize [1, 1, 1, 1, 1, 1, 1]\nP(B | A) = { -3: 1 -2: 0 -1: 0.5 0: 0.5 1: 0.5 2: 0.5 3: 0.5 }",
		`import "nowhere.pbl"`,
		"var A, B: bool\nA -> B -> A\nP(A | B) = {true: 1 false: 0}\nP(B | A) = {true: 1 false: 0}",
		"var X: real\nvar A: bool\nP(A) = 0.5\nquery P(A | X=1)",
	} {
		f.Add(src)
	}
	dir := f.TempDir() // imports resolve here: an empty directory
	filename := filepath.Join(dir, "fuzz.pbl")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := pbl.Load(filename, []byte(src))
		if err != nil {
			if m != nil {
				t.Fatalf("%q: Load returned a model and an error", src)
			}
			list, ok := err.(ir.ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("%q: error %v is a %T, want a non-empty ir.ErrorList", src, err, err)
			}
			for _, e := range list {
				// Errors of an imported file name that file.
				if e.Pos.File == "" || e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Fatalf("%q: error %v has position %#v", src, e, e.Pos)
				}
				if e.Pos.File != filename && !strings.Contains(src, "import") {
					t.Fatalf("%q: error %v is not in %s", src, e, filename)
				}
			}
			return
		}
		for v := range m.Vars {
			c := m.Table(ir.VarID(v))
			if c == nil {
				continue
			}
			if c == nil {
				continue
			}
			vals := c.Factor.Vals
			k := c.Factor.Card[len(c.Factor.Card)-1]
			if k == 0 || len(vals)%k != 0 {
				t.Fatalf("%q: CPT of %s has %d values, not rows of %d", src, m.Vars[c.Child].Name, len(vals), k)
			}
			for r := 0; r < len(vals); r += k {
				sum := 0.0
				for _, p := range vals[r : r+k] {
					if !(p >= 0 && p <= 1) { // false for NaN
						t.Fatalf("%q: CPT of %s has value %v", src, m.Vars[c.Child].Name, p)
					}
					sum += p
				}
				if !(math.Abs(sum-1) <= ir.RowTolerance) { // false for NaN
					t.Fatalf("%q: a row of the CPT of %s sums to %v", src, m.Vars[c.Child].Name, sum)
				}
			}
		}
	})
}

// TestInputLimit: a model file, or an import, larger than the input limit
// is refused before it is read (a 1 GB comment line would take 2 GB).
func TestInputLimit(t *testing.T) {
	defer input.SetMaxSize(0)
	dir := t.TempDir()
	big := "// " + strings.Repeat("x", 5000) + "\nvar A: bool\nP(A) = 0.5\n"
	os.WriteFile(filepath.Join(dir, "big.pbl"), []byte(big), 0o644)
	os.WriteFile(filepath.Join(dir, "main.pbl"), []byte("import \"big.pbl\"\nvar B: bool\nP(B) = 0.5\n"), 0o644)
	input.SetMaxSize(4096)
	for _, name := range []string{"big.pbl", "main.pbl"} {
		_, err := pbl.LoadFile(filepath.Join(dir, name))
		var tl *input.TooLargeError
		if !errors.As(err, &tl) || tl.Limit != 4096 || strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v", name, err)
		}
	}
	input.SetMaxSize(1 << 20)
	if _, err := pbl.LoadFile(filepath.Join(dir, "main.pbl")); err != nil {
		t.Errorf("under the limit: %v", err)
	}
}

// TestLoadGzippedSource: a gzip-compressed .pbl file is one error at its
// first line saying so, not a stream of lexical errors.
func TestLoadGzippedSource(t *testing.T) {
	src, err := os.ReadFile("examples/campfire.pbl")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(src)
	zw.Close()
	path := filepath.Join(t.TempDir(), "campfire.pbl")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pbl.LoadFile(path)
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos != (ir.Pos{File: path, Line: 1}) || !strings.Contains(list[0].Msg, "gzip") {
		t.Errorf("LoadFile of gzip data: %v, want one error at %s:1 about gzip", err, path)
	}
}
