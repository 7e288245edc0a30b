package serve

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// keepFindings returns the findings of keep that m has the variable and
// state of, the last for each variable.
func keepFindings(m *ir.Model, keep []Finding) []Finding {
	out := []Finding{}
	for _, f := range keep {
		if _, _, err := resolve(m, f); err != nil {
			continue
		}
		if f.Likelihood != nil {
			f.Likelihood = slices.Clone(f.Likelihood)
		}
		out = slices.DeleteFunc(out, func(g Finding) bool { return g.Var == f.Var })
		out = append(out, f)
	}
	return out
}

// UnknownFindingError is a finding whose variable or state the model does
// not have (the page's evidence is older than the model).
type UnknownFindingError struct{ Finding Finding }

func (e *UnknownFindingError) Error() string {
	return "the model has no state " + ir.Quote(e.Finding.State) + " of a variable " + ir.Quote(e.Finding.Var)
}

// resolve returns the variable of a finding and its state (-1 for a
// likelihood finding, whose likelihoods it checks).
func resolve(m *ir.Model, f Finding) (ir.VarID, int, error) {
	v, ok := m.Lookup(f.Var)
	if !ok || !v.Discrete() {
		return 0, 0, &UnknownFindingError{Finding: f}
	}
	if f.Likelihood != nil {
		if f.State != "" || f.Do || len(f.Likelihood) != len(v.States) {
			return 0, 0, &BadLikelihoodError{Finding: f}
		}
		sum := 0.0
		for _, l := range f.Likelihood {
			if !(l >= 0 && l <= 1) {
				return 0, 0, &BadLikelihoodError{Finding: f}
			}
			sum += l
		}
		if !(sum > 0) {
			return 0, 0, &BadLikelihoodError{Finding: f}
		}
		return v.ID, -1, nil
	}
	s := slices.Index(v.States, f.State)
	if s < 0 {
		return 0, 0, &UnknownFindingError{Finding: f}
	}
	return v.ID, s, nil
}

// BadLikelihoodError is a likelihood finding whose numbers are not one
// per state, in [0, 1] and not all 0: the probabilities of the finding
// given each state, as P(e) reads them.
type BadLikelihoodError struct{ Finding Finding }

func (e *BadLikelihoodError) Error() string {
	return "the likelihoods of " + ir.Quote(e.Finding.Var) + " must be one per state, in [0, 1] and not all 0"
}

// conditions returns the findings as a query's conditions, and the
// query's text: "P(* | a=x, do(b=y))".
func conditions(m *ir.Model, ev []Finding) (ir.Conditions, string, error) {
	var c ir.Conditions
	var parts []string
	seen := map[ir.VarID]bool{}
	for _, f := range ev {
		v, s, err := resolve(m, f)
		if err != nil {
			return c, "", err
		}
		if seen[v] {
			return c, "", &DuplicateFindingError{Var: f.Var}
		}
		seen[v] = true
		if s < 0 {
			c.Soft = append(c.Soft, ir.SoftObs{Var: v, Lambda: slices.Clone(f.Likelihood)})
			ls := make([]string, len(f.Likelihood))
			for i, l := range f.Likelihood {
				ls[i] = ir.FormatFloat(l)
			}
			parts = append(parts, ir.Quote(f.Var)+"~["+strings.Join(ls, ", ")+"]")
			continue
		}
		text := ir.Quote(f.Var) + "=" + ir.Quote(f.State)
		if f.Do {
			c.Do = append(c.Do, ir.Obs{Var: v, State: s})
			parts = append(parts, "do("+text+")")
		} else {
			c.Evidence = append(c.Evidence, ir.Obs{Var: v, State: s})
			parts = append(parts, text)
		}
	}
	if len(parts) == 0 {
		return c, "P(*)", nil
	}
	return c, "P(* | " + strings.Join(parts, ", ") + ")", nil
}

// DuplicateFindingError is evidence that names a variable twice.
type DuplicateFindingError struct{ Var string }

func (e *DuplicateFindingError) Error() string {
	return "the evidence names " + ir.Quote(e.Var) + " twice"
}

// Update returns every variable's marginal given the evidence, and P(e).
// An evidence that the model gives probability 0 is not an error of the
// call: Beliefs.Error says so and the marginals are empty.
func (s *Session) Update(ctx context.Context, ev []Finding) (*Beliefs, error) {
	m, version, err := s.current()
	if err != nil {
		return nil, err
	}
	c, text, err := conditions(m, ev)
	if err != nil {
		return nil, &BadRequestError{Err: err}
	}
	b := &Beliefs{Version: version, Query: text, PE: 1, Beliefs: []Belief{}}
	opt := s.inferOptions(ctx)
	if len(ev) > 0 {
		q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: peText(text)}, Conditions: c}
		res, err := infer.Answer(m, q, opt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			b.Error = errorText(err)
			return b, nil
		}
		e := res.(*infer.Evidence)
		b.PE, b.LogPE = e.P, e.LogP
		if a := approximateOf(res); a != nil {
			b.Approximate = a
			if len(e.ErrorEstimate) > 0 && !math.IsInf(e.ErrorEstimate[0], 0) {
				b.PEError = e.ErrorEstimate[0]
			}
		}
		if b.PE == 0 {
			b.Error = "the evidence is impossible: P(e) = 0"
			b.LogPE = 0
			return b, nil
		}
	}
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: text, Bar: len(ev) > 0}, Conditions: c, Star: true}
	res, err := infer.Answer(m, q, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		b.Error = errorText(err)
		return b, nil
	}
	byVar := map[ir.VarID][]float64{}
	errs := map[ir.VarID][]float64{}
	est := res.Head().ErrorEstimate
	if a := approximateOf(res); a != nil {
		b.Approximate = a
	}
	for _, mg := range res.(*infer.Marginals).Marginals {
		byVar[mg.Var] = mg.P
		// The estimates are in the order the marginals print: one per
		// state, variable after variable.
		if len(est) >= len(mg.P) {
			errs[mg.Var], est = est[:len(mg.P)], est[len(mg.P):]
		}
	}
	observed := map[string]Finding{}
	for _, f := range ev {
		observed[f.Var] = f
	}
	for i, v := range m.Vars {
		bl := Belief{Var: v.Name, P: []float64{}}
		if f, ok := observed[v.Name]; ok && f.Likelihood != nil {
			bl.Likelihood = f.Likelihood
			bl.P = byVar[ir.VarID(i)]
		} else if ok {
			bl.Observed, bl.Do = f.State, f.Do
			bl.P = make([]float64, len(v.States))
			bl.P[slices.Index(v.States, f.State)] = 1
		} else if p, ok := byVar[ir.VarID(i)]; ok {
			bl.P = p
			if b.Approximate != nil {
				bl.Error = finiteErrs(errs[ir.VarID(i)])
			}
		} else if !v.Discrete() {
			bl.X, bl.Density = densityCurve(m, ir.VarID(i), c, opt)
			if comp, ok := mixtureOf(m, ir.VarID(i)); ok && bl.X != nil {
				bl.Components = componentCurves(m, ir.VarID(i), comp, c, byVar[comp], bl.X, opt)
			}
		}
		b.Beliefs = append(b.Beliefs, bl)
	}
	if math.IsInf(b.LogPE, 0) || math.IsNaN(b.LogPE) {
		b.LogPE = 0
	}
	return b, nil
}

// approximateOf returns the mark of an approximate answer, nil for an
// exact one.
func approximateOf(r infer.Result) *Approximate {
	h := r.Head()
	if h.Exact || h.Engine == "" {
		return nil
	}
	why := "chosen by the caller"
	if h.Why != nil {
		why = h.Why.String()
	}
	return &Approximate{Engine: h.Engine, Why: why, Stopped: h.Stopped}
}

// finiteErrs returns errs for JSON, which has no infinity: an error the
// engine cannot bound (+Inf) becomes 1, the widest a probability's can
// be.
func finiteErrs(errs []float64) []float64 {
	out := make([]float64, len(errs))
	for i, e := range errs {
		out[i] = e
		if !(e <= 1) {
			out[i] = 1
		}
	}
	return out
}

// errorText is an answer's error as the page shows it: a positioned
// error's message without the position (the page's question has none).
func errorText(err error) string {
	var e *ir.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// peText is the text of P(e) for the query text of the marginals:
// "P(a=x, do(b=y))".
func peText(text string) string {
	return "P(" + strings.TrimPrefix(text, "P(* | ")
}

// MPE returns the most probable explanation of the evidence.
func (s *Session) MPE(ctx context.Context, ev []Finding) (*MPE, error) {
	m, _, err := s.current()
	if err != nil {
		return nil, err
	}
	c, text, err := conditions(m, ev)
	if err != nil {
		return nil, &BadRequestError{Err: err}
	}
	text = "MPE(" + strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(text, "P(*"), " | "), ")") + ")"
	out := &MPE{Query: text, Assignment: []Finding{}}
	res, err := infer.Answer(m, &ir.MPEQuery{QueryHeader: ir.QueryHeader{Text: text}, Conditions: c}, s.inferOptions(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out.Error = errorText(err)
		return out, nil
	}
	a := res.(*infer.Assignment)
	out.P = a.P
	out.Approximate = approximateOf(res)
	for _, o := range a.Assignment {
		v := m.Vars[o.Var]
		out.Assignment = append(out.Assignment, Finding{Var: v.Name, State: v.States[o.State]})
	}
	return out, nil
}

// Format returns src in pbl fmt's layout, or its syntax error.
func (s *Session) Format(src string) (*Formatted, error) {
	if !s.editable {
		return nil, ErrReadOnly
	}
	if len(src) > maxSource {
		return nil, &TooLargeError{Path: s.path, Size: int64(len(src)), Limit: maxSource}
	}
	out, err := format.Source(s.path, []byte(src))
	if err != nil {
		var l ir.ErrorList
		var e *ir.Error
		if !errors.As(err, &l) && !errors.As(err, &e) {
			return nil, err
		}
		return &Formatted{Source: src, Diagnostics: diagnosticsOf(err)}, nil
	}
	return &Formatted{Source: string(out), Diagnostics: []Diagnostic{}}, nil
}
