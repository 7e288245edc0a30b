package pbl

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/report"
)

// RunOptions configures Run.
type RunOptions struct {
	Infer infer.Options
	JSON  bool // print results as JSON Lines instead of text tables

	// Lines, if not nil, receives for every line Run prints the statement
	// that printed it (a blank separator line belongs to the next result),
	// so that a difference in the output can be traced to its statement.
	Lines *[]ir.Stmt
}

// Run executes a model's statements in order. Queries print their results
// to w (text results separated by blank lines); expectations print nothing
// when they hold; learn statements learn CPTs in place and print nothing. Every statement runs even if an earlier one failed; Run
// returns the failures — a query that could not be answered, an
// expectation that does not hold — each positioned at its statement.
func Run(m *ir.Model, w io.Writer, opt RunOptions) ir.ErrorList {
	var fails ir.ErrorList
	first := true
	cw := &countWriter{w: w}
	w = cw
	for _, s := range m.Stmts {
		before := cw.lines
		switch s := s.(type) {
		case *ir.QueryStmt:
			res, err := infer.Answer(m, s.Query, opt.Infer)
			if err != nil {
				fails = append(fails, asError(s.Pos, err))
				continue
			}
			if opt.JSON {
				if err := report.JSON(w, m, res); err != nil {
					fails = append(fails, asError(s.Pos, err))
				}
				continue
			}
			if !first {
				fmt.Fprintln(w)
			}
			first = false
			report.Text(w, m, res)
		case *ir.LearnStmt:
			if err := runLearn(m, s); err != nil {
				fails = append(fails, learnErrors(s.Pos, err)...)
			}
		case *ir.ExpectStmt:
			res, err := infer.Answer(m, s.Query, opt.Infer)
			if err != nil {
				fails = append(fails, asError(s.Pos, err))
				continue
			}
			if err := Check(m, s, res); err != nil {
				fails = append(fails, err)
			}
		}
		if opt.Lines != nil {
			for range cw.lines - before {
				*opt.Lines = append(*opt.Lines, s)
			}
		}
	}
	return fails
}

// runLearn executes a learn statement: it learns the CPTs the statement
// names (all of them when it names none) in place, from its CSV file or
// inline table, and prints nothing.
func runLearn(m *ir.Model, s *ir.LearnStmt) error {
	method, err := learn.ParseMethod(s.Method)
	if err != nil {
		return err
	}
	opt := learn.Options{Method: method, Alpha: s.Alpha, ESS: s.ESS, M: s.M, Vars: s.Vars}
	if s.Table != nil {
		_, err = learn.LearnTable(m, s.Table, opt)
		return err
	}
	_, err = learn.Learn(m, func() (*data.Reader, error) { return data.Open(s.File, m, data.Options{}) }, opt)
	return err
}

// learnErrors positions the errors of a learn statement: those of the
// data keep their file:line:col, the others are placed at the statement.
func learnErrors(pos ir.Pos, err error) ir.ErrorList {
	if l, ok := err.(ir.ErrorList); ok && len(l) > 0 {
		return l
	}
	if pe, ok := err.(*os.PathError); ok {
		return ir.ErrorList{{Pos: pos, Msg: fmt.Sprintf("cannot read %s: %v", pe.Path, pe.Err)}}
	}
	return ir.ErrorList{asError(pos, err)}
}

// countWriter counts the newlines written through it.
type countWriter struct {
	w     io.Writer
	lines int
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.lines += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

// asError positions an error that has no position of its own.
func asError(pos ir.Pos, err error) *ir.Error {
	if e, ok := err.(*ir.Error); ok {
		return e
	}
	if l, ok := err.(ir.ErrorList); ok && len(l) > 0 {
		return l[0]
	}
	return &ir.Error{Pos: pos, Msg: err.Error()}
}

// Check compares the answer to an expectation's query with its expected
// value. It returns nil if the expectation holds, else an error positioned
// at the statement that gives the query, the expected and the actual
// values, and the difference.
func Check(m *ir.Model, s *ir.ExpectStmt, res *infer.Result) *ir.Error {
	fail := func(format string, args ...any) *ir.Error {
		return &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("expect %s == %s: ", s.Query.Text, s.Want.Text) + fmt.Sprintf(format, args...)}
	}
	tol := ir.FormatFloat(s.Tol)
	switch s.Want.Kind {
	case ir.ExpectBool:
		if res.Independent != s.Want.Bool {
			return fail("got %t", res.Independent)
		}
	case ir.ExpectAssign:
		got := make(map[ir.VarID]int, len(res.Assignment))
		for _, o := range res.Assignment {
			got[o.Var] = o.State
		}
		same := len(got) == len(s.Want.Assign)
		for _, o := range s.Want.Assign {
			st, ok := got[o.Var]
			same = same && ok && st == o.State
		}
		if !same {
			return fail("got %s", assignText(m, res.Assignment))
		}
	case ir.ExpectNumber:
		want := s.Want.Numbers[0]
		if d := math.Abs(res.P - want); !(d <= s.Tol) {
			return fail("got %s (difference %s, tolerance %s)", ir.FormatFloat(res.P), report.Num(d), tol)
		}
	case ir.ExpectVector:
		got := ResultNumbers(res)
		if len(got) != len(s.Want.Numbers) {
			return fail("got %d numbers %s, expected %d", len(got), vectorText(got), len(s.Want.Numbers))
		}
		worst, at := 0.0, -1
		for i, x := range got {
			d := math.Abs(x - s.Want.Numbers[i])
			if !(d <= s.Tol) && (at < 0 || !(d <= worst)) {
				worst, at = d, i
			}
		}
		if at >= 0 {
			return fail("got %s (largest difference %s at entry %d, tolerance %s)", vectorText(got), report.Num(worst), at+1, tol)
		}
	}
	return nil
}

// ResultNumbers returns the numbers of a table or marginals result in the
// order they are printed: the rows' probabilities, or every variable's
// marginal in turn.
func ResultNumbers(res *infer.Result) []float64 {
	var xs []float64
	for _, r := range res.Rows {
		xs = append(xs, r.P)
	}
	for _, mg := range res.Marginals {
		xs = append(xs, mg.P...)
	}
	return xs
}

func vectorText(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = ir.FormatFloat(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func assignText(m *ir.Model, a []ir.Obs) string {
	s := make([]string, len(a))
	for i, o := range a {
		v := m.Vars[o.Var]
		s[i] = ir.Quote(v.Name) + ": " + ir.Quote(v.States[o.State])
	}
	return "{" + strings.Join(s, ", ") + "}"
}
