package ir

import (
	"fmt"
	"slices"
	"strings"
)

// WithEvidence returns q with the observations ev added to its evidence,
// as the REPL applies the evidence of a session to every query: P(X | e)
// becomes P(X | e, ev); the probability of evidence P(A=a) becomes the
// conditional P(A=a | ev); MPE(e) becomes MPE(e, ev); MAP(X | e) becomes
// MAP(X | e, ev); indep(A, B | C) is tested given C and the observed
// variables. An observation the query already makes, with the same state,
// is not added again. It is an error, positioned at the variable in the
// query, to give an observed variable another state, to ask about it, or
// to condition on each of its states, to give it likelihood evidence or to
// set it to another state with do(...). q is not changed.
func WithEvidence(m *Model, q Query, ev []Obs) (Query, error) {
	return withEvidence(m, q, ev, inSession)
}

// WithRowEvidence is WithEvidence for the observations of one row of a
// batch of queries (pbl query --batch): its errors say the row observes
// the variable.
func WithRowEvidence(m *Model, q Query, ev []Obs) (Query, error) {
	return withEvidence(m, q, ev, inRow)
}

// An origin says where evidence added to a query comes from, in its
// errors, given the quoted name of the variable observed.
type origin func(name string) string

func inSession(name string) string { return "in this session (:unobserve " + name + " first)" }
func inRow(string) string          { return "in this row of the batch" }

func withEvidence(m *Model, q Query, ev []Obs, from origin) (Query, error) {
	if len(ev) == 0 {
		return q, nil
	}
	if iq, ok := q.(*IndepQuery); ok {
		return indepWithEvidence(m, iq, ev, from)
	}
	var errs ErrorList
	where := func(v VarID) Pos { return mentionPos(q, v) }
	observed := func(o Obs) {
		x := m.Vars[o.Var]
		errs.Add(where(o.Var), "%s is observed as %s=%s %s", Quote(x.Name), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
	}
	out := clone(q)
	joint := jointToNumber(q, out)
	qc, c := conds(q), conds(out)
	asked := askedOf(out)
	var added []Obs
	for _, o := range ev {
		if slices.Contains(asked, o.Var) || slices.Contains(qc.Free, o.Var) ||
			slices.ContainsFunc(qc.Soft, func(s SoftObs) bool { return s.Var == o.Var }) {
			observed(o)
			continue
		}
		if i := slices.IndexFunc(qc.Do, func(d Obs) bool { return d.Var == o.Var }); i >= 0 {
			// do(X=x) observed as x: the intervention decides.
			if d := qc.Do[i]; d.State != o.State {
				x := m.Vars[o.Var]
				errs.Add(where(o.Var), "%s is set to %s by do(...) here but observed as %s=%s %s",
					Quote(x.Name), Quote(x.States[d.State]), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
			}
			continue
		}
		if i := slices.IndexFunc(c.Evidence, func(e Obs) bool { return e.Var == o.Var }); i >= 0 {
			if e := c.Evidence[i]; e.State != o.State {
				x := m.Vars[o.Var]
				errs.Add(where(o.Var), "%s is given %s=%s here but observed as %s=%s %s",
					Quote(x.Name), Quote(x.Name), Quote(x.States[e.State]), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
			}
			continue
		}
		c.Evidence = append(slices.Clip(c.Evidence), o)
		added = append(added, o)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(added) == 0 {
		if joint {
			return q, nil
		}
		return out, nil
	}
	// The text: the observations added before the closing parenthesis.
	parts := make([]string, len(added))
	for i, o := range added {
		x := m.Vars[o.Var]
		parts[i] = Quote(x.Name)
		if o.State >= 0 {
			parts[i] += "=" + Quote(x.States[o.State])
		}
	}
	addText(out, q, parts)
	return out, nil
}

// indepWithEvidence is withEvidence for indep(A, B | C): the observed
// variables join C.
func indepWithEvidence(m *Model, q *IndepQuery, ev []Obs, from origin) (Query, error) {
	var errs ErrorList
	out := *q
	var added []Obs
	for _, o := range ev {
		if slices.Contains(q.A, o.Var) || slices.Contains(q.B, o.Var) {
			x := m.Vars[o.Var]
			errs.Add(mentionPos(q, o.Var), "%s is observed as %s=%s %s", Quote(x.Name), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
			continue
		}
		if !slices.Contains(q.C, o.Var) {
			out.C = append(slices.Clip(out.C), o.Var)
			added = append(added, Obs{Var: o.Var, State: -1})
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(added) == 0 {
		return &out, nil
	}
	parts := make([]string, len(added))
	for i, o := range added {
		parts[i] = Quote(m.Vars[o.Var].Name)
	}
	addText(&out, q, parts)
	return &out, nil
}

// clone returns a copy of q that shares its slices.
func clone(q Query) Query {
	switch q := q.(type) {
	case *ProbQuery:
		o := *q
		return &o
	case *MPEQuery:
		o := *q
		return &o
	case *MAPQuery:
		o := *q
		return &o
	case *IndepQuery:
		o := *q
		return &o
	case *DensityQuery:
		o := *q
		return &o
	case *MLQuery:
		o := *q
		return &o
	case *MDLQuery:
		o := *q
		return &o
	case *GibbsQuery:
		o := *q
		return &o
	case *EntropyQuery:
		o := *q
		return &o
	case *MIQuery:
		o := *q
		return &o
	case *DecisionQuery:
		o := *q
		return &o
	case *CausalQuery:
		o := *q
		return &o
	}
	panic(fmt.Sprintf("ir: unknown query %T", q))
}

// askedOf returns the variables q asks about, which evidence may not
// name.
func askedOf(q Query) []VarID {
	switch q := q.(type) {
	case *ProbQuery:
		return q.Targets
	case *MAPQuery:
		return q.Targets
	case *EntropyQuery:
		return q.Vars
	case *MIQuery:
		return append(slices.Clip(q.A), q.B...)
	case *IndepQuery:
		return append(append(slices.Clip(q.A), q.B...), q.C...)
	case *CausalQuery:
		y, x, z := q.Vars()
		return append(append(y, x...), z...)
	case *DecisionQuery:
		if q.Form == DecisionMEU {
			return nil
		}
		return []VarID{q.Decision}
	case *MPEQuery, *DensityQuery, *MLQuery, *MDLQuery, *GibbsQuery:
		return nil
	}
	panic(fmt.Sprintf("ir: unknown query %T", q))
}

// conds returns q's conditions, or, for a kind that has none, empty ones
// of its own (evidence added to ML(H | D) changes only its text).
func conds(q Query) *Conditions {
	if c := q.Conds(); c != nil {
		return c
	}
	return &Conditions{}
}

// jointToNumber turns out, a copy of q, from the probability of evidence
// P(A=a, B=b) into the number P(A=a, B=b | ...) that it is given more
// observations, and reports whether it did.
func jointToNumber(q, out Query) bool {
	p, ok := q.(*ProbQuery)
	if !ok || p.Form() != ProbEvidence || len(p.Evidence) == 0 {
		return false
	}
	o := out.(*ProbQuery)
	o.Evidence = nil
	for _, e := range p.Evidence {
		o.Targets = append(o.Targets, e.Var)
		o.TargetStates = append(o.TargetStates, e.State)
	}
	return true
}

// WithRealEvidence returns q with the observed values of real variables
// ev added to its real evidence, as the REPL applies a session's
// observations of real variables (:observe Height=170) to every query:
// P(X | e) becomes P(X | e, Height=170), density(x=1) becomes
// density(x=1 | Height=170), MPE and MAP likewise; the probability of
// evidence P(A=a) becomes P(A=a | Height=170); indep(...) is about the
// graph and is unchanged. A value the query already gives is not added
// again; another value for it, or asking for its density, is an error
// positioned at the variable in the query. q is not changed.
func WithRealEvidence(m *Model, q Query, ev []RealObs) (Query, error) {
	return withRealEvidence(m, q, ev, inSession)
}

// WithRowRealEvidence is WithRealEvidence for one row of a batch of
// queries.
func WithRowRealEvidence(m *Model, q Query, ev []RealObs) (Query, error) {
	return withRealEvidence(m, q, ev, inRow)
}

func withRealEvidence(m *Model, q Query, ev []RealObs, from origin) (Query, error) {
	if _, indep := q.(*IndepQuery); len(ev) == 0 || indep {
		return q, nil
	}
	var errs ErrorList
	where := func(v VarID) Pos { return mentionPos(q, v) }
	qc := conds(q)
	var values []RealObs
	if d, ok := q.(*DensityQuery); ok {
		values = d.Values
	}
	var added []RealObs
	for _, o := range ev {
		name := Quote(m.Vars[o.Var].Name)
		if slices.ContainsFunc(values, func(r RealObs) bool { return r.Var == o.Var }) {
			errs.Add(where(o.Var), "%s is observed as %s=%s %s", name, name, FormatFloat(o.Value), from(name))
			continue
		}
		if i := slices.IndexFunc(qc.Real, func(r RealObs) bool { return r.Var == o.Var }); i >= 0 {
			if qc.Real[i].Value != o.Value {
				errs.Add(where(o.Var), "%s is given %s=%s here but observed as %s=%s %s",
					name, name, FormatFloat(qc.Real[i].Value), name, FormatFloat(o.Value), from(name))
			}
			continue
		}
		added = append(added, o)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(added) == 0 {
		return q, nil
	}
	out := clone(q)
	// P(A=a, B=b) given the session's values: the number
	// P(A=a, B=b | values).
	jointToNumber(q, out)
	c := conds(out)
	c.Real = append(slices.Clip(c.Real), added...)
	parts := make([]string, len(added))
	for i, o := range added {
		parts[i] = Quote(m.Vars[o.Var].Name) + "=" + FormatFloat(o.Value)
	}
	addText(out, q, parts)
	return out, nil
}

// addText sets out's text to q's with the observations parts added before
// the closing parenthesis (after a bar, which it adds if q has none, for
// all but MPE), and out.Bar accordingly.
func addText(q2, q Query, parts []string) {
	out := q2.Head()
	text := strings.TrimSuffix(q.Head().Text, ")")
	_, mpe := q.(*MPEQuery)
	switch {
	case mpe && strings.HasSuffix(text, "("), out.Bar && strings.HasSuffix(text, "| "):
	case mpe, out.Bar:
		text += ", "
	case strings.HasSuffix(text, "("):
		text += "| "
	default:
		text += " | "
	}
	out.Text = text + strings.Join(parts, ", ") + ")"
	out.Bar = out.Bar || !mpe
}

// mentionPos returns where q first names v, or q's own position.
func mentionPos(q Query, v VarID) Pos {
	h := q.Head()
	for _, mt := range h.Mentions {
		if mt.Var == v {
			return mt.Pos
		}
	}
	return h.Pos
}
