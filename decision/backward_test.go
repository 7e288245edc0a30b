package decision

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// bruteTree returns the value of the decision tree of a perfect-recall
// diagram, by definition: the sum over the chance variables known before
// the first decision of the max over it of the sum over those learnt
// before the second of the max over it … of the sum over those never
// learnt of P(chance | decisions)·U, every configuration of every
// variable enumerated.
func bruteTree(d *Diagram) float64 {
	order := d.Order
	info := bruteInfo(d, order)
	level := make([]int, len(d.Vars)) // when each chance variable is first known
	for v := range level {
		level[v] = len(order)
	}
	for i := len(order) - 1; i >= 0; i-- {
		for _, v := range info[i] {
			level[v] = i
		}
	}
	// the sequence: level-0 chance, D0, level-1 chance, D1, …, the rest
	var seq []int
	for i := 0; i <= len(order); i++ {
		for v := range d.Vars {
			if d.Vars[v].Kind == Chance && level[v] == i {
				seq = append(seq, v)
			}
		}
		if i < len(order) {
			seq = append(seq, order[i])
		}
	}
	x := make([]int, len(d.Vars))
	var rec func(k int) float64
	rec = func(k int) float64 {
		if k == len(seq) {
			p := 1.0
			for i, v := range d.Vars {
				if v.Kind != Chance {
					continue
				}
				row := 0
				for _, q := range v.Parents {
					row = row*d.Vars[q].Card + x[q]
				}
				p *= v.CPT[row*v.Card+x[i]]
			}
			if p == 0 {
				return 0
			}
			u := 0.0
			for _, ut := range d.Utilities {
				r := 0
				for _, q := range ut.Parents {
					r = r*d.Vars[q].Card + x[q]
				}
				u += ut.Table[r]
			}
			return p * u
		}
		v := seq[k]
		acc := 0.0
		if d.Vars[v].Kind == Decision {
			acc = math.Inf(-1)
		}
		for s := range d.Vars[v].Card {
			x[v] = s
			y := rec(k + 1)
			if d.Vars[v].Kind == Decision {
				acc = math.Max(acc, y)
			} else {
				acc += y
			}
		}
		return acc
	}
	return rec(0)
}

// TestSolveBackward: on diagrams with up to four decisions, too many
// strategies to enumerate, Solve's MEU is the value of the decision tree,
// and its strategy is worth that much.
func TestSolveBackward(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 4)
		sol, err := d.Solve(Options{})
		if err != nil {
			t.Fatalf("Solve: %v", err)
		}
		want := bruteTree(d)
		if !(math.Abs(sol.MEU-want) <= tol) {
			t.Fatalf("MEU %v, decision tree %v", sol.MEU, want)
		}
		own, _ := bruteEU(d, toBrute(sol.Policies), nil, nil)
		if !(math.Abs(own-want) <= tol) {
			t.Fatalf("Solve's strategy is worth %v, the decision tree %v", own, want)
		}
	})
}
