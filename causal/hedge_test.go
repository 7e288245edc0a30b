package causal

import (
	"fmt"
	"slices"
)

// checkHedge checks, independently of the package's graph code, that h is
// a hedge for P(h.Y | do(h.X)) in g (Shpitser and Pearl 2006, definition
// 5 and theorem 4), and that this effect is q's or, for a conditional
// query, P(Y ∪ Z' | do(X ∪ Z”)) with Z' ∪ Z” = Z: F' ⊊ F, F ∩ X ≠ ∅,
// F' ∩ X = ∅, R = F' ∩ An(Y) in the graph without the edges into X is not
// empty, and F and F' are R-rooted C-forests as edge subgraphs: each's
// induced bidirected part is connected and each of its variables reaches
// R along directed edges inside it (a shortest-path forest towards R then
// gives each variable at most one child). It returns "" or what is wrong.
func checkHedge(g *ADMG, q Query, h Hedge) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, v := range s {
			m[v] = true
		}
		return m
	}
	hy, hx := in(h.Y), in(h.X)
	for _, v := range q.Y {
		if !hy[v] {
			return fmt.Sprintf("the hedge's effect leaves out %s", v)
		}
	}
	for _, v := range q.X {
		if !hx[v] {
			return fmt.Sprintf("the hedge's intervention leaves out %s", v)
		}
	}
	for _, v := range q.Z {
		if hy[v] == hx[v] {
			return fmt.Sprintf("condition %s is not in exactly one of the hedge's effect and intervention", v)
		}
	}
	if len(h.Y)+len(h.X) != len(q.Y)+len(q.X)+len(q.Z) {
		return "the hedge's effect has variables the query has not"
	}
	F, Fp, X := in(h.F), in(h.FPrime), hx
	if len(Fp) >= len(F) || len(Fp) == 0 {
		return "F' is empty or not smaller than F"
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
		var out []string
		for j := range g.Len() {
			if g.Parents(i)&(1<<uint(j)) != 0 {
				out = append(out, g.Name(j))
			}
		}
		return out
	}
	sibs := func(v string) []string {
		i, _ := g.Index(v)
		var out []string
		for j := range g.Len() {
			if g.Siblings(i)&(1<<uint(j)) != 0 {
				out = append(out, g.Name(j))
			}
		}
		return out
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
	// ancestors of Y with edges into X cut
	an := in(h.Y)
	stack := append([]string(nil), h.Y...)
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
	var R []string
	for v := range Fp {
		if an[v] {
			R = append(R, v)
		}
	}
	slices.Sort(R)
	if len(R) == 0 {
		return "F' has no ancestor of Y"
	}
	if !slices.Equal(R, slices.Sorted(slices.Values(h.Roots))) {
		return fmt.Sprintf("reported roots %v, not %v", h.Roots, R)
	}
	// every variable of S reaches R inside S: R's ancestors within S
	reaches := func(S map[string]bool) bool {
		got := in(R)
		stack := append([]string(nil), R...)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range parents(v) {
				if S[p] && !got[p] {
					got[p] = true
					stack = append(stack, p)
				}
			}
		}
		return len(got) == len(S)
	}
	if !reaches(F) || !reaches(Fp) {
		return "a variable of F or F' does not reach the roots inside it"
	}
	return ""
}
