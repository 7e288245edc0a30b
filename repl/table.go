package repl

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// barWidth is the width in cells of a bar for probability 1.
const barWidth = 20

// bar draws p in [0, 1] as a bar of eighth-cell blocks.
func bar(p float64) string {
	if !(p > 0) {
		return ""
	}
	n := int(min(p, 1)*barWidth*8 + 0.5)
	if n == 0 {
		n = 1 // visibly non-zero
	}
	return strings.Repeat("█", n/8) + []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}[n%8]
}

// writeBars writes the table report.Text writes, with a bar beside every
// probability of a table or a marginal.
func writeBars(w io.Writer, m *ir.Model, r infer.Result) {
	var b bytes.Buffer
	report.Text(&b, m, r)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	var ps []float64
	off := 0 // an approximate answer opens with its label (report.Text)
	if h := r.Head(); !h.Exact && h.Engine != "" {
		off = 1
	}
	first := 1 + off // index of the first line with a probability
	switch r := r.(type) {
	case *infer.Table:
		first = 2 + off
		for _, row := range r.Rows {
			ps = append(ps, row.P)
		}
	case *infer.Marginals:
		for _, mg := range r.Marginals {
			ps = append(ps, mg.P...)
		}
	case *infer.Number:
		lines[off] += "  " + bar(r.P)
	case *infer.Evidence:
		lines[off] += "  " + bar(r.P)
	case *infer.Assignment, *infer.Independence, *infer.Density, *infer.Bits, *infer.Normals:
		// no bars
	default:
		panic(fmt.Sprintf("repl: a result of type %T", r))
	}
	width := 0
	for i := range ps {
		if j := first + i; j < len(lines) {
			width = max(width, utf8.RuneCountInString(lines[j]))
		}
	}
	for i, p := range ps {
		j := first + i
		if j >= len(lines) {
			break
		}
		lines[j] += strings.Repeat(" ", width-utf8.RuneCountInString(lines[j])) + "  " + bar(p)
	}
	for _, l := range lines {
		fmt.Fprintln(w, strings.TrimRight(l, " "))
	}
}

// writeCPT writes a CPT with one row per configuration of the parents and
// one column per state of the child.
func writeCPT(w io.Writer, m *ir.Model, cpt *ir.CPT) {
	child := m.Vars[cpt.Child]
	title := "P(" + ir.Quote(child.Name)
	if len(cpt.Parents) > 0 {
		title += " | " + varNames(m, cpt.Parents)
	}
	fmt.Fprintln(w, title+")")
	var t report.Table
	head := []string{}
	for _, p := range cpt.Parents {
		head = append(head, m.Vars[p].Name)
	}
	if len(head) > 0 {
		head = append(head, "|")
	}
	head = append(head, child.States...)
	head[0] = "  " + head[0]
	t.Add(head...)
	f := cpt.Factor
	k := len(child.States)
	a := make([]int, len(f.Vars))
	for i := 0; i < len(f.Vals); i += k {
		f.Assignment(a, i)
		cells := []string{}
		for j, p := range cpt.Parents {
			cells = append(cells, m.Vars[p].States[a[j]])
		}
		if len(cells) > 0 {
			cells = append(cells, "|")
		}
		for s := range k {
			cells = append(cells, report.Num(f.Vals[i+s]))
		}
		cells[0] = "  " + cells[0]
		t.Add(cells...)
	}
	t.Write(w)
}

// writeGraph writes the graph as text: each variable in topological order
// with its children (a Markov network: its neighbours).
func writeGraph(w io.Writer, m *ir.Model) {
	if len(m.Vars) == 0 {
		fmt.Fprintln(w, "(no variables)")
		return
	}
	var t report.Table
	if !m.IsBayesNet() {
		nb := make([]map[ir.VarID]bool, len(m.Vars))
		for _, f := range m.Potentials {
			for _, a := range f.Vars {
				for _, b := range f.Vars {
					if a != b {
						if nb[a] == nil {
							nb[a] = map[ir.VarID]bool{}
						}
						nb[a][b] = true
					}
				}
			}
		}
		for v := range m.Vars {
			var ns []ir.VarID
			for u := range m.Vars {
				if nb[v][ir.VarID(u)] {
					ns = append(ns, ir.VarID(u))
				}
			}
			t.Add(ir.Quote(m.Vars[v].Name), "--", varNames(m, ns))
		}
		t.Write(w)
		return
	}
	children := m.Children()
	for _, v := range topoOrder(m) {
		if len(children[v]) == 0 {
			t.Add(ir.Quote(m.Vars[v].Name))
			continue
		}
		t.Add(ir.Quote(m.Vars[v].Name), "->", varNames(m, children[v]))
	}
	t.Write(w)
}

// topoOrder orders the variables parents first, ties in declaration order.
func topoOrder(m *ir.Model) []ir.VarID {
	indeg := make([]int, len(m.Vars))
	for v, ps := range m.Parents {
		indeg[v] = len(ps)
	}
	children := m.Children()
	done := make([]bool, len(m.Vars))
	var order []ir.VarID
	for len(order) < len(m.Vars) {
		progress := false
		for v := range m.Vars {
			if !done[v] && indeg[v] == 0 {
				done[v], progress = true, true
				order = append(order, ir.VarID(v))
				for _, c := range children[v] {
					indeg[c]--
				}
				break
			}
		}
		if !progress { // a cycle cannot be lowered; be safe anyway
			for v := range m.Vars {
				if !done[v] {
					done[v] = true
					order = append(order, ir.VarID(v))
				}
			}
		}
	}
	return order
}
