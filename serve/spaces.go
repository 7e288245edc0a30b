package serve

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// spaceTop is the number of hypotheses a space's box lists, the most
// probable first; the rest are counted.
const spaceTop = 10

// A SpaceBox is a hypothesis space as the page draws it: its posterior
// given a data set, P(H | D) as pbl answers it (the top spaceTop
// hypotheses), and its MAP hypothesis, MAP(H | D). A space whose
// parameters are continuous has no posterior to list: its box shows the
// ML fit, ML(H | D). The hypotheses may also be the states of a discrete
// variable of the network (P(H | D) over a variable), named by a query
// of the model.
type SpaceBox struct {
	Name  string `json:"name"` // the space, or the variable whose states are the hypotheses
	Data  string `json:"data"` // the data set, "" if the model names none
	Kind  string `json:"kind"` // "grid", "concept", "fit" or "states"
	Query string `json:"query"`
	// Names are the components of a hypothesis: parameters, attributes,
	// or the variable.
	Names   []string `json:"names"`
	Total   int      `json:"total"`   // the hypotheses of the space
	Support int      `json:"support"` // those with a non-zero posterior
	// Hyps are the most probable hypotheses, highest first, each with
	// P(h | D) (the ML fit, without a probability, for kind "fit").
	Hyps []HypBar `json:"hyps"`
	// Rest is the number of hypotheses with a non-zero posterior not
	// listed, RestP their posterior, 1 − the listed ones' (at least 0).
	Rest  int     `json:"rest"`
	RestP float64 `json:"restP"`
	MAP   string  `json:"map"` // the label of MAP(H | D)'s hypothesis
	Error string  `json:"error,omitempty"`
}

// A HypBar is one hypothesis: its label ("w0=1.29, w1=0.7", a concept's
// "<sunny, warm, ?, …>", a state) and P(h | D).
type HypBar struct {
	Label string  `json:"label"`
	P     float64 `json:"p"`
}

// hypOf returns the hypothesis part of a query, or nil.
func hypOf(q ir.Query) *ir.HypQuery {
	switch q := q.(type) {
	case *ir.ProbQuery:
		return q.Hyp
	case *ir.MAPQuery:
		return q.Hyp
	case *ir.MLQuery:
		return q.Hyp
	case *ir.MDLQuery:
		return q.Hyp
	case *ir.GibbsQuery:
		return q.Hyp
	}
	return nil
}

// spacesOf returns a box for each pair of a space (or a variable as
// hypotheses) and a data set that the model's queries ask about, in the
// order of the queries, then one for each space no query names, with the
// model's first data set.
func spacesOf(ctx context.Context, m *ir.Model) []SpaceBox {
	type pair struct {
		space *ir.Space
		v     ir.VarID
		data  string
	}
	var pairs []pair
	seen := map[[2]string]bool{}
	named := map[*ir.Space]bool{}
	add := func(p pair) {
		name := ""
		if p.space != nil {
			name = p.space.Name
			named[p.space] = true
		} else {
			name = m.Vars[p.v].Name
		}
		k := [2]string{name, p.data}
		if !seen[k] {
			seen[k] = true
			pairs = append(pairs, p)
		}
	}
	for _, st := range m.Stmts {
		var q ir.Query
		switch st := st.(type) {
		case *ir.QueryStmt:
			q = st.Query
		case *ir.ExpectStmt:
			q = st.Query
		default:
			continue
		}
		h := hypOf(q)
		if h == nil || h.Data == nil {
			continue
		}
		add(pair{space: h.Space, v: h.Var, data: h.Data.Name})
	}
	for _, s := range m.Spaces {
		if named[s] {
			continue
		}
		data := ""
		if len(m.Tables) > 0 {
			data = m.Tables[0].Name
		}
		add(pair{space: s, data: data})
	}
	out := []SpaceBox{}
	for _, p := range pairs {
		b := SpaceBox{Data: p.data, Names: []string{}, Hyps: []HypBar{}}
		switch {
		case p.space == nil:
			b.Name, b.Kind = m.Vars[p.v].Name, "states"
		case p.space.Concept != nil:
			b.Name, b.Kind = p.space.Name, "concept"
		case p.space.Continuous():
			b.Name, b.Kind = p.space.Name, "fit"
		default:
			b.Name, b.Kind = p.space.Name, "grid"
		}
		if p.data == "" {
			b.Error = "the model names no data set for " + ir.Quote(b.Name)
		} else {
			fillSpace(ctx, m, &b)
		}
		out = append(out, b)
	}
	return out
}

// fillSpace answers the box's questions by pbl.AnswerQuery, as pbl run
// answers the same query text, each within answerTimeout.
func fillSpace(ctx context.Context, m *ir.Model, b *SpaceBox) {
	ask := func(kind string, top int) (*report.Hyp, error) {
		text := kind + "(" + ir.Quote(b.Name) + " | " + ir.Quote(b.Data) + ")"
		q, err := pbl.ParseQuery(m, text)
		if err != nil {
			return nil, err
		}
		actx, cancel := context.WithTimeout(ctx, answerTimeout)
		defer cancel()
		a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Context: actx, Top: top, RegularFilesOnly: true})
		if err != nil {
			return nil, err
		}
		return a.Hyp, nil
	}
	if b.Kind == "fit" {
		b.Query = "ML(" + ir.Quote(b.Name) + " | " + ir.Quote(b.Data) + ")"
		h, err := ask("ML", 0)
		if err != nil {
			b.Error = errorText(err)
			return
		}
		b.Names = h.Names
		for _, r := range h.Hyps {
			b.Hyps = append(b.Hyps, HypBar{Label: hypLabel(h, r)})
		}
		if len(b.Hyps) > 0 {
			b.MAP = b.Hyps[0].Label // the fit is the one hypothesis shown
		}
		return
	}
	b.Query = "P(" + ir.Quote(b.Name) + " | " + ir.Quote(b.Data) + ")"
	h, err := ask("P", spaceTop)
	if err != nil {
		b.Error = errorText(err)
		return
	}
	b.Names, b.Total, b.Support = h.Names, h.Total, h.Support
	sum := 0.0
	for _, r := range h.Hyps {
		p := math.Exp(r.LogPost)
		sum += p
		b.Hyps = append(b.Hyps, HypBar{Label: hypLabel(h, r), P: p})
	}
	b.Rest = max(h.Support-len(h.Hyps), 0)
	if b.Rest > 0 {
		b.RestP = max(1-sum, 0)
	}
	mp, err := ask("MAP", 0)
	if err != nil {
		b.Error = errorText(err)
		return
	}
	if len(mp.Hyps) > 0 {
		b.MAP = hypLabel(mp, mp.Hyps[0])
	}
}

// hypLabel is a hypothesis as the page names it: a space's parameters
// "w0=1.29, w1=0.7", a concept "<sunny, warm, ?, strong, ?, ?>", a
// variable's state.
func hypLabel(h *report.Hyp, r report.HypRow) string {
	vals := make([]string, len(r.Values))
	for i, v := range r.Values {
		switch v := v.(type) {
		case float64:
			vals[i] = strconv.FormatFloat(v, 'g', -1, 64)
		case string:
			vals[i] = v
		}
	}
	if hq := hypOf(h.Query); hq != nil {
		switch {
		case hq.Space == nil && len(vals) == 1: // a variable's state
			return vals[0]
		case hq.Space != nil && hq.Space.Concept != nil:
			return "<" + strings.Join(vals, ", ") + ">"
		}
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		name := ""
		if i < len(h.Names) {
			name = h.Names[i]
		}
		parts[i] = name + "=" + v
	}
	return strings.Join(parts, ", ")
}
