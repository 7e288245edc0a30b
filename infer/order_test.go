package infer

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func TestElimOrder(t *testing.T) {
	chain := [][]ir.VarID{ids(0, 1), ids(1, 2), ids(2, 3), ids(3, 4)}
	star := [][]ir.VarID{ids(0, 1), ids(0, 2), ids(0, 3), ids(0, 4)}
	card := []int{2, 2, 2, 2, 2}
	tests := []struct {
		name   string
		h      Heuristic
		scopes [][]ir.VarID
		stages [][]ir.VarID
		want   []ir.VarID
	}{
		{"chain min-fill", MinFill, chain, [][]ir.VarID{ids(0, 1, 2, 3, 4)}, ids(0, 1, 2, 3, 4)},
		{"chain min-weight", MinWeight, chain, [][]ir.VarID{ids(4, 3, 2, 1, 0)}, ids(0, 1, 2, 3, 4)},
		{"star leaves first", MinFill, star, [][]ir.VarID{ids(0, 1, 2, 3, 4)}, ids(1, 2, 3, 0, 4)},
		{"star min-weight", MinWeight, star, [][]ir.VarID{ids(0, 1, 2, 3, 4)}, ids(1, 2, 3, 0, 4)},
		{"stages", MinFill, star, [][]ir.VarID{ids(0, 2), ids(1, 3)}, ids(2, 0, 1, 3)},
		{"kept variable", MinFill, chain, [][]ir.VarID{ids(0, 1, 3, 4)}, ids(0, 1, 4, 3)},
	}
	for _, tt := range tests {
		got := elimOrder(tt.h, card, tt.scopes, nil, tt.stages...)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestElimOrderPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 50; trial++ {
		spec := localNet(rng, 60, 3, 6)
		m := spec.build(t)
		var sc [][]ir.VarID
		for _, f := range m.Factors() {
			sc = append(sc, f.Vars)
		}
		card := spec.card
		var a, b []ir.VarID
		for v := range card {
			if rng.IntN(3) == 0 {
				b = append(b, ir.VarID(v))
			} else if rng.IntN(5) > 0 {
				a = append(a, ir.VarID(v))
			}
		}
		for _, h := range []Heuristic{MinFill, MinWeight} {
			got := elimOrder(h, card, sc, nil, a, b)
			if !slices.Equal(got, elimOrder(h, card, sc, nil, a, b)) {
				t.Fatal("order is not deterministic")
			}
			if len(got) != len(a)+len(b) {
				t.Fatalf("order has %d variables, want %d", len(got), len(a)+len(b))
			}
			first := slices.Clone(got[:len(a)])
			slices.Sort(first)
			if !slices.Equal(first, a) {
				t.Fatalf("first stage %v, want %v", first, a)
			}
			second := slices.Clone(got[len(a):])
			slices.Sort(second)
			if !slices.Equal(second, b) {
				t.Fatalf("second stage %v, want %v", second, b)
			}
		}
	}
}

// TestInputOrderFits: a 12×12 grid written row by row, P(X0 | X143):
// under a memory limit of 160 KiB, which min-fill's order exceeds, the
// input order fits (it needs 128 KiB), variable elimination answers with
// it, and the answer is the junction tree's without the limit; BestOrder
// finds it.
func TestInputOrderFits(t *testing.T) {
	m := gridNet(rand.New(rand.NewPCG(4, 4)), 12).build(t)
	q := &ir.ProbQuery{Targets: ids(0), TargetStates: []int{-1}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 143, State: 1}}}}
	want, err := Answer(m, q, jtOpt)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 160 << 10
	var tl *TooLargeError
	if _, err := Answer(m, q, Options{Engine: VE, Order: MinFill, MaxMemory: limit}); !errors.As(err, &tl) {
		t.Fatalf("min-fill under %d bytes: %v, want a TooLargeError", limit, err)
	}
	for _, h := range []Heuristic{InputOrder, BestOrder} {
		got, err := Answer(m, q, Options{Engine: VE, Order: h, MaxMemory: limit})
		if err != nil {
			t.Fatalf("%v: %v", h, err)
		}
		g, w := got.(*Table).Rows, want.(*Table).Rows
		for i := range w {
			if !(math.Abs(g[i].P-w[i].P) <= 1e-12) {
				t.Errorf("%v: P(X0=%d | e) = %v, want %v", h, i, g[i].P, w[i].P)
			}
		}
	}
}
