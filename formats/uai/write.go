package uai

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/pbl-lang/pbl/ir"
)

// Write writes m in UAI format. A Bayesian network (a model without
// potentials) is written as BAYES: one factor per variable, in variable
// order, with the scope (parents..., child) and the CPT as its table. A
// model with potentials is written as MARKOV with every factor of
// [ir.Model.Factors]: the CPTs, if any, and then the potentials.
//
// UAI keeps only cardinalities: variable and state names are lost, and
// [Read] names them X0..X{n-1} and "0".."k-1". Everything else survives:
// values are written in the shortest form that reads back as the same
// float64, so reading the output gives the same scopes and bit-identical
// tables. Each table is written one row (of its last variable) per line.
//
// Write returns an [ir.ErrorList], and writes nothing, if m cannot be
// written: it has no variables, a real-valued variable, a discrete
// variable of a Bayesian network without a CPT, or a negative, NaN or
// infinite table entry. Otherwise it returns the first error from w.
func Write(w io.Writer, m *ir.Model) error {
	var errs ir.ErrorList
	if len(m.Vars) == 0 {
		errs.Add(ir.Pos{File: m.Source}, "the model has no variables")
	}
	for v, x := range m.Vars {
		switch {
		case !x.Discrete():
			errs.Add(x.Pos, "%s is real-valued; UAI has only discrete variables", ir.Quote(x.Name))
		case x.Decision:
			errs = append(errs, &ir.Error{Pos: x.Pos, Err: ir.ErrInfluenceDiagram,
				Msg: fmt.Sprintf("%s is a decision: UAI describes only Bayesian and Markov networks, not influence diagrams (NET, XMLBIF and pbl do)", ir.Quote(x.Name))})
		case m.IsBayesNet() && m.Table(ir.VarID(v)) == nil:
			errs.Add(x.Pos, "%s has no CPT", ir.Quote(x.Name))
		}
	}
	for _, u := range m.Utilities {
		errs = append(errs, &ir.Error{Pos: u.Pos, Err: ir.ErrInfluenceDiagram,
			Msg: fmt.Sprintf("%s is a utility: UAI describes only Bayesian and Markov networks, not influence diagrams (NET, XMLBIF and pbl do)", ir.Quote(u.Name))})
	}
	if err := errs.Err(); err != nil {
		return err
	}
	// The tables as written (not renormalised), then the potentials.
	var fs []*ir.Factor
	for v := range m.Vars {
		if t := m.Table(ir.VarID(v)); t != nil {
			fs = append(fs, t.Written())
		}
	}
	fs = append(fs, m.Potentials...)
	for i, f := range fs {
		for _, x := range f.Vals {
			if !(x >= 0) || math.IsInf(x, 0) {
				errs.Add(ir.Pos{File: m.Source}, "factor %d has the value %s; UAI tables hold non-negative numbers", i, ir.FormatFloat(x))
				break
			}
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}

	bw := bufio.NewWriter(w)
	var buf []byte
	if m.IsBayesNet() {
		buf = append(buf, "BAYES\n"...)
	} else {
		buf = append(buf, "MARKOV\n"...)
	}
	buf = strconv.AppendInt(buf, int64(len(m.Vars)), 10)
	buf = append(buf, '\n')
	for v, x := range m.Vars {
		if v > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(len(x.States)), 10)
	}
	buf = append(buf, '\n')
	buf = strconv.AppendInt(buf, int64(len(fs)), 10)
	buf = append(buf, '\n')
	for _, f := range fs {
		buf = strconv.AppendInt(buf, int64(len(f.Vars)), 10)
		for _, v := range f.Vars {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(v), 10)
		}
		buf = append(buf, '\n')
		buf = flush(bw, buf)
	}
	for _, f := range fs {
		buf = append(buf, '\n')
		buf = strconv.AppendInt(buf, int64(len(f.Vals)), 10)
		buf = append(buf, '\n')
		k := 1
		if len(f.Card) > 0 {
			k = f.Card[len(f.Card)-1]
		}
		for r := 0; r < len(f.Vals); r += k {
			for i, x := range f.Vals[r : r+k] {
				if i > 0 {
					buf = append(buf, ' ')
				}
				buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
			}
			buf = append(buf, '\n')
			buf = flush(bw, buf)
		}
	}
	bw.Write(buf)
	return bw.Flush()
}

// flush writes buf to bw once it is large, and returns it emptied if so.
// bufio.Writer keeps the first write error, which Flush returns.
func flush(bw *bufio.Writer, buf []byte) []byte {
	if len(buf) < 1<<12 {
		return buf
	}
	bw.Write(buf)
	return buf[:0]
}
