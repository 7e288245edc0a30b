package infer

import (
	"fmt"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// ve is variable elimination on one model and one set of evidence.
type ve struct {
	m    *ir.Model
	opt  Options
	pos  ir.Pos
	obs  []int   // obs[v]: observed state of v, or -1
	card []int   // card[v]: number of states of v (0 for real variables)
	k    *kernel // cancellation, and whether the fast run lost digits
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
func (r *ve) factors(mark []bool) ([]*ir.Factor, []bool, xfloat) {
	var fs []*ir.Factor
	var own []bool
	c := xfloat{1, 0}
	add := func(f *ir.Factor) {
		g := restrict(f, r.obs)
		if len(g.Vars) == 0 {
			c = c.mulf(g.Vals[0])
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

// free returns the marked unobserved discrete variables that are not in
// keep, in VarID order.
func (r *ve) free(mark []bool, keep []ir.VarID) []ir.VarID {
	var out []ir.VarID
	for v := range r.m.Vars {
		if mark[v] && r.obs[v] < 0 && r.card[v] > 0 && indexOf(keep, ir.VarID(v)) < 0 {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// vePlan is a run of variable elimination worked out before any table is
// allocated: the factors, the order, and the scope of every table.
type vePlan struct {
	mark   []bool       // the relevant variables
	fs     []*ir.Factor // their factors restricted by the evidence
	own    []bool       // own[i]: fs[i] is a copy, which the fast run scales in place
	konst  xfloat       // the product of the factors that became constants
	steps  []veStep     // table len(fs)+s is made by steps[s]
	final  []int32      // the tables multiplied into the result
	keep   []ir.VarID   // the result's scope
	kc     []int        // and cardinalities
	memory float64      // bytes at the peak
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
func (r *ve) plan(keep, maxVars []ir.VarID) (*vePlan, error) {
	mark := r.relevant(keep, maxVars)
	p := &vePlan{mark: mark, keep: keep, kc: make([]int, len(keep))}
	p.fs, p.own, p.konst = r.factors(mark)
	for i, v := range keep {
		p.kc[i] = r.card[v]
	}
	sum := r.free(mark, slices.Concat(keep, maxVars))
	order, err := r.order(scopes(p.fs), sum, maxVars)
	if err != nil {
		return nil, err
	}
	if err := r.check(keep, p.kc); err != nil {
		return nil, err
	}
	// Follow the tables through the order: which the elimination of each
	// variable multiplies, and the scope of the table it makes.
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
	}
	traces := 0.0
	for s, v := range order {
		st := veStep{v: v, max: s >= len(sum)}
		for _, i := range occ[v] {
			if live[i] {
				st.in = append(st.in, i)
				live[i] = false
			}
		}
		delete(occ, v)
		for _, i := range st.in {
			for j, w := range tv[i] {
				if w != v && indexOf(st.vars, w) < 0 {
					st.vars = append(st.vars, w)
					st.card = append(st.card, tc[i][j])
				}
			}
		}
		n := product(st.card)
		peak := mem + 8*n + absorbMemory(st.in, sizes) + traces
		if st.max {
			traces += 4 * n
			peak += 4 * n
		}
		p.memory = max(p.memory, peak)
		for _, i := range st.in {
			if owned[i] {
				mem -= 8 * sizes[i]
			}
		}
		mem += 8 * n
		p.steps = append(p.steps, st)
		addTable(st.vars, st.card, true)
	}
	for i := range live {
		if live[i] {
			p.final = append(p.final, int32(i))
		}
	}
	p.memory = max(p.memory, mem+traces+8*product(p.kc)+absorbMemory(p.final, sizes))
	if limit := r.opt.maxMemory(); p.memory > float64(limit) {
		e := &TooLargeError{What: OversizeMemory, Vars: slices.Clone(keep), Size: p.memory, Limit: limit}
		e.msg = fmt.Sprintf("variable elimination needs %s of memory for its tables, more than the limit of %s; "+
			"try another elimination order, fewer query variables, or raise the memory limit", bytesString(p.memory), bytesString(float64(limit)))
		return nil, e.at(r.pos)
	}
	return p, nil
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

// order returns the elimination order of the variables of the stages
// (every one of stages[0] first, and so on), greedy with the heuristic of
// Options.Order on the interaction graph of scopes, and refuses an order
// that would make a table of more than MaxTable entries: eliminating v
// makes a table over v's neighbours.
func (r *ve) order(scopes [][]ir.VarID, stages ...[]ir.VarID) ([]ir.VarID, error) {
	limit := float64(r.opt.maxTable())
	var err error
	order := elimOrder(r.opt.Order, r.card, scopes, func(v ir.VarID, nb []ir.VarID, size float64) bool {
		if r.k.poll() {
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
	}, stages...)
	return order, err
}

// run carries out a plan: exactly (exact.go) if exact is set, otherwise
// on scaled float64 tables, recording in r.k whether a product fell below
// the normal range. It returns the table over keep times a scale, and the
// traces of the maximised variables.
func (r *ve) run(p *vePlan, exact bool) (*ir.Factor, xfloat, []trace, error) {
	if exact {
		return r.runExact(p)
	}
	k := r.k
	c := p.konst
	tabs := make([]*ir.Factor, len(p.fs)+len(p.steps))
	for i, f := range p.fs {
		if p.own[i] {
			c.e += rescale(k, f)
			tabs[i] = f
			continue
		}
		g, e, _ := scaled(k, f)
		tabs[i], c.e = g, c.e+e
	}
	var tr []trace
	var in []*ir.Factor
	for s, st := range p.steps {
		if k.poll() {
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
				c = c.mulf(float64(r.card[st.v]))
			}
			continue
		}
		in, e := absorb(k, in)
		c.e += e
		dst := newFactor(st.vars, st.card)
		if st.max {
			arg := make([]int32, len(dst.Vals))
			combineTo(k, dst, in, opMax, arg)
			tr = append(tr, trace{v: st.v, vars: dst.Vars, str: dst.Stride, arg: arg})
		} else {
			combineTo(k, dst, in, opSum, nil)
		}
		c.e += rescale(k, dst)
		if len(dst.Vars) == 0 {
			c = c.mulf(dst.Vals[0])
			continue
		}
		tabs[len(p.fs)+s] = dst
	}
	in = in[:0]
	for _, i := range p.final {
		in = append(in, tabs[i])
	}
	in, e := absorb(k, in)
	c.e += e
	out := combineTo(k, newFactor(p.keep, p.kc), in, opSum, nil)
	if k.poll() {
		return nil, c, nil, canceled(r.pos)
	}
	if c.m == 0 {
		// A constant factor is 0: the evidence is impossible. Callers
		// look only at the table, so make it say so.
		clear(out.Vals)
		return out, xfloat{}, tr, nil
	}
	c.e += rescale(k, out)
	return out, c, tr, nil
}

// absorb returns the tables of a product, with those whose scope lies
// within the largest table's multiplied into a copy of it when there are
// more than absorbInputs of them (many unary tables over one variable,
// say), and the exponent taken off that copy. The product then multiplies
// few tables at a time, which keeps it fast and far from underflow.
func absorb(k *kernel, in []*ir.Factor) ([]*ir.Factor, int) {
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
	e := multiplyInto(k, dst, sub)
	return append(rest, dst), e
}

// containsAllUnsorted reports whether every variable of vs is in c.
func containsAllUnsorted(c, vs []ir.VarID) bool {
	for _, v := range vs {
		if indexOf(c, v) < 0 {
			return false
		}
	}
	return true
}

// joint returns P(keep, e) as a factor over keep, in that order, times the
// returned scale. The variables of keep must be unobserved and discrete.
func (r *ve) joint(keep []ir.VarID) (*ir.Factor, xfloat, error) {
	p, err := r.plan(keep, nil)
	if err != nil {
		return nil, xfloat{}, err
	}
	r.k.lost, r.k.coarse = false, false
	out, c, _, err := r.run(p, false)
	if err == nil && r.k.lost {
		out, c, _, err = r.run(p, true)
	}
	return out, c, err
}

// check returns an error if a table over vars would be larger than MaxTable.
func (r *ve) check(vars []ir.VarID, card []int) error {
	limit := r.opt.maxTable()
	if tableSize(card, limit) >= 0 {
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

// partition returns Σ_x Π φ(x) over every assignment, without evidence.
func (r *ve) partition() (xfloat, error) {
	s := *r
	s.obs = noEvidence(len(r.obs))
	return peOf(&s)
}
