package hugin

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Write writes m in the NET format, in the layout of the bnlearn
// repository's .net files: an empty net block, a node block per variable
// in declaration order, then a potential per variable whose data nests one
// list per parent around the child's distribution. Numbers are written in
// the shortest form that reads back as the same float64, so that Read
// returns a model with bit-for-bit equal tables.
//
// A real-valued variable with a normal density, linear in its real
// parents or not, is written as a continuous node whose potential lists
// normal ( MEAN, VARIANCE ) per configuration of its discrete parents,
// which are listed first, then the continuous ones.
//
// Decisions are written as decision nodes whose potentials list their
// information parents and have no data, utilities as utility nodes whose
// potentials hold their tables, nested one list per parent.
//
// Write fails, before writing anything, if m has a real-valued variable
// with another kind of density (a joint normal, a mixture), a discrete
// chance variable without a table, a utility without parents, or a name
// that NET cannot represent: a node name must be a word (no
// white space, no parenthesis, brace, "=", ";", "|", ",", '"' or "%",
// and no control character), and a state name must not contain a line
// break or a control character.
func Write(w io.Writer, m *ir.Model) error {
	for _, v := range m.Vars {
		if !v.Discrete() && m.Gaussian(v.ID) == nil {
			return fmt.Errorf("hugin: cannot write %q: only real-valued variables with a normal density per configuration of their discrete parents have a NET form", v.Name)
		}
		if !syntax.IsWord(v.Name) {
			return fmt.Errorf("hugin: cannot write the variable name %q as a NET node name", v.Name)
		}
		for _, s := range v.States {
			if !isStringable(s) {
				return fmt.Errorf("hugin: cannot write the state %q of %q as a NET string", s, v.Name)
			}
		}
		if v.Decision && isNodeWord(v.Name) {
			return fmt.Errorf("hugin: cannot write the decision %q: after the keyword decision, NET reads the name %q as a keyword", v.Name, v.Name)
		}
		if _, ok := m.Dist(v.ID).(*ir.Softmax); ok {
			return fmt.Errorf("hugin: cannot write %q, a discrete variable with a real-valued parent (logistic or softmax): NET's CLG networks have no discrete child of a continuous node", v.Name)
		}
		if v.Discrete() && !v.Decision && m.Table(v.ID) == nil {
			return fmt.Errorf("hugin: %q has no distribution", v.Name)
		}
	}
	for _, u := range m.Utilities {
		if !syntax.IsWord(u.Name) {
			return fmt.Errorf("hugin: cannot write the utility name %q as a NET node name", u.Name)
		}
		if isNodeWord(u.Name) {
			return fmt.Errorf("hugin: cannot write the utility %q: after the keyword utility, NET reads the name %q as a keyword", u.Name, u.Name)
		}
		if len(u.Parents) == 0 {
			return fmt.Errorf("hugin: the utility %q has no parents", u.Name)
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("net\n{\n}\n")
	for _, v := range m.Vars {
		if !v.Discrete() {
			fmt.Fprintf(bw, "continuous node %s\n{\n}\n", v.Name)
			continue
		}
		kw := "node"
		if v.Decision {
			kw = "decision"
		}
		fmt.Fprintf(bw, "%s %s\n{\n  states = (", kw, v.Name)
		for _, s := range v.States {
			bw.WriteString(" ")
			bw.WriteString(quote(s))
		}
		bw.WriteString(" );\n}\n")
	}
	for _, u := range m.Utilities {
		fmt.Fprintf(bw, "utility %s\n{\n}\n", u.Name)
	}
	var buf []byte
	for _, v := range m.Vars {
		if !v.Discrete() {
			writeGaussian(bw, m, m.Gaussian(v.ID))
			continue
		}
		if v.Decision {
			writeHead(bw, m, v.Name, m.Parents[v.ID])
			bw.WriteString(" )\n{\n}\n")
			continue
		}
		c := m.Table(v.ID)
		fmt.Fprintf(bw, "potential ( %s", v.Name)
		if len(c.Parents) > 0 {
			bw.WriteString(" |")
			for _, p := range c.Parents {
				bw.WriteString(" ")
				bw.WriteString(m.Vars[p].Name)
			}
		}
		bw.WriteString(" )\n{\n  data = ")
		f := c.Written()
		if len(c.Parents) == 0 {
			bw.WriteString("(")
			for _, x := range f.Vals {
				bw.WriteString(" ")
				buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
				bw.Write(buf)
			}
			bw.WriteString(" );\n}\n")
			continue
		}
		// Nested over (parents..., child), the child innermost.
		buf = writeNested(bw, buf, f.Vals, f.Card, f.Stride)
		bw.WriteString(";\n}\n")
	}
	for _, u := range m.Utilities {
		writeUtility(bw, m, u)
	}
	return bw.Flush()
}

// writeHead writes `potential ( X | A B`, without the closing parenthesis.
func writeHead(bw *bufio.Writer, m *ir.Model, name string, parents []ir.VarID) {
	fmt.Fprintf(bw, "potential ( %s", name)
	if len(parents) > 0 {
		bw.WriteString(" |")
		for _, p := range parents {
			bw.WriteString(" ")
			bw.WriteString(m.Vars[p].Name)
		}
	}
}

// writeUtility writes the potential of utility u: its parents, and one
// number per configuration, nested one list per parent, the innermost
// lists over the states of the last parent.
func writeUtility(bw *bufio.Writer, m *ir.Model, u *ir.Utility) {
	writeHead(bw, m, u.Name, u.Parents)
	bw.WriteString(" )\n{\n  data = ")
	n := len(u.Parents)
	card := make([]int, n)
	stride := make([]int, n)
	s := 1
	for k := n - 1; k >= 0; k-- {
		card[k] = len(m.Vars[u.Parents[k]].States)
		stride[k] = s
		s *= card[k]
	}
	writeNested(bw, nil, u.Values, card, stride)
	bw.WriteString(";\n}\n")
}

// writeNested writes vals, a row-major table over variables of the given
// cardinalities and strides, as NET's nested lists: a list opens for
// every variable whose index wraps to 0 and closes when it reaches its
// last state, so the last variable's lists are innermost. buf is scratch
// space, returned for reuse.
func writeNested(bw *bufio.Writer, buf []byte, vals []float64, card, stride []int) []byte {
	n := len(card)
	for i, x := range vals {
		opens := 0
		for k := n - 1; k >= 0 && i%(stride[k]*card[k]) == 0; k-- {
			opens++
		}
		for range opens {
			bw.WriteByte('(')
		}
		if opens == 0 {
			bw.WriteByte(' ')
		}
		buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
		bw.Write(buf)
		for k := n - 1; k >= 0 && (i+1)%(stride[k]*card[k]) == 0; k-- {
			bw.WriteByte(')')
		}
	}
	return buf
}

// isStringable reports whether s can be written as a NET string.
func isStringable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// quote writes s as a NET string, escaping " and \ with a backslash.
func quote(s string) string {
	if strings.ContainsAny(s, `"\`) {
		s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	}
	return `"` + s + `"`
}

// writeGaussian writes the potential of the continuous node of g: its
// discrete parents, then its real ones, and one normal ( MEAN, VARIANCE )
// per configuration of the discrete parents, nested one list per discrete
// parent as a table's rows are.
func writeGaussian(bw *bufio.Writer, m *ir.Model, g *ir.Gaussian) {
	fmt.Fprintf(bw, "potential ( %s", m.Vars[g.Child].Name)
	if len(g.Parents)+len(g.Real) > 0 {
		bw.WriteString(" |")
		for _, p := range append(append([]ir.VarID(nil), g.Parents...), g.Real...) {
			bw.WriteString(" ")
			bw.WriteString(m.Vars[p].Name)
		}
	}
	bw.WriteString(" )\n{\n  data = ")
	card := make([]int, len(g.Parents))
	for i, p := range g.Parents {
		card[i] = len(m.Vars[p].States)
	}
	if len(card) == 0 {
		card = []int{1}
	}
	stride := make([]int, len(card))
	s := 1
	for k := len(card) - 1; k >= 0; k-- {
		stride[k] = s
		s *= card[k]
	}
	var buf []byte
	num := func(x float64) {
		buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
		bw.Write(buf)
	}
	nr := len(g.Real)
	for i := range g.Mean {
		opens := 0
		for k := len(card) - 1; k >= 0 && i%(stride[k]*card[k]) == 0; k-- {
			opens++
		}
		for range opens {
			bw.WriteByte('(')
		}
		if opens == 0 {
			bw.WriteByte(' ')
		}
		bw.WriteString("normal ( ")
		num(g.Mean[i])
		for j, p := range g.Real {
			c := g.Coef[i*nr+j]
			if math.Signbit(c) {
				bw.WriteString(" - ")
				c = -c
			} else {
				bw.WriteString(" + ")
			}
			num(c)
			bw.WriteString(" * ")
			bw.WriteString(m.Vars[p].Name)
		}
		bw.WriteString(", ")
		v := g.SD[i] * g.SD[i]
		if i < len(g.Var) && g.Var[i] != 0 {
			v = g.Var[i]
		}
		num(v)
		bw.WriteString(" )")
		for k := len(card) - 1; k >= 0 && (i+1)%(stride[k]*card[k]) == 0; k-- {
			bw.WriteByte(')')
		}
	}
	bw.WriteString(";\n}\n")
}
