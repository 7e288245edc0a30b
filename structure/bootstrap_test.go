package structure

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestResampleDrawsRows(t *testing.T) {
	d := randomData(3, []int{2, 3, 4}, 200, 0.1)
	// Tag each row by its index in an extra column, to find it back.
	d.Names = append(d.Names, "row")
	d.States = append(d.States, nil)
	d.Card = append(d.Card, d.N)
	tag := make([]int32, d.N)
	for i := range tag {
		tag[i] = int32(i)
	}
	d.Cols = append(d.Cols, tag)
	r := Resample(d, rand.New(rand.NewPCG(1, 2)))
	if r.N != d.N {
		t.Fatalf("%d rows, want %d", r.N, d.N)
	}
	distinct := map[int32]bool{}
	for i := range r.N {
		src := r.Cols[3][i]
		distinct[src] = true
		for v := range 3 {
			if r.Cols[v][i] != d.Cols[v][src] {
				t.Fatalf("row %d: column %d is %d, source row %d has %d", i, v, r.Cols[v][i], src, d.Cols[v][src])
			}
		}
	}
	// With replacement: about 1 − 1/e of the rows appear.
	if frac := float64(len(distinct)) / float64(d.N); !(frac > 0.55 && frac < 0.72) {
		t.Errorf("%.2f of the rows drawn, want about 0.63", frac)
	}
}

func TestBootstrapStrengths(t *testing.T) {
	d := randomData(5, []int{2, 2, 2, 2}, 50, 0)
	const n, seed = 40, 9
	// The learner joins 0 and 1, the way the resample's first row's
	// column 0 says; always 2 -> 3 (left undirected); and 1 -> 2 when the
	// first row's column 3 is 1.
	learn := func(r *Data) (*DAG, [][2]int, error) {
		g := NewDAG(r.Names)
		if r.Cols[0][0] == 0 {
			g.AddEdge(0, 1)
		} else {
			g.AddEdge(1, 0)
		}
		g.AddEdge(2, 3)
		if r.Cols[3][0] == 1 {
			g.AddEdge(1, 2)
		}
		return g, [][2]int{{3, 2}}, nil
	}
	// The expected fractions, from the resamples' first draws.
	fwd01, with12 := 0.0, 0.0
	for k := range n {
		row := rand.New(rand.NewPCG(seed, uint64(k))).IntN(d.N)
		if d.Cols[0][row] == 0 {
			fwd01++
		}
		if d.Cols[3][row] == 1 {
			with12++
		}
	}
	fwd01 /= n
	with12 /= n
	want01 := Strength{From: 0, To: 1, Strength: 1, Forward: fwd01, Backward: 1 - fwd01}
	if fwd01 < 0.5 {
		want01 = Strength{From: 1, To: 0, Strength: 1, Forward: 1 - fwd01, Backward: fwd01}
	}
	want := []Strength{want01, {From: 2, To: 3, Strength: 1, Forward: 0.5, Backward: 0.5}, {From: 1, To: 2, Strength: with12, Forward: with12}}
	if with12 == 0 || fwd01 == 0 || fwd01 == 1 {
		t.Fatalf("a degenerate case: %v %v", fwd01, with12)
	}
	for _, w := range []int{1, 2, 5} {
		got, err := Bootstrap(d, n, seed, w, learn)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: %+v, want %+v", w, got, want)
		}
	}
	if _, err := Bootstrap(d, 0, seed, 1, learn); err == nil {
		t.Errorf("0 resamples: no error")
	}
}

func TestAveraged(t *testing.T) {
	d := randomData(5, []int{2, 2, 2, 2}, 50, 0)
	s := NewScorer(d, BIC, 1)
	st := []Strength{
		{From: 0, To: 1, Strength: 0.9, Forward: 0.6, Backward: 0.3},
		{From: 1, To: 2, Strength: 0.8, Forward: 0.8},
		{From: 2, To: 0, Strength: 0.7, Forward: 0.7}, // closes a cycle: left out
		{From: 3, To: 2, Strength: 0.5, Forward: 0.25, Backward: 0.25},
		{From: 0, To: 3, Strength: 0.4, Forward: 0.4}, // below the threshold
	}
	g, err := Averaged(s, st, 0.5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{0, 1}, {1, 2}, {3, 2}}; !slices.Equal(g.Edges(), want) {
		t.Errorf("edges %v, want %v", g.Edges(), want)
	}
	g, err = Averaged(s, st, 0.5, Options{MaxParents: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() != 2 || !g.HasEdge(0, 1) {
		t.Errorf("max 1 parent: edges %v", g.Edges())
	}
}
