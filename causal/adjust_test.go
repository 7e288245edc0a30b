package causal

import (
	"errors"
	"fmt"
	"testing"
)

func TestAdjustmentSets(t *testing.T) {
	tests := []struct {
		name, vars, edges, x, y string
		want                    string // fmt of the sets
	}{
		{"confounder", "Z X Y", "Z->X, Z->Y, X->Y", "X", "Y", "[[Z]]"},
		{"none needed", "X Y", "X->Y", "X", "Y", "[[]]"},
		{"M-bias", "A B M X Y", "A->X, A->M, B->M, B->Y, X->Y", "X", "Y", "[[]]"},
		{"Pearl 3.4", "Z1 Z2 Z3 X Y", "Z1->Z3, Z2->Z3, Z1->X, Z2->Y, Z3->X, Z3->Y, X->Y", "X", "Y", "[[Z1 Z3] [Z2 Z3]]"},
		{"bow arc", "X Y", "X->Y, X<->Y", "X", "Y", "[]"},
		{"arc blocked", "Z X Y", "Z->X, X->Y, Z<->Y", "X", "Y", "[[Z]]"},
		{"mediator is no adjustment", "Z X M Y", "Z->X, Z->Y, X->M, M->Y", "X", "Y", "[[Z]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, tt.vars, tt.edges)
			sets, err := g.AdjustmentSets(split(tt.x), split(tt.y))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(sets); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	g := graph(t, "X Y", "X->Y")
	if _, err := g.AdjustmentSets([]string{"X"}, []string{"Q"}); !errors.Is(err, ErrUnknownVariable) {
		t.Errorf("unknown variable: got %v", err)
	}
	if _, err := g.AdjustmentSets([]string{"X"}, []string{"X"}); !errors.Is(err, ErrQuery) {
		t.Errorf("X = Y: got %v", err)
	}
}

func TestQueryErrors(t *testing.T) {
	g := graph(t, "X Y", "X->Y")
	for _, q := range []Query{{}, {Y: []string{"Y"}, X: []string{"Y"}}, {Y: []string{"Y"}, Z: []string{"Y"}}} {
		if _, err := g.Identify(q); !errors.Is(err, ErrQuery) {
			t.Errorf("%v: got %v, want ErrQuery", q, err)
		}
	}
	if _, err := g.Identify(Query{Y: []string{"Q"}}); !errors.Is(err, ErrUnknownVariable) {
		t.Errorf("unknown: got %v", err)
	}
}

func TestJointErrors(t *testing.T) {
	tests := []struct {
		card []int
		p    []float64
		kind error
	}{
		{[]int{2}, []float64{1}, ErrShape},
		{[]int{0}, nil, ErrShape},
		{[]int{2}, []float64{0.5, 0.6}, ErrProb},
		{[]int{2}, []float64{-0.5, 1.5}, ErrProb},
		{[]int{1 << 20, 1 << 20}, nil, ErrTooLarge},
	}
	for _, tt := range tests {
		if _, err := NewJoint(tt.card, tt.p); !errors.Is(err, tt.kind) {
			t.Errorf("%v: got %v, want %v", tt.card, err, tt.kind)
		}
	}
	g := graph(t, "X Y", "X->Y")
	e, err := g.Identify(Query{Y: []string{"Y"}, X: []string{"X"}})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := NewJoint([]int{2, 2}, []float64{0, 0, 0.5, 0.5})
	if _, err := e.Eval(j, map[string]int{"X": 0, "Y": 0}); !errors.Is(err, ErrPositivity) {
		t.Errorf("P(X=0) = 0: got %v", err)
	}
	if _, err := e.Eval(j, map[string]int{"X": 2, "Y": 0}); !errors.Is(err, ErrValue) {
		t.Errorf("state out of range: got %v", err)
	}
	if _, err := e.Eval(j, map[string]int{"X": 1}); !errors.Is(err, ErrQuery) {
		t.Errorf("no Y: got %v", err)
	}
	if v, err := e.Eval(j, map[string]int{"X": 1, "Y": 0}); err != nil || !(v == 0.5) {
		t.Errorf("P(Y=0 | do(X=1)) = %v, %v, want 0.5", v, err)
	}
}

// TestCheckHedgeRejects makes sure the hedge check can fail.
func TestCheckHedgeRejects(t *testing.T) {
	g := graph(t, "Z X Y", "Z->X, X->Y, X<->Y")
	q := Query{Y: []string{"Y"}, X: []string{"X"}}
	good := Hedge{F: []string{"X", "Y"}, FPrime: []string{"Y"}, Roots: []string{"Y"}, Y: []string{"Y"}, X: []string{"X"}}
	if msg := checkHedge(g, q, good); msg != "" {
		t.Fatalf("the bow arc's hedge rejected: %s", msg)
	}
	for _, bad := range []Hedge{
		{F: []string{"Z", "X", "Y"}, FPrime: []string{"Y"}, Roots: []string{"Y"}, Y: []string{"Y"}, X: []string{"X"}}, // Z not joined by <->
		{F: []string{"X", "Y"}, FPrime: []string{"X"}, Roots: []string{"X"}, Y: []string{"Y"}, X: []string{"X"}},      // F' meets X
		{F: []string{"X", "Y"}, FPrime: []string{"Y"}, Roots: []string{"X"}, Y: []string{"Y"}, X: []string{"X"}},      // wrong roots
		{F: []string{"X", "Y"}, FPrime: []string{"Y"}, Roots: []string{"Y"}, Y: []string{"Y"}, X: []string{"Z"}},      // another effect
	} {
		if msg := checkHedge(g, q, bad); msg == "" {
			t.Errorf("%v accepted", bad)
		}
	}
}
