package pbl

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// RunOptions configures Run.
type RunOptions struct {
	Infer infer.Options
	JSON  bool // print results as JSON Lines instead of text tables
	// Top and Seed are AnswerOptions' for queries about hypotheses.
	Top  int
	Seed uint64

	// Lines, if not nil, receives for every line Run prints the statement
	// that printed it (a blank separator line belongs to the next result),
	// so that a difference in the output can be traced to its statement.
	Lines *[]ir.Stmt
}

// Run executes a model's statements in order. Queries print their results
// to w (text results separated by blank lines); expectations print nothing
// when they hold; learn statements print nothing (they ran when the model
// was prepared: see LoadFile). Every statement runs even if an earlier one
// failed; Run returns the failures — a query that could not be answered,
// an expectation that does not hold — each positioned at its statement.
func Run(m *ir.Model, w io.Writer, opt RunOptions) ir.ErrorList {
	var fails ir.ErrorList
	first := true
	cw := &countWriter{w: w}
	w = cw
	aopt := AnswerOptions{Infer: opt.Infer, Top: opt.Top, Seed: opt.Seed}
	for _, s := range m.Stmts {
		before := cw.lines
		switch s := s.(type) {
		case *ir.QueryStmt:
			a, err := AnswerQuery(m, s.Query, aopt)
			if err != nil {
				fails = append(fails, asError(s.Pos, err))
				continue
			}
			if opt.JSON {
				if err := a.JSON(w, m); err != nil {
					fails = append(fails, asError(s.Pos, err))
				}
				continue
			}
			if !first {
				fmt.Fprintln(w)
			}
			first = false
			a.Text(w, m)
		case *ir.ExpectStmt:
			a, err := AnswerQuery(m, s.Query, aopt)
			if err != nil {
				fails = append(fails, asError(s.Pos, err))
				continue
			}
			if err := CheckAnswer(m, s, a); err != nil {
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
	return ir.Positioned(pos, err)[0]
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
		want, got := s.Want.Numbers[0], res.P
		switch s.Query.Kind {
		case ir.Density:
			got = res.Density
		case ir.Entropy, ir.MI:
			got = res.Bits
		}
		if d := math.Abs(got - want); !(d <= s.Tol) {
			return fail("got %s (difference %s, tolerance %s)", ir.FormatFloat(got), report.Num(d), tol)
		}
	case ir.ExpectVector:
		got := ResultNumbers(res)
		if len(got) != len(s.Want.Numbers) {
			return fail("got %s %s, expected %d", ir.Plural(len(got), "number"), vectorText(got), len(s.Want.Numbers))
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

// CheckAnswer is Check for any answer: an answer about hypotheses is
// compared by its printed probabilities (a vector) or its hypothesis
// (numbers within the tolerance, states exactly).
func CheckAnswer(m *ir.Model, s *ir.ExpectStmt, a *Answer) *ir.Error {
	if a.Hyp == nil {
		return Check(m, s, a.Infer)
	}
	h := a.Hyp
	fail := func(format string, args ...any) *ir.Error {
		return &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("expect %s == %s: ", s.Query.Text, s.Want.Text) + fmt.Sprintf(format, args...)}
	}
	tol := ir.FormatFloat(s.Tol)
	switch s.Want.Kind {
	case ir.ExpectVector:
		got := h.P
		if h.Classes == nil {
			got = nil
			for _, r := range h.Hyps {
				got = append(got, math.Exp(r.LogPost))
			}
		}
		if len(got) != len(s.Want.Numbers) {
			return fail("got %s %s, expected %d", ir.Plural(len(got), "number"), vectorText(got), len(s.Want.Numbers))
		}
		for i, x := range got {
			if d := math.Abs(x - s.Want.Numbers[i]); !(d <= s.Tol) {
				return fail("got %s (difference %s at entry %d, tolerance %s)", vectorText(got), report.Num(d), i+1, tol)
			}
		}
	case ir.ExpectAssign:
		r := h.Hyps[0]
		var parts []string
		for i, n := range h.Names {
			parts = append(parts, ir.Quote(n)+": "+fmt.Sprint(r.Values[i]))
		}
		gotText := "{" + strings.Join(parts, ", ") + "}"
		for _, g := range s.Want.Hyp {
			i := slices.Index(h.Names, g.Name)
			switch v := r.Values[i].(type) {
			case float64:
				want, err := strconv.ParseFloat(g.Value, 64)
				if err != nil {
					return fail("%s is a number, not %s", g.Name, strconv.Quote(g.Value))
				}
				if d := math.Abs(v - want); !(d <= s.Tol) {
					return fail("got %s (%s differs by %s, tolerance %s)", gotText, g.Name, report.Num(d), tol)
				}
			case string:
				if v != g.Value {
					return fail("got %s", gotText)
				}
			}
		}
	default:
		return fail("a query about hypotheses answers with a vector or a hypothesis")
	}
	return nil
}
