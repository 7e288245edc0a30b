package dbn_test

// The random time-indexed models of the root's time_test.go (copied: a
// test package cannot import another's), whose joint is computed from
// the numbers alone.

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// randomDBN is a random time-indexed model with its numbers, written as
// .pbl text: template variables X0..X{n-1} (k states each) with arcs
// from the previous slices (up to order) and within the slice (from lower
// numbers), and a static parent S of some of them. cpt gives, for a
// variable at slice s, its parents (as (variable, lag) pairs; lag -1 is
// S) and its table, row-major over the parents with the child fastest.
type randomDBN struct {
	n, k, order int
	parents     [][][2]int  // parents[v]: the template's (variable, lag), lag ≥ 0 back; variable -1 is S
	template    [][]float64 // template[v]: the template table
	initial     [][][]float64
	initParents [][][][2]int // initial[s][v], initParents[s][v] for s < order
	sTable      []float64
	src         string
}

func newRandomDBN(r *rand.Rand, n, k, order int, static bool) *randomDBN {
	d := &randomDBN{n: n, k: k, order: order}
	row := func(zero bool) []float64 {
		p := make([]float64, k)
		sum := 0.0
		for i := range p {
			p[i] = 0.05 + r.Float64()
			if zero && i == 0 && r.IntN(4) == 0 {
				p[i] = 0
			}
			sum += p[i]
		}
		for i := range p {
			p[i] /= sum
		}
		return p
	}
	table := func(ps [][2]int) []float64 {
		rows := 1
		for range ps {
			rows *= k
		}
		var t []float64
		for range rows {
			t = append(t, row(true)...)
		}
		return t
	}
	var b strings.Builder
	states := make([]string, k)
	for i := range states {
		states[i] = fmt.Sprintf("s%d", i)
	}
	dom := "{" + strings.Join(states, ", ") + "}"
	for v := range n {
		fmt.Fprintf(&b, "var X%d[t]: %s\n", v, dom)
	}
	if static {
		fmt.Fprintf(&b, "var S: %s\n", dom)
		d.sTable = row(false)
	}
	name := func(p [2]int, at string) string {
		if p[0] < 0 {
			return "S"
		}
		if p[1] == 0 {
			return fmt.Sprintf("X%d[%s]", p[0], at)
		}
		return fmt.Sprintf("X%d[%s-%d]", p[0], at, p[1])
	}
	d.parents = make([][][2]int, n)
	for v := range n {
		var ps [][2]int
		ps = append(ps, [2]int{v, 1 + r.IntN(order)}) // its own past: every variable is a chain
		for u := range v {
			if r.IntN(2) == 0 {
				ps = append(ps, [2]int{u, 0})
			}
		}
		if order > 1 && r.IntN(2) == 0 && n > 1 {
			ps = append(ps, [2]int{(v + 1) % n, 1})
		}
		if static && r.IntN(2) == 0 {
			ps = append(ps, [2]int{-1, 0})
		}
		// Drop duplicates.
		seen := map[[2]int]bool{}
		var uniq [][2]int
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				uniq = append(uniq, p)
			}
		}
		d.parents[v] = uniq
		for _, p := range uniq {
			fmt.Fprintf(&b, "%s -> X%d[t]\n", name(p, "t"), v)
		}
		d.template = append(d.template, table(uniq))
	}
	// The initial slices: the parents that exist there.
	d.initial = make([][][]float64, order)
	d.initParents = make([][][][2]int, order)
	for s := range order {
		for v := range n {
			var ps [][2]int
			for _, p := range d.parents[v] {
				if p[0] < 0 || p[1] <= s {
					ps = append(ps, p)
				}
			}
			d.initParents[s] = append(d.initParents[s], ps)
			d.initial[s] = append(d.initial[s], table(ps))
		}
	}
	if static {
		fmt.Fprintf(&b, "P(S) = %s\n", vec(d.sTable))
	}
	writeDist := func(v int, ps [][2]int, t []float64, at string) {
		names := make([]string, len(ps))
		for i, p := range ps {
			if p[0] >= 0 && at != "t" {
				var s int
				fmt.Sscan(at, &s)
				names[i] = fmt.Sprintf("X%d[%d]", p[0], s-p[1])
			} else {
				names[i] = name(p, at)
			}
		}
		child := fmt.Sprintf("X%d[%s]", v, at)
		if len(ps) == 0 {
			fmt.Fprintf(&b, "P(%s) = %s\n", child, vec(t))
			return
		}
		fmt.Fprintf(&b, "P(%s | %s) = {\n", child, strings.Join(names, ", "))
		rows := len(t) / k
		for r := range rows {
			rem := r
			key := make([]string, len(ps))
			for i := len(ps) - 1; i >= 0; i-- {
				key[i] = states[rem%k]
				rem /= k
			}
			fmt.Fprintf(&b, "  %s: %s\n", strings.Join(key, ", "), vec(t[r*k:(r+1)*k]))
		}
		b.WriteString("}\n")
	}
	for s := range order {
		for v := range n {
			if s < d.first(v) {
				writeDist(v, d.initParents[s][v], d.initial[s][v], fmt.Sprint(s))
			}
		}
	}
	for v := range n {
		writeDist(v, d.parents[v], d.template[v], "t")
	}
	d.src = b.String()
	return d
}

func vec(p []float64) string {
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// first returns the first slice of v's template: its largest lag.
func (d *randomDBN) first(v int) int {
	f := 0
	for _, p := range d.parents[v] {
		if p[0] >= 0 {
			f = max(f, p[1])
		}
	}
	return f
}

// joint returns P(x, S=sv) of a full assignment x[s][v] of the slices
// 0..T-1, from the numbers alone.
func (d *randomDBN) joint(x [][]int, sv int) float64 {
	p := 1.0
	if d.sTable != nil {
		p = d.sTable[sv]
	}
	for s := range x {
		for v := range d.n {
			ps, t := d.parents[v], d.template[v]
			if s < d.first(v) {
				ps, t = d.initParents[s][v], d.initial[s][v]
			}
			idx := 0
			for _, q := range ps {
				val := sv
				if q[0] >= 0 {
					val = x[s-q[1]][q[0]]
				}
				idx = idx*d.k + val
			}
			p *= t[idx*d.k+x[s][v]]
		}
	}
	return p
}

// each calls f with every assignment of T slices and of S.
func (d *randomDBN) each(T int, f func(x [][]int, sv int)) {
	x := make([][]int, T)
	for s := range x {
		x[s] = make([]int, d.n)
	}
	ns := 1
	if d.sTable != nil {
		ns = d.k
	}
	flat := T * d.n
	total := 1
	for range flat {
		total *= d.k
	}
	for sv := range ns {
		for c := range total {
			rem := c
			for i := flat - 1; i >= 0; i-- {
				x[i/d.n][i%d.n] = rem % d.k
				rem /= d.k
			}
			f(x, sv)
		}
	}
}
