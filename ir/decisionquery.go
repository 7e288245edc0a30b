package ir

import (
	"fmt"
	"strconv"
)

// DecisionForm is the form of a query about an influence diagram's
// decisions.
type DecisionForm int

const (
	DecisionMEU    DecisionForm = iota // MEU(): the maximum expected utility and an optimal strategy
	DecisionPolicy                     // policy(D): D's optimal choice for each configuration of its information
	DecisionEU                         // EU(D=d | e): the expected utility of choosing d given e, later decisions optimal
)

// DecisionQuery is MEU(| e), policy(D | e) or EU(D=d | e), asked of a
// model with decisions and utilities (an influence diagram). Decision and
// Choice are set for policy (Choice -1) and EU. The conditions are
// discrete: Evidence, Soft and Do. A decision named in Evidence or Do is
// set to that state; for EU, a variable of D's information named in
// Evidence is observed when D is taken (an earlier decision: chosen so);
// any other chance variable named in Evidence or Soft is a fact known
// before every decision, conditioning the answer, and do(X=x) on a chance
// variable is graph surgery (the root's decide.go gives them meaning).
type DecisionQuery struct {
	QueryHeader
	Conditions
	Form     DecisionForm
	Decision VarID
	Choice   int
}

func (*DecisionQuery) query() {}

// decision lowers MEU(), policy(D) and EU(D=d | e).
func (l *queryLowerer) decision(kind queryKind) Query {
	m, q := l.m, l.q
	if len(m.Decisions()) == 0 || len(m.Utilities) == 0 {
		l.errs = append(l.errs, &Error{Pos: l.at, Err: ErrNotDecision,
			Msg: fmt.Sprintf("%s(...) is asked of an influence diagram: the model needs a decision (decision D: {...}) and a utility (utility U(...) = {...})", kind)})
		return nil
	}
	lq := &DecisionQuery{Choice: -1}
	switch kind {
	case kindMEU:
		if len(q.Targets) > 0 {
			l.errs.Add(pos(q.Targets[0].Pos), "MEU names no variable: it is the maximum expected utility of the whole diagram, as in MEU() or MEU(| A=a)")
			return nil
		}
		lq.Form = DecisionMEU
		return l.decisionGiven(lq, kind)
	case kindPolicy:
		lq.Form = DecisionPolicy
		if len(q.Targets) != 1 {
			l.errs.Add(l.at, "policy takes one decision, as in policy(D) or policy(D | A=a)")
			return nil
		}
	case kindEU:
		lq.Form = DecisionEU
		if len(q.Targets) != 1 {
			l.errs.Add(l.at, "EU takes one decision's choice and optional evidence, as in EU(D=d | A=a)")
			return nil
		}
	}
	t := q.Targets[0]
	if t.Star || t.Group != nil || t.Do != nil || t.Soft != nil {
		l.errs.Add(pos(t.Pos), "%s(...) names a decision, as in %s", kind, map[queryKind]string{kindPolicy: "policy(D)", kindEU: "EU(D=d)"}[kind])
		return nil
	}
	id, ok := l.resolve(t.Name)
	if !ok {
		return nil
	}
	if !m.Vars[id].Decision {
		l.errs = append(l.errs, &Error{Pos: pos(t.Name.Pos), Err: ErrNotDecision,
			Msg: fmt.Sprintf("%s is not a decision: %s(...) names one (declared decision %s: {...})", strconv.Quote(m.Vars[id].Name), kind, Quote(m.Vars[id].Name))})
		return nil
	}
	lq.Decision = id
	l.seen[id], l.role[id] = t, -1
	switch {
	case kind == kindPolicy && t.State != nil:
		l.errs.Add(pos(t.State.Pos), "policy(%s) gives the choice for each configuration of what is known: give no state", Quote(m.Vars[id].Name))
		return nil
	case kind == kindEU && t.State == nil:
		l.errs.Add(pos(t.Pos), "EU(...) is of a choice: give the decision's state, as in EU(%s=%s)", Quote(m.Vars[id].Name), Quote(m.Vars[id].States[0]))
		return nil
	case kind == kindEU:
		s := l.state(id, t)
		if s < 0 {
			return nil
		}
		lq.Choice = s
	}
	return l.decisionGiven(lq, kind)
}

// decisionGiven lowers the conditions of a decision query: states,
// likelihood evidence on chance variables, and do(X=x), all discrete.
func (l *queryLowerer) decisionGiven(lq *DecisionQuery, kind queryKind) Query {
	m := l.m
	l.noGroupsOrStars(l.q.Given)
	l.given(l.q.Given, false)
	if len(l.errs) > 0 {
		return nil
	}
	if len(l.c.Real) > 0 || len(l.c.DoReal) > 0 || len(l.c.Free) > 0 {
		l.errs.Add(l.at, "%s(... | e) takes states of discrete variables: an influence diagram's variables are discrete", kind)
		return nil
	}
	for _, o := range l.c.Soft {
		if v := m.Vars[o.Var]; v.Decision {
			l.errs.Add(l.at, "%s is a decision, chosen, not observed: set it, as in %s=%s, rather than give it likelihood evidence", strconv.Quote(v.Name), Quote(v.Name), Quote(v.States[0]))
			return nil
		}
	}
	lq.QueryHeader, lq.Conditions = l.h, l.c
	return lq
}
