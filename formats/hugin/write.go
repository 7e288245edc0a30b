package hugin

import (
	"bufio"
	"fmt"
	"io"
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
// Write fails, before writing anything, if m has a real-valued variable,
// or a name that NET cannot represent: a node name must be a word (no
// white space, no parenthesis, brace, "=", ";", "|", ",", '"' or "%",
// and no control character), and a state name must not contain a line
// break or a control character.
func Write(w io.Writer, m *ir.Model) error {
	for _, v := range m.Vars {
		if !v.Discrete() {
			return fmt.Errorf("hugin: cannot write %q: real-valued variables have no NET form", v.Name)
		}
		if !syntax.IsWord(v.Name) {
			return fmt.Errorf("hugin: cannot write the variable name %q as a NET node name", v.Name)
		}
		for _, s := range v.States {
			if !isStringable(s) {
				return fmt.Errorf("hugin: cannot write the state %q of %q as a NET string", s, v.Name)
			}
		}
		if m.Table(v.ID) == nil {
			return fmt.Errorf("hugin: %q has no distribution", v.Name)
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("net\n{\n}\n")
	for _, v := range m.Vars {
		fmt.Fprintf(bw, "node %s\n{\n  states = (", v.Name)
		for _, s := range v.States {
			bw.WriteString(" ")
			bw.WriteString(quote(s))
		}
		bw.WriteString(" );\n}\n")
	}
	var buf []byte
	for _, v := range m.Vars {
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
		// Open a list for every variable whose index wraps to 0, close it
		// when the index reaches its last state: nested parentheses over
		// (parents..., child), the child innermost.
		n := len(f.Card)
		for i, x := range f.Vals {
			opens := 0
			for k := n - 1; k >= 0 && i%(f.Stride[k]*f.Card[k]) == 0; k-- {
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
			for k := n - 1; k >= 0 && (i+1)%(f.Stride[k]*f.Card[k]) == 0; k-- {
				bw.WriteByte(')')
			}
		}
		bw.WriteString(";\n}\n")
	}
	return bw.Flush()
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
