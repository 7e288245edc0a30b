package dbntest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// DBN is a random time-indexed model with its numbers, written as
// .pbl text: template variables X0..X{n-1} (k states each) with arcs
// from the previous slices (up to order) and within the slice (from lower
// numbers), and a static parent S of some of them. cpt gives, for a
// variable at slice s, its parents (as (variable, lag) pairs; lag -1 is
// S) and its table, row-major over the parents with the child fastest.
type DBN struct {
	N, K, Order int
	Parents     [][][2]int  // Parents[v]: the template's (variable, lag), lag ≥ 0 back; variable -1 is S
	Template    [][]float64 // Template[v]: the template table
	Initial     [][][]float64
	InitParents [][][][2]int // Initial[s][v], InitParents[s][v] for s < Order
	STable      []float64    // P(S), or nil without S
	Src         string
}

// New returns a random DBN of n template variables of k states, arcs
// up to order slices back, and a static parent S if static.
func New(r *rand.Rand, n, k, order int, static bool) *DBN {
	d := &DBN{N: n, K: k, Order: order}
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
		d.STable = row(false)
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
	d.Parents = make([][][2]int, n)
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
		d.Parents[v] = uniq
		for _, p := range uniq {
			fmt.Fprintf(&b, "%s -> X%d[t]\n", name(p, "t"), v)
		}
		d.Template = append(d.Template, table(uniq))
	}
	// The initial slices: the parents that exist there.
	d.Initial = make([][][]float64, order)
	d.InitParents = make([][][][2]int, order)
	for s := range order {
		for v := range n {
			var ps [][2]int
			for _, p := range d.Parents[v] {
				if p[0] < 0 || p[1] <= s {
					ps = append(ps, p)
				}
			}
			d.InitParents[s] = append(d.InitParents[s], ps)
			d.Initial[s] = append(d.Initial[s], table(ps))
		}
	}
	if static {
		fmt.Fprintf(&b, "P(S) = %s\n", Vec(d.STable))
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
			fmt.Fprintf(&b, "P(%s) = %s\n", child, Vec(t))
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
			fmt.Fprintf(&b, "  %s: %s\n", strings.Join(key, ", "), Vec(t[r*k:(r+1)*k]))
		}
		b.WriteString("}\n")
	}
	for s := range order {
		for v := range n {
			if s < d.First(v) {
				writeDist(v, d.InitParents[s][v], d.Initial[s][v], fmt.Sprint(s))
			}
		}
	}
	for v := range n {
		writeDist(v, d.Parents[v], d.Template[v], "t")
	}
	d.Src = b.String()
	return d
}

func Vec(p []float64) string {
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// First returns the first slice of v's template: its largest lag.
func (d *DBN) First(v int) int {
	f := 0
	for _, p := range d.Parents[v] {
		if p[0] >= 0 {
			f = max(f, p[1])
		}
	}
	return f
}

// Joint returns P(x, S=sv) of a full assignment x[s][v] of the slices
// 0..T-1, from the numbers alone.
func (d *DBN) Joint(x [][]int, sv int) float64 {
	p := 1.0
	if d.STable != nil {
		p = d.STable[sv]
	}
	for s := range x {
		for v := range d.N {
			ps, t := d.Parents[v], d.Template[v]
			if s < d.First(v) {
				ps, t = d.InitParents[s][v], d.Initial[s][v]
			}
			idx := 0
			for _, q := range ps {
				val := sv
				if q[0] >= 0 {
					val = x[s-q[1]][q[0]]
				}
				idx = idx*d.K + val
			}
			p *= t[idx*d.K+x[s][v]]
		}
	}
	return p
}

// Each calls f with every assignment of T slices and of S.
func (d *DBN) Each(T int, f func(x [][]int, sv int)) {
	x := make([][]int, T)
	for s := range x {
		x[s] = make([]int, d.N)
	}
	ns := 1
	if d.STable != nil {
		ns = d.K
	}
	flat := T * d.N
	total := 1
	for range flat {
		total *= d.K
	}
	for sv := range ns {
		for c := range total {
			rem := c
			for i := flat - 1; i >= 0; i-- {
				x[i/d.N][i%d.N] = rem % d.K
				rem /= d.K
			}
			f(x, sv)
		}
	}
}
