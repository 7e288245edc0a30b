package decision

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestNoPanic: a diagram damaged at random (a parent out of range, a
// table cut short, a cardinality changed, an order of anything, a
// finding of anything, a variable set to anything) is
// refused with an *Error, never a panic, by every entry point.
func TestNoPanic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 3)
		n := len(d.Vars)
		dec := d.Order[0]
		v := &d.Vars[rapid.IntRange(0, n-1).Draw(t, "victim")]
		switch rapid.IntRange(0, 7).Draw(t, "damage") {
		case 0:
			v.Parents = append(v.Parents, rapid.IntRange(-2, n+2).Draw(t, "parent"))
		case 1:
			if len(v.CPT) > 0 {
				v.CPT = v.CPT[:rapid.IntRange(0, len(v.CPT)-1).Draw(t, "cut")]
			}
		case 2:
			v.Card = rapid.IntRange(-1, 4).Draw(t, "card")
		case 3:
			d.Order = rapid.SliceOf(rapid.IntRange(-1, n)).Draw(t, "order")
		case 4:
			u := &d.Utilities[0]
			u.Parents = append(u.Parents, rapid.IntRange(-2, n+2).Draw(t, "uparent"))
		case 5:
			v.Kind = Kind(rapid.IntRange(0, 3).Draw(t, "kind"))
		case 6:
			if len(v.CPT) > 0 {
				v.CPT[0] = -v.CPT[0] - 0.5
			}
		case 7:
			w := rapid.SliceOfN(rapid.Float64Range(-1, 1), 0, 4).Draw(t, "weights")
			d.Findings = append(d.Findings, Finding{Var: rapid.IntRange(-2, n+2).Draw(t, "finding"), Weights: w})
		}
		if e2, err := d.Set(rapid.IntRange(-1, n).Draw(t, "set"), rapid.IntRange(-1, 3).Draw(t, "state")); err == nil {
			_, _ = e2.Solve(Options{})
			_, _ = e2.SolveLIMID(Options{})
		}
		var e *Error
		if err := d.Validate(); err != nil && !errors.As(err, &e) {
			t.Fatalf("Validate: %T %v", err, err)
		}
		if sol, err := d.Solve(Options{}); err == nil {
			for _, dec := range sol.Order {
				_, _ = sol.EU(dec, 0, map[int]int{0: 0, -1: 3})
			}
		}
		_, _ = d.SolveLIMID(Options{})
		for x := -1; x <= n; x++ {
			_, _ = d.VPI(dec, x, Options{})
			_, _ = d.RankVPI(x, Options{})
		}
	})
}
