package spell

import "strings"

// Nearest returns the candidate closest to x by edit distance (ignoring
// case differences first), or "" if none is close enough to be a useful
// suggestion: within about a third of x's length, and at least 1. A name
// of one or two characters is one or two edits from any other short name,
// so a suggestion for it would be a guess: it gets only a candidate that
// differs from it in case alone.
func Nearest(x string, candidates []string) string {
	best, bestD := "", 1<<30
	n := len([]rune(x))
	max := n / 3
	if max < 1 {
		max = 1
	}
	if n < 3 {
		max = 0
	}
	lx := strings.ToLower(x)
	for _, c := range candidates {
		if c == x {
			continue
		}
		d := distance(lx, strings.ToLower(c))
		if d == 0 {
			return c // differs only in case
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max {
		return best
	}
	return ""
}

// distance is the optimal-string-alignment distance between a and b, in
// runes: insertions, deletions, substitutions and transpositions of
// adjacent runes ("Strom" is one edit from "Storm").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	pprev := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(rb)]
}
