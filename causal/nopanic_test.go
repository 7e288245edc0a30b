package causal

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestNoPanic builds arbitrary graphs (cycles, unknown names, self loops)
// and asks arbitrary queries: every answer is an estimand or a typed
// error, never a panic.
func TestNoPanic(t *testing.T) {
	evaluated := 0
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(rt, "n")
		name := rapid.OneOf(rapid.SampledFrom([]string{"A", "B", "C", "D"}), rapid.SampledFrom([]string{"A", "B", "C", "D", "E", "F", "G", "H", "", "Q"}))
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("%c", 'A'+i))
		}
		if rapid.IntRange(0, 4).Draw(rt, "odd name") == 0 {
			names = append(names, name.Draw(rt, "extra"))
		}
		edge := rapid.Custom(func(t *rapid.T) Edge {
			if len(names) > 1 && rapid.IntRange(0, 9).Draw(t, "odd edge") > 0 {
				a := rapid.IntRange(0, len(names)-1).Draw(t, "a")
				b := rapid.IntRange(0, len(names)-1).Draw(t, "b")
				if a == b {
					b = (a + 1) % len(names)
				}
				if a > b {
					a, b = b, a
				}
				return Edge{names[a], names[b]}
			}
			return Edge{name.Draw(t, "from"), name.Draw(t, "to")}
		})
		dir := rapid.SliceOfN(edge, 0, 5).Draw(rt, "dir")
		bi := rapid.SliceOfN(edge, 0, 3).Draw(rt, "bi")
		g, err := Build(names, dir, bi)
		if err != nil {
			var e *Error
			var ce *CycleError
			if !errors.As(err, &e) && !errors.As(err, &ce) {
				rt.Fatalf("untyped error %v", err)
			}
			return
		}
		var q Query
		if rapid.IntRange(0, 4).Draw(rt, "raw query") == 0 {
			vars := rapid.SliceOfN(name, 0, 3)
			q = Query{Y: vars.Draw(rt, "y"), X: vars.Draw(rt, "x"), Z: vars.Draw(rt, "z")}
		} else {
			perm := rapid.Permutation(g.Names()).Draw(rt, "perm")
			a := rapid.IntRange(0, len(perm)).Draw(rt, "a")
			b := rapid.IntRange(a, len(perm)).Draw(rt, "b")
			c := rapid.IntRange(b, len(perm)).Draw(rt, "c")
			q = Query{Y: perm[:a], X: perm[a:b], Z: perm[b:c]}
		}
		est, err := g.Identify(q)
		if err != nil {
			var e *Error
			var ne *NotIdentifiableError
			if !errors.As(err, &e) && !errors.As(err, &ne) {
				rt.Fatalf("untyped error %v", err)
			}
			return
		}
		_ = est.String()
		card := make([]int, g.Len())
		size := 1
		for i := range card {
			card[i] = 2
			size *= 2
		}
		p := make([]float64, size)
		for i := range p {
			p[i] = 1 / float64(size)
		}
		j, err := NewJoint(card, p)
		if err != nil {
			rt.Fatal(err)
		}
		vals := map[string]int{}
		for _, v := range append(append(append([]string(nil), q.Y...), q.X...), q.Z...) {
			vals[v] = rapid.IntRange(-1, 2).Draw(rt, "value")
		}
		evaluated++
		if _, err := est.Eval(j, vals); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				rt.Fatalf("untyped error %v", err)
			}
		}
	})
	t.Logf("%d estimands evaluated", evaluated)
	if evaluated < 8 {
		t.Errorf("only %d estimands evaluated", evaluated)
	}
}

// TestLargeGraphIsQuick identifies an effect in a 40-variable chain with
// confounders: the preference search is bounded, ID is polynomial.
func TestLargeGraphIsQuick(t *testing.T) {
	var names []string
	var dir, bi []Edge
	for i := range 40 {
		names = append(names, fmt.Sprintf("V%d", i))
		if i > 0 {
			dir = append(dir, Edge{names[i-1], names[i]})
		}
		if i > 1 && i%3 == 0 {
			bi = append(bi, Edge{names[i-2], names[i]})
		}
	}
	g, err := Build(names, dir, bi)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = g.Identify(Query{Y: []string{"V39"}, X: []string{"V20"}})
	var ne *NotIdentifiableError
	if err != nil && !errors.As(err, &ne) {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
