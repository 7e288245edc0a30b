package causal

import (
	"fmt"
	"slices"
)

// checkHedge checks, independently of the package's graph code, that h is
// a hedge for P(Y | do(X)) in g (Shpitser and Pearl 2006, definition 5 and
// theorem 4): F' ⊊ F, F ∩ X ≠ ∅, F' ∩ X = ∅, both C-forests (their
// induced subgraphs' bidirected parts connected; every variable then
// reaches a root along directed edges) with the same root set R, and
// R ⊆ An(Y) in the graph with the edges into X removed. For IDC queries
// the check is for P(Y ∪ Z | do(X)), whose hedge it is. It returns "" or
// what is wrong.
func checkHedge(g *ADMG, q Query, h Hedge) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, v := range s {
			m[v] = true
		}
		return m
	}
	F, Fp, X := in(h.F), in(h.FPrime), in(q.X)
	if len(Fp) >= len(F) {
		return "F' is not smaller than F"
	}
	for v := range Fp {
		if !F[v] {
			return fmt.Sprintf("%s in F' but not F", v)
		}
		if X[v] {
			return fmt.Sprintf("F' meets X at %s", v)
		}
	}
	meets := false
	for v := range F {
		meets = meets || X[v]
	}
	if !meets {
		return "F does not meet X"
	}
	parents := func(v string) []string {
		i, _ := g.Index(v)
		return g.namesOf(g.Parents(i))
	}
	sibs := func(v string) []string {
		i, _ := g.Index(v)
		return g.namesOf(g.Siblings(i))
	}
	roots := func(S map[string]bool) []string {
		hasChild := map[string]bool{}
		for v := range S {
			for _, p := range parents(v) {
				if S[p] {
					hasChild[p] = true
				}
			}
		}
		var r []string
		for v := range S {
			if !hasChild[v] {
				r = append(r, v)
			}
		}
		slices.Sort(r)
		return r
	}
	connected := func(S map[string]bool) bool {
		var start string
		for v := range S {
			start = v
			break
		}
		seen := map[string]bool{start: true}
		stack := []string{start}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, s := range sibs(v) {
				if S[s] && !seen[s] {
					seen[s] = true
					stack = append(stack, s)
				}
			}
		}
		return len(seen) == len(S)
	}
	if !connected(F) || !connected(Fp) {
		return "F or F' is not bidirected-connected"
	}
	rF, rFp := roots(F), roots(Fp)
	if !slices.Equal(rF, rFp) {
		return fmt.Sprintf("root sets differ: %v and %v", rF, rFp)
	}
	if !slices.Equal(rF, slices.Sorted(slices.Values(h.Roots))) {
		return fmt.Sprintf("reported roots %v, not %v", h.Roots, rF)
	}
	// ancestors of Y ∪ Z with edges into X cut
	an := in(append(append([]string(nil), q.Y...), q.Z...))
	stack := append(append([]string(nil), q.Y...), q.Z...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if X[v] {
			continue
		}
		for _, p := range parents(v) {
			if !an[p] {
				an[p] = true
				stack = append(stack, p)
			}
		}
	}
	for _, r := range rF {
		if !an[r] {
			return fmt.Sprintf("root %s is not an ancestor of Y", r)
		}
	}
	return ""
}
