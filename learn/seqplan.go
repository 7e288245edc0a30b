package learn

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/pbl-lang/pbl/hmm"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// This file is EM for a time-indexed model's sequences in shards (files,
// or a pipeline's bundles), as emshard.go is for a network's rows: one
// iteration is
//
//	per shard:  s_i = SeqEStep.Add(sequences of shard i)   the E-step's statistics (SeqStats)
//	merge:      s = s_1 ⊕ s_2 ⊕ ...                        SeqStats.Merge: sums, any order
//	M-step:     θ' = SeqPlan.MStep(s)
//
// The statistics are those of LearnSequences (sequence.go): per group,
// the expected counts of its table summed over its slices and sequences,
// or a Gaussian's (w, Σw(x−c), Σw(x−c)²) per parent configuration about
// c, the E-step's means; and the log-likelihood, the sequences and the
// steps. They are sums over sequences, so any partition of the sequences
// (a sequence is never split) gives them to rounding (a few ulps), and
// the M-step is LearnSequences's. LearnSequences is this plan on one
// shard: the sequences in fixed blocks, each block's statistics summed
// apart and the blocks added in order, the same bits on any number of
// cores.
//
// What LearnSequences takes from the whole data before it starts, the
// plan takes as given: the hidden variables (discrete ones no sequence
// observes: SeqCensus, checked and merged over the shards) and, for a
// Gaussian group that starts from data, the sequences it starts from
// (SeqPlan.Start's sample).

// SeqCensus is what a SeqPlan needs to know of all the sequences before
// it starts: their number, their steps and which variables some sequence
// observes. It merges by adding. Make one with NewSeqCensus.
type SeqCensus struct {
	Seqs  int64 // sequences
	Steps int64 // and their steps
	// Observed[i] says whether some sequence observes the time-indexed
	// variable m.Time.Vars[i] (i < len(m.Time.Vars)), or the static
	// variable Seq.Static[i-len(m.Time.Vars)], at some step.
	Observed []bool
	// Longest is the most steps of one sequence: the general E-step
	// unrolls the model to it (at most ir.MaxHorizon+1 steps), a hidden
	// Markov model's does not.
	Longest int64

	m            *ir.Model
	statics      []ir.VarID
	longestWhere string // where the longest sequence is, for errors; "" after a pipeline's merge
}

// NewSeqCensus returns the empty census of sequences of m, a
// time-indexed model.
func NewSeqCensus(m *ir.Model) *SeqCensus {
	c := &SeqCensus{m: m}
	if m.Time == nil {
		return c
	}
	in := make([]bool, len(m.Vars))
	for _, tv := range m.Time.Vars {
		for _, v := range tv.Slices {
			in[v] = true
		}
	}
	for v := range m.Vars {
		if !in[v] {
			c.statics = append(c.statics, ir.VarID(v))
		}
	}
	c.Observed = make([]bool, len(m.Time.Vars)+len(c.statics))
	return c
}

// Add checks seqs, the data's sequences first, first+1, ... (from 0; the
// number an error gives a sequence without a line), and counts them: a
// step with the wrong number of values, a value that is no state, is
// ErrSequence.
func (c *SeqCensus) Add(seqs []Seq, first int) error {
	m := c.m
	if m.Time == nil {
		return modelErrorf("the model has no time-indexed variables: learn it from rows, not sequences")
	}
	tvs := m.Time.Vars
	nt := len(tvs)
	for k := range seqs {
		sq := &seqs[k]
		q := first + k
		where := func(t int) string {
			if sq.Line > 0 && sq.File != "" {
				return fmt.Sprintf("sequence %d (%s:%d), step %d", q+1, sq.File, sq.Line, t)
			}
			if sq.Line > 0 {
				return fmt.Sprintf("sequence %d (line %d), step %d", q+1, sq.Line, t)
			}
			return fmt.Sprintf("sequence %d, step %d", q+1, t)
		}
		if len(sq.Steps) == 0 {
			return fmt.Errorf("%s: no steps: %w", where(0), ErrSequence)
		}
		if n := int64(len(sq.Steps)); n > c.Longest {
			c.Longest, c.longestWhere = n, where(0)
		}
		if sq.Static != nil && len(sq.Static) != len(c.statics) {
			return fmt.Errorf("%s: %d static values for %d static variables: %w", where(0), len(sq.Static), len(c.statics), ErrSequence)
		}
		for t, row := range sq.Steps {
			if len(row) != nt {
				return fmt.Errorf("%s: %d values for %d time-indexed variables: %w", where(t), len(row), nt, ErrSequence)
			}
			for i, x := range row {
				if err := checkValue(m.Vars[tvs[i].Slices[0]], x); err != nil {
					return fmt.Errorf("%s: %s %v: %w", where(t), tvs[i].Name, err, ErrSequence)
				}
				c.Observed[i] = c.Observed[i] || observed(m.Vars[tvs[i].Slices[0]], x)
			}
		}
		for j, x := range sq.Static {
			if err := checkValue(m.Vars[c.statics[j]], x); err != nil {
				return fmt.Errorf("%s: %s %v: %w", where(0), m.Vars[c.statics[j]].Name, err, ErrSequence)
			}
			c.Observed[nt+j] = c.Observed[nt+j] || observed(m.Vars[c.statics[j]], x)
		}
		c.Steps += int64(len(sq.Steps))
		c.Seqs++
	}
	return nil
}

// observed reports whether v is a value of x, not a missing cell.
func observed(x *ir.Variable, v float64) bool {
	if x.Discrete() {
		return v >= 0
	}
	return !math.IsNaN(v)
}

// Merge adds o's sequences to c. Both must be censuses of the same model's
// sequences; it panics if their shapes differ.
func (c *SeqCensus) Merge(o *SeqCensus) {
	if len(c.Observed) != len(o.Observed) {
		panic("learn: SeqCensus.Merge: censuses of different models")
	}
	for i, x := range o.Observed {
		c.Observed[i] = c.Observed[i] || x
	}
	c.Seqs += o.Seqs
	c.Steps += o.Steps
	if o.Longest > c.Longest {
		c.Longest, c.longestWhere = o.Longest, o.longestWhere
	}
}

// SeqPlan runs EM iterations of a time-indexed model over sequences in
// shards. It is made once per learning task and is safe for concurrent
// use.
type SeqPlan struct {
	r *seqRun // groups, hidden variables; no sequences
}

// NewSeqPlan returns the plan of learning m, a time-indexed model, with
// opt (as LearnSequences: every distribution, by EM) from the sequences
// that c counted (every shard's, merged).
func NewSeqPlan(m *ir.Model, c *SeqCensus, opt SeqOptions) (*SeqPlan, error) {
	opt, err := seqOptions(m, opt)
	if err != nil {
		return nil, err
	}
	if c.Seqs == 0 {
		return nil, ErrNoRows
	}
	r, err := newSeqRun(m, opt)
	if err != nil {
		return nil, err
	}
	if len(c.Observed) != len(m.Time.Vars)+len(r.statics) {
		return nil, fmt.Errorf("learn: NewSeqPlan: a census of another model's sequences")
	}
	return r.plan(c)
}

// plan settles r on the census c and returns its plan; it refuses a
// sequence too long for the E-step r runs.
func (r *seqRun) plan(c *SeqCensus) (*SeqPlan, error) {
	r.settle(c)
	if r.hmm == nil && c.Longest-1 > ir.MaxHorizon {
		// The general E-step unrolls the model to each sequence's
		// length; a hidden Markov model's runs on the sequence itself.
		where := c.longestWhere
		if where == "" {
			where = "a sequence"
		}
		return nil, fmt.Errorf("%s: %d steps, more than the %d a model is unrolled to for its E-step (a hidden Markov model, one hidden chain with its observed children, learns from longer ones): %w", where, c.Longest, ir.MaxHorizon+1, ErrSequence)
	}
	return &SeqPlan{r: r}, nil
}

// Init returns the start that Options.Init = InitAuto means for this
// plan: random if a variable is hidden, else the model's.
func (p *SeqPlan) Init() Init {
	init := p.r.opt.Init
	if init == InitAuto {
		init = InitModel
		if len(p.r.hidden) > 0 {
			init = InitRandom
		}
	}
	return init
}

// Start returns the parameters start s (from 0) begins with, as
// LearnSequences's start s does: by the plan's Init for s = 0, random
// tables (drawn from Options.Seed and s) after. A Gaussian group without
// the model's numbers starts from the observed values of sample (all of
// the data for LearnSequences; any sequences will do, and the same
// sample gives the same start).
func (p *SeqPlan) Start(s int, sample []Seq) *ir.Model {
	how := p.Init()
	if s > 0 {
		how = InitRandom
	}
	return p.r.initial(how, s, sample)
}

// SeqStats are the statistics of an EM iteration over some sequences:
// sums over the sequences, which merge by adding. Make them with
// SeqPlan.NewStats.
type SeqStats struct {
	Seqs   int64       // sequences added
	Steps  int64       // and their steps
	LogLik float64     // Σ over the sequences of ln P(the sequence's observed cells) under the E-step's parameters
	Groups [][]float64 // per group of distributions with one set of numbers: a table's expected counts, or a Gaussian's (w, Σw(x−mean), Σw(x−mean)²) per parent configuration about the E-step's means
}

// NewStats returns empty statistics for the plan's iterations.
func (p *SeqPlan) NewStats() *SeqStats {
	st := &SeqStats{Groups: make([][]float64, len(p.r.groups))}
	for gi, g := range p.r.groups {
		st.Groups[gi] = make([]float64, g.statLen())
	}
	return st
}

// Merge adds o's sequences to st. Both must be statistics of the same
// plan and iteration (the same E-step's parameters). It panics if their
// shapes differ.
func (st *SeqStats) Merge(o *SeqStats) {
	if len(st.Groups) != len(o.Groups) {
		panic("learn: SeqStats.Merge: statistics of different plans")
	}
	for g := range st.Groups {
		addTo(st.Groups[g], o.Groups[g])
	}
	st.Seqs += o.Seqs
	st.Steps += o.Steps
	st.LogLik += o.LogLik
}

// SeqEStep is the E-step of one iteration, from given parameters: it adds
// the statistics of sequences to SeqStats. It is safe for concurrent use,
// each goroutine adding to statistics of its own.
type SeqEStep struct {
	plan   *SeqPlan
	params *ir.Model
	ps     []seqParams
	h      *hmm.HMM // the fast path's, or nil

	mu  sync.Mutex
	byH map[int]*installed // the inference of each horizon met, with params's numbers
}

// EStep returns the E-step from params, a model the plan's model with
// learned numbers (Start's or MStep's).
func (p *SeqPlan) EStep(params *ir.Model) (*SeqEStep, error) {
	r := p.r
	e := &SeqEStep{plan: p, params: params, ps: r.params(params), byH: map[int]*installed{}}
	if r.hmm != nil {
		e.h = r.hmm.hmm(r, e.ps)
	}
	return e, nil
}

// NewStats returns empty statistics for the E-step.
func (e *SeqEStep) NewStats() *SeqStats { return e.plan.NewStats() }

// seqBlockLen is the number of sequences in a block of the E-step, whose
// statistics are summed apart and then added in block order: the sums do
// not depend on the number of workers.
const seqBlockLen = 4

// Add adds the statistics of seqs, the data's sequences first, first+1,
// ... (from 0: the number an error gives a sequence without a line), to
// st. The sequences must be those the plan's census counted (checked). A
// sequence of probability 0 is an error, at its line.
func (e *SeqEStep) Add(st *SeqStats, seqs []Seq, first int) error {
	if e.h != nil {
		return e.plan.r.hmmExpect(e.h, seqs, e.plan.r.hmm.convert(seqs), first, st)
	}
	return e.add(st, seqs, first)
}

// add is Add on the general path: each sequence calibrated on the
// inference of its length, in blocks on every core.
func (e *SeqEStep) add(st *SeqStats, seqs []Seq, first int) error {
	r := e.plan.r
	ins := make([]*installed, len(seqs))
	for q := range seqs {
		in, err := e.installed(max(r.m.Time.Horizon, len(seqs[q].Steps)-1))
		if err != nil {
			return err
		}
		ins[q] = in
	}
	nb := (len(seqs) + seqBlockLen - 1) / seqBlockLen
	blocks := make([]*SeqStats, nb)
	errs := make([]error, nb)
	workers := r.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	par.Workers(workers, nb, func(_, b int) {
		bs := e.NewStats()
		for q := b * seqBlockLen; q < min(len(seqs), (b+1)*seqBlockLen); q++ {
			if err := r.expectSeq(ins[q], &seqs[q], first+q, e.ps, bs); err != nil {
				errs[b] = err
				return
			}
		}
		blocks[b] = bs
	})
	for b := range blocks {
		if errs[b] != nil {
			return errs[b]
		}
		st.Merge(blocks[b])
	}
	return nil
}

// installed returns the inference of the model unrolled to h, compiled
// at the plan's first use of h, with the E-step's numbers.
func (e *SeqEStep) installed(h int) (*installed, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if in, ok := e.byH[h]; ok {
		return in, nil
	}
	r := e.plan.r
	u, err := ir.Unroll(e.params, h)
	if err != nil {
		return nil, err
	}
	t, err := r.tree(u, h)
	if err != nil {
		return nil, err
	}
	lt, err := t.tree.Install(infer.LikelihoodSlots(u, t.scopes))
	if err != nil {
		return nil, err
	}
	in := &installed{seqTree: t, t: lt, m: u}
	e.byH[h] = in
	return in, nil
}

// tree returns the compiled inference of horizon h (u the model unrolled
// to h), compiling it at its first use.
func (r *seqRun) tree(u *ir.Model, h int) (*seqTree, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.horizon[h]; t != nil {
		return t, nil
	}
	t, err := r.newTree(u, h)
	if err != nil {
		return nil, err
	}
	r.horizon[h] = t
	return t, nil
}

// Objective returns the quantity EM never decreases, at params: st's
// log-likelihood (statistics of the E-step from params) plus the log of
// the prior's density of params' tables (0 for maximum likelihood).
func (p *SeqPlan) Objective(params *ir.Model, st *SeqStats) float64 {
	return st.LogLik + p.r.logPrior(params)
}

// MStep returns the parameters that the M-step makes of st, the merged
// statistics of every sequence under params (the E-step's parameters):
// LearnSequences's next model. It fails if there are no sequences.
func (p *SeqPlan) MStep(params *ir.Model, st *SeqStats) (*ir.Model, error) {
	if st.Seqs == 0 {
		return nil, ErrNoRows
	}
	if len(st.Groups) != len(p.r.groups) {
		return nil, fmt.Errorf("learn: SeqPlan.MStep: statistics of another plan")
	}
	return p.r.mstep(params, st), nil
}

// SeqSource is the sequences of a SeqPlan's run as its E-step reads them:
// in memory, files read again at every iteration, or shards whose
// statistics are merged (a pipeline). [SeqPlan.Run] iterates on it.
type SeqSource interface {
	// Expect returns the statistics of the E-step from params over
	// every sequence of the data.
	Expect(params *ir.Model) (*SeqStats, error)
}

// Shards returns the source of sequences in memory in shards, the data's
// sequences in order: each shard's statistics are added in turn.
func (p *SeqPlan) Shards(shards [][]Seq) SeqSource {
	return &memShards{p: p, shards: shards}
}

// memShards are sequences in memory, in shards.
type memShards struct {
	p      *SeqPlan
	shards [][]Seq
	hs     [][]hmm.Seq // the fast path's sequences, made at the first E-step
}

func (s *memShards) Expect(params *ir.Model) (*SeqStats, error) {
	e, err := s.p.EStep(params)
	if err != nil {
		return nil, err
	}
	r := s.p.r
	if r.hmm != nil && s.hs == nil {
		s.hs = make([][]hmm.Seq, len(s.shards))
		for i, sh := range s.shards {
			s.hs[i] = r.hmm.convert(sh)
		}
	}
	st := e.NewStats()
	first := 0
	for i, sh := range s.shards {
		if e.h != nil {
			err = r.hmmExpect(e.h, sh, s.hs[i], first, st)
		} else {
			err = e.add(st, sh, first)
		}
		if err != nil {
			return nil, err
		}
		first += len(sh)
	}
	return st, nil
}

// Run runs EM on the sequences src as LearnSequences does:
// Options.Restarts starts (start s from Start(s, sample)), each iterated
// until it converges (Options.Tol: Converged), MaxIter iterations or
// Options.Cancel; an iteration that decreases the objective beyond
// rounding is ErrDecrease. It returns the parameters of the highest
// objective and their report.
func (p *SeqPlan) Run(src SeqSource, sample []Seq) (*ir.Model, *Report, error) {
	r := p.r
	init := p.Init()
	var best *fit
	bestStart := 0
	starts := max(1, r.opt.Restarts)
	for s := range starts {
		if s > 0 && r.opt.canceled() {
			return nil, nil, ErrCanceled
		}
		f, err := p.iterate(src, p.Start(s, sample), s, starts)
		if err != nil {
			return nil, nil, err
		}
		if best == nil || f.obj > best.obj {
			best, bestStart = f, s
		}
	}
	r.mu.Lock()
	approx := r.approx
	r.mu.Unlock()
	rep := &Report{
		Rows: int(r.steps), Seconds: time.Since(r.start).Seconds(),
		LogLik: best.trace[len(best.trace)-1], Trace: best.trace, Iterations: best.iters, Converged: best.converged,
		Restarts: starts, Best: bestStart, Init: init, Patterns: int(r.nseqs), Hidden: slices.Clone(r.hidden), EStep: approx.report(),
	}
	return best.m, rep, nil
}

// iterate runs EM on src from m0, start s of starts.
func (p *SeqPlan) iterate(src SeqSource, m0 *ir.Model, s, starts int) (*fit, error) {
	r := p.r
	st, err := src.Expect(m0)
	if err != nil {
		return nil, err
	}
	f := &fit{m: m0, trace: []float64{st.LogLik}, obj: p.Objective(m0, st)}
	for it := 1; it <= r.opt.MaxIter; it++ {
		next, err := p.MStep(f.m, st)
		if err != nil {
			return nil, err
		}
		if st, err = src.Expect(next); err != nil {
			return nil, err
		}
		obj := p.Objective(next, st)
		r.mu.Lock()
		approx := r.approx
		r.mu.Unlock()
		if math.IsNaN(obj) || obj < f.obj-1e-9*max(1, math.Abs(f.obj)) && approx == nil {
			return nil, fmt.Errorf("%w from %s to %s at iteration %d: this is a bug in pbl, please report it", ErrDecrease, ir.FormatFloat(f.obj), ir.FormatFloat(obj), it)
		}
		converged := Converged(r.opt.Tol, f.m, next, f.obj, obj)
		f.m, f.obj, f.iters = next, obj, it
		f.trace = append(f.trace, st.LogLik)
		if pr := r.opt.Progress; pr != nil {
			pr(Progress{Start: s + 1, Starts: starts, Iteration: it, LogLik: st.LogLik, Rows: int(r.steps), Seconds: time.Since(r.start).Seconds()})
		}
		if converged {
			f.converged = true
			break
		}
		if r.opt.canceled() {
			return nil, ErrCanceled
		}
	}
	return f, nil
}

// Params returns the numbers of params (a model the plan's model with
// learned numbers) as one vector, group by group (a table's cells, or a
// Gaussian's means then standard deviations): how they travel to a
// pipeline's workers, which make the model again with FromParams.
func (p *SeqPlan) Params(params *ir.Model) []float64 {
	var out []float64
	for _, g := range p.r.params(params) {
		out = append(out, g.vals...)
		out = append(out, g.mean...)
		out = append(out, g.sd...)
	}
	return out
}

// FromParams returns the plan's model with the numbers x (Params's
// vector); it fails if x has the wrong length.
func (p *SeqPlan) FromParams(x []float64) (*ir.Model, error) {
	ps := make([]seqParams, len(p.r.groups))
	for gi, g := range p.r.groups {
		n := g.statLen()
		if g.real {
			n = 2 * g.nconf
		}
		if len(x) < n {
			return nil, fmt.Errorf("learn: SeqPlan.FromParams: %d numbers too few for the plan's", len(x))
		}
		if g.real {
			ps[gi].mean, ps[gi].sd = slices.Clone(x[:g.nconf]), slices.Clone(x[g.nconf:n])
		} else {
			ps[gi].vals = slices.Clone(x[:n])
		}
		x = x[n:]
	}
	if len(x) != 0 {
		return nil, fmt.Errorf("learn: SeqPlan.FromParams: %d numbers too many for the plan's", len(x))
	}
	return p.r.model(ps), nil
}
