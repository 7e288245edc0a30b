package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sameLine reports whether two output lines agree: the same fields
// (white-space separated; alignment may change with a number's width),
// where fields that are both numbers may differ by at most tol.
func sameLine(a, b string, tol float64) bool {
	if a == b {
		return true
	}
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(fa[i], 64)
		y, err2 := strconv.ParseFloat(fb[i], 64)
		if err1 != nil || err2 != nil || !(math.Abs(x-y) <= tol) {
			return false
		}
	}
	return true
}

// splitLines splits text into lines, without the final newline's empty line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffLines compares want and got line by line with sameLine and returns
// "" if they agree, else a readable diff: lines only in the golden file
// marked "-", lines only in the new output "+", and up to two lines of
// context around each change. at is the index in got of the first
// difference (len(got's lines) if it is at the end), or -1.
func diffLines(want, got string, tol float64) (diff string, at int) {
	w, g := splitLines(want), splitLines(got)
	// The longest common subsequence, by dynamic programming from the end.
	n, m := len(w), len(g)
	if n*m > 4e6 {
		return diffFirst(w, g, tol)
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if sameLine(w[i], g[j], tol) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		text string
		j    int // index in got of this line, or of the next one for '-'
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && sameLine(w[i], g[j], tol):
			ops = append(ops, op{' ', g[j], j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', w[i], j})
			i++
		default:
			ops = append(ops, op{'+', g[j], j})
			j++
		}
	}
	// Show every change with up to two lines of context, "..." between.
	const context = 2
	show := make([]bool, len(ops))
	at = -1
	for k, o := range ops {
		if o.kind != ' ' {
			if at < 0 {
				at = o.j
			}
			for c := max(0, k-context); c <= min(len(ops)-1, k+context); c++ {
				show[c] = true
			}
		}
	}
	if at < 0 {
		return "", -1
	}
	var b strings.Builder
	for k, o := range ops {
		if !show[k] {
			continue
		}
		if k > 0 && !show[k-1] {
			b.WriteString("  ...\n")
		}
		fmt.Fprintf(&b, "%c %s\n", o.kind, o.text)
	}
	return b.String(), at
}

// diffFirst is the fallback for very long outputs: the first differing line.
func diffFirst(w, g []string, tol float64) (string, int) {
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if i >= len(w) || i >= len(g) || !sameLine(a, b, tol) {
			return fmt.Sprintf("first difference at line %d:\n- %s\n+ %s\n", i+1, a, b), i
		}
	}
	return "", -1
}
