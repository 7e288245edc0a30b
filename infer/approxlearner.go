package infer

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/pbl-lang/pbl/ir"
)

// This file is an approximate E-step for learners whose model's junction
// tree does not fit: a [Learner] on loopy belief propagation, for EM and
// gradient ascent on networks too wide for exact inference
// (docs/approximate.md, "Learning").
//
// Each row is its own propagation on the factor graph of the Bayesian
// network's tables (and of the likelihoods a row puts in the model's
// slots), its observed variables clamped: the messages of a factor are
// computed in one pass over its table, in the tables' order, each
// variable's messages to a factor the product of those from its other
// factors; undamped for the first bpUndamped sweeps, then damped by half,
// until no message moves by more than bpTol, or bpMaxIter sweeps. A
// family's posterior is then the belief of its table's factor,
//
//	b_f(x_f) ∝ f(x_f) Π_{u ∈ f} m_{u→f}(x_u),
//
// which is what the family's posterior needs: a joint over the family, not
// a product of marginals (a CPT is a factor of its own, so a family always
// fits in one cluster of the graph). The row's log-likelihood is the
// Bethe approximation of ln P(row),
//
//	ln Z_B = Σ_f Σ_x b_f (ln f − ln b_f) + Σ_v (d_v − 1) Σ_x b_v ln b_v
//
// (d_v the factors v is in), exact on a network whose factor graph is a
// tree, and neither a bound nor an estimate with an error in general: the
// learner says it is approximate (InexactLearner), and EM's check that the
// log-likelihood never decreases does not apply to it.

// Propagation's settings for a row: the undamped sweeps, the sweeps in
// all, the damping after the first ones, and the largest change of a
// message at convergence.
const (
	bpUndamped = 30
	bpMaxIter  = 300
	bpDamping  = 0.5
	bpTol      = 1e-9
)

// LearnerEngine is the name [InexactLearner.Approximate] gives the
// approximate E-step of [CompileApproxLearner].
const LearnerEngine = "lbp"

// InexactLearner is a [Learner] whose posteriors and log-likelihoods are
// approximate.
type InexactLearner interface {
	Learner
	// Approximate returns the name of the approximate engine, and how
	// many rows' propagations have stopped at their limit of sweeps
	// without converging, in every learner installed from the same
	// compilation.
	Approximate() (engine string, unconverged int64)
}

// ApproxLearner is the approximate [Learner]: loopy belief propagation
// per row (see the file's comment). Make it with [CompileApproxLearner].
type ApproxLearner struct {
	m      *ir.Model
	g      *bpGraph
	vals   [][]float64 // the tables' numbers, by factor (families; slots have none)
	cancel <-chan struct{}
	stuck  *atomic.Int64 // rows that did not converge, shared by every Install
}

var _ InexactLearner = (*ApproxLearner)(nil)

// bpGraph is the structure of the factor graph: the families' tables
// (factors 0..nfam-1) and the slots (after them), each with its scope,
// and the edges between factors and variables.
type bpGraph struct {
	card  []int        // by VarID; 0 for a real variable
	scope [][]ir.VarID // by factor, in its table's layout (last fastest)
	fcard [][]int      // the states of each scope's variables
	size  []int        // entries of each factor
	fam   []int        // fam[v]: v's table's factor, or -1
	nfam  int          // factors of families; slot j is factor nfam+j
	adj   [][]bpEdge   // adj[v]: v's edges
	off   [][]int      // off[f][k]: the offset of edge (f, k)'s messages
	outs  [][]int      // outs[f][k]: the offset of f's message to its k-th variable in bpWork.out (outs[f][len(scope)]: their entries)
	msgs  int          // entries of the messages of every edge
	big   int          // the largest factor's entries
	wide  int          // the largest scope
	out   int          // the most entries of one factor's messages
}

// bpEdge is the k-th variable of factor f.
type bpEdge struct{ f, k int }

// CompileApproxLearner returns the approximate [Learner] for m: a
// Bayesian network, with likelihood slots ([LikelihoodSlots]) if any —
// every potential of m must be a slot of ones. It compiles nothing that
// grows with the network's width: its memory is the tables', and messages
// of as many entries per row being propagated. opt.Cancel stops an
// E-step between rows (ErrCanceled).
func CompileApproxLearner(m *ir.Model, opt Options) (*ApproxLearner, error) {
	g := &bpGraph{card: make([]int, len(m.Vars)), fam: make([]int, len(m.Vars))}
	for v := range m.Vars {
		g.fam[v] = -1
		if m.Discrete(ir.VarID(v)) {
			g.card[v] = len(m.Vars[v].States)
		}
	}
	var vals [][]float64
	add := func(f *ir.Factor) {
		i := len(g.scope)
		g.scope = append(g.scope, f.Vars)
		g.fcard = append(g.fcard, f.Card)
		g.size = append(g.size, len(f.Vals))
		g.big = max(g.big, len(f.Vals))
		g.wide = max(g.wide, len(f.Vars))
		offs := make([]int, len(f.Vars))
		outs := make([]int, len(f.Vars)+1)
		for k, v := range f.Vars {
			g.adj[v] = append(g.adj[v], bpEdge{i, k})
			offs[k] = g.msgs
			g.msgs += g.card[v]
			outs[k+1] = outs[k] + g.card[v]
		}
		g.off = append(g.off, offs)
		g.outs = append(g.outs, outs)
		g.out = max(g.out, outs[len(f.Vars)])
	}
	g.adj = make([][]bpEdge, len(m.Vars))
	for v, c := range g.card {
		if c == 0 {
			continue
		}
		f := m.Factor(ir.VarID(v))
		if f == nil {
			return nil, fmt.Errorf("the approximate E-step runs on a Bayesian network, and %s has no table", ir.Quote(m.Vars[v].Name))
		}
		g.fam[v] = len(g.scope)
		add(f)
		vals = append(vals, f.Vals)
	}
	g.nfam = len(g.scope)
	for _, p := range m.Potentials {
		if !ones(p.Vals) {
			return nil, fmt.Errorf("the approximate E-step runs on a Bayesian network: the model's potentials must be likelihood slots of ones")
		}
		for _, v := range p.Vars {
			if g.card[v] == 0 {
				return nil, fmt.Errorf("the approximate E-step's slot over %s: a real variable", ir.Quote(m.Vars[v].Name))
			}
		}
		add(p)
	}
	return &ApproxLearner{m: m, g: g, vals: vals, cancel: opt.Cancel, stuck: new(atomic.Int64)}, nil
}

// ones reports whether every entry of vals is 1.
func ones(vals []float64) bool {
	for _, x := range vals {
		if x != 1 {
			return false
		}
	}
	return true
}

// Install returns the learner for m, a model of the receiver's structure
// with new numbers.
func (l *ApproxLearner) Install(m *ir.Model) (Learner, error) {
	if len(m.Vars) != len(l.g.card) || len(m.Potentials) != len(l.g.scope)-l.g.nfam {
		return nil, fmt.Errorf("infer: Install: a model of another structure")
	}
	vals := make([][]float64, l.g.nfam)
	for v, i := range l.g.fam {
		if i < 0 {
			continue
		}
		f := m.Factor(ir.VarID(v))
		if f == nil || !slices.Equal(f.Vars, l.g.scope[i]) || len(f.Vals) != l.g.size[i] {
			return nil, fmt.Errorf("infer: Install: the table of %s has another scope", ir.Quote(m.Vars[v].Name))
		}
		vals[i] = f.Vals
	}
	for j, p := range m.Potentials {
		if !slices.Equal(p.Vars, l.g.scope[l.g.nfam+j]) || !ones(p.Vals) {
			return nil, fmt.Errorf("infer: Install: slot %d is not the same slot of ones", j)
		}
	}
	return &ApproxLearner{m: m, g: l.g, vals: vals, cancel: l.cancel, stuck: l.stuck}, nil
}

// Approximate returns LearnerEngine and the rows whose propagation did not
// converge so far.
func (l *ApproxLearner) Approximate() (string, int64) { return LearnerEngine, l.stuck.Load() }

// Expect is [Learner.Expect]: each distinct row (equal rows are grouped,
// their weights summed) is propagated once. A row that propagation finds
// impossible (a message of zeros) is counted in Impossible; propagation
// may also miss an impossibility that only the whole network shows.
func (l *ApproxLearner) Expect(rows [][]int, weights []float64, acc [][]float64) (ExpectStats, error) {
	l.checkFamilies("Expect", acc)
	order, err := expectOrder(rows, weights, func(row []int) { l.checkObs("Expect", row) })
	if err != nil {
		return ExpectStats{}, err
	}
	w := l.newWork()
	var st ExpectStats
	for g := 0; g < len(order); {
		row := rows[order[g]]
		n, wt := 0, 0.0
		for ; g+n < len(order) && slices.Equal(rows[order[g+n]], row); n++ {
			if weights == nil {
				wt++
			} else {
				wt += weights[order[g+n]]
			}
		}
		g += n
		if closed(l.cancel) {
			return st, canceled(ir.Pos{File: l.m.Source})
		}
		lp, ok := l.propagate(w, row, nil)
		if !ok {
			st.Impossible += n
			continue
		}
		st.Rows += n
		st.LogLik += wt * lp
		l.addFamilies(w, acc, wt)
	}
	return st, nil
}

// ExpectLik is [Learner.ExpectLik]: each row is propagated with its
// likelihoods as factors over its slots' scopes; a slot without a
// likelihood in the row (a slot of ones) is left out of the graph, and its
// posterior is the product of its variables' beliefs.
func (l *ApproxLearner) ExpectLik(rows []LikRow, acc [][]float64, post [][][]float64, logp []float64) (ExpectStats, error) {
	l.checkFamilies("ExpectLik", acc)
	if post != nil && len(post) != len(rows) || logp != nil && len(logp) != len(rows) {
		panic("infer: ExpectLik: post or logp is not one per row")
	}
	nslot := len(l.g.scope) - l.g.nfam
	for r, row := range rows {
		l.checkObs("ExpectLik", row.Obs)
		if !(row.Weight >= 0 && row.Weight <= math.MaxFloat64) {
			return ExpectStats{}, fmt.Errorf("weight %s of row %d is not a finite non-negative number", ir.FormatFloat(row.Weight), r+1)
		}
		if len(row.Lik) > nslot {
			panic("infer: ExpectLik: more likelihoods than slots")
		}
		for j, lk := range row.Lik {
			if lk != nil && len(lk) != l.g.size[l.g.nfam+j] {
				panic(fmt.Sprintf("infer: ExpectLik: a likelihood of %d entries for a slot of %d", len(lk), l.g.size[l.g.nfam+j]))
			}
		}
		if post != nil && len(post[r]) > nslot {
			panic("infer: ExpectLik: more posteriors than slots")
		}
	}
	w := l.newWork()
	var st ExpectStats
	for r, row := range rows {
		if closed(l.cancel) {
			return st, canceled(ir.Pos{File: l.m.Source})
		}
		lp, ok := l.propagate(w, row.Obs, row.Lik)
		if !ok {
			st.Impossible++
			if logp != nil {
				logp[r] = math.Inf(-1)
			}
			continue
		}
		if logp != nil {
			logp[r] = lp
		}
		st.Rows++
		st.LogLik += row.Weight * lp
		l.addFamilies(w, acc, row.Weight)
		if post != nil {
			for j, d := range post[r] {
				if d != nil {
					l.belief(w, l.g.nfam+j, d)
				}
			}
		}
	}
	return st, nil
}

// checkObs panics on a row of another length, an observed real variable
// or a state out of range.
func (l *ApproxLearner) checkObs(fn string, obs []int) {
	if len(obs) != len(l.g.card) {
		panic(fmt.Sprintf("infer: %s: evidence for %d variables, the model has %d", fn, len(obs), len(l.g.card)))
	}
	for v, s := range obs {
		if s >= 0 && l.g.card[v] == 0 {
			panic(fmt.Sprintf("infer: %s: %s is real-valued and cannot be observed", fn, ir.Quote(l.m.Vars[v].Name)))
		}
		if s >= l.g.card[v] || s < -1 {
			panic(fmt.Sprintf("infer: %s: state %d of %s is out of range", fn, s, ir.Quote(l.m.Vars[v].Name)))
		}
	}
}

// checkFamilies panics unless every non-nil acc[v] has the length of v's
// family table.
func (l *ApproxLearner) checkFamilies(fn string, acc [][]float64) {
	if len(acc) != len(l.g.card) {
		panic(fmt.Sprintf("infer: %s: %d family tables for %d variables", fn, len(acc), len(l.g.card)))
	}
	for v, d := range acc {
		if d == nil {
			continue
		}
		if i := l.g.fam[v]; i < 0 || len(d) != l.g.size[i] {
			panic(fmt.Sprintf("infer: %s: a table of %d entries for the family of %s", fn, len(d), ir.Quote(l.m.Vars[v].Name)))
		}
	}
}

// bpWork is one call's workspace: the messages of every edge, factor to
// variable (fv) and variable to factor (vf), the row's factors' numbers
// and whether each takes part, and scratch.
type bpWork struct {
	fv, vf []float64
	vals   [][]float64 // by factor: the table, or the row's likelihood (scaled to at most 1)
	on     []bool      // by factor: in the row's graph
	obs    []int
	a      []int     // an assignment of a factor's scope
	pre    []float64 // prefix products of the incoming messages at an entry
	out    []float64 // the new messages of a factor, edge by edge
	bel    []float64 // a factor's belief
	vb     []float64 // a variable's belief
	logMax float64   // Σ ln of the scales of the row's likelihoods
}

func (l *ApproxLearner) newWork() *bpWork {
	g := l.g
	maxCard := 1
	for _, c := range g.card {
		maxCard = max(maxCard, c)
	}
	w := &bpWork{
		out:  make([]float64, g.out),
		fv:   make([]float64, g.msgs),
		vf:   make([]float64, g.msgs),
		vals: make([][]float64, len(g.scope)),
		on:   make([]bool, len(g.scope)),
		a:    make([]int, g.wide),
		pre:  make([]float64, g.wide+1),
		bel:  make([]float64, g.big),
		vb:   make([]float64, maxCard),
	}
	copy(w.vals, l.vals)
	return w
}

// propagate runs loopy belief propagation for the row obs with the
// likelihoods lik in the slots (nil for none), leaving the messages in w,
// and returns the Bethe approximation of ln P(row), or false when
// propagation finds the row impossible.
func (l *ApproxLearner) propagate(w *bpWork, obs []int, lik [][]float64) (float64, bool) {
	g := l.g
	w.obs = obs
	w.logMax = 0
	for f := range g.scope {
		w.on[f] = f < g.nfam
		if f >= g.nfam {
			j := f - g.nfam
			if j < len(lik) && lik[j] != nil {
				mx := 0.0
				for _, x := range lik[j] {
					mx = max(mx, x)
				}
				if !(mx > 0) || math.IsInf(mx, 1) {
					return 0, false // a likelihood of zeros (or not a number)
				}
				if cap(w.vals[f]) < len(lik[j]) || w.vals[f] == nil {
					w.vals[f] = make([]float64, len(lik[j]))
				}
				w.vals[f] = w.vals[f][:len(lik[j])]
				for i, x := range lik[j] {
					w.vals[f][i] = x / mx
				}
				w.logMax += math.Log(mx)
				w.on[f] = true
			}
		}
	}
	// Messages start uniform; an observed variable's are its state.
	for f, scope := range g.scope {
		for k, v := range scope {
			m := w.fv[g.off[f][k] : g.off[f][k]+g.card[v]]
			n := w.vf[g.off[f][k] : g.off[f][k]+g.card[v]]
			for x := range m {
				m[x] = 1 / float64(len(m))
				n[x] = m[x]
				if s := obs[v]; s >= 0 {
					n[x] = 0
					if x == s {
						n[x] = 1
					}
				}
			}
		}
	}
	converged := false
	for it := 0; it < bpMaxIter && !converged; it++ {
		damp := 0.0
		if it >= bpUndamped {
			damp = bpDamping
		}
		change := 0.0
		for f := range g.scope {
			if !w.on[f] {
				continue
			}
			for k, v := range g.scope[f] {
				if obs[v] < 0 && !l.toFactor(w, v, f, k) {
					return 0, false
				}
			}
			d, ok := l.fromFactor(w, f, damp)
			if !ok {
				return 0, false
			}
			change = max(change, d)
		}
		converged = change <= bpTol
	}
	if !converged {
		l.stuck.Add(1)
	}
	// The variables' messages to the factors from the last messages of
	// the factors, then the Bethe energy.
	for f := range g.scope {
		if !w.on[f] {
			continue
		}
		for k, v := range g.scope[f] {
			if obs[v] < 0 && !l.toFactor(w, v, f, k) {
				return 0, false
			}
		}
	}
	lz := w.logMax
	for f := range g.scope {
		if !w.on[f] {
			continue
		}
		z := l.product(w, f, w.bel)
		if !(z > 0) {
			return 0, false
		}
		vals := w.vals[f]
		for i, b := range w.bel[:g.size[f]] {
			if b > 0 {
				b /= z
				lz += b * (math.Log(vals[i]) - math.Log(b))
			}
		}
	}
	for v, c := range g.card {
		if c == 0 || obs[v] >= 0 {
			continue
		}
		d := 0
		for _, e := range g.adj[v] {
			if w.on[e.f] {
				d++
			}
		}
		if d == 1 {
			continue
		}
		if !l.varBelief(w, v) {
			return 0, false
		}
		h := 0.0
		for _, b := range w.vb[:c] {
			if b > 0 {
				h += b * math.Log(b)
			}
		}
		lz += float64(d-1) * h
	}
	if math.IsNaN(lz) || math.IsInf(lz, 0) {
		return 0, false
	}
	return lz, true
}

// toFactor sets the message of the unobserved v to factor f (its k-th
// variable): the normalised product of the messages of v's other factors.
// It reports false when the product is 0 everywhere.
func (l *ApproxLearner) toFactor(w *bpWork, v ir.VarID, f, k int) bool {
	g := l.g
	c := g.card[v]
	m := w.vf[g.off[f][k] : g.off[f][k]+c]
	for x := range m {
		m[x] = 1
	}
	for _, e := range g.adj[v] {
		if e.f == f || !w.on[e.f] {
			continue
		}
		in := w.fv[g.off[e.f][e.k] : g.off[e.f][e.k]+c]
		for x := range m {
			m[x] *= in[x]
		}
	}
	return normalise(m)
}

// normalise divides m by its sum, reporting false when the sum is 0 (or
// not finite).
func normalise(m []float64) bool {
	s := 0.0
	for _, x := range m {
		s += x
	}
	if !(s > 0) || math.IsInf(s, 1) {
		return false
	}
	for x := range m {
		m[x] /= s
	}
	return true
}

// fromFactor sets the messages of factor f to its unobserved variables,
// in one pass over its table: for each entry, the product of the
// messages into f of every variable but the one sent to (prefix and
// suffix products). damp keeps that share of the old message. It returns
// the largest change of a message entry, and false when a message is 0
// everywhere.
func (l *ApproxLearner) fromFactor(w *bpWork, f int, damp float64) (float64, bool) {
	g := l.g
	scope, card, vals := g.scope[f], g.fcard[f], w.vals[f]
	n := len(scope)
	outOff := g.outs[f]
	out := w.out[:outOff[n]]
	clear(out)
	a := w.a[:n]
	clear(a)
	pre := w.pre
	for i, x := range vals {
		if i > 0 {
			// The next assignment, last variable fastest.
			for k := n - 1; k >= 0; k-- {
				if a[k]++; a[k] < card[k] {
					break
				}
				a[k] = 0
			}
		}
		if x == 0 {
			continue
		}
		pre[0] = x
		for k := range n {
			pre[k+1] = pre[k] * w.vf[g.off[f][k]+a[k]]
		}
		if pre[n] == 0 && !anyZeroOnce(w, g, f, a) {
			continue
		}
		suf := 1.0
		for k := n - 1; k >= 0; k-- {
			if w.obs[scope[k]] < 0 {
				out[outOff[k]+a[k]] += pre[k] * suf
			}
			suf *= w.vf[g.off[f][k]+a[k]]
		}
	}
	change := 0.0
	for k, v := range scope {
		if w.obs[v] >= 0 {
			continue
		}
		m := out[outOff[k]:outOff[k+1]]
		if !normalise(m) {
			return 0, false
		}
		old := w.fv[g.off[f][k] : g.off[f][k]+len(m)]
		for x := range m {
			nx := (1-damp)*m[x] + damp*old[x]
			change = max(change, math.Abs(nx-old[x]))
			old[x] = nx
		}
	}
	return change, true
}

// anyZeroOnce reports whether exactly one of the incoming messages at the
// assignment a of f's scope is 0: the entry still counts toward that
// variable's message (the product of the others is not 0).
func anyZeroOnce(w *bpWork, g *bpGraph, f int, a []int) bool {
	zeros := 0
	for k := range a {
		if w.vf[g.off[f][k]+a[k]] == 0 {
			zeros++
		}
	}
	return zeros == 1
}

// product writes into bel f's table times its incoming messages, and
// returns their sum.
func (l *ApproxLearner) product(w *bpWork, f int, bel []float64) float64 {
	g := l.g
	card, vals := g.fcard[f], w.vals[f]
	n := len(card)
	a := w.a[:n]
	clear(a)
	z := 0.0
	for i, x := range vals {
		if i > 0 {
			for k := n - 1; k >= 0; k-- {
				if a[k]++; a[k] < card[k] {
					break
				}
				a[k] = 0
			}
		}
		for k := range n {
			if x == 0 {
				break
			}
			x *= w.vf[g.off[f][k]+a[k]]
		}
		bel[i] = x
		z += x
	}
	return z
}

// varBelief writes v's belief into w.vb: the normalised product of its
// factors' messages (its state, when observed).
func (l *ApproxLearner) varBelief(w *bpWork, v int) bool {
	g := l.g
	b := w.vb[:g.card[v]]
	if s := w.obs[v]; s >= 0 {
		clear(b)
		b[s] = 1
		return true
	}
	for x := range b {
		b[x] = 1
	}
	for _, e := range g.adj[v] {
		if !w.on[e.f] {
			continue
		}
		in := w.fv[g.off[e.f][e.k] : g.off[e.f][e.k]+len(b)]
		for x := range b {
			b[x] *= in[x]
		}
	}
	return normalise(b)
}

// belief writes the posterior of factor f's scope into d: its belief
// when it is in the row's graph, else (a slot of ones) the product of its
// variables' beliefs.
func (l *ApproxLearner) belief(w *bpWork, f int, d []float64) {
	g := l.g
	if w.on[f] {
		z := l.product(w, f, d)
		for i := range d {
			d[i] /= z
		}
		return
	}
	card := g.fcard[f]
	for i := range d {
		d[i] = 1
	}
	stride := 1
	for k := len(card) - 1; k >= 0; k-- {
		l.varBelief(w, int(g.scope[f][k]))
		for i := range d {
			d[i] *= w.vb[(i/stride)%card[k]]
		}
		stride *= card[k]
	}
}

// addFamilies adds wt times each wanted family's belief to acc.
func (l *ApproxLearner) addFamilies(w *bpWork, acc [][]float64, wt float64) {
	for v, a := range acc {
		if a == nil {
			continue
		}
		f := l.g.fam[v]
		z := l.product(w, f, w.bel)
		s := wt / z
		for i, x := range w.bel[:len(a)] {
			a[i] += s * x
		}
	}
}
