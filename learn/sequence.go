package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file learns a time-indexed model (ir.Time) from sequences, with
// its parameters tied across slices: EM whose statistics are those of
// the template distributions (one set of numbers each, whatever the
// slice), not of the unrolled model's variables.
//
// The model's distributions fall into groups. A time-indexed variable X
// whose template parents reach back `first` slices (first = the largest
// lag among them) has one group per initial slice s < first, P(X[s] |
// ...), and one tied group for every slice s ≥ first, the template P(X[t]
// | ...). A static variable is a group of its own. The E-step unrolls the
// model to each sequence's length (ir.Unroll; one compiled inference per
// distinct length), calibrates it once per sequence with the sequence's
// cells as evidence (its real values as likelihoods in slots over their
// densities' discrete parents), and adds the expected counts of every
// slice's family into its group:
//
//	n̄_g(u, x) = Σ_sequences Σ_{slices s of g within the sequence} P(parents_s = u, X_s = x | the sequence)
//
// The M-step makes each group's table the normalised counts (plus alpha
// for MAP), and each Gaussian group's mean and variance the weighted
// moments (the variance at least VarFloor); every slice of a group gets
// the same numbers. The objective (the log-likelihood plus the log prior)
// never decreases, which is checked.
//
// A hidden Markov model (seqhmm.go) takes a fast path: its E-step is
// package hmm's forward–backward, whose statistics are the groups'.

// Seq is one sequence of a time-indexed model's variables, for
// LearnSequences.
type Seq struct {
	// Steps[t][i] is the value of m.Time.Vars[i] at step t: a state's
	// index or -1 when missing (discrete variables), a real value or NaN
	// when missing (real ones).
	Steps [][]float64
	// Static[j] is the value of the j-th static variable of m (a
	// variable declared without [t], in VarID order): a state's index, -1,
	// a real value or NaN. nil: every static variable missing.
	Static []float64
	Line   int    // the line of its first row in the data, or 0
	File   string // the file of that line, for messages when the data are in several, or ""
}

// SeqOptions configures LearnSequences. Of Options, Method (EM; MLE
// and Bayes are EM without and with the prior), Alpha, ESS, Init, Seed,
// Restarts, MaxIter, Tol, Workers, Progress, Cancel, MaxMemory and
// Approximate apply.
type SeqOptions struct {
	Options
	// VarFloor is the least variance of a learned Gaussian density; 0
	// means DefaultVarFloor.
	VarFloor float64
	// General runs the general E-step even on a hidden Markov model,
	// which otherwise takes package hmm's (the same numbers, faster).
	General bool
}

// DefaultVarFloor is the least variance LearnSequences gives a Gaussian
// density when SeqOptions.VarFloor is 0.
const DefaultVarFloor = 1e-6

// ErrSequence is the kind of error of sequences that do not fit the
// model: a step with the wrong number of values, a state out of range.
var ErrSequence = errors.New("a sequence that does not fit the model")

// seqGroup is a set of the model's distributions with one set of numbers:
// a template distribution's slices, an initial slice, or a static
// variable.
type seqGroup struct {
	vars    []ir.VarID // the base model's variables of the group
	tv      int        // the time-indexed variable (index in m.Time.Vars), or -1 for a static one
	slice   int        // the initial slice, or -1 for the template or a static variable
	parents []ir.VarID // the parents of vars[0], in its distribution's order
	real    bool       // a Gaussian density (else a table)
	nconf   int        // parent configurations
	k       int        // the child's states (a table)
}

// statLen is the length of g's statistics: the expected counts of its
// table, or (w, Σw(x−c), Σw(x−c)²) per configuration.
func (g *seqGroup) statLen() int {
	if g.real {
		return 3 * g.nconf
	}
	return g.nconf * g.k
}

// seqRun is a run of LearnSequences.
type seqRun struct {
	opt     SeqOptions
	prior   Options // MLE, or Bayes with the pseudo-counts
	m       *ir.Model
	statics []ir.VarID
	groups  []*seqGroup
	groupOf []int    // groupOf[v]: the group of the base model's variable v, or -1
	time    *ir.Time // m.Time with every template's first slice (learned models have every template)
	hidden  []ir.VarID
	hmm     *hmmShape // the fast path, or nil
	start   time.Time
	steps   int64 // the data's steps (SeqCensus.Steps)
	nseqs   int64 // and sequences

	mu      sync.Mutex // guards horizon and approx, which E-steps set
	horizon map[int]*seqTree
	approx  *ApproxEStep
}

// seqTree is the inference of the model unrolled to one horizon.
type seqTree struct {
	h      int
	tree   infer.Learner
	groups []int        // groups[v]: the group of the unrolled variable v, or -1
	slice  []int        // slice[v]: the slice of v, or -1 for a static variable
	tv     []int        // tv[v]: v's time-indexed variable, or -1
	slots  []ir.VarID   // the Gaussian variables with discrete parents, one slot each
	scopes [][]ir.VarID // their parents
	seqs   []int        // the sequences of this horizon
}

// seqParams are a group's numbers.
type seqParams struct {
	vals     []float64 // a table's, nconf×k
	mean, sd []float64 // a Gaussian's, per configuration
}

// LearnSequences learns the distributions of m, a time-indexed model,
// from sequences, by EM with one set of numbers per template distribution
// (the expected counts of every slice summed) and the initial slices'
// distributions from those slices: tables (Dirichlet pseudo-count Alpha
// for MAP) and normal densities given discrete parents. Hidden variables
// and missing cells are marginalised. It returns m with every
// distribution replaced (every slice carrying its group's numbers; m.Time
// kept) and the report of the start kept.
func LearnSequences(m *ir.Model, seqs []Seq, opt SeqOptions) (*ir.Model, *Report, error) {
	opt, err := seqOptions(m, opt)
	if err != nil {
		return nil, nil, err
	}
	if len(seqs) == 0 {
		return nil, nil, ErrNoRows
	}
	r, err := newSeqRun(m, opt)
	if err != nil {
		return nil, nil, err // the model's errors before the data's
	}
	c := NewSeqCensus(m)
	if err := c.Add(seqs, 0); err != nil {
		return nil, nil, err
	}
	p, err := r.plan(c)
	if err != nil {
		return nil, nil, err
	}
	return p.Run(p.Shards([][]Seq{seqs}), seqs)
}

// seqOptions checks opt for learning m and returns it with its defaults
// (no prior for MLE, the variance floor, the iterations).
func seqOptions(m *ir.Model, opt SeqOptions) (SeqOptions, error) {
	if m.Time == nil {
		return opt, modelErrorf("the model has no time-indexed variables: learn it from rows, not sequences")
	}
	switch opt.Method {
	case MLE:
		opt.Alpha, opt.ESS = 0, 0
	case EM, Bayes:
	default:
		return opt, modelErrorf("method %s does not learn from sequences: use em (or mle, bayes)", opt.Method)
	}
	if opt.Vars != nil {
		return opt, modelErrorf("learning some variables of a time-indexed model is not supported: its sequences learn every distribution")
	}
	if !(opt.VarFloor >= 0) || math.IsInf(opt.VarFloor, 0) {
		return opt, fmt.Errorf("variance floor %s: need a finite number ≥ 0", ir.FormatFloat(opt.VarFloor))
	}
	if opt.VarFloor == 0 {
		opt.VarFloor = DefaultVarFloor
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = DefaultEMIter
	}
	return opt, nil
}

// newSeqRun returns the run of m with opt (checked by seqOptions): its
// groups, without data.
func newSeqRun(m *ir.Model, opt SeqOptions) (*seqRun, error) {
	r := &seqRun{opt: opt, m: m, start: time.Now(), horizon: map[int]*seqTree{}}
	r.prior = Options{Method: MLE}
	if opt.Alpha > 0 || opt.ESS > 0 {
		r.prior = Options{Method: Bayes, Alpha: opt.Alpha, ESS: opt.ESS}
	}
	if err := r.setGroups(); err != nil {
		return nil, err
	}
	return r, nil
}

// settle sets what r takes from the whole data, c: the hidden variables
// (discrete ones no sequence observes), the steps and sequences, and the
// fast path of a hidden Markov model.
func (r *seqRun) settle(c *SeqCensus) {
	m := r.m
	nt := len(m.Time.Vars)
	for i, tv := range m.Time.Vars {
		if !c.Observed[i] && m.Vars[tv.Slices[0]].Discrete() {
			r.hidden = append(r.hidden, tv.Slices[0])
		}
	}
	for j, v := range r.statics {
		if !c.Observed[nt+j] && m.Vars[v].Discrete() {
			r.hidden = append(r.hidden, v)
		}
	}
	r.steps, r.nseqs = c.Steps, c.Seqs
	if !r.opt.General {
		r.hmm = r.hmmShape()
	}
}

// setGroups sorts the base model's distributions into groups.
func (r *seqRun) setGroups() error {
	m := r.m
	inTime := make([]bool, len(m.Vars))
	r.groupOf = make([]int, len(m.Vars))
	for v := range r.groupOf {
		r.groupOf[v] = -1
	}
	where := map[ir.VarID][2]int{}
	for i, tv := range m.Time.Vars {
		for s, v := range tv.Slices {
			inTime[v] = true
			where[v] = [2]int{i, s}
		}
	}
	for v := range m.Vars {
		if !inTime[v] {
			r.statics = append(r.statics, ir.VarID(v))
		}
	}
	add := func(g *seqGroup) error {
		v := g.vars[0]
		x := m.Vars[v]
		ps := m.Parents[v]
		switch d := m.Dist(v).(type) {
		case nil:
		case *ir.CPT:
			ps = d.Parents
		case *ir.Gaussian:
			if len(d.Real) > 0 {
				return modelErrorf("%s has real-valued parents: learning a linear Gaussian density from sequences is not supported", ir.Quote(x.Name))
			}
			ps = d.Parents
		default:
			if x.Discrete() {
				if t := m.Table(v); t != nil {
					ps = t.Parents
					break
				}
			}
			return modelErrorf("%s: learning its kind of distribution from sequences is not supported (tables and normal densities given discrete parents are)", ir.Quote(x.Name))
		}
		g.parents = append([]ir.VarID(nil), ps...)
		g.real = !x.Discrete()
		g.nconf = 1
		for _, p := range ps {
			if !m.Vars[p].Discrete() {
				return modelErrorf("%s has the real-valued parent %s: learning it from sequences is not supported", ir.Quote(x.Name), ir.Quote(m.Vars[p].Name))
			}
			g.nconf *= len(m.Vars[p].States)
		}
		if !g.real {
			g.k = len(x.States)
			if g.k == 0 {
				return modelErrorf("%s has no states: declare them", ir.Quote(x.Name))
			}
		}
		for _, u := range g.vars {
			if len(m.Parents[u]) != len(ps) {
				return modelErrorf("%s: its slices have different parents, and cannot share numbers", ir.Quote(m.Vars[u].Name))
			}
			r.groupOf[u] = len(r.groups)
		}
		r.groups = append(r.groups, g)
		return nil
	}
	t := *m.Time
	t.Vars = slices.Clone(m.Time.Vars)
	r.time = &t
	for i, tv := range m.Time.Vars {
		last := tv.Slices[len(tv.Slices)-1]
		first := 0
		for _, p := range m.Parents[last] {
			if w, ok := where[p]; ok {
				first = max(first, len(tv.Slices)-1-w[1])
			}
		}
		if first >= len(tv.Slices) {
			return modelErrorf("%s: the model is unrolled to fewer slices than its order", ir.Quote(tv.Name))
		}
		r.time.Vars[i].First = first
		for s := range first {
			if err := add(&seqGroup{vars: []ir.VarID{tv.Slices[s]}, tv: i, slice: s}); err != nil {
				return err
			}
		}
		if err := add(&seqGroup{vars: slices.Clone(tv.Slices[first:]), tv: i, slice: -1}); err != nil {
			return err
		}
	}
	for _, v := range r.statics {
		if err := add(&seqGroup{vars: []ir.VarID{v}, tv: -1, slice: -1}); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks a value of x: a state's index or -1, or a finite
// number or NaN.
func checkValue(x *ir.Variable, v float64) error {
	if x.Discrete() {
		if v != -1 && !(v >= 0 && v < float64(len(x.States)) && v == math.Trunc(v)) {
			return fmt.Errorf("state %s is not one of its %d", ir.FormatFloat(v), len(x.States))
		}
		return nil
	}
	if math.IsInf(v, 0) {
		return fmt.Errorf("value %s is not finite", ir.FormatFloat(v))
	}
	if math.Abs(v) > maxSeqReal {
		return fmt.Errorf("value %s is too large for a normal density to be learned from (beyond %g, where sums of squares overflow); rescale the column", ir.FormatFloat(v), maxSeqReal)
	}
	return nil
}

// maxSeqReal is the largest magnitude of a real value sequences are
// learned from: EM sums squared deviations, weighted, over every step, and
// at 1e100 those stay far from overflowing float64 whatever the data's
// length (the start's and the M-step's normal(mean, +Inf) was a panic).
const maxSeqReal = 1e100

// value returns the value of the base model's time-indexed variable i at
// step t of sq, or of the static variable j (i = -1).
func staticValue(sq *Seq, j int) float64 {
	if sq.Static == nil {
		return math.NaN()
	}
	return sq.Static[j]
}

// params returns the numbers of each group in the model m (whose
// distributions are all set).
func (r *seqRun) params(m *ir.Model) []seqParams {
	ps := make([]seqParams, len(r.groups))
	for gi, g := range r.groups {
		v := g.vars[0]
		if g.real {
			d := m.Gaussian(v)
			ps[gi] = seqParams{mean: d.Mean, sd: d.SD}
		} else {
			ps[gi] = seqParams{vals: m.Factor(v).Vals}
		}
	}
	return ps
}

// model returns the base model with every group's numbers ps.
func (r *seqRun) model(ps []seqParams) *ir.Model {
	m := r.m
	var ds []ir.Dist
	for gi, g := range r.groups {
		for k, v := range g.vars {
			parents := g.parents
			if k > 0 {
				parents = m.Parents[v]
				if t := m.Table(v); t != nil {
					parents = t.Parents
				} else if d := m.Gaussian(v); d != nil {
					parents = d.Parents
				}
			}
			pos := m.Vars[v].Pos
			if old := m.Dist(v); old != nil {
				pos = old.Position()
			}
			if g.real {
				ds = append(ds, &ir.Gaussian{Pos: pos, Child: v, Parents: slices.Clone(parents), Mean: ps[gi].mean, SD: ps[gi].sd})
				continue
			}
			vars := append(slices.Clone(parents), v)
			card := make([]int, len(vars))
			for j, u := range vars {
				card[j] = len(m.Vars[u].States)
			}
			f := ir.NewFactor(vars, card)
			// A copy per slice: WithDists renormalises each table's rows
			// in place, and shared, the slices' numbers as written would
			// drift apart by an ulp a slice.
			f.Vals = slices.Clone(ps[gi].vals)
			ds = append(ds, &ir.CPT{Pos: pos, Child: v, Parents: slices.Clone(parents), Factor: f})
		}
	}
	out, err := m.WithDists(ds...)
	if err != nil {
		panic("learn: LearnSequences: " + err.Error())
	}
	// Every slice has its distribution now: the templates' first slices
	// say where their numbers start (ir.Unroll copies them on).
	out.Time = r.time
	return out
}

// realValues returns the observed values of group g's variable in the
// data.
func (r *seqRun) realValues(g *seqGroup, seqs []Seq) []float64 {
	var xs []float64
	for q := range seqs {
		sq := &seqs[q]
		if g.tv < 0 {
			j := slices.Index(r.statics, g.vars[0])
			if x := staticValue(sq, j); !math.IsNaN(x) {
				xs = append(xs, x)
			}
			continue
		}
		for t, row := range sq.Steps {
			if g.slice >= 0 && t != g.slice {
				continue
			}
			if x := row[g.tv]; !math.IsNaN(x) {
				xs = append(xs, x)
			}
		}
	}
	return xs
}

// initial returns the starting model of start s: the model's own
// numbers (a group without them uniform), uniform tables, or random ones
// (Dirichlet(1) rows; each Gaussian's means values of the data drawn at
// random, its standard deviations the data's: those of sample).
func (r *seqRun) initial(how Init, s int, sample []Seq) *ir.Model {
	var rng *rand.Rand
	if how == InitRandom {
		rng = rand.New(rand.NewPCG(r.opt.Seed, uint64(s)))
	}
	ps := make([]seqParams, len(r.groups))
	for gi, g := range r.groups {
		v := g.vars[0]
		if how == InitModel {
			if t := r.m.Table(v); t != nil && !g.real {
				ps[gi].vals = slices.Clone(t.Factor.Vals)
				continue
			}
			if d := r.m.Gaussian(v); d != nil && g.real && len(d.Mean) == g.nconf {
				ps[gi].mean, ps[gi].sd = slices.Clone(d.Mean), slices.Clone(d.SD)
				continue
			}
		}
		if g.real {
			xs := r.realValues(g, sample)
			mean, sd := 0.0, 1.0
			if len(xs) > 0 {
				for _, x := range xs {
					mean += x
				}
				mean /= float64(len(xs))
				v := 0.0
				for _, x := range xs {
					v += (x - mean) * (x - mean)
				}
				v /= float64(len(xs))
				sd = math.Sqrt(max(v, r.opt.VarFloor))
			}
			ps[gi].mean, ps[gi].sd = make([]float64, g.nconf), make([]float64, g.nconf)
			for u := range g.nconf {
				ps[gi].mean[u], ps[gi].sd[u] = mean, sd
				if rng != nil && len(xs) > 0 {
					ps[gi].mean[u] = xs[rng.IntN(len(xs))]
				}
			}
			continue
		}
		vals := make([]float64, g.nconf*g.k)
		startRows(vals, g.k, rng)
		ps[gi].vals = vals
	}
	return r.model(ps)
}

// logPrior returns Σ a ln θ over the cells of m's tables (0 for maximum
// likelihood).
func (r *seqRun) logPrior(m *ir.Model) float64 {
	if r.prior.Method != Bayes {
		return 0
	}
	s := 0.0
	for _, g := range r.groups {
		if g.real {
			continue
		}
		vals := m.Factor(g.vars[0]).Vals
		a := r.prior.Alpha
		if r.prior.ESS > 0 {
			a = r.prior.ESS / float64(len(vals))
		}
		for _, x := range vals {
			s += a * math.Log(x)
		}
	}
	return s
}

// mstep returns the model of the numbers that maximise the expected
// log-likelihood of st (plus the log prior), m being the model st was
// gathered under: a row without counts, or a configuration in which no
// value was seen, keeps m's numbers.
func (r *seqRun) mstep(m *ir.Model, st *SeqStats) *ir.Model {
	old := r.params(m)
	ps := make([]seqParams, len(r.groups))
	for gi, g := range r.groups {
		n := st.Groups[gi]
		if g.real {
			mean, sd := slices.Clone(old[gi].mean), slices.Clone(old[gi].sd)
			for u := range g.nconf {
				w := n[3*u]
				if !(w > 0) {
					continue
				}
				dm := n[3*u+1] / w
				mean[u] = old[gi].mean[u] + dm
				sd[u] = math.Sqrt(max(n[3*u+2]/w-dm*dm, r.opt.VarFloor))
			}
			ps[gi].mean, ps[gi].sd = mean, sd
			continue
		}
		vals := make([]float64, len(n))
		a := 0.0
		if r.prior.Method == Bayes {
			a = r.prior.Alpha
			if r.prior.ESS > 0 {
				a = r.prior.ESS / float64(len(n))
			}
		}
		for row := 0; row < len(n); row += g.k {
			den := 0.0
			for _, x := range n[row : row+g.k] {
				den += x + a
			}
			if !(den > 0) {
				copy(vals[row:row+g.k], old[gi].vals[row:row+g.k])
				continue
			}
			for j, x := range n[row : row+g.k] {
				vals[row+j] = (x + a) / den
			}
		}
		ps[gi].vals = vals
	}
	return r.model(ps)
}

// installed is a seqTree with a model's numbers.
type installed struct {
	*seqTree
	t infer.Learner
	m *ir.Model
}

// newTree compiles u, the model unrolled to h.
func (r *seqRun) newTree(u *ir.Model, h int) (*seqTree, error) {
	st := &seqTree{h: h, groups: make([]int, len(u.Vars)), slice: make([]int, len(u.Vars)), tv: make([]int, len(u.Vars))}
	for v := range u.Vars {
		st.groups[v], st.slice[v], st.tv[v] = -1, -1, -1
	}
	for _, v := range r.statics {
		st.groups[v] = r.groupOf[v]
	}
	for i, tv := range u.Time.Vars {
		for s, v := range tv.Slices {
			st.slice[v], st.tv[v] = s, i
			if s < len(r.m.Time.Vars[i].Slices) {
				st.groups[v] = r.groupOf[r.m.Time.Vars[i].Slices[s]]
			} else {
				st.groups[v] = r.groupOf[r.m.Time.Vars[i].Slices[len(r.m.Time.Vars[i].Slices)-1]]
			}
		}
	}
	for v := range u.Vars {
		g := st.groups[v]
		if g >= 0 && r.groups[g].real && len(r.groups[g].parents) > 0 {
			st.slots = append(st.slots, ir.VarID(v))
			st.scopes = append(st.scopes, u.Gaussian(ir.VarID(v)).Parents)
		}
	}
	t, a, err := r.opt.compile(infer.LikelihoodSlots(u, st.scopes))
	if errors.Is(err, infer.ErrCanceled) {
		return nil, ErrCanceled
	}
	if err != nil {
		return nil, err
	}
	if a != nil {
		r.approx = a
	}
	st.tree = t
	return st, nil
}

// valueOf returns the value sequence sq gives the unrolled variable v
// (NaN or -1 when it gives none: missing, or beyond its end).
func (in *installed) valueOf(r *seqRun, sq *Seq, v ir.VarID) float64 {
	if i := in.tv[v]; i >= 0 {
		s := in.slice[v]
		if s >= len(sq.Steps) {
			return math.NaN()
		}
		return sq.Steps[s][i]
	}
	return staticValue(sq, slices.Index(r.statics, v))
}

// inSeq reports whether the unrolled variable v belongs to sequence sq:
// a static variable, or a slice within its steps.
func (in *installed) inSeq(sq *Seq, v int) bool {
	return in.tv[v] < 0 || in.slice[v] < len(sq.Steps)
}

// isHidden reports whether the unrolled variable v is a slice of a
// hidden variable (or is a hidden static one).
func (r *seqRun) isHidden(in *installed, v int) bool {
	base := ir.VarID(v)
	if i := in.tv[v]; i >= 0 {
		base = r.m.Time.Vars[i].Slices[0]
	}
	return slices.Contains(r.hidden, base)
}

// barren returns, for each unrolled variable, whether it is barren in
// sq: without a value in sq, and so are its descendants (or beyond sq's
// end). A barren missing cell's family leaves the sequence's likelihood
// as it is, whatever its numbers: its expected counts are left out, as
// Baum–Welch leaves out a missing observation (the same fixed points,
// and faster). A hidden variable's are kept, barren or not, as
// Baum–Welch keeps every transition.
func (in *installed) barren(r *seqRun, sq *Seq) []bool {
	u := in.m
	b := make([]bool, len(u.Vars))
	for v, x := range u.Vars {
		val := in.valueOf(r, sq, ir.VarID(v))
		b[v] = !in.inSeq(sq, v) || x.Discrete() && val < 0 || !x.Discrete() && math.IsNaN(val)
	}
	// A variable with a child that is not barren is not barren: down to
	// a fixed point (each pass clears at least one, or stops).
	for changed := true; changed; {
		changed = false
		for v := len(u.Vars) - 1; v >= 0; v-- {
			for _, p := range u.Parents[v] {
				if !b[v] && b[p] {
					b[p], changed = false, true
				}
			}
		}
	}
	return b
}

// logNormal returns ln N(x; mean, sd²).
func logNormal(x, mean, sd float64) float64 {
	z := (x - mean) / sd
	return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
}

// expectSeq adds the statistics of sq, sequence q of the data (from 0),
// calibrated on in, to st: about the means of ps, the E-step's numbers.
func (r *seqRun) expectSeq(in *installed, sq *Seq, q int, ps []seqParams, st *SeqStats) error {
	u := in.m
	obs := make([]int, len(u.Vars))
	acc := make([][]float64, len(u.Vars))
	ll := 0.0
	for v, x := range u.Vars {
		obs[v] = -1
		if !in.inSeq(sq, v) || in.groups[v] < 0 {
			continue
		}
		val := in.valueOf(r, sq, ir.VarID(v))
		if x.Discrete() && val >= 0 {
			obs[v] = int(val)
		}
	}
	barren := in.barren(r, sq)
	for v, x := range u.Vars {
		if !in.inSeq(sq, v) || in.groups[v] < 0 || barren[v] && !r.isHidden(in, v) {
			continue
		}
		val := in.valueOf(r, sq, ir.VarID(v))
		if x.Discrete() {
			acc[v] = make([]float64, len(u.Factor(ir.VarID(v)).Vals))
			continue
		}
		g := in.groups[v]
		if len(r.groups[g].parents) == 0 && !math.IsNaN(val) {
			// A density without parents: no slot, its own statistics.
			mean, sd := ps[g].mean[0], ps[g].sd[0]
			ll += logNormal(val, mean, sd)
			a := st.Groups[g]
			dx := val - mean
			a[0]++
			a[1] += dx
			a[2] += dx * dx
		}
	}
	lik := make([][]float64, len(in.slots))
	post := make([][]float64, len(in.slots))
	vals := make([]float64, len(in.slots))
	for j, v := range in.slots {
		val := in.valueOf(r, sq, v)
		vals[j] = val
		if !in.inSeq(sq, int(v)) || math.IsNaN(val) {
			continue
		}
		g := in.groups[v]
		l := make([]float64, r.groups[g].nconf)
		top := math.Inf(-1)
		for c := range l {
			l[c] = logNormal(val, ps[g].mean[c], ps[g].sd[c])
			top = max(top, l[c])
		}
		for c := range l {
			l[c] = math.Exp(l[c] - top)
		}
		ll += top
		lik[j], post[j] = l, make([]float64, len(l))
	}
	logp := make([]float64, 1)
	es, err := in.t.ExpectLik([]infer.LikRow{{Obs: obs, Lik: lik, Weight: 1}}, acc, [][][]float64{post}, logp)
	if err != nil {
		return err
	}
	if es.Impossible > 0 {
		return &impossibleRow{line: sq.Line, file: sq.File, index: q, what: "sequence"}
	}
	st.LogLik += ll + logp[0]
	st.Steps += int64(len(sq.Steps))
	st.Seqs++
	for v, a := range acc {
		if a == nil {
			continue
		}
		n := st.Groups[in.groups[v]]
		for i, x := range a {
			n[i] += x
		}
	}
	for j, v := range in.slots {
		if post[j] == nil {
			continue
		}
		g := in.groups[v]
		n, c := st.Groups[g], ps[g].mean
		for u, p := range post[j] {
			dx := vals[j] - c[u]
			n[3*u] += p
			n[3*u+1] += p * dx
			n[3*u+2] += p * dx * dx
		}
	}
	return nil
}
