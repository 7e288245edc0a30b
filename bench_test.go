package pbl_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// generatedModel returns a model of about size bytes: chains of
// three-state variables with two parents each, tables written row by row
// with four-digit probabilities.
func generatedModel(size int) []byte {
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	states := []string{"a", "b", "c"}
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "var X%d: {a, b, c}\n", n)
		if n < 2 {
			fmt.Fprintf(&b, "P(X%d) = [0.2, 0.3, 0.5]\n", n)
			continue
		}
		fmt.Fprintf(&b, "P(X%d | X%d, X%d) = {\n", n, n-1, n-2)
		for _, s1 := range states {
			for _, s2 := range states {
				p := float64(r.IntN(5000)) / 10000
				fmt.Fprintf(&b, "    %s, %s: [%.4f, %.4f, 0.5]\n", s1, s2, p, 0.5-p)
			}
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

// BenchmarkFrontEnd measures lexing, parsing and lowering (validation
// included) of a generated 1 MB model; b.SetBytes makes it report MB/s.
func BenchmarkFrontEnd(b *testing.B) {
	src := generatedModel(1 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pbl.Load("big.pbl", src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGeneratedModelLoads keeps the benchmark's input valid.
func TestGeneratedModelLoads(t *testing.T) {
	m, err := pbl.Load("big.pbl", generatedModel(1<<16))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Vars) < 100 {
		t.Fatalf("only %d variables", len(m.Vars))
	}
}

// BenchmarkCorpusMarginals measures P(* | e) with variable elimination for
// one evidence set of five observed variables on corpus networks — the
// baseline the junction tree of a later issue must beat.
func BenchmarkCorpusMarginals(b *testing.B) {
	dir := corpusDir(b)
	for _, name := range []string{"alarm", "hepar2", "win95pts", "pathfinder.bif.gz"} {
		file := name
		if !strings.HasSuffix(file, ".gz") {
			file += ".bif"
		}
		b.Run(strings.TrimSuffix(name, ".bif.gz"), func(b *testing.B) {
			m, err := bif.ReadFile(filepath.Join(dir, "bif", file))
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(5, 5))
			var ev []string
			for _, i := range r.Perm(len(m.Vars))[:5] {
				v := m.Vars[i]
				ev = append(ev, ir.Quote(v.Name)+"="+ir.Quote(v.States[0]))
			}
			q, err := pbl.ParseQuery(m, "P(* | "+strings.Join(ev, ", ")+")")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := infer.Answer(m, q, infer.Options{Engine: infer.VE}); err != nil {
				b.Skipf("evidence set: %v", err)
			}
			for b.Loop() {
				if _, err := infer.Answer(m, q, infer.Options{Engine: infer.VE}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
