package learn

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file is network EM for data in shards (files, or a Beam
// pipeline's bundles): one iteration is
//
//	per shard:  s_i = EStep.Add(rows of shard i)       the E-step's statistics (EMStats)
//	merge:      s = s_1 ⊕ s_2 ⊕ ...                      EMStats.Merge: sums, any order
//	M-step:     θ' = EMPlan.MStep(s)
//
// The statistics are those of the local learner (em.go, emreal.go): the
// expected counts of each learned family, the weighted sums of each
// learned density about its current means, the log-likelihood and the
// number of rows. They are sums over rows, so any partition of the rows
// gives them to rounding (a few ulps; the tests ask 1e-12), and the
// M-step is the local learner's, so an iteration from the same parameters
// gives the local learner's parameters to the same precision.
//
// The loop over iterations and starts is EMPlan.Run's, the one EM loop
// (em.go's iterate): the shards are its EMSource, an E-step over them
// the merged statistics.
//
// What the local learner learns from the whole data before it starts,
// the plan takes as given: the open variables' states (settled with
// data.ScanStates and data.MergeStates), the columns (a variable without
// a column is hidden; the local learner also calls hidden a column whose
// every cell is empty), and, for a density that starts from data (a
// mixture's component), the rows it starts from (EMPlan.Start's sample).

// EMPlan runs EM iterations over data in shards. It is made once per
// learning task and is safe for concurrent use.
type EMPlan struct {
	e    *emRun // learned variables, parents, densities; no data
	once sync.Once
	tree infer.Learner // compiled on the first EStep
	err  error         // of the compilation
}

// NewEMPlan returns the plan of EM (opt.Method must be EM) for m, whose
// open variables must be settled (ir.Model.WithStates), from data whose
// columns are the variables cols (a data.Reader's Vars). It checks the
// model and options as Learn does and compiles the junction tree once.
func NewEMPlan(m *ir.Model, cols []ir.VarID, opt Options) (*EMPlan, error) {
	if opt.Method != EM {
		return nil, fmt.Errorf("learn: NewEMPlan: method %s is not em", opt.Method)
	}
	if err := checkModel(m, opt); err != nil {
		return nil, err
	}
	for _, v := range m.Vars {
		if v.Open {
			return nil, fmt.Errorf("learn: NewEMPlan: the states of %s are not settled (ir.Model.WithStates)", ir.Quote(v.Name))
		}
	}
	p := newPatterns(len(m.Vars))
	p.reals = densityVars(m)
	e, isLearned, err := newEMRun(m, p, opt)
	if err != nil {
		return nil, err
	}
	e.workers = 1
	if err := e.setHidden(isLearned, func(v ir.VarID) bool { return !slices.Contains(cols, v) }); err != nil {
		return nil, err
	}
	if err := e.setFamilies(); err != nil {
		return nil, err
	}
	return &EMPlan{e: e}, nil
}

// Model returns the model the plan learns (m, with a uniform table for a
// known-variance mixture's component that had none).
func (p *EMPlan) Model() *ir.Model { return p.e.m }

// Learned returns the discrete variables whose tables are learned, in
// VarID order: EMStats.Counts[i] are the expected counts of Learned()[i]'s
// family, laid out as its CPT.
func (p *EMPlan) Learned() []ir.VarID { return slices.Clone(p.e.learned) }

// Init returns the start that Options.Init = InitAuto means for this plan:
// random if a learned variable is hidden or a learned density has no
// starting numbers, else the model's.
func (p *EMPlan) Init() Init {
	e := p.e
	if e.opt.Init != InitAuto {
		return e.opt.Init
	}
	for _, v := range e.learned {
		if e.hidden[v] {
			return InitRandom
		}
	}
	for _, d := range e.dens {
		if d.learned && e.m.Dist(d.children[0]) == nil {
			return InitRandom
		}
	}
	return InitModel
}

// Start returns the parameters start r (from 0) begins with, as the local
// learner's start r does: by the plan's Init for r = 0, random tables
// (drawn from Options.Seed and r) after. A learned density starts from
// data (k-means, or drawn rows) unless the start is the model's and the
// model gives it: sample holds those rows (all of the data for the local
// learner's start; any rows will do), and may be nil when no density
// needs it.
func (p *EMPlan) Start(r int, sample *data.Batch) (*ir.Model, error) {
	how := p.Init()
	if r > 0 {
		how = InitRandom
	}
	e := *p.e
	e.dens = cloneDensities(p.e.dens)
	e.p = newPatterns(len(e.m.Vars))
	e.p.reals = p.e.p.reals
	if sample != nil {
		e.p.add(sample)
	}
	return e.initial(how, r)
}

// cloneDensities copies ds, without their per-iteration numbers, so that
// a goroutine may prepare its copies for its parameters.
func cloneDensities(ds []*density) []*density {
	out := make([]*density, len(ds))
	for i, d := range ds {
		c := *d
		c.mean, c.chol, c.base, c.sd, c.cur = nil, nil, nil, nil, nil
		out[i] = &c
	}
	return out
}

// EStep is the E-step of one iteration, from given parameters: it adds
// the statistics of rows to EMStats. It is safe for concurrent use, each
// goroutine adding to statistics of its own.
type EStep struct {
	plan   *EMPlan
	params *ir.Model
	tree   infer.Learner
}

// EStep returns the E-step from params, a model the plan's model with
// learned numbers (Start's or MStep's).
func (p *EMPlan) EStep(params *ir.Model) (*EStep, error) {
	e := p.e
	// Compiled once, on first use: the structure is the same for every
	// start and iteration.
	p.once.Do(func() { p.tree, e.approx, p.err = e.opt.compile(e.slotted(params)) })
	if p.err != nil {
		return nil, p.err
	}
	t, err := p.tree.Install(e.slotted(params))
	if err != nil {
		return nil, err
	}
	for _, d := range cloneDensities(e.dens) {
		if err := d.prepare(params); err != nil {
			return nil, err
		}
	}
	return &EStep{plan: p, params: params, tree: t}, nil
}

// EMSource is the data of an EM run as its E-step reads it: in memory
// (the distinct rows, calibrated once per pattern), a file read again at
// every iteration, or shards whose statistics are merged (a Beam
// pipeline). [EMPlan.Run] iterates on it.
type EMSource interface {
	// Expect returns the statistics of the E-step from params (the
	// plan's model with learned numbers: a start's or MStep's) over every
	// row of the data.
	Expect(params *ir.Model) (*EMStats, error)
}

// Run runs EM on the data src as the local learner does: Options.Restarts
// starts (start r from Start(r, sample)), each iterated until it
// converges (Options.Tol: Converged), MaxIter iterations (DefaultEMIter
// when 0) or Options.Cancel; an iteration that decreases the objective
// beyond rounding is ErrDecrease. It returns the parameters of the
// highest objective and their report.
func (p *EMPlan) Run(src EMSource, sample *data.Batch) (*ir.Model, *Report, error) {
	init := p.Init()
	best, bestStart, err := p.fit(src, init, func(r int, _ Init) (*ir.Model, error) { return p.Start(r, sample) })
	if err != nil {
		return nil, nil, err
	}
	return best.m, p.e.report(best, bestStart, init), nil
}

// EMStats are the statistics of an EM iteration over some rows: sums over
// the rows, which merge by adding. The zero value is not usable: make one
// with EStep.NewStats (or EMPlan.NewStats).
type EMStats struct {
	Rows   int64       // rows added
	LogLik float64     // Σ over the rows of ln P(the row's observed cells) under the E-step's parameters
	Counts [][]float64 // Counts[i]: the expected counts of EMPlan.Learned()[i]'s family, laid out as its CPT
	Dens   [][]float64 // Dens[i]: the weighted sums of the model's i-th density about its current means (see density.go), or nil if it is not learned
}

// NewStats returns empty statistics for the plan's iterations.
func (p *EMPlan) NewStats() *EMStats {
	e := p.e
	s := &EMStats{Counts: make([][]float64, len(e.learned)), Dens: make([][]float64, len(e.dens))}
	for i, v := range e.learned {
		s.Counts[i] = make([]float64, len(e.newFactor(v).Vals))
	}
	for i, d := range e.dens {
		if d.learned {
			s.Dens[i] = make([]float64, d.statLen())
		}
	}
	return s
}

// NewStats returns empty statistics for the E-step.
func (s *EStep) NewStats() *EMStats { return s.plan.NewStats() }

// Add adds the rows of b to st: their expected family counts, densities'
// sums and log-likelihood under the E-step's parameters. b's state indices
// must be those of the plan's model (data read with it). A row of
// probability 0 is an error, positioned at its line.
func (s *EStep) Add(st *EMStats, b *data.Batch) error {
	if b.N == 0 {
		return nil
	}
	e := *s.plan.e
	e.dens = cloneDensities(s.plan.e.dens)
	e.p = newPatterns(len(e.m.Vars))
	e.p.reals = s.plan.e.p.reals
	e.p.file = ""
	e.p.add(b)
	e.rows, e.weight, e.line, e.complete, e.blocks = nil, nil, nil, nil, nil
	e.rblocks, e.prows = nil, nil
	e.allocate()
	ll, err := e.expect(s.tree, s.params)
	if err != nil {
		return err
	}
	for i, v := range e.learned {
		addTo(st.Counts[i], e.total[v])
	}
	for i, d := range e.dens {
		if d.learned {
			addTo(st.Dens[i], e.dstats[i])
		}
	}
	st.LogLik += ll
	st.Rows += int64(b.N)
	return nil
}

// Merge adds o's rows to st. Both must be statistics of the same plan and
// iteration. It panics if their shapes differ.
func (st *EMStats) Merge(o *EMStats) {
	if len(st.Counts) != len(o.Counts) || len(st.Dens) != len(o.Dens) {
		panic("learn: EMStats.Merge: statistics of different plans")
	}
	for i := range st.Counts {
		addTo(st.Counts[i], o.Counts[i])
	}
	for i := range st.Dens {
		addTo(st.Dens[i], o.Dens[i])
	}
	st.Rows += o.Rows
	st.LogLik += o.LogLik
}

// addTo adds src to dst; it panics if their lengths differ.
func addTo(dst, src []float64) {
	if len(dst) != len(src) {
		panic("learn: statistics of different shapes")
	}
	for i, x := range src {
		dst[i] += x
	}
}

// Objective returns the quantity EM never decreases, at params: st's
// log-likelihood (statistics of the E-step from params) plus the log of
// the prior's density of params' learned tables (0 for maximum
// likelihood). The local learner stops when its relative change is below
// Options.Tol.
func (p *EMPlan) Objective(params *ir.Model, st *EMStats) float64 {
	return p.e.objective(params, st.LogLik)
}

// MStep returns the parameters that the M-step makes of st, the merged
// statistics of every row under params (the E-step's parameters): the
// local learner's next model. It fails if there are no rows, or a density
// cannot be estimated.
func (p *EMPlan) MStep(params *ir.Model, st *EMStats) (*ir.Model, error) {
	if st.Rows == 0 {
		return nil, ErrNoRows
	}
	e := *p.e
	e.dens = cloneDensities(p.e.dens)
	for _, d := range e.dens {
		if err := d.prepare(params); err != nil {
			return nil, err
		}
	}
	e.total = make([][]float64, len(e.m.Vars))
	for i, v := range e.learned {
		e.total[v] = st.Counts[i]
	}
	e.dstats = st.Dens
	return e.mstep()
}
