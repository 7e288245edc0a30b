package infer

import (
	"errors"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// This file is sensitivity analysis: the derivative of a query P(y | e)
// with respect to each entry θ = θ_{x|u} of a Bayesian network's tables,
// the rest of θ's row co-varied in proportion (Chan & Darwiche, "When do
// numbers really matter?", 2002; SamIam's convention):
//
//	θ_{x'|u} ← θ_{x'|u} · (1 − θ) / (1 − θ_old)   for the row's other states x'
//
// # The two linear functions
//
// Every term of the network polynomial holds exactly one entry of X's
// table, so for any event Z, P(Z) = C_Z + Σ_x' θ_{x'|u} K^Z_{x'|u} with
//
//	K^Z_{x|u} = ∂P(Z)/∂θ_{x|u} = P(x, u, Z) / θ_{x|u}
//
// independent of X's table. With θ_{x|u} = t and the others (1 − t)·w_x'
// (w_x' = θ_x'/(1 − θ_old), summing to 1), P(Z) is linear in t with slope
//
//	b_Z = K^Z_{x|u} − Σ_{x'≠x} w_x' K^Z_{x'|u}
//
// so P(y | e) = P(y, e)/P(e) is the ratio of two linear functions of t,
// and its derivative at θ_old is (b_{y,e} − p·b_e)/P(e). Working relative
// to P(e), both slopes come from the family posteriors of two
// calibrations of the junction tree, given e and given (y, e):
// P(x, u, e)/P(e) = P(x, u | e), P(x, u, y, e)/P(e) = P(x, u | y, e)·p.
//
// An entry θ = 0 has K^Z = 0/0 by that formula. K^Z does not depend on X's
// table, so it is read instead off the tree of the model in which X's rows
// holding a 0 are uniform (θ' = 1/k, K = P'(x, u, Z)/θ'): one product of
// the factors and two calibrations per such variable. An entry θ = 1 has
// no others to co-vary in proportion (they are all 0); its co-varied
// entries share 1 − t equally (w_x' = 1/(k − 1)).
//
// # Which parameters
//
// Only the tables of X whose parameter node (a new root parent of X) is
// d-connected to Y given the evidence can change P(y | e) (the requisite
// tables: Bayes ball from Y); the others, and entries whose derivative is
// 0 (rows of parent states the evidence rules out; within rounding, 1e-12
// of the terms it is the difference of, where the numbers make it 0), are
// left out.
//
// # Reaching a threshold
//
// With P(Z)/P(e) = P(Z | e)_old + b_Z (t − θ_old), the query equals P at
//
//	t = θ_old + (P − p) / (b_{y,e} − P·b_e)
//
// which is the value reported if it lies in [0, 1] and leaves e possible.

// ErrSensitivity is the kind of error (see [ir.Error]) of a sensitivity
// analysis asked of a query that is not P(Y=y | e) with discrete
// evidence, or of a model that is not a Bayesian network.
var ErrSensitivity = errors.New("sensitivity analysis needs a query P(Y=y | e) on a Bayesian network")

// SensitivityOptions configures [Sensitivity].
type SensitivityOptions struct {
	Options          // the limits of the junction tree (the Engine is not used: the analysis always compiles one)
	Reach   *float64 // a threshold in [0, 1]: report the value each parameter needs for the query to equal it; nil for none
}

// Param is one table entry θ = P(Var = State | parents = Given) and the
// sensitivity of a query to it.
type Param struct {
	Var        ir.VarID
	Row        int      // the row of Var's table (ir.Model.Factor): the parents' configuration, row-major
	Given      []ir.Obs // the parents' states in that row, in the order of ir.Model.Parents; nil for a root
	State      int      // Var's state
	Value      float64  // θ
	Derivative float64  // ∂P(y | e)/∂θ, the row's other entries co-varied in proportion

	// With SensitivityOptions.Reach: Needed is the value θ must take
	// (co-varied as above) for the query to equal the threshold, when
	// Reachable; no value in [0, 1] gives it otherwise (Needed is then 0).
	Needed    float64
	Reachable bool
}

// Sensitivity returns the derivative of the query q, P(Y=y | e), with
// respect to every entry of m's tables that can change it, ranked by
// decreasing absolute value (ties in VarID, row and state order), and p,
// the query's value. The derivatives are exact (see the comment above),
// not finite differences.
//
// q must be P(Y=y | e) with discrete evidence and m a Bayesian network;
// otherwise the error, at q.Pos, has the kind [ErrSensitivity]. Impossible
// evidence, a tree beyond the limits of opt and variables without numbers
// are the errors of [Answer] and [Compile].
func Sensitivity(m *ir.Model, iq ir.Query, opt SensitivityOptions) ([]Param, float64, error) {
	if m == nil || iq == nil {
		panic("infer: Sensitivity: nil model or query")
	}
	fq := flatten(iq)
	q := &fq
	if q.Kind == kindProb && q.Hyp == nil && q.Form() == formEvidence && !q.Bar && len(q.Evidence) == 1 {
		// P(Y=y), without a bar, is lowered as the probability of the
		// evidence Y=y: the same number as P(Y=y | ).
		o := q.Evidence[0]
		c := *q
		c.Targets, c.TargetStates, c.Evidence = []ir.VarID{o.Var}, []int{o.State}, nil
		q = &c
	}
	switch {
	case !m.IsBayesNet():
		return nil, 0, &ir.Error{Pos: q.Pos, Msg: "sensitivity analysis needs a Bayesian network; this model is a Markov network, whose factors are not conditional tables", Err: ErrSensitivity}
	case q.Kind != kindProb || q.Hyp != nil || q.Form() != formNumber || len(q.Targets) != 1:
		return nil, 0, &ir.Error{Pos: q.Pos, Msg: "sensitivity analysis takes a query P(Y=y | e): one variable at one state, given observed states", Err: ErrSensitivity}
	case len(q.Real) > 0:
		return nil, 0, &ir.Error{Pos: q.Pos, Msg: "sensitivity analysis does not take real-valued evidence (" + ir.Quote(m.Vars[q.Real[0].Var].Name) + ")", Err: ErrSensitivity}
	}
	if r := opt.Reach; r != nil && !(*r >= 0 && *r <= 1) {
		return nil, 0, ir.Errorf(q.Pos, "the threshold %v is not a probability in [0, 1]", *r)
	}
	// Answer validates the query against the model and reports impossible
	// evidence as pbl query does.
	res, err := answerQ(m, q, opt.Options)
	if err != nil {
		return nil, 0, err
	}
	p := res.(*Number).P
	t, err := cachedCompile(m, opt.Options)
	if err != nil {
		return nil, 0, err
	}
	s := newSens(m, t, q, p)
	if err := s.run(); err != nil {
		return nil, 0, err
	}
	var out []Param
	for _, v := range s.vars {
		out = s.params(out, v, opt.Reach)
	}
	slices.SortStableFunc(out, func(a, b Param) int {
		x, y := math.Abs(a.Derivative), math.Abs(b.Derivative)
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return out, p, nil
}

// sens is one sensitivity analysis: K^e and K^{y,e} of every entry of the
// requisite tables, relative to P(e).
type sens struct {
	m          *ir.Model
	t          *JTree
	q          *query
	p          float64
	obsE, obsY []int       // e, and (y, e)
	vars       []ir.VarID  // the requisite variables with a table of at least two states, in VarID order
	kE, kY     [][]float64 // kE[v][i] = K^e/P(e), kY[v][i] = K^{y,e}/P(e), laid out as m.Factor(v)
	errs       []error     // errs[v]: the error of v's table with its zero rows uniform
}

func newSens(m *ir.Model, t *JTree, q *query, p float64) *sens {
	n := len(m.Vars)
	s := &sens{m: m, t: t, q: q, p: p, obsE: make([]int, n), kE: make([][]float64, n), kY: make([][]float64, n), errs: make([]error, n)}
	for v := range s.obsE {
		s.obsE[v] = -1
	}
	for _, o := range q.Evidence {
		s.obsE[o.Var] = o.State
	}
	s.obsY = slices.Clone(s.obsE)
	s.obsY[q.Targets[0]] = q.TargetStates[0]
	for v, ok := range requisite(m, q.Targets[0], q.Evidence) {
		f := m.Factor(ir.VarID(v))
		if ok && f != nil && f.Card[len(f.Card)-1] >= 2 {
			s.vars = append(s.vars, ir.VarID(v))
		}
	}
	return s
}

// run computes kE and kY of every requisite table.
func (s *sens) run() error {
	n := len(s.m.Vars)
	postE, postY := make([][]float64, n), make([][]float64, n)
	for _, v := range s.vars {
		k := len(s.m.Factor(v).Vals)
		postE[v], postY[v] = make([]float64, k), make([]float64, k)
	}
	lnE, err := s.t.Families(s.obsE, postE)
	if err != nil {
		return s.at(err)
	}
	r, err := s.families(s.t, s.obsY, postY, lnE)
	if err != nil {
		return err
	}
	var zeroRows []ir.VarID
	for _, v := range s.vars {
		theta := s.m.Factor(v).Vals
		kE, kY := make([]float64, len(theta)), make([]float64, len(theta))
		for i, th := range theta {
			if th > 0 {
				kE[i] = postE[v][i] / th
				kY[i] = postY[v][i] * r / th
			}
		}
		s.kE[v], s.kY[v] = kE, kY
		if slices.Contains(theta, 0) {
			zeroRows = append(zeroRows, v)
		}
	}
	par.For(len(zeroRows), func(i int) {
		v := zeroRows[i]
		s.errs[v] = s.zeros(v, lnE)
	})
	for _, v := range zeroRows {
		if s.errs[v] != nil {
			return s.errs[v]
		}
	}
	return nil
}

// families writes into dst the family posteriors given obs on tree t, and
// returns P(obs)/P(e), where ln P(e) = lnE: 0, with dst all 0, for
// evidence of probability 0.
func (s *sens) families(t *JTree, obs []int, dst [][]float64, lnE float64) (float64, error) {
	ln, err := t.Families(obs, dst)
	if errors.Is(err, ErrImpossible) {
		for _, d := range dst {
			clear(d)
		}
		return 0, nil
	}
	if err != nil {
		return 0, s.at(err)
	}
	return math.Exp(ln - lnE), nil
}

// zeros sets kE[v] and kY[v] in the rows of v's table that hold a 0, from
// the tree of the model in which those rows are uniform.
func (s *sens) zeros(v ir.VarID, lnE float64) error {
	tab := s.m.Table(v)
	f := tab.Factor
	k := f.Card[len(f.Card)-1]
	g := &ir.Factor{Vars: f.Vars, Card: f.Card, Stride: f.Stride, Vals: slices.Clone(f.Vals)}
	var rows []int
	for r := 0; r*k < len(g.Vals); r++ {
		row := g.Vals[r*k : (r+1)*k]
		if slices.Contains(row, 0) {
			rows = append(rows, r)
			for i := range row {
				row[i] = 1 / float64(k)
			}
		}
	}
	mv, err := s.m.WithDists(&ir.CPT{Pos: tab.Pos, Child: v, Parents: slices.Clone(tab.Parents), Factor: g})
	if err != nil {
		return s.at(err)
	}
	tv, err := s.t.WithModel(mv)
	if err != nil {
		return s.at(err)
	}
	post := make([][]float64, len(s.m.Vars))
	post[v] = make([]float64, len(g.Vals))
	for _, z := range []struct {
		obs []int
		dst []float64
	}{{s.obsE, s.kE[v]}, {s.obsY, s.kY[v]}} {
		r, err := s.families(tv, z.obs, post, lnE)
		if err != nil {
			return err
		}
		for _, row := range rows {
			for i := row * k; i < (row+1)*k; i++ {
				z.dst[i] = post[v][i] * r * float64(k)
			}
		}
	}
	return nil
}

// at positions an error without a position of its own at the query.
func (s *sens) at(err error) error {
	var e *ir.Error
	if errors.As(err, &e) && e.Pos.Line > 0 {
		return err
	}
	if errors.As(err, &e) {
		return &ir.Error{Pos: s.q.Pos, Msg: e.Msg, Err: e.Err}
	}
	return &ir.Error{Pos: s.q.Pos, Msg: err.Error(), Err: err}
}

// params appends the parameters of v's table whose derivative is not 0.
func (s *sens) params(out []Param, v ir.VarID, reach *float64) []Param {
	f := s.m.Factor(v)
	theta := f.Vals
	kE, kY := s.kE[v], s.kY[v]
	k := f.Card[len(f.Card)-1]
	ps := s.m.Parents[v]
	for r := 0; r*k < len(theta); r++ {
		row := theta[r*k : (r+1)*k]
		for x, th := range row {
			// The co-varied entries' weights: in proportion to their
			// values, or equal when they are all 0.
			rest := 0.0
			for y, t := range row {
				if y != x {
					rest += t
				}
			}
			sE, sY := 0.0, 0.0
			for y, t := range row {
				if y == x {
					continue
				}
				w := 1 / float64(k-1)
				if rest > 0 {
					w = t / rest
				}
				sE += w * kE[r*k+y]
				sY += w * kY[r*k+y]
			}
			bE, bY := kE[r*k+x]-sE, kY[r*k+x]-sY
			d := bY - s.p*bE
			// A derivative within rounding of 0 is 0: the terms it is
			// the difference of carry errors of a few ulps, and a
			// parameter that cannot change the query (one whose rows
			// the evidence makes irrelevant through a 0 elsewhere, say)
			// would otherwise be listed with a derivative of 1e-17.
			scale := math.Abs(kY[r*k+x]) + math.Abs(sY) + s.p*(math.Abs(kE[r*k+x])+math.Abs(sE))
			if math.Abs(d) <= roundingZero*scale {
				continue
			}
			prm := Param{Var: v, Row: r, State: x, Value: th, Derivative: d}
			if len(ps) > 0 {
				prm.Given = make([]ir.Obs, len(ps))
				for i, pv := range ps {
					prm.Given[i] = ir.Obs{Var: pv, State: (r * k / f.Stride[i]) % f.Card[i]}
				}
			}
			if reach != nil {
				prm.Needed, prm.Reachable = needed(*reach, s.p, th, bE, bY)
			}
			out = append(out, prm)
		}
	}
	return out
}

// roundingZero is the relative size below which a derivative is taken
// for 0: a difference of terms computed to about 1e-15 each.
const roundingZero = 1e-12

// needed returns the value t of a parameter now at th for which
// (p + bY (t − th)) / (1 + bE (t − th)) = P, if there is one in [0, 1] at
// which the evidence stays possible.
func needed(P, p, th, bE, bY float64) (float64, bool) {
	if P == p {
		return th, true
	}
	den := bY - P*bE
	if den == 0 {
		return 0, false
	}
	t := th + (P-p)/den
	const slack = 1e-12 // rounding of t at the ends of [0, 1]
	switch {
	case t < 0 && t >= -slack:
		t = 0
	case t > 1 && t <= 1+slack:
		t = 1
	}
	if !(t >= 0 && t <= 1) || !(1+bE*(t-th) > 0) {
		return 0, false
	}
	return t, true
}

// requisite returns, for every variable X, whether X's table can change
// P(y | e): whether a parameter node added as X's only new parent is
// d-connected to y given the evidence. It is the reachability algorithm of
// Koller and Friedman (Algorithm 3.1) from y, as in [Independent]: the
// parameter node of X is reached when a trail reaches X in a direction
// that passes on to X's parents (from a child, X unobserved; or from a
// parent, X an ancestor of the evidence, inclusive).
func requisite(m *ir.Model, y ir.VarID, ev []ir.Obs) []bool {
	n := len(m.Vars)
	inE := make([]bool, n)
	anc := make([]bool, n)
	var stack []ir.VarID
	for _, o := range ev {
		inE[o.Var] = true
		stack = append(stack, o.Var)
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !anc[v] {
			anc[v] = true
			stack = append(stack, m.Parents[v]...)
		}
	}
	children := m.Children()
	const (
		up   = 0 // arrived from a child
		down = 1 // arrived from a parent
	)
	type item struct {
		v   ir.VarID
		dir int
	}
	visited := make([]bool, 2*n)
	req := make([]bool, n)
	var queue []item
	if !inE[y] {
		queue = append(queue, item{y, up})
	}
	for len(queue) > 0 {
		it := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if visited[2*int(it.v)+it.dir] {
			continue
		}
		visited[2*int(it.v)+it.dir] = true
		v := it.v
		toParents := it.dir == up && !inE[v] || it.dir == down && anc[v]
		toChildren := !inE[v]
		if toParents {
			req[v] = true
			for _, p := range m.Parents[v] {
				queue = append(queue, item{p, up})
			}
		}
		if toChildren {
			for _, c := range children[v] {
				queue = append(queue, item{c, down})
			}
		}
	}
	return req
}
