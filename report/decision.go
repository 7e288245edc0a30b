package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Decision is the answer to a query about an influence diagram's
// decisions (ir.DecisionQuery): for MEU(), the maximum expected utility
// and every decision's optimal policy; for policy(D), D's; for EU(D=d |
// e), the expected utility of the choice.
type Decision struct {
	Query ir.Query
	Form  ir.DecisionForm
	// Value is the answer's number: the maximum expected utility (MEU),
	// or the expected utility of the choice (EU); unused for policy.
	Value float64
	// Policies are the optimal policies: every decision's, in temporal
	// order (MEU), or the one asked for (policy).
	Policies []Policy
	// LocalOptimum says the strategy was found by single policy updating
	// on a diagram without perfect recall (a LIMID): no change of one
	// policy improves it, but a better strategy may exist.
	LocalOptimum bool
}

// Policy is a decision's policy: the choice for each configuration of its
// information (the variables known when it is taken, in model order),
// the last varying fastest.
type Policy struct {
	Decision string
	Info     []string
	Rows     []PolicyRow
}

// PolicyRow is one configuration of a decision's information and the
// state chosen.
type PolicyRow struct {
	Given  []string // the states of Info, in order
	Choice string
	Index  int // the index of Choice among the decision's states
	// Impossible says the configuration cannot occur (its probability is
	// zero whatever the decisions in it chose, or, for single policy
	// updating, under the strategy found, given the evidence): Choice is
	// arbitrary.
	Impossible bool
}

// Check returns an error of kind ErrNotFinite if the answer's number is
// not finite.
func (d *Decision) Check() error {
	if d.Form != ir.DecisionPolicy && (math.IsNaN(d.Value) || math.IsInf(d.Value, 0)) {
		return fmt.Errorf("%s: %w", d.Query.Head().Text, ErrNotFinite)
	}
	return nil
}

// DecisionText writes a decision answer for people.
func DecisionText(w io.Writer, d *Decision) {
	text := d.Query.Head().Text
	switch d.Form {
	case ir.DecisionMEU:
		fmt.Fprintf(w, "%s = %s\n", text, Num(d.Value))
	case ir.DecisionEU:
		fmt.Fprintf(w, "%s = %s\n", text, Num(d.Value))
	case ir.DecisionPolicy:
		fmt.Fprintf(w, "%s\n", text)
	}
	if d.LocalOptimum {
		fmt.Fprintln(w, "  (single policy updating, the decisions lacking perfect recall: a local optimum, no one policy's change improves it)")
	}
	for _, p := range d.Policies {
		if d.Form == ir.DecisionMEU {
			fmt.Fprintf(w, "  policy(%s):\n", ir.Quote(p.Decision))
		}
		for _, r := range p.Rows {
			if r.Impossible {
				fmt.Fprintf(w, "    %s(impossible)\n", givenText(p.Info, r.Given))
				continue
			}
			fmt.Fprintf(w, "    %s%s\n", givenText(p.Info, r.Given), ir.Quote(r.Choice))
		}
	}
}

func givenText(info, states []string) string {
	if len(info) == 0 {
		return ""
	}
	s := make([]string, len(info))
	for i, v := range info {
		s[i] = ir.Quote(v) + "=" + ir.Quote(states[i])
	}
	return strings.Join(s, ", ") + ": "
}

// DecisionJSON writes a decision answer as one line of JSON: "query",
// then "meu" (MEU) or "eu" (EU), "policy" (MEU and policy: each decision
// by name, a list of {"given": {VAR: STATE, ...}, "choice": STATE}, one
// per configuration of its information; a configuration that cannot
// occur has "impossible": true, its choice being arbitrary) and
// "local_optimum".
func DecisionJSON(w io.Writer, d *Decision) error {
	if err := d.Check(); err != nil {
		return err
	}
	b, err := json.Marshal(DecisionJSONValue(d))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// DecisionJSONValue returns the JSON form of a decision answer.
func DecisionJSONValue(d *Decision) *Object {
	o := &Object{}
	o.Set("query", d.Query.Head().Text)
	switch d.Form {
	case ir.DecisionMEU:
		o.Set("meu", d.Value)
	case ir.DecisionEU:
		o.Set("eu", d.Value)
	}
	if len(d.Policies) > 0 {
		pol := &Object{}
		for _, p := range d.Policies {
			rows := make([]*Object, len(p.Rows))
			for i, r := range p.Rows {
				given := &Object{}
				for j, v := range p.Info {
					given.Set(v, r.Given[j])
				}
				row := &Object{}
				row.Set("given", given)
				row.Set("choice", r.Choice)
				if r.Impossible {
					row.Set("impossible", true)
				}
				rows[i] = row
			}
			pol.Set(p.Decision, rows)
		}
		o.Set("policy", pol)
	}
	o.Set("local_optimum", d.LocalOptimum)
	return o
}
