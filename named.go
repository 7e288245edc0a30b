package pbl

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// ErrNotInAnswer is the kind of error [Answer.Prob] returns when the
// answer holds no such number: a state that is not in the table, a
// variable the query does not list, or a form of answer without it.
var ErrNotInAnswer = errors.New("not in the answer")

// A State is one variable's state by name, as a query writes it:
// Campfire=true.
type State struct {
	Var   string
	Value string
}

func (s State) String() string { return s.Var + "=" + s.Value }

// A Row is one row of a table answer, by state names.
type Row struct {
	States []State // the query's target variables, in the order written
	Given  []State // the free conditioning variables of P(X | Y), or nil
	P      float64 // P(States | Given, evidence)
	Err    float64 // an approximate answer's error estimate of P (see [Answer.Exact]); 0 for an exact one
}

// A Marginal is one variable's posterior distribution, by state names.
type Marginal struct {
	Var    string
	States []string  // the variable's states, in declaration order
	P      []float64 // P[i] = P(Var = States[i] | evidence)
	Err    []float64 // an approximate answer's error estimate of each P[i]; nil for an exact one
}

// Ask answers one query, written as in a model file, on m with the
// default options: the shortest way from a query's text to its answer.
// Answer reads the result by state names ([Answer.Prob], [Answer.Rows],
// [Answer.Assignment], [Answer.Marginals]).
func Ask(m *ir.Model, query string) (*Answer, error) {
	q, err := ParseQuery(m, query)
	if err != nil {
		return nil, err
	}
	return AnswerQuery(m, q, AnswerOptions{})
}

// states names the states of vars.
func (a *Answer) states(vars []ir.VarID, values []int) []State {
	if len(vars) == 0 {
		return nil
	}
	out := make([]State, len(vars))
	for i, v := range vars {
		x := a.model.Vars[v]
		out[i] = State{Var: x.Name, Value: x.States[values[i]]}
	}
	return out
}

// Rows returns a table answer's rows (P(X | e), P(X, Y | e), P(X | Y)),
// with state names, in the order the text output lists them; nil for any
// other form of answer.
func (a *Answer) Rows() []Row {
	r, ok := a.Infer.(*infer.Table)
	if !ok || a.model == nil {
		return nil
	}
	out := make([]Row, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = Row{States: a.states(r.Vars, row.Values), Given: a.states(r.Given, row.GivenValues), P: row.P, Err: a.errAt(i)}
	}
	return out
}

// Exact reports whether the answer is exact; an approximate one (an
// approximate engine's, docs/approximate.md) has an error estimate per
// number: [Row].Err, [Marginal].Err and [Answer.Err].
func (a *Answer) Exact() bool { return a.Infer == nil || a.Infer.Head().Exact }

// Err returns the error estimate of the one number of an approximate
// answer (P(x | e), P(e), an assignment's probability, a density, bits):
// the half-width of an interval meant to hold the exact value about 95 %
// of the time (+Inf where the engine cannot say); 0 for an exact answer.
func (a *Answer) Err() float64 { return a.errAt(0) }

// errAt returns the error of the i-th number of an approximate answer, 0
// for an exact one.
func (a *Answer) errAt(i int) float64 {
	if a.Infer == nil {
		return 0
	}
	h := a.Infer.Head()
	if h.Exact || i >= len(h.ErrorEstimate) {
		return 0
	}
	return h.ErrorEstimate[i]
}

// Prob returns a probability the answer holds. For one number — P(x | e),
// P(e), and the probability of an MPE or MAP assignment — call it with no
// arguments. For a table, name the row: every target variable's state and,
// for P(X | Y), every free conditioning variable's, as "Var=state" in any
// order:
//
//	a, _ := pbl.Ask(m, "P(Campfire | Storm)")
//	p, err := a.Prob("Campfire=true", "Storm=false")
//
// A row left out because its condition is impossible, a name the answer
// does not list, or arguments that do not fit the form of the answer are
// errors of kind [ErrNotInAnswer].
func (a *Answer) Prob(states ...string) (float64, error) {
	if a.Causal != nil {
		if len(a.Causal.Rows) == 1 && a.Causal.Rows[0].States == nil && len(states) == 0 {
			return a.Causal.Rows[0].P, nil
		}
		return 0, fmt.Errorf("%w: a causal answer's numbers are in Causal.Rows", ErrNotInAnswer)
	}
	if a.Decision != nil {
		return 0, fmt.Errorf("%w: an answer about decisions has no probability (Decision holds its expected utility and policies)", ErrNotInAnswer)
	}
	if a.Infer == nil || a.model == nil {
		return 0, fmt.Errorf("%w: an answer about hypotheses has no single probability (Hypotheses lists them with theirs)", ErrNotInAnswer)
	}
	q := a.Infer.Head().Query.Head()
	var p float64
	switch r := a.Infer.(type) {
	case *infer.Table:
		return a.rowProb(r, states)
	case *infer.Number:
		p = r.P
	case *infer.Evidence:
		p = r.P
	case *infer.Assignment:
		p = r.P
	case *infer.Marginals, *infer.Independence, *infer.Density, *infer.Bits, *infer.Normals:
		if len(states) > 0 {
			return 0, fmt.Errorf("%w: %s is one number; call Prob with no states", ErrNotInAnswer, q.Text)
		}
		return 0, fmt.Errorf("%w: %s has no probability", ErrNotInAnswer, q.Text)
	default:
		panic(fmt.Sprintf("pbl: a result of type %T", r))
	}
	if len(states) > 0 {
		return 0, fmt.Errorf("%w: %s is one number; call Prob with no states", ErrNotInAnswer, q.Text)
	}
	return p, nil
}

// rowProb returns the probability of the row of r that states name.
func (a *Answer) rowProb(r *infer.Table, states []string) (float64, error) {
	want, err := a.rowOf(r, states)
	if err != nil {
		return 0, err
	}
	for _, row := range r.Rows {
		if slices.Equal(row.Values, want[:len(r.Vars)]) && slices.Equal(row.GivenValues, want[len(r.Vars):]) {
			return row.P, nil
		}
	}
	return 0, fmt.Errorf("%w: no row %s in %s (its condition has probability 0)", ErrNotInAnswer, strings.Join(states, ", "), r.Query.Head().Text)
}

// rowOf reads "Var=state" strings into the state indices of a table row:
// the targets' then the free conditioning variables'.
func (a *Answer) rowOf(r *infer.Table, states []string) ([]int, error) {
	vars := append(append([]ir.VarID(nil), r.Vars...), r.Given...)
	row := make([]int, len(vars))
	for i := range row {
		row[i] = -1
	}
	for _, s := range states {
		name, value, ok := strings.Cut(s, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return nil, fmt.Errorf("%w: %q: want Var=state", ErrNotInAnswer, s)
		}
		i := -1
		for j, v := range vars {
			if a.model.Vars[v].Name == name {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("%w: %s is not a variable of the table %s", ErrNotInAnswer, name, r.Query.Head().Text)
		}
		st := a.model.Vars[vars[i]].State(value)
		if st < 0 {
			return nil, fmt.Errorf("%w: %s has no state %q (states %s)", ErrNotInAnswer, name, value, a.model.Vars[vars[i]].Domain())
		}
		if row[i] >= 0 {
			return nil, fmt.Errorf("%w: %s is named twice", ErrNotInAnswer, name)
		}
		row[i] = st
	}
	for i, st := range row {
		if st < 0 {
			return nil, fmt.Errorf("%w: name a state of %s to choose a row of %s", ErrNotInAnswer, a.model.Vars[vars[i]].Name, r.Query.Head().Text)
		}
	}
	return row, nil
}

// Assignment returns the assignment of an MPE or MAP answer by name: for
// MPE every unobserved variable in declaration order, for MAP the MAP
// variables in the order written; nil for any other answer.
func (a *Answer) Assignment() []State {
	r, ok := a.Infer.(*infer.Assignment)
	if !ok || a.model == nil {
		return nil
	}
	out := make([]State, len(r.Assignment))
	for i, o := range r.Assignment {
		x := a.model.Vars[o.Var]
		out[i] = State{Var: x.Name, Value: x.States[o.State]}
	}
	return out
}

// Marginals returns the answer to P(* | e) by name: every unobserved
// discrete variable's posterior, in declaration order; nil for any other
// answer.
func (a *Answer) Marginals() []Marginal {
	r, ok := a.Infer.(*infer.Marginals)
	if !ok || a.model == nil {
		return nil
	}
	out := make([]Marginal, len(r.Marginals))
	k := 0 // the number's index in the result
	for i, mg := range r.Marginals {
		x := a.model.Vars[mg.Var]
		out[i] = Marginal{Var: x.Name, States: x.States, P: mg.P}
		if !a.Exact() {
			out[i].Err = make([]float64, len(mg.P))
			for s := range mg.P {
				out[i].Err[s] = a.errAt(k)
				k++
			}
		}
	}
	return out
}

// A Hypothesis is one hypothesis of an answer about hypotheses given data
// — P(H | D), MAP, ML, MDL or Gibbs of a space or of a variable's states
// — with its probabilities. The likelihood of many rows underflows (1,000
// rows of line_fit.pbl: 4e-610), the logarithms do not.
type Hypothesis struct {
	// Values are the hypothesis's components, in the order of
	// [Answer.HypothesisNames]: a float64 for a parameter of a space, a
	// string for a variable's state or a concept's constraint on an
	// attribute ("?" for any value, "∅" for none).
	Values []any
	// P(h), P(D | h) and P(h | D), and their natural logarithms. A fit of
	// a space with continuous parameters (ML(L | D) for "w in real") has
	// a likelihood only: its prior and posterior are NaN.
	Prior, Likelihood, P                  float64
	LogPrior, LogLikelihood, LogPosterior float64
}

// HypothesisNames returns the names of a hypothesis's components in an
// answer about hypotheses given data: a space's parameters or attributes,
// or the variable whose states are the hypotheses; nil for any other
// answer.
func (a *Answer) HypothesisNames() []string {
	if a.Hyp == nil {
		return nil
	}
	return a.Hyp.Names
}

// Hypotheses returns the hypotheses of an answer about hypotheses given
// data: for P(H | D) those with a non-zero posterior, most probable
// first (at most AnswerOptions.Top of them); for MAP, ML, MDL and Gibbs,
// the one chosen. It returns nil for any other answer, and for a
// classification's answer the hypothesis drawn by Gibbs only (the
// classes' probabilities are in a.Hyp.Classes and a.Hyp.P).
func (a *Answer) Hypotheses() []Hypothesis {
	if a.Hyp == nil {
		return nil
	}
	out := make([]Hypothesis, len(a.Hyp.Hyps))
	for i, r := range a.Hyp.Hyps {
		out[i] = Hypothesis{
			Values:   r.Values,
			Prior:    math.Exp(r.LogPrior),
			P:        math.Exp(r.LogPost),
			LogPrior: r.LogPrior, LogLikelihood: r.LogLik, LogPosterior: r.LogPost,
			Likelihood: math.Exp(r.LogLik),
		}
	}
	return out
}
