package infer

import (
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
