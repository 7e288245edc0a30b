package infer

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// ve is variable elimination on one model and one set of evidence.
type ve struct {
	m    *ir.Model
	opt  Options
	pos  ir.Pos
	obs  []int          // obs[v]: observed state of v, or -1
	card []int          // card[v]: number of states of v (0 for real variables)
	k    *factor.Kernel // cancellation, and whether the fast run lost digits

	// cond is set when the caller needs Joint(keep) only up to a positive
	// constant (it normalises the table: P(X | e), entropy): the plan may
	// then leave out the parts of the model d-separated from keep given
	// the evidence (see separate).
	cond bool
	// pre is a plan made in advance (by the query planner) for the next
	// call of joint with keep equal to preKeep.
	pre     *vePlan
	preKeep []ir.VarID
}

// relevant marks the ancestors (inclusive) of the given variables and of the
// observed ones. A variable outside that set is barren: summing it out of
// its CPT gives 1, so it is dropped with its CPT.
//
// In a Markov network (a model with potentials) nothing is barren: every
// variable is marked.
func (r *ve) relevant(vs ...[]ir.VarID) []bool {
	mark := make([]bool, len(r.m.Vars))
	if !r.m.IsBayesNet() {
		for v := range mark {
			mark[v] = true
		}
		return mark
	}
	var stack []ir.VarID
	push := func(v ir.VarID) {
		if !mark[v] {
			mark[v] = true
			stack = append(stack, v)
		}
	}
	for v, s := range r.obs {
		if s >= 0 {
			push(ir.VarID(v))
		}
	}
	for _, l := range vs {
		for _, v := range l {
			push(v)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range r.m.Parents[v] {
			push(p)
		}
	}
	return mark
}

// factors returns the factors of the marked variables restricted by the
// evidence, whether each is a copy (the restriction) rather than the
// model's own, and the product of those that became constants.
func (r *ve) factors(mark []bool) ([]*ir.Factor, []bool, factor.Scaled) {
	var fs []*ir.Factor
	var own []bool
	c := factor.Scaled{M: 1, E: 0}
	add := func(f *ir.Factor) {
		g := factor.Restrict(f, r.obs)
		if len(g.Vars) == 0 {
			c = c.MulFloat(g.Vals[0])
			return
		}
		fs = append(fs, g)
		own = append(own, g != f)
	}
	for v := range r.m.Vars {
		if f := r.m.Factor(ir.VarID(v)); f != nil && mark[v] {
			add(f)
		}
	}
	// Potentials (Markov networks) are always relevant: relevant marks
	// every variable of a model that has them.
	for _, f := range r.m.Potentials {
		add(f)
	}
	return fs, own, c
}

// separate leaves out of fs the factors that only change Joint(keep) by a
// positive constant: those of the connected components of the interaction
// graph of fs (the moral graph of the relevant variables, the evidence
// absorbed) that hold no variable of keep. The variables of such a
// component are exactly the relevant ones d-separated from keep given the
// evidence (Lauritzen's criterion on the moral graph of the ancestral
// set). A component is left out only if every entry of its factors is
// positive, so that its constant is not 0: evidence of probability 0
// stays an error, wherever its zero lies. The variables left out are
// unmarked in mark; separate returns the factors kept and how many
// variables it left out.
func (r *ve) separate(mark []bool, fs []*ir.Factor, own []bool, keep []ir.VarID) ([]*ir.Factor, []bool, int) {
	parent := make([]int32, len(mark))
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(v int32) int32
	find = func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for _, f := range fs {
		a := find(int32(f.Vars[0]))
		for _, v := range f.Vars[1:] {
			if b := find(int32(v)); b != a {
				parent[b] = a
			}
		}
	}
	// Components that hold a variable of keep, or a zero entry, stay.
	stay := make([]bool, len(mark))
	for _, v := range keep {
		stay[find(int32(v))] = true
	}
	for _, f := range fs {
		if c := find(int32(f.Vars[0])); !stay[c] && slices.Contains(f.Vals, 0) {
			stay[c] = true
		}
	}
	n := 0
	for i, f := range fs {
		if stay[find(int32(f.Vars[0]))] {
			fs[n], own[n] = f, own[i]
			n++
		}
	}
	dropped := 0
	for v, in := range mark {
		if in && r.obs[v] < 0 && r.card[v] > 0 && !stay[find(int32(v))] {
			mark[v] = false
			dropped++
		}
	}
	return fs[:n], own[:n], dropped
}

// free returns the marked unobserved discrete variables that are not in
// keep, in VarID order.
func (r *ve) free(mark []bool, keep []ir.VarID) []ir.VarID {
	var out []ir.VarID
	for v := range r.m.Vars {
		if mark[v] && r.obs[v] < 0 && r.card[v] > 0 && factor.IndexOf(keep, ir.VarID(v)) < 0 {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// vePlan is a run of variable elimination worked out before any table is
// allocated: the factors, the order, and the scope of every table.
type vePlan struct {
	mark   []bool        // the relevant variables
	fs     []*ir.Factor  // their factors restricted by the evidence
	own    []bool        // own[i]: fs[i] is a copy, which the fast run scales in place
	konst  factor.Scaled // the product of the factors that became constants
	steps  []veStep      // table len(fs)+s is made by steps[s]
	final  []int32       // the tables multiplied into the result
	keep   []ir.VarID    // the result's scope
	kc     []int         // and cardinalities
	memory float64       // bytes at the peak
	cost   float64       // estimated work: entries read and written (see cost)
	order  Heuristic     // the heuristic whose order the steps follow
	tried  []orderCost   // every order tried, for Explain
	nvars  int           // variables left after pruning (the relevant ones less the d-separated ones)
	dsep   int           // relevant variables left out as d-separated from keep given the evidence
	sep    bool          // fs is what separate kept of the factors of mark
}

// orderCost is an order tried by plan: its heuristic and estimated cost,
// or the error that refused it (a table over the limits).
type orderCost struct {
	h    Heuristic
	cost float64
	err  error
}

// veStep eliminates one variable: it multiplies the tables in (indices
// into fs, then into the steps' tables) and sums or maximises v out.
type veStep struct {
	v    ir.VarID
	in   []int32
	vars []ir.VarID // the new table's scope (empty for a constant)
	card []int
	max  bool
}

// plan works out the elimination of every relevant variable but keep's
// (those of maxVars, if any, maximised after the others are summed out),
// and refuses, before anything is allocated, a table over MaxTable
// entries or a peak memory over MaxMemory bytes.
//
// With Options.Order BestOrder it follows the order of each heuristic in
// heuristics and keeps the cheapest by estimated cost, stopping early when
// the work left to save is below what another greedy order costs; with
// maxVars (MPE, MAP) BestOrder is min-fill, so that the assignment chosen
// among exact ties does not depend on the costs.
func (r *ve) plan(keep, maxVars []ir.VarID) (*vePlan, error) {
	mark := r.relevant(keep, maxVars)
	p := &vePlan{mark: mark, keep: keep, kc: make([]int, len(keep))}
	p.fs, p.own, p.konst = r.factors(mark)
	if r.cond && len(keep) > 0 && len(maxVars) == 0 {
		p.fs, p.own, p.dsep = r.separate(mark, p.fs, p.own, keep)
		p.sep = true
	}
	for i, v := range keep {
		p.kc[i] = r.card[v]
	}
	sum := r.free(mark, slices.Concat(keep, maxVars))
	p.nvars = len(sum) + len(keep) + len(maxVars)
	hs := []Heuristic{r.opt.Order}
	if r.opt.Order == BestOrder {
		hs = heuristics[:]
		if len(maxVars) > 0 {
			hs = hs[:1]
		}
	}
	sc := scopes(p.fs)
	op := newOrderProblem(r.card, sc, sum, maxVars)
	// A greedy order costs about as much as following its steps; another
	// one is worth trying only when the best so far costs much more.
	orderWork := 0.0
	for _, s := range sc {
		orderWork += float64(len(s) * len(s))
	}
	orderWork = 16 * (orderWork + float64(len(op.ids)))
	var best *veSteps
	var firstErr error
	for _, h := range hs {
		if best != nil && best.cost <= orderWork {
			break
		}
		order, err := r.order(op, h)
		if err == nil {
			var st *veSteps
			st, err = r.follow(p, order, len(sum))
			if err == nil {
				p.tried = append(p.tried, orderCost{h: h, cost: st.cost})
				if best == nil || st.cost < best.cost {
					best, p.order = st, h
				}
				continue
			}
		}
		if errors.Is(err, ErrCanceled) {
			return nil, err
		}
		p.tried = append(p.tried, orderCost{h: h, err: err})
		if firstErr == nil {
			firstErr = err
		}
	}
	if best == nil {
		return nil, firstErr
	}
	if err := r.check(keep, p.kc); err != nil {
		return nil, err
	}
	p.steps, p.final, p.memory, p.cost = best.steps, best.final, best.memory, best.cost
	return p, nil
}

// veSteps is the elimination of a plan's factors along one order.
type veSteps struct {
	steps  []veStep
	final  []int32
	memory float64 // bytes at the peak
	cost   float64 // estimated work (see follow)
}

// follow follows the tables of p's factors through order (whose first nsum
// variables are summed out and the rest maximised): which the elimination
// of each variable multiplies, and the scope of the table it makes. It
// refuses a peak memory over MaxMemory.
//
// The estimated cost is what the run reads and writes: each factor once
// (the restricted copies, the scaling), and for each elimination the
// entries of the product of its tables (the new table's entries times the
// eliminated variable's states) times the number of tables multiplied,
// plus the new table; last the result's entries times the tables left.
func (r *ve) follow(p *vePlan, order []ir.VarID, nsum int) (*veSteps, error) {
	out := &veSteps{}
	var tv [][]ir.VarID // the scope of each table
	var tc [][]int      // and its cardinalities
	var sizes []float64 // entries of each table
	var owned []bool    // the table is allocated by the run (not the model's)
	var live []bool
	occ := make(map[ir.VarID][]int32)
	addTable := func(vars []ir.VarID, card []int, own bool) {
		i := int32(len(sizes))
		tv, tc = append(tv, vars), append(tc, card)
		sizes = append(sizes, product(card))
		owned = append(owned, own)
		live = append(live, len(vars) > 0)
		for _, v := range vars {
			occ[v] = append(occ[v], i)
		}
	}
	mem := 0.0 // bytes of the live tables the run allocated
	for i, f := range p.fs {
		addTable(f.Vars, f.Card, p.own[i])
		if p.own[i] {
			mem += 8 * sizes[i]
		}
		out.cost += sizes[i]
	}
	traces := 0.0
	for s, v := range order {
		st := veStep{v: v, max: s >= nsum}
		for _, i := range occ[v] {
			if live[i] {
				st.in = append(st.in, i)
				live[i] = false
			}
		}
		delete(occ, v)
		for _, i := range st.in {
			for j, w := range tv[i] {
				if w != v && factor.IndexOf(st.vars, w) < 0 {
					st.vars = append(st.vars, w)
					st.card = append(st.card, tc[i][j])
				}
			}
		}
		n := product(st.card)
		out.cost += n * (1 + float64(r.card[v])*float64(len(st.in)))
		peak := mem + 8*n + absorbMemory(st.in, sizes) + traces
		if st.max {
			traces += 4 * n
			peak += 4 * n
		}
		out.memory = max(out.memory, peak)
		for _, i := range st.in {
			if owned[i] {
				mem -= 8 * sizes[i]
			}
		}
		mem += 8 * n
		out.steps = append(out.steps, st)
		addTable(st.vars, st.card, true)
	}
	for i := range live {
		if live[i] {
			out.final = append(out.final, int32(i))
		}
	}
	out.cost += product(p.kc) * float64(1+len(out.final))
	out.memory = max(out.memory, mem+traces+8*product(p.kc)+absorbMemory(out.final, sizes))
	if limit := r.opt.maxMemory(); out.memory > float64(limit) {
		e := &TooLargeError{What: OversizeMemory, Vars: slices.Clone(p.keep), Size: out.memory, Limit: limit}
		e.msg = fmt.Sprintf("variable elimination needs %s of memory for its tables, more than the limit of %s; "+
			"try another elimination order, fewer query variables, or raise the memory limit", bytesString(out.memory), bytesString(float64(limit)))
		return nil, e.at(r.pos)
	}
	return out, nil
}

// absorbInputs is the number of tables from which a product first
// multiplies the tables whose scope lies within the largest one's into a
// copy of it (see absorb).
const absorbInputs = 8

// absorbMemory is the memory absorb allocates for a product of the tables
// in (of the given sizes): a copy of the largest.
func absorbMemory(in []int32, sizes []float64) float64 {
	if len(in) <= absorbInputs {
		return 0
	}
	mx := 0.0
	for _, i := range in {
		mx = max(mx, sizes[i])
	}
	return 8 * mx
}

// order returns h's greedy elimination order of the stages of op (every
// variable of the first stage, then the second's) and refuses an order
// that would make a table of more than MaxTable entries: eliminating v
// makes a table over v's neighbours.
func (r *ve) order(op *orderProblem, h Heuristic) ([]ir.VarID, error) {
	limit := float64(r.opt.maxTable())
	var err error
	order := op.order(h, func(v ir.VarID, nb []ir.VarID, size float64) bool {
		if r.k.Poll() {
			err = canceled(r.pos)
			return false
		}
		if size > limit {
			card := make([]int, len(nb))
			for i, w := range nb {
				card[i] = r.card[w]
			}
			err = r.check(nb, card)
			return err == nil
		}
		return true
	})
	return order, err
}

// run carries out a plan: exactly (exact.go) if exact is set, otherwise
// on scaled float64 tables, recording in r.k whether a product fell below
// the normal range. It returns the table over keep times a scale, and the
// traces of the maximised variables.
func (r *ve) run(p *vePlan, exact bool) (*ir.Factor, factor.Scaled, []trace, error) {
	if exact {
		return r.runExact(p)
	}
	k := r.k
	c := p.konst
	tabs := make([]*ir.Factor, len(p.fs)+len(p.steps))
	for i, f := range p.fs {
		if p.own[i] {
			c.E += factor.Rescale(k, f)
			tabs[i] = f
			continue
		}
		g, e, _ := factor.Prepare(k, f)
		tabs[i], c.E = g, c.E+e
	}
	var tr []trace
	var in []*ir.Factor
	for s, st := range p.steps {
		if k.Poll() {
			return nil, c, nil, canceled(r.pos)
		}
		in = in[:0]
		for _, i := range st.in {
			in = append(in, tabs[i])
			tabs[i] = nil
		}
		if len(in) == 0 {
			// v occurs in no factor (it cannot happen for a relevant
			// variable, whose CPT mentions it); summing gives card(v)
			// and maximising gives 1. Keep it exact anyway.
			if st.max {
				tr = append(tr, trace{v: st.v, arg: []int32{0}})
			} else {
				c = c.MulFloat(float64(r.card[st.v]))
			}
			continue
		}
		in, e := absorb(k, in)
		c.E += e
		dst := factor.New(st.vars, st.card)
		if st.max {
			arg := make([]int32, len(dst.Vals))
			factor.Combine(k, dst, in, factor.OpMax, arg)
			tr = append(tr, trace{v: st.v, vars: dst.Vars, str: dst.Stride, arg: arg})
		} else {
			factor.Combine(k, dst, in, factor.OpSum, nil)
		}
		c.E += factor.Rescale(k, dst)
		if len(dst.Vars) == 0 {
			c = c.MulFloat(dst.Vals[0])
			continue
		}
		tabs[len(p.fs)+s] = dst
	}
	in = in[:0]
	for _, i := range p.final {
		in = append(in, tabs[i])
	}
	in, e := absorb(k, in)
	c.E += e
	out := factor.Combine(k, factor.New(p.keep, p.kc), in, factor.OpSum, nil)
	if k.Poll() {
		return nil, c, nil, canceled(r.pos)
	}
	if c.M == 0 {
		// A constant factor is 0: the evidence is impossible. Callers
		// look only at the table, so make it say so.
		clear(out.Vals)
		return out, factor.Scaled{}, tr, nil
	}
	c.E += factor.Rescale(k, out)
	return out, c, tr, nil
}

// absorb returns the tables of a product, with those whose scope lies
// within the largest table's multiplied into a copy of it when there are
// more than absorbInputs of them (many unary tables over one variable,
// say), and the exponent taken off that copy. The product then multiplies
// few tables at a time, which keeps it fast and far from underflow.
func absorb(k *factor.Kernel, in []*ir.Factor) ([]*ir.Factor, int) {
	if len(in) <= absorbInputs {
		return in, 0
	}
	big := 0
	for i, f := range in {
		if len(f.Vals) > len(in[big].Vals) {
			big = i
		}
	}
	var sub, rest []*ir.Factor
	for i, f := range in {
		if i != big && containsAllUnsorted(in[big].Vars, f.Vars) {
			sub = append(sub, f)
		} else if i != big {
			rest = append(rest, f)
		}
	}
	if len(sub) == 0 {
		return in, 0
	}
	dst := in[big].Clone()
	e := factor.MultiplyInto(k, dst, sub)
	return append(rest, dst), e
}

// containsAllUnsorted reports whether every variable of vs is in c.
func containsAllUnsorted(c, vs []ir.VarID) bool {
	for _, v := range vs {
		if factor.IndexOf(c, v) < 0 {
			return false
		}
	}
	return true
}

// Joint returns P(keep, e) as a factor over keep, in that order, times the
// returned scale. The variables of keep must be unobserved and discrete.
func (r *ve) Joint(keep []ir.VarID) (*ir.Factor, factor.Scaled, error) {
	p := r.pre
	if p == nil || !slices.Equal(keep, r.preKeep) {
		var err error
		if p, err = r.plan(keep, nil); err != nil {
			return nil, factor.Scaled{}, err
		}
	}
	r.pre, r.preKeep = nil, nil
	r.k.Lost, r.k.Coarse = false, false
	out, c, _, err := r.run(p, false)
	if err == nil && r.k.Lost {
		out, c, _, err = r.run(p, true)
	}
	return out, c, err
}

// check returns an error if a table over vars would be larger than MaxTable.
func (r *ve) check(vars []ir.VarID, card []int) error {
	limit := r.opt.maxTable()
	if factor.Size(card, limit) >= 0 {
		return nil
	}
	e := &TooLargeError{What: OversizeTable, Vars: slices.Clone(vars), Size: product(card), Limit: int64(limit)}
	e.msg = fmt.Sprintf("variable elimination needs a table over %s (%s) with %s entries, more than the limit of %d; "+
		"try another elimination order, or fewer query variables", ir.Plural(len(vars), "variable"), varList(r.m, vars), sizeString(card), limit)
	return e.at(r.pos)
}

// scopes returns the scopes of fs.
func scopes(fs []*ir.Factor) [][]ir.VarID {
	out := make([][]ir.VarID, len(fs))
	for i, f := range fs {
		out[i] = f.Vars
	}
	return out
}

// Partition returns Σ_x Π φ(x) over every assignment, without evidence.
func (r *ve) Partition() (factor.Scaled, error) {
	s := *r
	s.obs = noEvidence(len(r.obs))
	s.pre, s.preKeep = nil, nil // the planner's plan is for the evidence
	return peOf(&s)
}
