package dot

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// MaxListedStates is the largest number of states that a node's label
// lists; a variable with more is labelled with their count.
const MaxListedStates = 6

// Write writes the DAG of m as a Graphviz digraph, named after the base
// name of m.Source without its extensions (anonymous if there is none).
// Decisions are drawn as boxes and utilities as diamonds labelled with
// their names, after the variables, with an arc from each parent.
// It returns an error if two variable or utility names would be the same node
// (possible only for names that are not valid UTF-8 or hold control
// characters, which are written as the text \xNN), and otherwise the first
// error from w.
func Write(w io.Writer, m *ir.Model) error {
	ids := make([]string, len(m.Vars))
	seen := make(map[string]ir.VarID, len(m.Vars))
	for v, x := range m.Vars {
		ids[v] = quote(x.Name)
		if prev, dup := seen[ids[v]]; dup {
			return ir.ErrorList{ir.Errorf(x.Pos, "variables %q and %q have the same name in DOT, %s", m.Vars[prev].Name, x.Name, ids[v])}
		}
		seen[ids[v]] = ir.VarID(v)
	}
	uids := make([]string, len(m.Utilities))
	for i, u := range m.Utilities {
		uids[i] = quote(u.Name)
		if prev, dup := seen[uids[i]]; dup {
			return ir.ErrorList{ir.Errorf(u.Pos, "variable %q and utility %q have the same name in DOT, %s", m.Vars[prev].Name, u.Name, uids[i])}
		}
		for _, w := range uids[:i] {
			if w == uids[i] {
				return ir.ErrorList{ir.Errorf(u.Pos, "two utilities have the same name in DOT, %s", uids[i])}
			}
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("digraph ")
	if name := graphName(m.Source); name != "" {
		bw.WriteString(quote(name))
		bw.WriteByte(' ')
	}
	bw.WriteString("{\n")
	for v, x := range m.Vars {
		shape := ""
		if x.Decision {
			shape = ", shape=box"
		}
		fmt.Fprintf(bw, "  %s [label=%s%s];\n", ids[v], quote(x.Name+"\n"+statesLine(x)), shape)
	}
	for i, u := range m.Utilities {
		fmt.Fprintf(bw, "  %s [label=%s, shape=diamond];\n", uids[i], quote(u.Name))
	}
	for v, ps := range m.Parents {
		for _, p := range ps {
			fmt.Fprintf(bw, "  %s -> %s;\n", ids[p], ids[v])
		}
	}
	for i, u := range m.Utilities {
		for _, p := range u.Parents {
			fmt.Fprintf(bw, "  %s -> %s;\n", ids[p], uids[i])
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// graphName returns the base name of the file src without its extensions:
// "alarm" for "data/alarm.bif.gz".
func graphName(src string) string {
	if src == "" {
		return ""
	}
	base := filepath.Base(src)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// statesLine describes the states of x for the second line of its label:
// "yes, no", "0..10", "12 states" or "real".
func statesLine(x *ir.Variable) string {
	switch {
	case !x.Discrete():
		return "real"
	case x.Kind == ir.Range && len(x.States) > 1:
		return x.States[0] + ".." + x.States[len(x.States)-1]
	case len(x.States) <= MaxListedStates:
		return strings.Join(x.States, ", ")
	}
	return strconv.Itoa(len(x.States)) + " states"
}

// quote returns s as a DOT double-quoted string, escaped as the package
// documentation describes.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\\x%02x`, c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				fmt.Fprintf(&b, `\\x%02x`, c)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	return b.String()
}
