package source

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// This file writes the compact tables as they are written in pbl:
// noisy_or(...), noisy_max(...), a logical formula or a lookup.

// isKeyword reports whether a compact table reads w as its own word where
// a name may stand: a variable or state so named is written quoted.
func isKeyword(w string) bool {
	switch w {
	case "leak", "and", "or", "not", "else",
		"normal", "normalize", "noisy_or", "noisy_max", "lookup":
		return true
	}
	return false
}

// word quotes name as a compact table needs it: a keyword or a number is
// quoted too.
func word(name string) string {
	if ir.IsIdent(name) && !isKeyword(name) {
		return name
	}
	return strconv.Quote(name)
}

// writeCompact writes d if it is a compact table, and reports whether it
// was.
func writeCompact(b io.StringWriter, m *view, d ir.Dist) bool {
	switch d := d.(type) {
	case *ir.NoisyOr:
		links := make([]string, 0, len(d.Parents)+1)
		for i, p := range d.Parents {
			links = append(links, link(m, p, d.Link[i], func(x float64) string { return ir.FormatFloat(x) },
				func(x float64) bool { return x == 0 }))
		}
		if d.Leak != 0 {
			links = append(links, "leak: "+ir.FormatFloat(d.Leak))
		}
		b.WriteString(m.title(d.Child, d.Parents) + " = noisy_or(" + strings.Join(links, ", ") + ")\n")
	case *ir.NoisyMax:
		written, leak := d.Written() // the numbers as written, so that a round trip is bit for bit
		links := make([]string, 0, len(d.Parents)+1)
		for i, p := range d.Parents {
			links = append(links, link(m, p, written[i], vector, absent))
		}
		if !absent(leak) {
			links = append(links, "leak: "+vector(leak))
		}
		b.WriteString(m.title(d.Child, d.Parents) + " = noisy_max(" + strings.Join(links, ", ") + ")\n")
	case *ir.Deterministic:
		b.WriteString(m.title(d.Child, d.Parents) + " = ")
		if d.Formula != nil {
			b.WriteString(formula(m, d.Parents, d.Formula, 0) + "\n")
			return true
		}
		writeLookup(b, m, d)
	default:
		return false
	}
	return true
}

// link writes one parent's link: `A: VALUE` for a bool parent active when
// true only, else `A: { s: VALUE ... }` for its active states.
func link[T any](m *view, id ir.VarID, l []T, value func(T) string, inactive func(T) bool) string {
	p, name := m.Vars[id], m.word(id)
	if p.Kind == ir.Bool && inactive(l[1]) {
		return name + ": " + value(l[0])
	}
	var rows []string
	for s, x := range l {
		if !inactive(x) {
			rows = append(rows, ir.Quote(p.States[s])+": "+value(x))
		}
	}
	return name + ": { " + strings.Join(rows, "  ") + " }"
}

// absent reports whether dist is the point mass on its last state.
func absent(dist []float64) bool {
	for _, p := range dist[:len(dist)-1] {
		if p != 0 {
			return false
		}
	}
	return dist[len(dist)-1] == 1
}

// formula writes f, parenthesised if it binds looser than prec (0: or,
// 1: and, 2: not and the literals).
func formula(m *view, parents []ir.VarID, f ir.Formula, prec int) string {
	name := func(i int) string { return m.word(parents[i]) }
	var s string
	var own int
	switch f := f.(type) {
	case *ir.FormulaVar:
		return name(f.Parent)
	case *ir.FormulaState:
		state := m.Vars[parents[f.Parent]].States[f.State]
		if !f.Negate {
			return name(f.Parent) + " = " + word(state)
		}
		// A != s, unless a parent is named s: A != s would then compare
		// A with that parent.
		if !slices.ContainsFunc(parents, func(p ir.VarID) bool { return m.Vars[p].Name == state }) {
			return name(f.Parent) + " != " + word(state)
		}
		s, own = "not "+name(f.Parent)+" = "+word(state), 2
	case *ir.FormulaSame:
		op := " == "
		if f.Negate {
			op = " != "
		}
		return name(f.A) + op + name(f.B)
	case *ir.FormulaNot:
		s, own = "not "+formula(m, parents, f.X, 2), 2
	case *ir.FormulaAnd:
		xs := make([]string, len(f.Xs))
		for i, x := range f.Xs {
			xs[i] = formula(m, parents, x, 2)
		}
		s, own = strings.Join(xs, " and "), 1
	case *ir.FormulaOr:
		xs := make([]string, len(f.Xs))
		for i, x := range f.Xs {
			xs[i] = formula(m, parents, x, 1)
		}
		s, own = strings.Join(xs, " or "), 0
	default:
		panic("source: unknown formula kind")
	}
	if own < prec {
		return "(" + s + ")"
	}
	return s
}

// writeLookup writes lookup { ... } with one aligned row per parent
// configuration, in row-major order.
func writeLookup(b io.StringWriter, m *view, d *ir.Deterministic) {
	child := m.Vars[d.Child]
	if len(d.Parents) == 0 {
		b.WriteString("lookup { else: " + word(child.States[d.Func[0]]) + " }\n")
		return
	}
	b.WriteString("lookup {\n")
	card := make([]int, len(d.Parents))
	width := make([]int, len(d.Parents))
	for i, p := range d.Parents {
		card[i] = len(m.Vars[p].States)
		for _, s := range m.Vars[p].States {
			width[i] = max(width[i], utf8.RuneCountInString(word(s)))
		}
	}
	a := make([]int, len(d.Parents))
	for _, st := range d.Func {
		b.WriteString("    ")
		for i, p := range d.Parents {
			sep := ","
			if i == len(d.Parents)-1 {
				sep = ":"
			}
			s := word(m.Vars[p].States[a[i]]) + sep
			b.WriteString(s)
			b.WriteString(strings.Repeat(" ", width[i]+2-utf8.RuneCountInString(s)))
		}
		b.WriteString(word(child.States[st]) + "\n")
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < card[i] {
				break
			}
			a[i] = 0
		}
	}
	b.WriteString("}\n")
}

// isCompact reports whether d is a compact table.
func isCompact(d ir.Dist) bool {
	switch d.(type) {
	case *ir.NoisyOr, *ir.NoisyMax, *ir.Deterministic:
		return true
	}
	return false
}
