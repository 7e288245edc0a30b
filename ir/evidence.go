package ir

import (
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
func (q *Query) WithEvidence(m *Model, ev []Obs) (*Query, error) {
	return q.withEvidence(m, ev, inSession)
}

// WithRowEvidence is WithEvidence for the observations of one row of a
// batch of queries (pbl query --batch): its errors say the row observes
// the variable.
func (q *Query) WithRowEvidence(m *Model, ev []Obs) (*Query, error) {
	return q.withEvidence(m, ev, inRow)
}

// An origin says where evidence added to a query comes from, in its
// errors, given the quoted name of the variable observed.
type origin func(name string) string

func inSession(name string) string { return "in this session (:unobserve " + name + " first)" }
func inRow(string) string          { return "in this row of the batch" }

func (q *Query) withEvidence(m *Model, ev []Obs, from origin) (*Query, error) {
	if len(ev) == 0 {
		return q, nil
	}
	var errs ErrorList
	where := q.mentionPos
	observed := func(o Obs) {
		x := m.Vars[o.Var]
		errs.Add(where(o.Var), "%s is observed as %s=%s %s", Quote(x.Name), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
	}
	out := *q
	joint := q.Kind == Prob && q.Form() == FormEvidence && len(q.Evidence) > 0
	if joint {
		// P(A=a, B=b) asks about A and B: given the session's
		// observations it is the number P(A=a, B=b | ev).
		out.Evidence = nil
		for _, o := range q.Evidence {
			out.Targets = append(out.Targets, o.Var)
			out.TargetStates = append(out.TargetStates, o.State)
		}
	}
	var added []Obs
	for _, o := range ev {
		switch {
		case q.Kind == Indep:
			if slices.Contains(q.A, o.Var) || slices.Contains(q.B, o.Var) {
				observed(o)
				continue
			}
			if !slices.Contains(q.C, o.Var) {
				out.C = append(slices.Clip(out.C), o.Var)
				added = append(added, Obs{Var: o.Var, State: -1})
			}
			continue
		case slices.Contains(out.Targets, o.Var), slices.Contains(q.Free, o.Var),
			slices.ContainsFunc(q.Soft, func(s SoftObs) bool { return s.Var == o.Var }):
			observed(o)
			continue
		}
		if i := slices.IndexFunc(q.Do, func(d Obs) bool { return d.Var == o.Var }); i >= 0 {
			// do(X=x) observed as x: the intervention decides.
			if d := q.Do[i]; d.State != o.State {
				x := m.Vars[o.Var]
				errs.Add(where(o.Var), "%s is set to %s by do(...) here but observed as %s=%s %s",
					Quote(x.Name), Quote(x.States[d.State]), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
			}
			continue
		}
		if i := slices.IndexFunc(out.Evidence, func(e Obs) bool { return e.Var == o.Var }); i >= 0 {
			if e := out.Evidence[i]; e.State != o.State {
				x := m.Vars[o.Var]
				errs.Add(where(o.Var), "%s is given %s=%s here but observed as %s=%s %s",
					Quote(x.Name), Quote(x.Name), Quote(x.States[e.State]), Quote(x.Name), Quote(x.States[o.State]), from(Quote(x.Name)))
			}
			continue
		}
		out.Evidence = append(slices.Clip(out.Evidence), o)
		added = append(added, o)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(added) == 0 {
		if joint {
			return q, nil
		}
		return &out, nil
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
	out.addText(q, parts)
	return &out, nil
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
func (q *Query) WithRealEvidence(m *Model, ev []RealObs) (*Query, error) {
	return q.withRealEvidence(m, ev, inSession)
}

// WithRowRealEvidence is WithRealEvidence for one row of a batch of
// queries.
func (q *Query) WithRowRealEvidence(m *Model, ev []RealObs) (*Query, error) {
	return q.withRealEvidence(m, ev, inRow)
}

func (q *Query) withRealEvidence(m *Model, ev []RealObs, from origin) (*Query, error) {
	if len(ev) == 0 || q.Kind == Indep {
		return q, nil
	}
	var errs ErrorList
	where := q.mentionPos
	out := *q
	var added []RealObs
	for _, o := range ev {
		name := Quote(m.Vars[o.Var].Name)
		if slices.ContainsFunc(q.Values, func(r RealObs) bool { return r.Var == o.Var }) {
			errs.Add(where(o.Var), "%s is observed as %s=%s %s", name, name, FormatFloat(o.Value), from(name))
			continue
		}
		if i := slices.IndexFunc(q.Real, func(r RealObs) bool { return r.Var == o.Var }); i >= 0 {
			if q.Real[i].Value != o.Value {
				errs.Add(where(o.Var), "%s is given %s=%s here but observed as %s=%s %s",
					name, name, FormatFloat(q.Real[i].Value), name, FormatFloat(o.Value), from(name))
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
	if q.Kind == Prob && q.Form() == FormEvidence && len(q.Evidence) > 0 {
		// P(A=a, B=b) given the session's values: the number
		// P(A=a, B=b | values).
		out.Evidence = nil
		for _, o := range q.Evidence {
			out.Targets = append(out.Targets, o.Var)
			out.TargetStates = append(out.TargetStates, o.State)
		}
	}
	out.Real = append(slices.Clip(out.Real), added...)
	parts := make([]string, len(added))
	for i, o := range added {
		parts[i] = Quote(m.Vars[o.Var].Name) + "=" + FormatFloat(o.Value)
	}
	out.addText(q, parts)
	return &out, nil
}

// addText sets out's text to q's with the observations parts added before
// the closing parenthesis (after a bar, which it adds if q has none, for
// all but MPE), and out.Bar accordingly.
func (out *Query) addText(q *Query, parts []string) {
	text := strings.TrimSuffix(q.Text, ")")
	switch {
	case q.Kind == MPE && strings.HasSuffix(text, "("), out.Bar && strings.HasSuffix(text, "| "):
	case q.Kind == MPE, out.Bar:
		text += ", "
	case strings.HasSuffix(text, "("):
		text += "| "
	default:
		text += " | "
	}
	out.Text = text + strings.Join(parts, ", ") + ")"
	out.Bar = out.Bar || q.Kind != MPE
}

// mentionPos returns where q first names v, or q's own position.
func (q *Query) mentionPos(v VarID) Pos {
	for _, mt := range q.Mentions {
		if mt.Var == v {
			return mt.Pos
		}
	}
	return q.Pos
}
