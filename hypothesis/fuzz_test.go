package hypothesis_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/hypothesis"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// fuzzModel lowers a model with a grid space over a line, a sigmoid unit
// and a concept space, whose data the fuzzer writes.
func fuzzModel(f *testing.F) *ir.Model {
	src := `
var Sky: {sunny, rainy}
var Wind: {strong, weak}
var Play: {yes, no}
space L {
    w0, w1 in -1 .. 1 by 0.5
    d ~ normal(w0 + w1 * x, 1)
}
space S {
    w in -2 .. 2 by 1
    y ~ bernoulli(sigmoid(w * x))
}
space C {
    Play = yes if conjunction(Sky, Wind)
}
`
	g, err := parser.Parse("fuzz.pbl", []byte(src))
	if err != nil {
		f.Fatal(err)
	}
	m, err := ir.Lower(g)
	if err != nil {
		f.Fatal(err)
	}
	return m
}

// FuzzReadCSV: any file is read into data for every space, or refused
// with errors positioned in the file; data that is read evaluates without
// a panic, and every posterior is a number.
func FuzzReadCSV(f *testing.F) {
	m := fuzzModel(f)
	for _, s := range []string{
		"x,d\n0,1\n1,2.5\n-1,-0.5\n",
		"x,y\n0.5,1\n-1,0\n2,true\n",
		"Sky,Wind,Play\nsunny,strong,yes\nrainy,weak,no\n",
		"x,d\n1e308,-1e308\nNaN,1\n",
		"\uFEFFx,d\r\n1,2\r\n",
		"x,d\n\"1\",2\n",
		"x\n1\n",
		"",
	} {
		f.Add([]byte(s))
	}
	if files, err := filepath.Glob("../examples/data/*.csv"); err == nil {
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil && len(b) < 4096 {
				f.Add(b)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		path := filepath.Join(dir, "data.csv")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, s := range m.Spaces {
			d, err := hypothesis.ReadCSV(path, s, m)
			if err != nil {
				var list ir.ErrorList
				if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.File != path {
					t.Fatalf("space %s: error not positioned in the file: %v", s.Name, err)
				}
				continue
			}
			if s.Concept != nil {
				vs, err := hypothesis.EvaluateConcept(context.Background(), s, m, d)
				if err == nil && !(vs.Len() >= 1 && vs.Len() <= vs.Total) {
					t.Fatalf("version space of %d of %d", vs.Len(), vs.Total)
				}
				continue
			}
			p, err := hypothesis.Evaluate(context.Background(), s, m, d)
			if err != nil {
				var e *ir.Error
				if !errors.As(err, &e) {
					t.Fatalf("space %s: error without a position: %v", s.Name, err)
				}
				continue
			}
			for i := range p.Len() {
				if lp := p.LogPosterior(i); math.IsNaN(lp) || lp > 1e-12 {
					t.Fatalf("space %s: hypothesis %d has log posterior %v", s.Name, i, lp)
				}
			}
		}
	})
}
