//go:build !js

package pbl

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/causal"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// MaxObservedCells is the most cells of the dense observed distribution
// P(V) that a causal question evaluates its estimand on, and of the
// joint of every variable enumerated to compute it from a model.
const MaxObservedCells = 1 << 22

// ObservedTooLargeError is the refusal to build the dense observed
// distribution of a causal model (or the joint enumerated to compute it)
// past MaxObservedCells cells: Cells it would have (+Inf past float64).
type ObservedTooLargeError struct {
	What  string // "the observed distribution" or "the joint of every variable"
	Cells float64
	Max   int
}

func (e *ObservedTooLargeError) Error() string {
	return fmt.Sprintf("%s has %s cells, more than the %d a causal answer enumerates", e.What, strconv.FormatFloat(e.Cells, 'g', 4, 64), e.Max)
}

// causalGraph is a model's causal graph for package causal: the ADMG over
// its observed variables (the latent projection of the DAG, a fresh
// latent parent for each bidirected edge), and which model variable
// each index of the graph is.
type causalGraph struct {
	g   *causal.ADMG
	obs []ir.VarID // obs[i] is the model variable of the graph's variable i
}

// causalGraphOf builds m's causal graph.
func causalGraphOf(m *ir.Model, at ir.Pos) (*causalGraph, error) {
	var observed, latent []string
	var obs []ir.VarID
	parents := map[string][]string{}
	for _, v := range m.Vars {
		if !v.Discrete() {
			return nil, &ir.Error{Pos: at, Err: ir.ErrNotCausal, Msg: fmt.Sprintf("%s is real-valued: a causal question is asked of discrete variables", ir.Quote(v.Name))}
		}
		if v.Latent {
			latent = append(latent, v.Name)
		} else {
			observed = append(observed, v.Name)
			obs = append(obs, v.ID)
		}
		for _, p := range m.Parents[v.ID] {
			parents[v.Name] = append(parents[v.Name], m.Vars[p].Name)
		}
	}
	for i, b := range m.Bidirected {
		u := "\x00confounder " + strconv.Itoa(i) // no variable has this name
		latent = append(latent, u)
		na, nb := m.Vars[b.A].Name, m.Vars[b.B].Name
		parents[na] = append(parents[na], u)
		parents[nb] = append(parents[nb], u)
	}
	g, err := causal.Project(observed, latent, parents)
	if err != nil {
		return nil, &ir.Error{Pos: at, Err: err, Msg: err.Error()}
	}
	return &causalGraph{g: g, obs: obs}, nil
}

// answerCausal answers a causal question on m; an observed file that is
// not a regular file is an error if regularOnly.
func answerCausal(m *ir.Model, q *ir.CausalQuery, regularOnly bool) (*report.Causal, error) {
	at := q.Pos
	fail := func(err error) error {
		var e *ir.Error
		if errors.As(err, &e) {
			return err
		}
		return &ir.Error{Pos: at, Err: err, Msg: q.Text + ": " + err.Error()}
	}
	names := func(os []ir.Obs) []string {
		out := make([]string, len(os))
		for i, o := range os {
			out[i] = m.Vars[o.Var].Name
		}
		return out
	}
	r := &report.Causal{Query: q, Outcomes: names(q.Y)}
	if q.Form == ir.CausalCF {
		p, err := counterfactual(m, q)
		if err != nil {
			return nil, fail(err)
		}
		r.Rows = []report.CausalRow{{P: p}}
		return r, nil
	}
	cg, err := causalGraphOf(m, at)
	if err != nil {
		return nil, err
	}
	if q.Form == ir.CausalAdjust {
		sets, err := cg.g.AdjustmentSets(names(q.X), names(q.Y))
		if err != nil {
			return nil, fail(err)
		}
		r.Sets = sets
		return r, nil
	}
	est, err := cg.g.Identify(causal.Query{Y: names(q.Y), X: names(q.X), Z: names(q.Z)})
	var ni *causal.NotIdentifiableError
	switch {
	case errors.As(err, &ni) && q.Form == ir.CausalIdentify:
		h := ni.Hedge
		r.Hedge = &report.Hedge{F: h.F, FPrime: h.FPrime, Roots: h.Roots, Text: h.String()}
		return r, nil
	case errors.As(err, &ni):
		msg := fmt.Sprintf("%s is not identifiable from the observed distribution: hedge %s (two C-forests with the same roots, F meeting the intervention, F' not); to answer by surgery instead, declare the confounders as latent variables with tables", q.Text, ni.Hedge.String())
		return nil, &ir.Error{Pos: at, Err: ni, Msg: msg}
	case err != nil:
		return nil, fail(err)
	}
	r.Identifiable = true
	r.Method, r.Adjustment, r.Estimand, r.Tree = est.Method, est.Adjustment, est.String(), est.Tree()
	if q.Form == ir.CausalIdentify && !identifyValue(m, q) {
		return r, nil
	}
	joint, from, err := observedJoint(m, cg, at, regularOnly)
	if err != nil {
		return nil, err
	}
	r.Observed = from
	values := map[string]int{}
	for _, os := range [][]ir.Obs{q.X, q.Z} {
		for _, o := range os {
			values[m.Vars[o.Var].Name] = o.State
		}
	}
	// One row per configuration of the outcomes without a state.
	var free []ir.Obs
	for _, o := range q.Y {
		if o.State < 0 {
			free = append(free, o)
		} else {
			values[m.Vars[o.Var].Name] = o.State
		}
	}
	if len(free) == 0 {
		p, err := est.Eval(joint, values)
		if err != nil {
			return nil, fail(err)
		}
		r.Rows = []report.CausalRow{{P: p}}
		return r, nil
	}
	idx := make([]int, len(free))
	for {
		states := make([]string, len(free))
		for i, o := range free {
			values[m.Vars[o.Var].Name] = idx[i]
			states[i] = m.Vars[o.Var].States[idx[i]]
		}
		p, err := est.Eval(joint, values)
		if err != nil {
			return nil, fail(err)
		}
		r.Rows = append(r.Rows, report.CausalRow{States: states, P: p})
		i := len(free) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < m.Vars[free[i].Var].Card() {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	return r, nil
}

// observedJoint returns the observed distribution P(V) of m as a dense
// table over cg's variables, and where it came from: the observed
// declaration's model or data, or m's own tables with the latent
// variables summed out.
func observedJoint(m *ir.Model, cg *causalGraph, at ir.Pos, regularOnly bool) (*causal.Joint, string, error) {
	card := make([]int, len(cg.obs))
	cells := 1.0
	for i, v := range cg.obs {
		card[i] = m.Vars[v].Card()
		cells *= float64(card[i])
	}
	if cells > MaxObservedCells {
		return nil, "", positionedAt(at, &ObservedTooLargeError{What: "the observed distribution", Cells: cells, Max: MaxObservedCells})
	}
	var p []float64
	var from string
	var err error
	switch o := m.Observed; {
	case o != nil:
		path := o.Path
		if !filepath.IsAbs(path) && o.Pos.File != "" {
			path = filepath.Join(filepath.Dir(o.Pos.File), path)
		}
		err = requireRegular(path, regularOnly)
		switch {
		case err != nil:
		case o.Data:
			p, from, err = countObserved(m, cg, path, int(cells))
		default:
			p, from, err = modelObserved(m, cg, path, int(cells))
		}
		if err != nil {
			return nil, "", positionedAt(o.Pos, err)
		}
	default:
		for v := range m.Vars {
			if m.Table(ir.VarID(v)) == nil {
				return nil, "", &ir.Error{Pos: at, Err: ir.ErrNoDistribution, Msg: fmt.Sprintf(
					"%s has no distribution: the observed distribution comes from elsewhere, as in observed \"obs.bif\" (a model over the observed variables) or observed data \"obs.csv\"", ir.Quote(m.Vars[v].Name))}
			}
		}
		keep := make([]int, len(m.Vars)) // position among the observed, or -1
		for i := range keep {
			keep[i] = -1
		}
		for i, v := range cg.obs {
			keep[v] = i
		}
		p, err = enumerateJoint(m, keep, card, int(cells))
		if err != nil {
			return nil, "", positionedAt(at, err)
		}
		from = "the model's tables, the latent variables summed out"
	}
	j, err := causal.NewJoint(card, p)
	if err != nil {
		return nil, "", &ir.Error{Pos: at, Err: err, Msg: "the observed distribution: " + err.Error()}
	}
	return j, from, nil
}

// positionedAt returns err as an *ir.Error at pos (unchanged if it is
// one), its message its text.
func positionedAt(pos ir.Pos, err error) error {
	var e *ir.Error
	var list ir.ErrorList
	if errors.As(err, &e) || errors.As(err, &list) {
		return err
	}
	return &ir.Error{Pos: pos, Err: err, Msg: err.Error()}
}

// enumerateJoint returns the joint of every variable of a model whose
// every variable has a table, summed onto the variables with keep[v] ≥ 0
// (row-major in that order, cardinalities card).
func enumerateJoint(m *ir.Model, keep []int, card []int, cells int) ([]float64, error) {
	n := len(m.Vars)
	total := 1.0
	for _, v := range m.Vars {
		total *= float64(v.Card())
	}
	if total > MaxObservedCells {
		return nil, &ObservedTooLargeError{What: "the joint of every variable", Cells: total, Max: MaxObservedCells}
	}
	stride := make([]int, len(card))
	s := 1
	for i := len(card) - 1; i >= 0; i-- {
		stride[i] = s
		s *= card[i]
	}
	type table struct {
		vals   []float64
		vars   []ir.VarID
		stride []int
	}
	tabs := make([]table, n)
	for v := range m.Vars {
		c := m.Table(ir.VarID(v)).Factor
		t := table{vals: c.Vals, stride: c.Stride}
		for _, x := range c.Vars {
			t.vars = append(t.vars, ir.VarID(x))
		}
		tabs[v] = t
	}
	out := make([]float64, cells)
	st := make([]int, n)
	for {
		p := 1.0
		for v := range tabs {
			t := &tabs[v]
			k := 0
			for i, x := range t.vars {
				k += st[x] * t.stride[i]
			}
			p *= t.vals[k]
			if p == 0 {
				break
			}
		}
		if p != 0 {
			k := 0
			for v, i := range keep {
				if i >= 0 {
					k += st[v] * stride[i]
				}
			}
			out[k] += p
		}
		v := n - 1
		for ; v >= 0; v-- {
			st[v]++
			if st[v] < m.Vars[v].Card() {
				break
			}
			st[v] = 0
		}
		if v < 0 {
			break
		}
	}
	return out, nil
}

// modelObserved computes P(V) from the model in path (any format pbl
// reads), which must have exactly the observed variables, with the same
// states (matched by name).
func modelObserved(m *ir.Model, cg *causalGraph, path string, cells int) ([]float64, string, error) {
	om, err := LoadFile(path)
	if err != nil {
		return nil, "", err
	}
	if om.NeedsIdentification() || len(om.Latents()) > 0 {
		return nil, "", fmt.Errorf("observed %s: the observed model has latent variables or confounders of its own; it is a Bayesian network over the observed variables", strconv.Quote(path))
	}
	// keep[v] of om: its position among cg's observed variables, and
	// its states mapped to m's.
	keep := make([]int, len(om.Vars))
	smap := make([][]int, len(om.Vars))
	found := make([]bool, len(cg.obs))
	for i := range keep {
		keep[i] = -1
	}
	for i, v := range cg.obs {
		x := m.Vars[v]
		ov, ok := om.Lookup(x.Name)
		if !ok {
			return nil, "", fmt.Errorf("observed %s has no variable %s: it is a model over exactly the observed variables", strconv.Quote(path), ir.Quote(x.Name))
		}
		if !ov.Discrete() || ov.Card() != x.Card() {
			return nil, "", fmt.Errorf("observed %s: %s has %d states there and %d here", strconv.Quote(path), ir.Quote(x.Name), ov.Card(), x.Card())
		}
		sm := make([]int, ov.Card())
		for k, s := range ov.States {
			j := x.State(s)
			if j < 0 {
				return nil, "", fmt.Errorf("observed %s: %s has the state %s there, not here", strconv.Quote(path), ir.Quote(x.Name), ir.Quote(s))
			}
			sm[k] = j
		}
		keep[ov.ID], smap[ov.ID], found[i] = i, sm, true
	}
	for _, ov := range om.Vars {
		if keep[ov.ID] < 0 {
			return nil, "", fmt.Errorf("observed %s has the variable %s, which is not an observed variable of this model", strconv.Quote(path), ir.Quote(ov.Name))
		}
		if om.Table(ov.ID) == nil {
			return nil, "", fmt.Errorf("observed %s: %s has no distribution", strconv.Quote(path), ir.Quote(ov.Name))
		}
	}
	// Enumerate om's joint in its own state order, then permute the states.
	card := make([]int, len(cg.obs))
	ocard := make([]int, len(cg.obs))
	for _, ov := range om.Vars {
		ocard[keep[ov.ID]] = ov.Card()
	}
	copy(card, ocard)
	raw, err := enumerateJoint(om, keep, ocard, cells)
	if err != nil {
		return nil, "", err
	}
	// raw is row-major over cg's order with om's state numbering.
	out := make([]float64, cells)
	pos := make([]int, len(cg.obs)) // model var of position i in om
	for _, ov := range om.Vars {
		pos[keep[ov.ID]] = int(ov.ID)
	}
	st := make([]int, len(card))
	for k := range raw {
		// decode k
		r := k
		for i := len(card) - 1; i >= 0; i-- {
			st[i] = r % card[i]
			r /= card[i]
		}
		t := 0
		for i := range card {
			t = t*card[i] + smap[pos[i]][st[i]]
		}
		out[t] += raw[k]
	}
	return out, filepath.Base(path), nil
}

// countObserved computes the empirical joint of the observed columns of
// the CSV file path (read by package data): every observed variable a
// column with no missing cell; the columns of latent variables and those
// that name no variable are left out.
func countObserved(m *ir.Model, cg *causalGraph, path string, cells int) ([]float64, string, error) {
	r, err := data.Open(path, m, data.Options{Required: true, IgnoreUnknownColumns: true})
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	col := make([]int, len(m.Vars)) // position among the observed, or -1
	for i := range col {
		col[i] = -1
	}
	for i, v := range cg.obs {
		col[v] = i
	}
	bound := make([]bool, len(cg.obs))
	for _, v := range r.Vars {
		if col[v] >= 0 {
			bound[col[v]] = true
		}
	}
	for i, ok := range bound {
		if !ok {
			return nil, "", fmt.Errorf("observed data %s has no column %s: the observed distribution is over every observed variable", strconv.Quote(path), ir.Quote(m.Vars[cg.obs[i]].Name))
		}
	}
	stride := make([]int, len(cg.obs))
	s := 1
	for i := len(cg.obs) - 1; i >= 0; i-- {
		stride[i] = s
		s *= m.Vars[cg.obs[i]].Card()
	}
	counts := make([]float64, cells)
	b := r.NewBatch(4096)
	n := 0
	for {
		err := r.Read(b)
		for i := 0; i < b.N; i++ {
			k := 0
			for j, v := range b.Vars {
				if c := col[v]; c >= 0 { // a latent variable's column is left out
					k += int(b.Cols[j][i]) * stride[c]
				}
			}
			counts[k]++
		}
		n += b.N
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", err
		}
	}
	if n == 0 {
		return nil, "", fmt.Errorf("observed data %s has no rows", strconv.Quote(path))
	}
	for k := range counts {
		counts[k] /= float64(n)
	}
	return counts, fmt.Sprintf("%s (%d rows)", filepath.Base(path), n), nil
}

// counterfactual answers CF(Y=y | do(X=x), e) on m as a structural model:
// the latent variables with tables exogenous (roots), every observed
// variable a deterministic function of its parents.
func counterfactual(m *ir.Model, q *ir.CausalQuery) (float64, error) {
	at := q.Pos
	notDet := func(format string, args ...any) error {
		return &ir.Error{Pos: at, Err: ir.ErrNotDeterministic, Msg: q.Text + ": counterfactuals are determined by a structural model only (exogenous latent variables with tables, every observed variable a function of its parents): " + fmt.Sprintf(format, args...)}
	}
	if len(m.Bidirected) > 0 {
		b := m.Bidirected[0]
		return 0, notDet("the confounder of %s <-> %s has no table; declare it as a latent variable with one", ir.Quote(m.Vars[b.A].Name), ir.Quote(m.Vars[b.B].Name))
	}
	var exo []causal.Exogenous
	var endo []causal.Endogenous
	for _, v := range m.Vars {
		if !v.Discrete() {
			return 0, &ir.Error{Pos: at, Err: ir.ErrNotCausal, Msg: fmt.Sprintf("%s is real-valued: a counterfactual is asked of discrete variables", ir.Quote(v.Name))}
		}
		c := m.Table(v.ID)
		if c == nil {
			return 0, notDet("%s has no table", ir.Quote(v.Name))
		}
		if v.Latent {
			if len(m.Parents[v.ID]) > 0 {
				return 0, notDet("the latent %s has parents; an exogenous variable is a root", ir.Quote(v.Name))
			}
			exo = append(exo, causal.Exogenous{Name: v.Name, P: slices.Clone(c.Factor.Vals)})
			continue
		}
		if !slices.Equal(c.Factor.Vars, append(slices.Clip(c.Parents), v.ID)) {
			return 0, &ir.Error{Pos: at, Msg: fmt.Sprintf("the table of %s is not laid out as its parents then itself", ir.Quote(v.Name))}
		}
		e := causal.Endogenous{Name: v.Name, Card: v.Card()}
		for _, p := range c.Parents {
			e.Parents = append(e.Parents, m.Vars[p].Name)
		}
		k := v.Card()
		rows := len(c.Factor.Vals) / k
		e.F = make([]int, rows)
		for r := range rows {
			e.F[r] = -1
			for s := range k {
				switch x := c.Factor.Vals[r*k+s]; {
				case x == 1 && e.F[r] < 0:
					e.F[r] = s
				case x != 0:
					return 0, notDet("the table of %s is not 0 or 1 in every row (%s at row %d): its mechanism is not a function of its parents", ir.Quote(v.Name), report.Num(x), r+1)
				}
			}
			if e.F[r] < 0 {
				return 0, notDet("the table of %s has a row without a 1", ir.Quote(v.Name))
			}
		}
		endo = append(endo, e)
	}
	scm, err := causal.NewSCM(exo, endo)
	if err != nil {
		return 0, err
	}
	event := func(os []ir.Obs) map[string]int {
		out := map[string]int{}
		for _, o := range os {
			out[m.Vars[o.Var].Name] = o.State
		}
		return out
	}
	query := []causal.Event{{Do: event(q.X), Values: event(q.Y)}}
	var evidence []causal.Event
	if len(q.Z) > 0 {
		evidence = []causal.Event{{Values: event(q.Z)}}
	}
	p, err := scm.Counterfactual(query, evidence)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(p) {
		return 0, errors.New("the counterfactual is not a number")
	}
	return p, nil
}

// identifyValue reports whether identify(...) evaluates its estimand as
// well: every term has a state and the observed distribution is at hand
// (an observed declaration, or a table for every variable).
func identifyValue(m *ir.Model, q *ir.CausalQuery) bool {
	for _, os := range [][]ir.Obs{q.Y, q.X, q.Z} {
		for _, o := range os {
			if o.State < 0 {
				return false
			}
		}
	}
	if m.Observed != nil {
		return true
	}
	for v := range m.Vars {
		if m.Table(ir.VarID(v)) == nil {
			return false
		}
	}
	return true
}
