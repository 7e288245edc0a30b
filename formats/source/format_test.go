package source_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// TestWriteIsFormatted: what Write writes is in the layout of pbl fmt, for
// the examples, compact tables (a noisy_max link by states), densities,
// names that need quotes or are not ASCII, a header with an empty line,
// and the small corpus networks.
func TestWriteIsFormatted(t *testing.T) {
	type model struct {
		name string
		m    *ir.Model
	}
	var models []model
	load := func(name string, src string) {
		m, err := pbl.Load(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		models = append(models, model{name, m})
	}
	load("compact.pbl", `var A, leak, not, Y, Z, W: bool
var S: {hi, "else", no}
var C: {severe, mild, absent}
var G: {x, y}
P(A) = 0.3
P(leak) = 0.2
P(not) = 0.6
P(S) = [0.2, 0.3, 0.5]
P(Y | A, "leak", S) = noisy_or(A: 0.8, "leak": 0.3, S: { hi: 0.9, "else": 0.1 }, leak: 0.01)
P(C | A, S) = noisy_max(A: [0.1, 0.3, 0.6], S: { hi: [0.5, 0.25, 0.25]  no: [0.2, 0.3, 0.5] }, leak: [0, 0.01, 0.99])
P(Z | A, "not", S) = not (A or "not") and not S = "else" or A == "not"
P(W | A, S) = A and (S = hi or not S = no)
P(G | A, S) = lookup { true, hi: y  false, "else": x  else: y }
`)
	load("names.pbl", `var Größe: {klein, "sehr groß", mittel}
var "a b": {"é", "\t", x}
var N: -1..2
var L: real
var X, Y: real
P(Größe) = [0.2, 0.3, 0.5]
P("a b" | Größe) = { klein: [1, 0, 0]  "sehr groß": [0, 1, 0]  mittel: [0, 0, 1] }
P(N | "a b") = { "é": [0.25, 0.25, 0.25, 0.25]  "\t": [1, 0, 0, 0]  x: [0, 0, 0, 1] }
P(L | Größe) = { klein: normal(0, 1)  "sehr groß": normal(1, 2)  mittel: normal(-1, 0.5) }
P(X, Y | "a b") = {
    "é": normal([0, 1], [[1, 0.5], [0.5, 2]])
    "\t": normal([0, 1], [1, 2])
    x: normal([1, 1], 3)
}
`)
	files, _ := filepath.Glob("../../examples/*.pbl")
	for _, path := range files {
		m, err := pbl.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Spaces) > 0 {
			continue // not written (pbl convert refuses it)
		}
		if len(m.Unlearned()) > 0 {
			if fails := pbl.Run(m, io.Discard, pbl.RunOptions{}); len(fails) > 0 {
				t.Fatalf("%s: %v", path, fails)
			}
		}
		models = append(models, model{path, m})
	}
	if dir := corpus(); dir != "" {
		for _, name := range []string{"asia", "child", "alarm", "hailfinder", "win95pts"} {
			m, err := pbl.LoadFile(filepath.Join(dir, "bif", name+".bif"))
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, model{name, m})
		}
	} else {
		t.Log("corpus not found (set PBL_CORPUS): the corpus networks are not checked")
	}
	for _, mm := range models {
		var buf bytes.Buffer
		if err := source.Write(&buf, mm.m, "Written by a test.\n\nThe second paragraph."); err != nil {
			if strings.Contains(err.Error(), "Markov") {
				continue
			}
			t.Fatalf("%s: %v", mm.name, err)
		}
		out, err := format.Source(mm.name, buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s", mm.name, err, buf.String())
		}
		if !bytes.Equal(out, buf.Bytes()) {
			t.Errorf("%s: the written text is not formatted:\n%s\nformatted:\n%s", mm.name, buf.String(), out)
		}
	}
}

// corpus finds ../shared/corpus (or $PBL_CORPUS), or returns "".
func corpus() string {
	if d := os.Getenv("PBL_CORPUS"); d != "" {
		return d
	}
	d, _ := filepath.Abs("../../../shared/corpus")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}
