package structure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Diff is the difference between two CPDAGs over the same variables, a
// the reference (the true network) and b the one compared with it.
//
// Each pair of variables counts at most once, as in bnlearn's shd() and
// Tsamardinos et al. (2006): a pair adjacent in a and not in b is
// missing, adjacent in b and not in a extra, and adjacent in both but
// marked differently — directed the other way, or directed in one and
// undirected in the other — reversed. SHD is the number of such pairs.
type Diff struct {
	SHD      int
	Missing  [][2]int // as a marks them: (from, to) if directed, (low, high) if undirected
	Extra    [][2]int // as b marks them
	Reversed [][2]int // as a marks them

	EdgesA, EdgesB int // the adjacencies of a and of b
}

// Skeleton compares the skeletons (the adjacencies, whatever their marks):
// precision is the fraction of b's adjacencies that a has, recall the
// fraction of a's that b has, and F1 their harmonic mean. A graph without
// edges has precision 1 (it claims nothing), and recall 1 against a graph
// without edges; F1 is 0 when precision and recall are both 0.
func (d Diff) Skeleton() (precision, recall, f1 float64) {
	common := d.EdgesA - len(d.Missing)
	precision, recall = 1, 1
	if d.EdgesB > 0 {
		precision = float64(common) / float64(d.EdgesB)
	}
	if d.EdgesA > 0 {
		recall = float64(common) / float64(d.EdgesA)
	}
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return precision, recall, f1
}

// Compare returns the difference between a and b, which must have the same
// variables in the same order (see [Reindex]).
func Compare(a, b *CPDAG) Diff {
	if !slices.Equal(a.Names, b.Names) {
		panic("structure: Compare: the graphs' variables differ")
	}
	var d Diff
	for x := range a.n {
		for y := x + 1; y < a.n; y++ {
			inA, inB := a.Adjacent(x, y), b.Adjacent(x, y)
			if inA {
				d.EdgesA++
			}
			if inB {
				d.EdgesB++
			}
			switch {
			case inA && !inB:
				d.Missing = append(d.Missing, a.pair(x, y))
			case inB && !inA:
				d.Extra = append(d.Extra, b.pair(x, y))
			case inA && inB && (a.m(x, y) != b.m(x, y) || a.m(y, x) != b.m(y, x)):
				d.Reversed = append(d.Reversed, a.pair(x, y))
			}
		}
	}
	less := func(p, q [2]int) int {
		if p[0] != q[0] {
			return p[0] - q[0]
		}
		return p[1] - q[1]
	}
	slices.SortFunc(d.Missing, less)
	slices.SortFunc(d.Extra, less)
	slices.SortFunc(d.Reversed, less)
	d.SHD = len(d.Missing) + len(d.Extra) + len(d.Reversed)
	return d
}

// pair returns the edge between x < y as c marks it: (to, from) order for
// a directed edge y -> x, (x, y) otherwise.
func (c *CPDAG) pair(x, y int) [2]int {
	if c.IsDirected(y, x) {
		return [2]int{y, x}
	}
	return [2]int{x, y}
}

// EdgeString renders the edge between x and y as c marks it: "x -> y",
// "y -> x", "x -- y", or "" when they are not adjacent; quote renders
// a name.
func (c *CPDAG) EdgeString(x, y int, quote func(string) string) string {
	switch {
	case c.IsDirected(x, y):
		return quote(c.Names[x]) + " -> " + quote(c.Names[y])
	case c.IsDirected(y, x):
		return quote(c.Names[y]) + " -> " + quote(c.Names[x])
	case c.IsUndirected(x, y):
		return quote(c.Names[x]) + " -- " + quote(c.Names[y])
	}
	return ""
}

// Reindex returns d with its variables in the order of names, which must
// name the same variables as d (an error lists those in one and not the
// other).
func Reindex(d *DAG, names []string) (*DAG, error) {
	index := make(map[string]int, len(names))
	for i, name := range names {
		index[name] = i
	}
	var onlyD, onlyNames []string
	for _, name := range d.Names {
		if _, ok := index[name]; !ok {
			onlyD = append(onlyD, ir.Quote(name))
		}
	}
	own := make(map[string]bool, len(d.Names))
	for _, name := range d.Names {
		own[name] = true
	}
	for _, name := range names {
		if !own[name] {
			onlyNames = append(onlyNames, ir.Quote(name))
		}
	}
	if len(onlyD) > 0 || len(onlyNames) > 0 || len(d.Names) != len(names) {
		var parts []string
		if len(onlyD) > 0 {
			parts = append(parts, "only in the graph: "+strings.Join(onlyD, ", "))
		}
		if len(onlyNames) > 0 {
			parts = append(parts, "not in the graph: "+strings.Join(onlyNames, ", "))
		}
		if len(parts) == 0 {
			parts = append(parts, "a name appears twice")
		}
		return nil, errorf(ErrDifferentVariables, "the networks have different variables (%s)", strings.Join(parts, "; "))
	}
	r := NewDAG(names)
	for to, ps := range d.Parents {
		for _, from := range ps {
			r.Parents[index[d.Names[to]]] = append(r.Parents[index[d.Names[to]]], index[d.Names[from]])
		}
	}
	for v := range r.Parents {
		slices.Sort(r.Parents[v])
	}
	return r, nil
}

// DOT renders the comparison of b with the reference a (over the same
// variables, d = Compare(a, b)) as a Graphviz graph: every edge of either
// CPDAG once, an undirected edge without an arrowhead. Pairs marked alike
// in both are black; extra pairs (in b only) red, drawn as b marks them;
// missing pairs (in a only) grey and dashed, drawn as a marks them;
// reversed pairs blue, drawn as b marks them, with a's marking as a
// label ("was a -> b" or "was a -- b"). name, if not empty, titles the
// graph.
func DOT(a, b *CPDAG, d Diff, title string) string {
	kind := map[[2]int]string{}
	key := func(e [2]int) [2]int { return [2]int{min(e[0], e[1]), max(e[0], e[1])} }
	for _, e := range d.Missing {
		kind[key(e)] = "missing"
	}
	for _, e := range d.Extra {
		kind[key(e)] = "extra"
	}
	for _, e := range d.Reversed {
		kind[key(e)] = "reversed"
	}
	q := func(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }
	var s strings.Builder
	s.WriteString("digraph {\n")
	if title != "" {
		fmt.Fprintf(&s, "  label=%s;\n  labelloc=t;\n", q(title))
	}
	s.WriteString("  node [shape=ellipse];\n")
	for _, name := range a.Names {
		fmt.Fprintf(&s, "  %s;\n", q(name))
	}
	edge := func(c *CPDAG, x, y int, attrs string) {
		from, to := x, y
		if c.IsDirected(y, x) {
			from, to = y, x
		}
		if c.IsUndirected(x, y) {
			attrs = strings.TrimPrefix(attrs+", dir=none", ", ")
		}
		if attrs != "" {
			attrs = " [" + attrs + "]"
		}
		fmt.Fprintf(&s, "  %s -> %s%s;\n", q(c.Names[from]), q(c.Names[to]), attrs)
	}
	for x := range a.n {
		for y := x + 1; y < a.n; y++ {
			switch kind[[2]int{x, y}] {
			case "missing":
				edge(a, x, y, "color=gray50, style=dashed")
			case "extra":
				edge(b, x, y, "color=red")
			case "reversed":
				was := a.EdgeString(x, y, func(s string) string { return s })
				edge(b, x, y, "color=blue, fontcolor=blue, label="+q("was "+was))
			default:
				if a.Adjacent(x, y) {
					edge(b, x, y, "")
				}
			}
		}
	}
	s.WriteString("}\n")
	return s.String()
}
