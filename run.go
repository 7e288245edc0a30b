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
	// Style is how approximate answers are printed (the names of the
	// limits their reason gives); the zero value is the library's.
	Style report.Style
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
				if err := a.JSONStyle(w, m, opt.Style); err != nil {
					fails = append(fails, asError(s.Pos, err))
				}
				continue
			}
			if !first {
				fmt.Fprintln(w)
			}
			first = false
			a.TextStyle(w, m, opt.Style)
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
func Check(m *ir.Model, s *ir.ExpectStmt, res infer.Result) *ir.Error {
	fail := func(format string, args ...any) *ir.Error {
		return &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("expect %s == %s: ", s.Query.Head().Text, s.Want.Text) + fmt.Sprintf(format, args...)}
	}
	tol := ir.FormatFloat(s.Tol)
	v := valueOf(res)
	switch s.Want.Kind {
	case ir.ExpectBool:
		if v.truth != s.Want.Bool {
			return fail("got %t", v.truth)
		}
	case ir.ExpectAssign:
		got := make(map[ir.VarID]int, len(v.assign))
		for _, o := range v.assign {
			got[o.Var] = o.State
		}
		same := len(got) == len(s.Want.Assign)
		for _, o := range s.Want.Assign {
			st, ok := got[o.Var]
			same = same && ok && st == o.State
		}
		if !same {
			return fail("got %s", assignText(m, v.assign))
		}
	case ir.ExpectNumber:
		want, got := s.Want.Numbers[0], v.number
		if d := math.Abs(got - want); !(d <= s.Tol+v.err(0)) {
			return fail("got %s%s (difference %s, tolerance %s)", ir.FormatFloat(got), v.pm(0), report.Num(d), tol)
		}
	case ir.ExpectVector:
		got := v.vector
		if len(got) != len(s.Want.Numbers) {
			return fail("got %s %s, expected %d", ir.Plural(len(got), "number"), vectorText(got), len(s.Want.Numbers))
		}
		worst, at := 0.0, -1
		for i, x := range got {
			d := math.Abs(x - s.Want.Numbers[i])
			if !(d <= s.Tol+v.err(i)) && (at < 0 || !(d <= worst)) {
				worst, at = d, i
			}
		}
		if at >= 0 {
			return fail("got %s (largest difference %s at entry %d%s, tolerance %s)", vectorText(got), report.Num(worst), at+1, v.pm(at), tol)
		}
	}
	return nil
}

// value is what an expectation compares in a result.
type value struct {
	number float64   // the one number: P(x | e), P(e), an assignment's probability, a density, bits
	vector []float64 // a table's rows or every marginal, in printed order
	assign []ir.Obs  // an MPE or MAP assignment
	truth  bool      // indep
	errs   []float64 // an approximate answer's error of each number (Header.ErrorEstimate), nil for an exact one
}

// err returns the error of the i-th number of an approximate answer, 0 for
// an exact one: an expectation holds within its tolerance plus the error.
func (v value) err(i int) float64 {
	if i < len(v.errs) {
		return v.errs[i]
	}
	return 0
}

// pm returns " ± err" for an approximate answer's i-th number, "" for an
// exact one.
func (v value) pm(i int) string {
	if v.errs == nil {
		return ""
	}
	return " ± " + report.ErrText(v.err(i)) + " (approximate)"
}

// valueOf returns the value of res that an expectation compares: the one
// switch on the kinds of result in this file.
func valueOf(res infer.Result) value {
	var v value
	if h := res.Head(); !h.Exact && h.Engine != "" {
		v.errs = h.ErrorEstimate
	}
	switch r := res.(type) {
	case *infer.Number:
		v.number = r.P
	case *infer.Evidence:
		v.number = r.P
	case *infer.Assignment:
		v.number, v.assign = r.P, r.Assignment
	case *infer.Density:
		v.number = r.Density
	case *infer.Bits:
		v.number = r.Bits
	case *infer.Independence:
		v.truth = r.Independent
	case *infer.Table:
		for _, row := range r.Rows {
			v.vector = append(v.vector, row.P)
		}
	case *infer.Marginals:
		for _, mg := range r.Marginals {
			v.vector = append(v.vector, mg.P...)
		}
	case *infer.Normals:
		v.vector = r.Mean() // the posterior means, as P(X, Y | e) of real X, Y prints them
	default:
		panic(fmt.Sprintf("pbl: a result of type %T", r))
	}
	return v
}

// ResultNumbers returns the numbers of a table or marginals result in the
// order they are printed: the rows' probabilities, or every variable's
// marginal in turn; for the posterior of real variables, their means; nil
// for any other result.
func ResultNumbers(res infer.Result) []float64 { return valueOf(res).vector }

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
// (numbers within the tolerance, states exactly); an answer about
// decisions by its expected utility (MEU, EU) or its policy's choices,
// as the numbers of the states chosen (from 0), in printed order.
func CheckAnswer(m *ir.Model, s *ir.ExpectStmt, a *Answer) *ir.Error {
	if a.Decision != nil {
		return checkDecision(s, a.Decision)
	}
	if a.Causal != nil {
		return checkCausal(s, a.Causal)
	}
	if a.Hyp == nil {
		return Check(m, s, a.Infer)
	}
	h := a.Hyp
	fail := func(format string, args ...any) *ir.Error {
		return &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("expect %s == %s: ", s.Query.Head().Text, s.Want.Text) + fmt.Sprintf(format, args...)}
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

// checkDecision checks an answer about decisions against an expectation.
func checkDecision(s *ir.ExpectStmt, d *report.Decision) *ir.Error {
	got := []float64{d.Value}
	if d.Form == ir.DecisionPolicy {
		got = nil
		for _, p := range d.Policies {
			for _, r := range p.Rows {
				got = append(got, float64(r.Index))
			}
		}
	}
	fail := func(format string, args ...any) *ir.Error {
		return &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("expect %s == %s: ", s.Query.Head().Text, s.Want.Text) + fmt.Sprintf(format, args...)}
	}
	if len(got) != len(s.Want.Numbers) {
		return fail("got %s %s, expected %d", ir.Plural(len(got), "number"), vectorText(got), len(s.Want.Numbers))
	}
	for i, x := range got {
		if diff := math.Abs(x - s.Want.Numbers[i]); !(diff <= s.Tol) {
			return fail("got %s (difference %s at entry %d, tolerance %s)", vectorText(got), report.Num(diff), i+1, ir.FormatFloat(s.Tol))
		}
	}
	return nil
}

// checkCausal checks a causal answer against an expectation: identify by
// whether the effect is identifiable, adjust by whether some set
// satisfies the backdoor criterion, an effect or counterfactual by its
// probabilities in printed order.
func checkCausal(s *ir.ExpectStmt, c *report.Causal) *ir.Error {
	fail := func(format string, args ...any) *ir.Error {
		return &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("expect %s == %s: ", s.Query.Head().Text, s.Want.Text) + fmt.Sprintf(format, args...)}
	}
	switch c.Query.Form {
	case ir.CausalIdentify:
		if s.Want.Kind == ir.ExpectNumber {
			break // the estimand's value
		}
		if c.Identifiable != s.Want.Bool {
			return fail("got %t", c.Identifiable)
		}
		return nil
	case ir.CausalAdjust:
		if got := len(c.Sets) > 0; got != s.Want.Bool {
			return fail("got %t", got)
		}
		return nil
	}
	got := make([]float64, len(c.Rows))
	for i, r := range c.Rows {
		got[i] = r.P
	}
	if len(got) != len(s.Want.Numbers) {
		return fail("got %s %s, expected %d", ir.Plural(len(got), "number"), vectorText(got), len(s.Want.Numbers))
	}
	for i, x := range got {
		if diff := math.Abs(x - s.Want.Numbers[i]); !(diff <= s.Tol) {
			return fail("got %s (difference %s at entry %d, tolerance %s)", vectorText(got), report.Num(diff), i+1, ir.FormatFloat(s.Tol))
		}
	}
	return nil
}
