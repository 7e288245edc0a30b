package ir

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// HypQuery is a query about hypotheses given data, the Hyp of a
// [ProbQuery], [MAPQuery], [MLQuery], [MDLQuery] or [GibbsQuery]: the
// posterior P(H | D) (a ProbQuery), the MAP, ML and MDL hypotheses, a Gibbs
// draw, or the classification of a new instance, Bayes optimal
// (P(EnjoySport | D, Sky=sunny, ...)) or by a Gibbs draw.
type HypQuery struct {
	// Space is the space asked about; nil when the hypotheses are the
	// states of a discrete variable of the model, Var, and each row of
	// Data an independent observation of the other variables (Mitchell's
	// cancer test: P(H | D) ∝ P(H) Π_rows P(row | H)).
	Space *Space
	Var   VarID
	Data  *DataTable

	// Classify: the instance's Target (a concept's target variable, or a
	// column a space observes as bernoulli) is asked for, given the
	// instance's other values, as written.
	Classify bool
	Target   string
	Instance []Given
}

// Given is a name's value in a query, as written (a state, or a number).
type Given struct {
	Pos   Pos
	Name  string
	Value string
}

// dataTerm returns the data table a query's given term names, if it is a
// bare name of a data set that is not a variable.
func dataTerm(m *Model, t *grammar.Term) *DataTable {
	if t.Star || t.Group != nil || t.Name == nil || t.State != nil {
		return nil
	}
	if _, isVar := m.byName[t.Name.Text()]; isVar {
		return nil
	}
	for _, d := range m.Tables {
		if d.Name == t.Name.Text() {
			return d
		}
	}
	return nil
}

// spaceTerm returns the space a query's given term names, if it is a bare
// name of a space.
func spaceTerm(m *Model, t *grammar.Term) *Space {
	if t.Star || t.Group != nil || t.Name == nil || t.State != nil {
		return nil
	}
	for _, s := range m.Spaces {
		if s.Name == t.Name.Text() {
			return s
		}
	}
	return nil
}

// isHypQuery reports whether q is about hypotheses given data: ML, MDL
// and Gibbs always are; P and MAP are when a data set is given.
func isHypQuery(m *Model, q *grammar.Query) bool {
	switch q.Kind {
	case "ML", "MDL", "Gibbs":
		return true
	case "P", "MAP":
		for _, t := range q.Given {
			if dataTerm(m, t) != nil {
				return true
			}
		}
		// P(H), P(H | E): a space (or what a space predicts), asked about
		// without its data, is told to give them, not that it is no
		// variable.
		for _, t := range q.Targets {
			if t.Name == nil {
				continue
			}
			name := t.Name.Text()
			if _, isVar := m.byName[name]; isVar {
				continue
			}
			for _, s := range m.Spaces {
				if s.Name == name || spaceTargets(m, s, name) {
					return true
				}
			}
		}
	}
	return false
}

// noDataMsg says that a query about hypotheses names no data set: with
// the name the user perhaps meant for one (P(H | E) when the data are D),
// or the data sets there are.
func noDataMsg(m *Model, q *grammar.Query, example string) string {
	msg := q.Kind + "(...) asks about hypotheses given data, as in " + example
	if len(m.Tables) == 0 {
		return msg + ": declare the data, data D = \"file.csv\""
	}
	names := make([]string, len(m.Tables))
	for i, t := range m.Tables {
		names[i] = t.Name
	}
	for _, t := range q.Given {
		if t.Star || t.Group != nil || t.Name == nil || t.State != nil {
			continue
		}
		if _, isVar := m.byName[t.Name.Text()]; isVar {
			continue
		}
		if h := spell.Nearest(t.Name.Text(), names); h != "" {
			return msg + ": the model has no data set " + strconv.Quote(t.Name.Text()) + " (did you mean " + strconv.Quote(h) + "?)"
		}
	}
	return msg + " (the data sets: " + strings.Join(names, ", ") + ")"
}

// lowerHypQuery lowers a query about hypotheses given data.
func lowerHypQuery(m *Model, q *grammar.Query, kind queryKind, lq QueryHeader) (Query, ErrorList) {
	var errs ErrorList
	at := lq.Pos
	h := &HypQuery{}
	example := q.Kind + "(H | D)"
	if len(q.Targets) == 1 && q.Targets[0].Name != nil {
		name := q.Targets[0].Name.Text()
		for _, s := range m.Spaces {
			if s.Name == name {
				example = q.Kind + "(" + Quote(name) + " | D)"
				break
			}
			if spaceTargets(m, s, name) {
				example = q.Kind + "(" + Quote(name) + " | D, " + instanceExample(m, s) + ", ...)"
			}
		}
	}
	var rest []*grammar.Term
	var chosen *Space // a space named after the bar: P(d | H, D, x=1)
	for _, t := range q.Given {
		if sp := spaceTerm(m, t); sp != nil {
			if chosen == sp {
				errs.Add(pos(t.Pos), "%s names the space %s twice", q.Kind, strconv.Quote(sp.Name))
				continue
			}
			if chosen == nil {
				chosen = sp
				continue
			}
		}
		if d := dataTerm(m, t); d != nil {
			if h.Data == d {
				errs.Add(pos(t.Pos), "%s gives the data set %s twice", q.Kind, strconv.Quote(d.Name))
				continue
			}
			if h.Data != nil {
				errs.Add(pos(t.Pos), "%s gives two data sets, %s and %s; give one", q.Kind, strconv.Quote(h.Data.Name), strconv.Quote(d.Name))
				continue
			}
			h.Data = d
			continue
		}
		rest = append(rest, t)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if h.Data == nil {
		errs.Add(at, "%s", noDataMsg(m, q, example))
		return nil, errs
	}
	if len(q.Targets) != 1 || q.Targets[0].Name == nil || q.Targets[0].State != nil {
		errs.Add(at, "%s(...) asks about one space (or variable) given data, as in %s", q.Kind, example)
		return nil, errs
	}
	target := q.Targets[0].Name
	name := target.Text()
	for _, s := range m.Spaces {
		if s.Name == name {
			h.Space = s
		}
	}
	switch {
	case h.Space != nil:
		if chosen == h.Space {
			errs.Add(at, "%s names the space %s twice", q.Kind, strconv.Quote(chosen.Name))
			return nil, errs
		}
		if chosen != nil {
			errs.Add(at, "%s names two spaces, %s and %s", q.Kind, strconv.Quote(h.Space.Name), strconv.Quote(chosen.Name))
			return nil, errs
		}
		if len(rest) > 0 {
			errs.Add(pos(rest[0].Pos), "%s asks about the space %s given the data %s only; to classify a new instance, ask for its target, as in P(%s | %s, ...)", strings.TrimSuffix(QueryText(q), ""), strconv.Quote(name), strconv.Quote(h.Data.Name), spaceTargetExample(m, h.Space), h.Data.Name)
			return nil, errs
		}
	default:
		// The target is a variable or a column: a space's target (a new
		// instance to classify), or else a variable whose states are the
		// hypotheses.
		var owners []*Space
		for _, s := range m.Spaces {
			if spaceTargets(m, s, name) && (chosen == nil || s == chosen) && !s.Continuous() {
				owners = append(owners, s)
			}
		}
		switch {
		case len(owners) > 1:
			errs.Add(pos(target.Pos), "%s is predicted by the spaces %s and %s: name the one to classify with, as in P(%s | %s, %s, ...)", strconv.Quote(name), strconv.Quote(owners[0].Name), strconv.Quote(owners[1].Name), Quote(name), Quote(owners[0].Name), h.Data.Name)
			return nil, errs
		case len(owners) == 0 && chosen != nil:
			errs.Add(at, "space %s does not predict %s (a space classifies with its concept's target or a bernoulli observation, and needs a grid of hypotheses)", strconv.Quote(chosen.Name), strconv.Quote(name))
			return nil, errs
		case len(owners) == 1:
			if kind != kindProb && kind != kindGibbs {
				errs.Add(at, "%s classifies with the whole space or a drawn hypothesis: ask P(%s | %s, ...) (Bayes optimal) or Gibbs(%s | %s, ...)", strconv.Quote(name), Quote(name), h.Data.Name, Quote(name), h.Data.Name)
				return nil, errs
			}
			if c := owners[0].Concept; c != nil && len(m.Vars[c.Target].States) != 2 {
				t := m.Vars[c.Target]
				errs.Add(pos(target.Pos), "the concept's target %s has %d states: a conjunction says %s or not, and cannot share \"not\" among %s", strconv.Quote(name), len(t.States), Quote(t.States[c.Positive]), strings.Join(slices.Delete(slices.Clone(t.States), c.Positive, c.Positive+1), " and "))
				return nil, errs
			}
			h.Space, h.Classify, h.Target = owners[0], true, name
			seen := map[string]bool{name: true}
			for _, t := range rest {
				if t.Star || t.Group != nil || t.Name == nil || t.State == nil {
					errs.Add(pos(t.Pos), "give the new instance's values, as in %s", instanceExample(m, owners[0]))
					continue
				}
				if seen[t.Name.Text()] {
					errs.Add(pos(t.Pos), "%s appears twice in the query", strconv.Quote(t.Name.Text()))
					continue
				}
				seen[t.Name.Text()] = true
				h.Instance = append(h.Instance, Given{Pos: pos(t.Pos), Name: t.Name.Text(), Value: t.State.Text()})
			}
		default:
			id, ok := lookupVar(m, target, &errs)
			if !ok {
				return nil, errs
			}
			v := m.Vars[id]
			if !v.Discrete() {
				errs.Add(pos(target.Pos), "%s is real-valued: the hypotheses of %s are the states of a discrete variable", strconv.Quote(name), example)
				return nil, errs
			}
			if kind == kindMAP && len(rest) > 0 || len(rest) > 0 {
				errs.Add(pos(rest[0].Pos), "%s takes the data only: each row of %s is an observation given a hypothesis", QueryText(q), strconv.Quote(h.Data.Name))
				return nil, errs
			}
			if h.Data.File == "" && (h.Data.Vars == nil || h.Data.HasReals()) {
				errs.Add(pos(q.Given[0].Pos), "the data %s has columns that are not discrete variables of the model", strconv.Quote(h.Data.Name))
				return nil, errs
			}
			for j, col := range h.Data.Vars {
				if col == id {
					errs.Add(h.Data.HeaderPos[j], "%s", HypColumnMsg(name, h.Data.Name, QueryText(q)))
					return nil, errs
				}
			}
			h.Var = id
			lq.Mentions = append(lq.Mentions, Mention{Var: id, Pos: pos(target.Pos)})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	switch kind {
	case kindProb:
		return &ProbQuery{QueryHeader: lq, Hyp: h}, nil
	case kindMAP:
		return &MAPQuery{QueryHeader: lq, Hyp: h}, nil
	case kindML:
		return &MLQuery{QueryHeader: lq, Hyp: h}, nil
	case kindMDL:
		return &MDLQuery{QueryHeader: lq, Hyp: h}, nil
	case kindGibbs:
		return &GibbsQuery{QueryHeader: lq, Hyp: h}, nil
	}
	panic("ir: a query about hypotheses of kind " + kind.String())
}

// HypOf returns the question about hypotheses given data that q asks, or
// nil if q is about the model's variables.
func HypOf(q Query) *HypQuery {
	switch q := q.(type) {
	case *ProbQuery:
		return q.Hyp
	case *MAPQuery:
		return q.Hyp
	case *MLQuery:
		return q.Hyp
	case *MDLQuery:
		return q.Hyp
	case *GibbsQuery:
		return q.Hyp
	case *MPEQuery, *IndepQuery, *DensityQuery, *EntropyQuery, *MIQuery, *DecisionQuery, *CausalQuery:
		return nil
	}
	panic(fmt.Sprintf("ir: HypOf: unknown query %T", q))
}

// HypColumnMsg says that the data set data, given to query (P(H | D)),
// has a column for the variable name whose states are the hypotheses.
func HypColumnMsg(name, data, query string) string {
	return "the data " + strconv.Quote(data) + " has a column for " + Quote(name) + ", whose states are the hypotheses of " + query +
		": each row must be an observation given a hypothesis, not name one; drop the column"
}

// spaceTargets reports whether a new instance's name is what space s
// predicts: its concept's target, or a column it observes as bernoulli.
func spaceTargets(m *Model, s *Space, name string) bool {
	if s.Concept != nil {
		return m.Vars[s.Concept.Target].Name == name
	}
	for _, o := range s.Obs {
		if o.Family == FamilyBernoulli && s.Columns[o.Column] == name {
			return true
		}
	}
	return false
}

func spaceTargetExample(m *Model, s *Space) string {
	if s.Concept != nil {
		return Quote(m.Vars[s.Concept.Target].Name)
	}
	for _, o := range s.Obs {
		if o.Family == FamilyBernoulli {
			return Quote(s.Columns[o.Column])
		}
	}
	return "TARGET"
}

func instanceExample(m *Model, s *Space) string {
	if s.Concept != nil && len(s.Concept.Attrs) > 0 {
		v := m.Vars[s.Concept.Attrs[0]]
		return Quote(v.Name) + "=" + Quote(v.States[0])
	}
	for i, c := range s.Columns {
		if !spaceTargets(m, s, c) {
			_ = i
			return Quote(c) + "=1.5"
		}
	}
	return "x=1.5"
}
