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
// DEFINITION per variable, both in the model's variable order, indented,
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
		bw.WriteString("\n  <VARIABLE TYPE=\"nature\">\n")
		fmt.Fprintf(bw, "    <NAME>%s</NAME>\n", xmltext.Escape(v.Name))
		for _, s := range v.States {
			fmt.Fprintf(bw, "    <OUTCOME>%s</OUTCOME>\n", xmltext.Escape(s))
		}
		bw.WriteString("  </VARIABLE>\n")
	}
	var num []byte
	for v := range m.Vars {
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
