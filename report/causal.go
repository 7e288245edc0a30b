package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Causal is the answer to a causal question (ir.CausalQuery): an effect
// identified and evaluated on the observed distribution (P on a model
// with unobserved confounders), an estimand without its value
// (identify), the minimal backdoor adjustment sets (adjust), or a
// counterfactual probability (CF).
type Causal struct {
	Query *ir.CausalQuery

	// Identification (effect and identify): whether the effect is
	// identifiable; if so the method ("backdoor", "front-door", "ID",
	// "IDC"), its adjustment set or mediators, the estimand as a formula
	// and as a tree (plain data for JSON); if not the hedge.
	Identifiable bool
	Method       string
	Adjustment   []string
	Estimand     string
	Tree         any
	Hedge        *Hedge

	// Observed says where the observed distribution the estimand was
	// evaluated on came from (effect).
	Observed string

	// Outcomes are the outcome variables; Rows the values, one per
	// configuration of the outcomes that had no state (one row, no
	// states, for a number): an effect's probabilities, or the
	// counterfactual's probability.
	Outcomes []string
	Rows     []CausalRow

	// Sets are the minimal backdoor adjustment sets (adjust), none if no
	// set of observed variables satisfies the criterion.
	Sets [][]string
}

// Hedge is the proof that an effect is not identifiable: two C-forests F'
// ⊂ F with the same roots (Shpitser and Pearl 2006).
type Hedge struct {
	F, FPrime, Roots []string
	Text             string // "F = {…}, F' = {…}"
}

// CausalRow is a configuration of the outcomes and its probability.
type CausalRow struct {
	States []string // the outcomes' states, in order; nil for a number
	P      float64
}

// Check returns an error of kind ErrNotFinite if a probability is not
// finite.
func (c *Causal) Check() error {
	for _, r := range c.Rows {
		if math.IsNaN(r.P) || math.IsInf(r.P, 0) {
			return fmt.Errorf("%s: %w", c.Query.Text, ErrNotFinite)
		}
	}
	return nil
}

// method describes how the effect was identified.
func (c *Causal) method() string {
	set := "{" + strings.Join(quoteAll(c.Adjustment), ", ") + "}"
	switch c.Method {
	case "backdoor":
		return "the backdoor adjustment for " + set
	case "front-door":
		return "the front-door formula through " + set
	case "ID":
		return "the ID algorithm (Shpitser and Pearl)"
	case "IDC":
		return "the IDC algorithm (Shpitser and Pearl)"
	}
	return c.Method
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ir.Quote(n)
	}
	return out
}

// CausalText writes a causal answer for people.
func CausalText(w io.Writer, c *Causal) {
	q := c.Query
	text := q.Text
	switch q.Form {
	case ir.CausalAdjust:
		switch {
		case len(c.Sets) == 0:
			fmt.Fprintf(w, "%s: no set of observed variables satisfies the backdoor criterion\n", text)
		default:
			sets := make([]string, len(c.Sets))
			for i, s := range c.Sets {
				sets[i] = "{" + strings.Join(quoteAll(s), ", ") + "}"
			}
			fmt.Fprintf(w, "%s: minimal backdoor adjustment sets %s\n", text, strings.Join(sets, ", "))
		}
		return
	case ir.CausalCF:
		fmt.Fprintf(w, "%s = %s\n", text, Num(c.Rows[0].P))
		fmt.Fprintln(w, "  (abduction, action and prediction over the exogenous variables: the twin network)")
		return
	case ir.CausalIdentify:
		if !c.Identifiable {
			fmt.Fprintf(w, "%s: not identifiable: hedge %s\n", text, c.Hedge.Text)
			return
		}
		fmt.Fprintf(w, "%s = %s\n", text, c.Estimand)
		fmt.Fprintf(w, "  by %s\n", c.method())
		if len(c.Rows) == 1 {
			fmt.Fprintf(w, "  = %s on the observed distribution of %s\n", Num(c.Rows[0].P), c.Observed)
		}
		return
	}
	if len(c.Rows) == 1 && c.Rows[0].States == nil {
		fmt.Fprintf(w, "%s = %s\n", text, Num(c.Rows[0].P))
	} else {
		fmt.Fprintf(w, "%s\n", text)
		// Columns as a table's: the outcomes, then p, aligned.
		width := make([]int, len(c.Outcomes))
		for i, o := range c.Outcomes {
			width[i] = len([]rune(ir.Quote(o)))
			for _, r := range c.Rows {
				width[i] = max(width[i], len([]rune(ir.Quote(r.States[i]))))
			}
		}
		line := func(cells []string, p string) {
			var b strings.Builder
			b.WriteString("  ")
			for i, cell := range cells {
				b.WriteString(cell + strings.Repeat(" ", width[i]-len([]rune(cell))+2))
			}
			fmt.Fprintf(w, "%s%s\n", b.String(), p)
		}
		line(quoteAll(c.Outcomes), "p")
		for _, r := range c.Rows {
			line(quoteAll(r.States), Num(r.P))
		}
	}
	fmt.Fprintf(w, "  identified by %s: %s\n", c.method(), c.Estimand)
	if c.Observed != "" {
		fmt.Fprintf(w, "  evaluated on the observed distribution of %s\n", c.Observed)
	}
}

// CausalJSON writes a causal answer as one line of JSON (docs/cli.md).
func CausalJSON(w io.Writer, c *Causal) error {
	if err := c.Check(); err != nil {
		return err
	}
	b, err := json.Marshal(CausalJSONValue(c))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// CausalJSONValue returns the JSON form of a causal answer.
func CausalJSONValue(c *Causal) *Object {
	o := &Object{}
	o.Set("query", c.Query.Text)
	switch c.Query.Form {
	case ir.CausalAdjust:
		sets := make([][]string, len(c.Sets))
		for i, s := range c.Sets {
			sets[i] = append([]string{}, s...)
		}
		o.Set("adjustment_sets", sets)
		return o
	case ir.CausalCF:
		o.Set("p", c.Rows[0].P)
		return o
	}
	o.Set("identifiable", c.Identifiable)
	if !c.Identifiable {
		o.Set("hedge", HedgeJSONValue(c.Hedge.F, c.Hedge.FPrime, c.Hedge.Roots))
		return o
	}
	o.Set("method", c.Method)
	if c.Adjustment != nil {
		o.Set("adjustment", nonNil(c.Adjustment))
	}
	o.Set("estimand", c.Estimand)
	o.Set("tree", c.Tree)
	if c.Query.Form == ir.CausalIdentify && len(c.Rows) == 0 {
		return o
	}
	o.Set("observed", c.Observed)
	if len(c.Rows) == 1 && c.Rows[0].States == nil {
		o.Set("p", c.Rows[0].P)
		return o
	}
	o.Set("vars", nonNil(c.Outcomes))
	rows := make([]*Object, len(c.Rows))
	for i, r := range c.Rows {
		row := &Object{}
		row.Set("values", nonNil(r.States))
		row.Set("p", r.P)
		rows[i] = row
	}
	o.Set("rows", rows)
	return o
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// HedgeJSONValue returns the JSON form of a hedge: {"f", "f_prime",
// "roots"}, each a list of names. (An identify answer has it, and so has
// the JSON error of an effect that is not identifiable.)
func HedgeJSONValue(f, fPrime, roots []string) *Object {
	h := &Object{}
	h.Set("f", nonNil(f))
	h.Set("f_prime", nonNil(fPrime))
	h.Set("roots", nonNil(roots))
	return h
}
