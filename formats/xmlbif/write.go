package xmlbif

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/internal/xmltext"
	"github.com/pbl-lang/pbl/ir"
)

// Write writes m as XMLBIF 0.3: one VARIABLE element per variable, then one
// DEFINITION per variable, both in the model's variable order (then the
// utilities, in the model's order, for an influence diagram), indented,
// with each table row (one parent configuration) on a line of its own and
// every probability in the shortest form that reads back as the same
// float64. Names are XML-escaped.
//
// The model is checked before anything is written, so that an error leaves
// w untouched: real-valued variables, names that XMLBIF cannot carry (empty,
// with leading or trailing white space, invalid UTF-8, or characters XML
// does not allow) and values that are not finite are errors.
func Write(w io.Writer, m *ir.Model) error {
	if err := check(m); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	bw.WriteString("<!-- Bayesian network in XMLBIF v0.3, written by pbl -->\n")
	bw.WriteString("<BIF VERSION=\"0.3\">\n<NETWORK>\n")
	fmt.Fprintf(bw, "  <NAME>%s</NAME>\n", xmltext.Escape(networkName(m.Source)))
	for _, v := range m.Vars {
		typ := "nature"
		if v.Decision {
			typ = "decision"
		}
		fmt.Fprintf(bw, "\n  <VARIABLE TYPE=\"%s\">\n", typ)
		fmt.Fprintf(bw, "    <NAME>%s</NAME>\n", xmltext.Escape(v.Name))
		for _, s := range v.States {
			fmt.Fprintf(bw, "    <OUTCOME>%s</OUTCOME>\n", xmltext.Escape(s))
		}
		bw.WriteString("  </VARIABLE>\n")
	}
	for _, u := range m.Utilities {
		// One OUTCOME, as aGrUM writes a utility (a variable of one
		// state, which its reader requires).
		fmt.Fprintf(bw, "\n  <VARIABLE TYPE=\"utility\">\n    <NAME>%s</NAME>\n    <OUTCOME>0</OUTCOME>\n  </VARIABLE>\n", xmltext.Escape(u.Name))
	}
	var num []byte
	for v := range m.Vars {
		if m.Vars[v].Decision {
			// The information parents; no TABLE, and no DEFINITION at
			// all without parents, as aGrUM writes a decision.
			if ps := m.Parents[v]; len(ps) > 0 {
				bw.WriteString("\n  <DEFINITION>\n")
				fmt.Fprintf(bw, "    <FOR>%s</FOR>\n", xmltext.Escape(m.Vars[v].Name))
				for _, p := range ps {
					fmt.Fprintf(bw, "    <GIVEN>%s</GIVEN>\n", xmltext.Escape(m.Vars[p].Name))
				}
				bw.WriteString("  </DEFINITION>\n")
			}
			continue
		}
		c := m.Table(ir.VarID(v))
		if c == nil {
			continue
		}
		bw.WriteString("\n  <DEFINITION>\n")
		fmt.Fprintf(bw, "    <FOR>%s</FOR>\n", xmltext.Escape(m.Vars[c.Child].Name))
		for _, p := range c.Parents {
			fmt.Fprintf(bw, "    <GIVEN>%s</GIVEN>\n", xmltext.Escape(m.Vars[p].Name))
		}
		f := c.Written()
		k := f.Card[len(f.Card)-1]
		if len(c.Parents) == 0 {
			bw.WriteString("    <TABLE>")
		} else {
			bw.WriteString("    <TABLE>\n")
		}
		for r := 0; r < len(f.Vals)/k; r++ {
			if len(c.Parents) > 0 {
				bw.WriteString("      ")
			}
			for i, x := range f.Vals[r*k : (r+1)*k] {
				if i > 0 {
					bw.WriteByte(' ')
				}
				num = strconv.AppendFloat(num[:0], x, 'g', -1, 64)
				bw.Write(num)
			}
			if len(c.Parents) > 0 {
				bw.WriteByte('\n')
			}
		}
		if len(c.Parents) == 0 {
			bw.WriteString("</TABLE>\n")
		} else {
			bw.WriteString("    </TABLE>\n")
		}
		bw.WriteString("  </DEFINITION>\n")
	}
	for _, u := range m.Utilities {
		bw.WriteString("\n  <DEFINITION>\n")
		fmt.Fprintf(bw, "    <FOR>%s</FOR>\n", xmltext.Escape(u.Name))
		for _, p := range u.Parents {
			fmt.Fprintf(bw, "    <GIVEN>%s</GIVEN>\n", xmltext.Escape(m.Vars[p].Name))
		}
		bw.WriteString("    <TABLE>")
		for i, x := range u.Values {
			if i > 0 {
				bw.WriteByte(' ')
			}
			num = strconv.AppendFloat(num[:0], x, 'g', -1, 64)
			bw.Write(num)
		}
		bw.WriteString("</TABLE>\n  </DEFINITION>\n")
	}
	bw.WriteString("\n</NETWORK>\n</BIF>\n")
	return bw.Flush()
}

// check reports what Write cannot write.
func check(m *ir.Model) error {
	var errs ir.ErrorList
	name := func(pos ir.Pos, what, s string) {
		if msg := badName(s); msg != "" {
			errs.Add(pos, "cannot write %s %q as XMLBIF: %s", what, s, msg)
		}
	}
	for _, v := range m.Vars {
		if !v.Discrete() {
			errs.Add(v.Pos, "cannot write %q as XMLBIF: it is real-valued, and XMLBIF holds only discrete variables", v.Name)
			continue
		}
		name(v.Pos, "variable", v.Name)
		for _, s := range v.States {
			name(v.Pos, "state", s)
		}
		if v.Decision {
			continue
		}
		c := m.Table(v.ID)
		if c == nil {
			errs.Add(v.Pos, "cannot write %q as XMLBIF: it has no distribution", v.Name)
			continue
		}
		for _, x := range c.Written().Vals {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				errs.Add(c.Pos, "cannot write the table of %q as XMLBIF: it holds %v", v.Name, x)
				break
			}
		}
	}
	for _, u := range m.Utilities {
		name(u.Pos, "utility", u.Name)
		if len(u.Parents) == 0 {
			errs.Add(u.Pos, "cannot write the utility %q as XMLBIF: it has no parents", u.Name)
		}
		for _, x := range u.Values {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				errs.Add(u.Pos, "cannot write the utility %q as XMLBIF: it holds %v", u.Name, x)
				break
			}
		}
	}
	return errs.Err()
}

// badName says why s cannot be written as the text of an element and read
// back unchanged, or returns "".
func badName(s string) string {
	switch {
	case s == "":
		return "it is empty"
	case !utf8.ValidString(s):
		return "it is not valid UTF-8"
	case strings.Trim(s, xmlSpace) != s:
		return "it begins or ends with white space, which readers drop"
	}
	for _, r := range s {
		if !xmltext.IsChar(r) {
			return fmt.Sprintf("XML does not allow the character %U", r)
		}
	}
	return ""
}

// networkName derives the network's NAME from the file it was read from.
func networkName(source string) string {
	base := filepath.Base(source)
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	if badName(base) != "" || base == "-" {
		return "network"
	}
	return base
}
