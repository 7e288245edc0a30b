package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Hyp is the answer to a query about hypotheses given data
// (ir.HypOf), in the form the commands print: the posterior over a
// space, the MAP, ML or MDL hypothesis, a Gibbs draw, or a new
// instance's classification.
type Hyp struct {
	Query ir.Query
	Names []string // the components of a hypothesis: parameters, attributes, or the variable whose states the hypotheses are
	Total int      // the number of hypotheses in the space
	// Support is the number of hypotheses with a non-zero posterior (the
	// version space's size for a concept space).
	Support int
	// Hyps: for P(H | D), the hypotheses with a non-zero posterior,
	// highest first, at most the top K asked for; for MAP, ML, MDL and
	// Gibbs, the one chosen.
	Hyps []HypRow
	// MDL: the description lengths of the chosen hypothesis, in bits.
	BitsH, BitsD float64
	// A concept space's P(H | D): the version space's boundaries, its
	// most specific (S) and most general (G) members.
	S, G []HypRow
	// A classification: the target's name, the values it may take, and
	// their probabilities (Bayes optimal), or the drawn hypothesis's
	// class with probability 1 (Gibbs; Hyps holds the hypothesis drawn).
	Target  string
	Classes []string
	P       []float64
	// ML of a space with continuous parameters found iteratively (the
	// sigmoid unit): the cross-entropy after each iteration.
	Trace []float64
	// Continuous is set when the space's parameters are continuous (a fit,
	// not a search of a grid): Total and Support mean nothing.
	Continuous bool
	// NotConverged: an iterative fit (Trace) stopped at its iteration
	// limit with the weights still moving: they are not yet the maximum.
	NotConverged bool
}

// ErrNotFinite is the kind of the error Check and HypJSON return for an
// answer holding a number that is NaN or infinite where it must be
// finite: a bug upstream, reported cleanly instead of printed.
var ErrNotFinite = errors.New("not a finite number")

// Check returns an error whose kind is ErrNotFinite when a number of h
// that must be finite is not: a parameter's value, a class probability,
// a description length, a cross-entropy, or a log prior, likelihood or
// posterior that is NaN or +Inf (−Inf is an impossible hypothesis).
func (h *Hyp) Check() error {
	bad := func(what string, x float64) error {
		return fmt.Errorf("report: %s of %s is %v: %w", what, h.Query.Head().Text, x, ErrNotFinite)
	}
	notLog := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 1) }
	rows := [][]HypRow{h.Hyps, h.S, h.G}
	for _, rs := range rows {
		for i := range rs {
			r := &rs[i]
			for k, v := range r.Values {
				if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
					name := "a parameter"
					if k < len(h.Names) {
						name = h.Names[k]
					}
					return bad("the value of "+name, x)
				}
			}
			switch {
			case notLog(r.LogLik):
				return bad("ln P(D|h)", r.LogLik)
			case !h.Continuous && notLog(r.LogPrior):
				return bad("ln P(h)", r.LogPrior)
			case !h.Continuous && notLog(r.LogPost):
				return bad("ln P(h|D)", r.LogPost)
			}
		}
	}
	for _, p := range h.P {
		if !(p >= 0 && p <= 1) {
			return bad("a probability", p)
		}
	}
	for _, b := range []float64{h.BitsH, h.BitsD} {
		if math.IsNaN(b) {
			return bad("a description length", b)
		}
	}
	for _, e := range h.Trace {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return bad("a cross-entropy", e)
		}
	}
	return nil
}

// HypRow is one hypothesis: its components' values (float64 for a
// parameter, string for a state or a concept's constraint, ? or ∅), and
// its natural-log prior, likelihood and posterior.
type HypRow struct {
	Values                    []any
	LogPrior, LogLik, LogPost float64
}

func (h *HypRow) text() []string {
	out := make([]string, len(h.Values))
	for i, v := range h.Values {
		switch v := v.(type) {
		case float64:
			out[i] = strconv.FormatFloat(v, 'g', -1, 64)
		case string:
			out[i] = v
		}
	}
	return out
}

// logNum writes exp(x) for text: as Num where it is a normal float64,
// else in decimal from its log (a likelihood of 1,000 rows underflows).
func logNum(x float64) string {
	if math.IsInf(x, -1) {
		return "0"
	}
	return NumDensity(math.Exp(x), x)
}

// kind says which question about hypotheses h answers: the posterior
// P(H | D) (or a Bayes optimal classification), the MDL hypothesis, or a
// Gibbs draw; none of them for MAP and ML.
func (h *Hyp) kind() (prob, mdl, gibbs bool) {
	switch q := h.Query.(type) {
	case *ir.ProbQuery:
		return true, false, false
	case *ir.MDLQuery:
		return false, true, false
	case *ir.GibbsQuery:
		return false, false, true
	case *ir.MAPQuery, *ir.MLQuery:
		return false, false, false
	default:
		panic(fmt.Sprintf("report: %T is not a query about hypotheses", q))
	}
}

// HypText writes a hypothesis answer for people.
func HypText(w io.Writer, h *Hyp) {
	q := h.Query.Head()
	prob, mdl, gibbs := h.kind()
	switch {
	case h.Classes != nil:
		fmt.Fprintln(w, q.Text)
		var t Table
		t.Add("  "+h.Target, "p")
		for i, c := range h.Classes {
			t.Add("  "+c, Num(h.P[i]))
		}
		t.Write(w)
		if gibbs && len(h.Hyps) == 1 {
			fmt.Fprintf(w, "  (by the hypothesis drawn: %s)\n", assignText(h.Names, &h.Hyps[0]))
		}
		return
	case prob:
		if h.Continuous {
			fmt.Fprintf(w, "%s\n", q.Text)
			return
		}
		fmt.Fprintf(w, "%s: %s, %s with non-zero posterior", q.Text, Plural(h.Total, "hypothesis", "hypotheses"), strings.TrimSuffix(Plural(h.Support, "", ""), " "))
		if len(h.Hyps) < h.Support {
			fmt.Fprintf(w, "; the %d most probable", len(h.Hyps))
		}
		fmt.Fprintln(w)
		var t Table
		head := []string{}
		for _, n := range h.Names {
			head = append(head, n)
		}
		head = append(head, "P(h)", "P(D|h)", "P(D|h)P(h)", "P(h|D)")
		head[0] = "  " + head[0]
		t.Add(head...)
		for i := range h.Hyps {
			r := &h.Hyps[i]
			cells := append(r.text(), logNum(r.LogPrior), logNum(r.LogLik), logNum(r.LogPrior+r.LogLik), logNum(r.LogPost))
			cells[0] = "  " + cells[0]
			t.Add(cells...)
		}
		t.Write(w)
		for _, b := range []struct {
			name string
			rows []HypRow
		}{{"S (most specific)", h.S}, {"G (most general)", h.G}} {
			if b.rows == nil {
				continue
			}
			var parts []string
			for i := range b.rows {
				parts = append(parts, "⟨"+strings.Join(b.rows[i].text(), ", ")+"⟩")
			}
			fmt.Fprintf(w, "  %s: %s\n", b.name, strings.Join(parts, ", "))
		}
		return
	}
	r := &h.Hyps[0]
	fmt.Fprintf(w, "%s: %s\n", q.Text, assignText(h.Names, r))
	switch {
	case mdl:
		bh, bd := unsignedZero(h.BitsH), unsignedZero(h.BitsD)
		fmt.Fprintf(w, "  L(h) = %s bits, L(D|h) = %s bits, L(h) + L(D|h) = %s bits\n", Num(bh), Num(bd), Num(bh+bd))
	case h.Continuous:
		fmt.Fprintf(w, "  ln P(D|h) = %s\n", Num(r.LogLik))
		if n := len(h.Trace); n > 0 {
			fmt.Fprintf(w, "  %s of gradient ascent; cross-entropy %s\n", Plural(n-1, "iteration", "iterations"), Num(h.Trace[n-1]))
			if h.NotConverged {
				fmt.Fprintf(w, "  not converged: the weights still move after %s, so they are not a maximum\n", Plural(n-1, "iteration", "iterations"))
			}
		}
	default:
		fmt.Fprintf(w, "  P(h) = %s, P(D|h) = %s, P(D|h)P(h) = %s, P(h|D) = %s, ln P(D|h) = %s\n",
			logNum(r.LogPrior), logNum(r.LogLik), logNum(r.LogPrior+r.LogLik), logNum(r.LogPost), Num(r.LogLik))
	}
}

func assignText(names []string, r *HypRow) string {
	vs := r.text()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " = " + vs[i]
	}
	return strings.Join(parts, ", ")
}

// Plural returns "1 hypothesis" or "2 hypotheses", the count with thousands
// separators.
func Plural(n int, one, many string) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n == 1 {
		return s + " " + one
	}
	return s + " " + many
}

// HypJSON writes a hypothesis answer as one line of JSON, in the schema
// docs/cli.md documents.
func HypJSON(w io.Writer, h *Hyp) error {
	if err := h.Check(); err != nil {
		return err
	}
	b, err := json.Marshal(HypJSONValue(h))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// logJSON is a natural log for JSON: null for −Inf (an impossible
// hypothesis), else the number.
func logJSON(x float64) any {
	if math.IsInf(x, -1) {
		return nil
	}
	return Float(unsignedZero(x))
}

func (h *Hyp) object(r *HypRow) *Object {
	o := &Object{}
	for i, n := range h.Names {
		switch v := r.Values[i].(type) {
		case float64:
			o.Set(n, Float(v))
		default:
			o.Set(n, v)
		}
	}
	return o
}

// bitsJSON is a description length for JSON: null where it is infinite.
func bitsJSON(b float64) any {
	if math.IsInf(b, 0) || math.IsNaN(b) {
		return nil
	}
	return Float(b)
}

// HypJSONValue returns the JSON form of a hypothesis answer.
func HypJSONValue(h *Hyp) *Object {
	q := h.Query.Head()
	hq := ir.HypOf(h.Query)
	prob, mdl, gibbs := h.kind()
	o := &Object{}
	o.Set("query", q.Text)
	switch {
	case h.Classes != nil:
		o.Set("vars", []string{h.Target})
		o.Set("given", []string{})
		ev := &Object{}
		for _, g := range hq.Instance {
			if x, err := strconv.ParseFloat(g.Value, 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) && hq.Space.Concept == nil {
				ev.Set(g.Name, Float(x))
			} else {
				ev.Set(g.Name, g.Value)
			}
		}
		o.Set("evidence", ev)
		rows := make([]*Object, len(h.Classes))
		for i, c := range h.Classes {
			ro := &Object{}
			ro.Set("values", []string{c})
			ro.Set("given_values", []string{})
			ro.Set("p", Float(h.P[i]))
			rows[i] = ro
		}
		o.Set("rows", rows)
		if gibbs && len(h.Hyps) == 1 {
			o.Set("h", h.object(&h.Hyps[0]))
		}
		return o
	case prob:
		o.Set("support", h.Support)
		hs := make([]*Object, len(h.Hyps))
		for i := range h.Hyps {
			r := &h.Hyps[i]
			ho := &Object{}
			ho.Set("h", h.object(r))
			ho.Set("log_prior", logJSON(r.LogPrior))
			ho.Set("log_likelihood", logJSON(r.LogLik))
			ho.Set("posterior", probLog{math.Exp(r.LogPost), r.LogPost})
			hs[i] = ho
		}
		o.Set("hypotheses", hs)
		if h.S != nil || h.G != nil {
			for _, b := range []struct {
				key  string
				rows []HypRow
			}{{"s", h.S}, {"g", h.G}} {
				list := make([]*Object, len(b.rows))
				for i := range b.rows {
					list[i] = h.object(&b.rows[i])
				}
				o.Set(b.key, list)
			}
		}
		return o
	}
	r := &h.Hyps[0]
	o.Set("h", h.object(r))
	if h.Continuous {
		o.Set("posterior", nil)
	} else {
		o.Set("posterior", probLog{math.Exp(r.LogPost), r.LogPost})
	}
	o.Set("log_likelihood", logJSON(r.LogLik))
	bitsH, bitsD := h.BitsH, h.BitsD
	if !mdl {
		bitsH, bitsD = -r.LogPrior/math.Ln2, -r.LogLik/math.Ln2
	}
	bitsH, bitsD = unsignedZero(bitsH), unsignedZero(bitsD)
	if h.Continuous {
		o.Set("bits_h", nil)
	} else {
		o.Set("bits_h", bitsJSON(bitsH))
	}
	o.Set("bits_d_given_h", bitsJSON(bitsD))
	if h.Trace != nil {
		o.Set("converged", !h.NotConverged)
		tr := make([]Float, len(h.Trace))
		for i, x := range h.Trace {
			tr[i] = Float(x)
		}
		o.Set("cross_entropy", tr)
	}
	return o
}

// unsignedZero returns x, with -0 (a certain hypothesis's −log2 1) made 0:
// a length of "-0 bits" is no length anyone writes.
func unsignedZero(x float64) float64 {
	if x == 0 {
		return 0
	}
	return x
}
