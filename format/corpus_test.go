package format_test

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// maxCorpusSource is the size of the largest converted network TestCorpus
// formats unless -large is given: the larger ones (gzipped in the corpus;
// 0.8 to 3.2 MB of source) take seconds each, and are BenchmarkSource's.
const maxCorpusSource = 400 << 10

var large = flag.Bool("large", false, "TestCorpus: format the largest corpus networks too")

// TestCorpus converts every corpus network (bif/*.bif) to pbl as pbl
// convert does, and checks that the writer's text is formatted; then it
// puts comments in it (before each table, after its first row), squeezes
// its spacing, and formats it: every comment is kept, in order, the result
// is what the commented text formats to and formats to itself, and it
// loads to the same model as the writer's text, which answers queries as
// the BIF file does.
func TestCorpus(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set PBL_CORPUS")
	}
	files, err := filepath.Glob(filepath.Join(dir, "bif", "*.bif*"))
	if err != nil || len(files) == 0 {
		t.Skipf("no networks in %s/bif", dir)
	}
	tested := 0
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".gz"), ".bif")
		if strings.HasSuffix(file, ".gz") && !*large {
			t.Logf("%s: a large network, formatted with -large", name)
			continue
		}
		m0, err := pbl.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := source.Write(&b, m0, "Converted from "+filepath.Base(file)+"."); err != nil {
			t.Fatal(err)
		}
		written := b.Bytes()
		if len(written) > maxCorpusSource && !*large {
			t.Logf("%s: %d KB of source, formatted with -large", name, len(written)>>10)
			continue
		}
		tested++
		t.Run(name, func(t *testing.T) {
			out, err := format.Source(name+".pbl", written)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, written) {
				t.Errorf("the writer's text is not formatted: pbl fmt -d shows\n%s", firstDiff(written, out))
			}

			commented := comment(written)
			want, err := format.Source(name+".pbl", commented)
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.Source(name+".pbl", format.Mangle(commented))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("squeezed, the text formats differently:\n%s", firstDiff(want, got))
			}
			if c, w := format.Comments(got), format.Comments(commented); !slices.Equal(c, w) {
				t.Errorf("%d comments became %d", len(w), len(c))
			}
			again, err := format.Source(name+".pbl", got)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("not idempotent (%v):\n%s", err, firstDiff(got, again))
			}

			m1, err := pbl.Load(name+".pbl", written)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := pbl.Load(name+".pbl", got)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameIR(m1, m2); d != "" {
				t.Errorf("the formatted model differs (-written +formatted):\n%s", d)
			}
			for _, q := range queries(m0) {
				a0, err0 := pbl.Ask(m0, q)
				a2, err2 := pbl.Ask(m2, q)
				if err0 != nil || err2 != nil {
					// Evidence of probability 0, say: the same error.
					if !slices.Equal(messages(err0), messages(err2)) {
						t.Errorf("%s: the BIF gives %v, the formatted pbl %v", q, err0, err2)
					}
					continue
				}
				var t0, t2 bytes.Buffer
				a0.Text(&t0, m0)
				a2.Text(&t2, m2)
				if t0.String() != t2.String() {
					t.Errorf("%s: the BIF answers\n%s\nthe formatted pbl\n%s", q, t0.String(), t2.String())
				}
			}
		})
	}
	if tested == 0 {
		t.Errorf("no network small enough to test")
	}
}

// comment puts a comment on a line of its own before each table of a
// written model and one after the first row of each table of rows.
func comment(src []byte) []byte {
	lines := strings.Split(string(src), "\n")
	var out []string
	for i, l := range lines {
		if strings.HasPrefix(l, "P(") {
			out = append(out, "// The table of "+strings.TrimPrefix(strings.Fields(l)[0], "P("))
		}
		if i > 0 && strings.HasSuffix(lines[i-1], "{") {
			l += " // the first row"
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

// queries returns two queries about m: the last variable given the first
// in its first state, and the first given the last.
func queries(m *ir.Model) []string {
	first, last := m.Vars[0], m.Vars[len(m.Vars)-1]
	return []string{
		fmt.Sprintf("P(%s | %s=%s)", ir.Quote(last.Name), ir.Quote(first.Name), ir.Quote(first.States[0])),
		fmt.Sprintf("P(%s | %s=%s)", ir.Quote(first.Name), ir.Quote(last.Name), ir.Quote(last.States[len(last.States)-1])),
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines and %d lines", len(al), len(bl))
}
