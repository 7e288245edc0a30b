package learn_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestCountsShardInvariance: counts of any partition of the rows, merged
// in any order and grouping (some after a trip through MarshalBinary),
// estimate the tables of the counts of all the rows to the last bit, and
// the Gaussians to 1e-12; an open variable's tables grow in some parts
// and not in others.
func TestCountsShardInvariance(t *testing.T) {
	tests := []struct {
		name, src string
		csv       []byte
		opt       learn.Options
	}{
		{"gaussian-nb-mle", gaussModel, gaussCSV(5000, 3, 0.05), learn.Options{}},
		{"gaussian-nb-bayes", gaussModel, gaussCSV(3000, 4, 0.2), learn.Options{Method: learn.Bayes, Alpha: 1}},
		{"open-vars", "naive_bayes C given A, B\nvar D: {d1, d2}\nC -> D\n", randomCSV(rand.New(rand.NewPCG(9, 9)), 4000), learn.Options{Method: learn.Bayes, ESS: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, tc.src)
			all, err := data.ReadAll("d.csv", bytes.NewReader(tc.csv), m, data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			whole := learn.NewCounts(m, tc.opt)
			whole.Add(all)
			settled := m.WithStates(all.States)
			want, err := learn.Estimate(settled, whole, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(4, 4))
			for _, parts := range []int{1, 2, 7, 40} {
				var cs []*learn.Counts
				for k, r := range randomParts(all.N, parts, rng) {
					c := learn.NewCounts(m, tc.opt)
					c.Add(subBatch(all, r[0], r[1]))
					if k%2 == 1 { // through the wire
						p, err := c.MarshalBinary()
						if err != nil {
							t.Fatal(err)
						}
						c = new(learn.Counts)
						if err := c.UnmarshalBinary(p); err != nil {
							t.Fatal(err)
						}
					}
					cs = append(cs, c)
				}
				for len(cs) > 1 {
					i, j := rng.IntN(len(cs)), rng.IntN(len(cs)-1)
					if j >= i {
						j++
					}
					cs[i].Merge(cs[j])
					cs = append(cs[:j], cs[j+1:]...)
				}
				c := cs[0]
				if c.Rows() != all.N || c.Err() != nil {
					t.Fatalf("%d parts: %d rows (want %d), error %v", parts, c.Rows(), all.N, c.Err())
				}
				got, err := learn.Estimate(settled, c, tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				for v := range got.Vars {
					switch d := got.Dist(ir.VarID(v)).(type) {
					case *ir.Gaussian:
						w := want.Dist(ir.VarID(v)).(*ir.Gaussian)
						for u := range d.Mean {
							if !(math.Abs(d.Mean[u]-w.Mean[u]) <= 1e-12*math.Max(math.Abs(w.Mean[u]), w.SD[u])) || !(math.Abs(d.SD[u]-w.SD[u]) <= 1e-12*w.SD[u]) {
								t.Errorf("%d parts: %s given %d: normal(%v, %v), all rows' normal(%v, %v)", parts, got.Vars[v].Name, u, d.Mean[u], d.SD[u], w.Mean[u], w.SD[u])
							}
						}
					case *ir.CPT:
						g, w := d.Factor.Vals, want.Factor(ir.VarID(v)).Vals
						if len(g) != len(w) {
							t.Fatalf("%d parts: %s has %d entries, want %d", parts, got.Vars[v].Name, len(g), len(w))
						}
						for i := range g {
							if g[i] != w[i] {
								t.Errorf("%d parts: %s entry %d is %v, all rows' %v (not bit-exact)", parts, got.Vars[v].Name, i, g[i], w[i])
							}
						}
					}
				}
			}
		})
	}
}

// TestCountsMergeKeepsArgument: merging o into c leaves o as it was, even
// when the two count different numbers of an open variable's states.
func TestCountsMergeKeepsArgument(t *testing.T) {
	m := loadModel(t, "naive_bayes C given A\n")
	read := func(csv string) *data.Batch {
		b, err := data.ReadAll("d.csv", bytes.NewReader([]byte(csv)), m, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := learn.NewCounts(m, learn.Options{}), learn.NewCounts(m, learn.Options{})
	a.Add(read("C,A\nc1,a1\nc2,a2\nc3,a3\n"))
	b.Add(read("C,A\nc1,a1\n"))
	before, _ := b.MarshalBinary()
	a.Merge(b)
	after, _ := b.MarshalBinary()
	if !bytes.Equal(before, after) {
		t.Error("Merge changed its argument")
	}
	if a.Rows() != 4 {
		t.Errorf("merged %d rows, want 4", a.Rows())
	}
}

// TestAddReaderWorkers: counting a file large enough to be parsed in
// chunks on several workers gives the counts of one worker: the tables to
// the last bit, the Gaussians to 1e-12; with an open variable too.
func TestAddReaderWorkers(t *testing.T) {
	src := gaussCSV(400000, 11, 0.05) // about 16 MB: several chunks
	for _, model := range []string{gaussModel, "var X, Y: real\nvar C: {a, b, c}\nvar D: {u, v}\nnaive_bayes C given X, D, Y\n"} {
		m := loadModel(t, model)
		var want *ir.Model
		for _, w := range []int{1, 2, 3} {
			got, rep, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
				return data.NewReader("g.csv", bytes.NewReader(src), m, data.Options{Workers: w})
			}, learn.Options{Method: learn.Bayes, Alpha: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != 400000 {
				t.Fatalf("%d workers: %d rows", w, rep.Rows)
			}
			if want == nil {
				want = got
				continue
			}
			for v := range got.Vars {
				switch d := got.Dist(ir.VarID(v)).(type) {
				case *ir.Gaussian:
					g := want.Dist(ir.VarID(v)).(*ir.Gaussian)
					for u := range d.Mean {
						if !(math.Abs(d.Mean[u]-g.Mean[u]) <= 1e-12*math.Max(math.Abs(g.Mean[u]), g.SD[u])) || !(math.Abs(d.SD[u]-g.SD[u]) <= 1e-12*g.SD[u]) {
							t.Errorf("%d workers: %s: normal(%v, %v), one worker's normal(%v, %v)", w, got.Vars[v].Name, d.Mean[u], d.SD[u], g.Mean[u], g.SD[u])
						}
					}
				case *ir.CPT:
					if a, b := fmt.Sprint(d.Factor.Vals), fmt.Sprint(want.Factor(ir.VarID(v)).Vals); a != b || got.Vars[v].States == nil {
						t.Errorf("%d workers: %s: %s, one worker's %s", w, got.Vars[v].Name, a, b)
					}
				}
			}
		}
	}
}
