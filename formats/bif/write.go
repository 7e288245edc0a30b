package bif

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Write writes m in BIF, in the layout of the bnlearn repository's files:
//
//	network unknown {
//	}
//	variable X {
//	  type discrete [ 2 ] { yes, no };
//	}
//	...
//	probability ( X ) {
//	  table 0.2, 0.8;
//	}
//	probability ( Y | X, Z ) {
//	  (yes, a) 0.1, 0.9;
//	  ...
//	}
//
// The variable blocks come first and then the probability blocks, each in
// declaration order. A variable without parents gets a table; one with
// parents gets a row per parent configuration, the first parent varying
// fastest, as the bnlearn repository's files list them. Probabilities are written in
// the shortest form that reads back as the same float64, so [Read] returns
// a model with the same variables, states, parents and bit-identical CPTs.
//
// Names are written bare where the reader reads them back as one word, and
// in double quotes otherwise, with \" and \\ as escapes: <5, >=7.5 and
// Asy/Patch stay bare, "a b" and "x,y" are quoted. Write returns an
// [ir.ErrorList], and writes nothing, if m cannot be written: it has
// real-valued variables or variables without a CPT (BIF has neither), a
// name with a line break (which BIF cannot spell), or a probability
// outside [0, 1]. Otherwise it returns the first error from w.
func Write(w io.Writer, m *ir.Model) error {
	if !m.IsBayesNet() {
		return ir.ErrorList{ir.Errorf(ir.Pos{File: m.Source}, "a Markov network (a model with potentials) cannot be written as BIF; write it as .uai")}
	}
	names, states, err := bifNames(m)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("network unknown {\n}\n")
	for v, x := range m.Vars {
		fmt.Fprintf(bw, "variable %s {\n  type discrete [ %d ] { %s };\n}\n",
			names[v], len(x.States), strings.Join(states[v], ", "))
	}
	var buf []byte
	for v := range m.Vars {
		c := m.Table(ir.VarID(v))
		f := c.Written()
		buf = append(buf[:0], "probability ( "...)
		buf = append(buf, names[v]...)
		for i, p := range c.Parents {
			if i == 0 {
				buf = append(buf, " | "...)
			} else {
				buf = append(buf, ", "...)
			}
			buf = append(buf, names[p]...)
		}
		buf = append(buf, " ) {\n"...)
		k := f.Card[len(f.Card)-1]
		if len(c.Parents) == 0 {
			buf = append(buf, "  table "...)
			buf = appendRow(buf, f.Vals)
		} else {
			// a is the parents' configuration of row r: an odometer with
			// the first parent fastest, as the bnlearn corpus lists rows;
			// off is that row's offset in the factor (last parent fastest).
			a := make([]int, len(c.Parents))
			for r := 0; r*k < len(f.Vals); r++ {
				off := 0
				for i := range a {
					off += a[i] * f.Stride[i]
				}
				buf = append(buf, "  ("...)
				for i, p := range c.Parents {
					if i > 0 {
						buf = append(buf, ", "...)
					}
					buf = append(buf, states[p][a[i]]...)
				}
				buf = append(buf, ") "...)
				buf = appendRow(buf, f.Vals[off:off+k])
				for i := range a {
					if a[i]++; a[i] < f.Card[i] {
						break
					}
					a[i] = 0
				}
				if len(buf) >= 1<<16 {
					bw.Write(buf)
					buf = buf[:0]
				}
			}
		}
		buf = append(buf, "}\n"...)
		bw.Write(buf)
	}
	return bw.Flush()
}

// appendRow appends `p1, p2, ..., pk;\n`.
func appendRow(buf []byte, vals []float64) []byte {
	for j, x := range vals {
		if j > 0 {
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
	}
	return append(buf, ";\n"...)
}

// bifNames checks that m can be written and returns its variable and state
// names as written in BIF.
func bifNames(m *ir.Model) (names []string, states [][]string, err error) {
	var errs ir.ErrorList
	names = make([]string, len(m.Vars))
	states = make([][]string, len(m.Vars))
	for v, x := range m.Vars {
		var ok bool
		if names[v], ok = quote(x.Name); !ok {
			errs.Add(x.Pos, "variable name %q cannot be written in BIF: it contains a line break", x.Name)
		}
		if !x.Discrete() {
			errs.Add(x.Pos, "variable %q is real-valued: BIF has only discrete variables", x.Name)
			continue
		}
		if len(x.States) == 0 {
			errs.Add(x.Pos, "variable %q has no states", x.Name)
			continue
		}
		states[v] = make([]string, len(x.States))
		for i, s := range x.States {
			if states[v][i], ok = quote(s); !ok {
				errs.Add(x.Pos, "state %q of variable %q cannot be written in BIF: it contains a line break", s, x.Name)
			}
		}
		if x.Decision {
			errs = append(errs, &ir.Error{Pos: x.Pos, Err: ir.ErrInfluenceDiagram,
				Msg: fmt.Sprintf("variable %q is a decision: BIF describes only Bayesian networks, not influence diagrams (NET, XMLBIF and pbl do)", x.Name)})
			continue
		}
		c := m.Table(ir.VarID(v))
		if c == nil {
			errs.Add(x.Pos, "variable %q has no CPT: BIF describes only Bayesian networks", x.Name)
			continue
		}
		checkCPT(m, c)
		for _, p := range c.Written().Vals {
			if !(p >= 0 && p <= 1) {
				errs.Add(c.Pos, "probability %s in the CPT of %q is outside [0, 1]", ir.FormatFloat(p), x.Name)
				break
			}
		}
	}
	for _, u := range m.Utilities {
		errs = append(errs, &ir.Error{Pos: u.Pos, Err: ir.ErrInfluenceDiagram,
			Msg: fmt.Sprintf("%q is a utility: BIF describes only Bayesian networks, not influence diagrams (NET, XMLBIF and pbl do)", u.Name)})
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	return names, states, nil
}

// checkCPT panics if the factor of c is not laid out over (parents...,
// child) with the model's cardinalities: a model built by ir.Builder never
// is.
func checkCPT(m *ir.Model, c *ir.CPT) {
	f := c.Written()
	ok := f != nil && len(f.Vars) == len(c.Parents)+1 && f.Vars[len(c.Parents)] == c.Child &&
		len(f.Card) == len(f.Vars)
	if ok {
		n := 1
		for i, v := range f.Vars {
			if i < len(c.Parents) && c.Parents[i] != v || f.Card[i] != len(m.Vars[v].States) {
				ok = false
			}
			n *= f.Card[i]
		}
		ok = ok && n == len(f.Vals)
	}
	if !ok {
		panic(fmt.Sprintf("bif: Write: the CPT of %q is not laid out over its parents and child", m.Vars[c.Child].Name))
	}
}

// quote returns name as written in BIF, and whether it can be written at
// all. A name is written bare if the reader reads it back as one word: it
// is not empty and has none of the delimiters (white space, control
// characters, { } ( ) [ ] , ; | and the double quote) and no comment start
// (// or /*). So the names of bnlearn's files, such as <5, >=7.5, 12+ and
// Asy/Patch, stay bare. Any other name is written in double quotes, with
// \" and \\ for a double quote and a backslash, except a name with a line
// break, which a quoted name cannot hold: for it ok is false.
func quote(name string) (quoted string, ok bool) {
	if strings.IndexByte(name, '\n') >= 0 {
		return strconv.Quote(name), false
	}
	if syntax.IsWord(name) {
		return name, true
	}
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	b.WriteByte('"')
	return b.String(), true
}
