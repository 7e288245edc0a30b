package decision

import (
	"fmt"
	"testing"
)

// pomdp returns a diagram of k steps: a hidden state X_i (3 states) moved
// by the decision before it, an observation O_i of it (3 states) known at
// decision D_i (2 states), and a utility U_i(X_i, D_i). Under
// no-forgetting D_i knows every earlier observation and decision, so the
// last policy has 3^k·2^(k-1) rows.
func pomdp(k int) *Diagram {
	d := &Diagram{}
	add := func(v Var) int { d.Vars = append(d.Vars, v); return len(d.Vars) - 1 }
	prevX, prevD := -1, -1
	for i := range k {
		var x int
		if prevX < 0 {
			x = add(Var{Name: fmt.Sprint("X", i), Kind: Chance, Card: 3, CPT: []float64{.5, .3, .2}})
		} else {
			var cpt []float64
			for a := range 3 {
				for b := range 2 {
					row := []float64{.1, .1, .1}
					row[(a+b)%3] = .8
					cpt = append(cpt, row...)
				}
			}
			x = add(Var{Name: fmt.Sprint("X", i), Kind: Chance, Card: 3, Parents: []int{prevX, prevD}, CPT: cpt})
		}
		o := add(Var{Name: fmt.Sprint("O", i), Kind: Chance, Card: 3, Parents: []int{x}, CPT: []float64{
			.7, .2, .1, .2, .6, .2, .1, .2, .7,
		}})
		dec := add(Var{Name: fmt.Sprint("D", i), Kind: Decision, Card: 2, Parents: []int{o}})
		d.Utilities = append(d.Utilities, Utility{Name: fmt.Sprint("U", i), Parents: []int{x, dec}, Table: []float64{
			1, -1, 0, 0.5, -2, 2,
		}})
		prevX, prevD = x, dec
	}
	return d
}

func BenchmarkSolve(b *testing.B) {
	for _, k := range []int{2, 4, 6} {
		d := pomdp(k)
		b.Run(fmt.Sprint("steps=", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := d.Solve(Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSolveLIMID(b *testing.B) {
	for _, k := range []int{2, 4, 6} {
		d := pomdp(k)
		b.Run(fmt.Sprint("steps=", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := d.SolveLIMID(Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPOMDPBackward: the benchmark's diagram, four steps, against the
// decision tree.
func TestPOMDPBackward(t *testing.T) {
	d := pomdp(4)
	sol, err := d.Solve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.Order = sol.Order
	if want := bruteTree(d); !(sol.MEU-want <= tol && want-sol.MEU <= tol) {
		t.Errorf("MEU %v, decision tree %v", sol.MEU, want)
	}
	ls, err := d.SolveLIMID(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(ls.MEU <= sol.MEU+tol) {
		t.Errorf("SPU with less information %v beats the perfect-recall MEU %v", ls.MEU, sol.MEU)
	}
	t.Logf("MEU %v with perfect recall, %v by SPU knowing only the last observation (%d sweeps)", sol.MEU, ls.MEU, ls.Sweeps)
}
