package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file is the iterative learners' common part and EM (UML §24.4,
// Mitchell §6.12): learning the CPTs of a Bayesian network from data with
// missing cells and hidden variables (variables without a column).
//
// The data is read once into its distinct patterns of observed cells
// (patterns.go). The inference (an infer.Learner: the junction tree
// unless Options.Inference gives another) is compiled once, from the
// starting parameters; each iteration installs new numbers in it
// (infer.Learner.Install) and calibrates it once per pattern
// (infer.Learner.Expect), which gives the expected family counts
//
//	n̄(u, x) = Σ_rows P(parents = u, child = x | the row's observed cells)
//
// and the log-likelihood Σ_rows ln P(the row's observed cells). EM's M-step
// makes each CPT row the normalised expected counts (plus the prior's
// pseudo-counts for MAP): that never decreases the objective, the
// log-likelihood plus Σ α ln θ over the cells (Theorem 24.3), which is
// checked at every iteration. Gradient ascent (gradient.go) uses the same
// counts as the gradient.
//
// Real variables with normal or joint normal densities given discrete
// parents are learned in the same run (density.go, emreal.go): their rows
// are calibrated one by one with their values as likelihoods
// (infer.Learner.ExpectLik), and the M-step re-estimates the densities from
// posterior-weighted statistics.
//
// EM's loop (iterate: E-step, M-step, the checks and the stopping rule)
// is written once, over an EMSource: the patterns in memory (memory,
// below), a file read again per E-step (emstream.go), or shards
// (emshard.go, cmd/pbl-beam); its statistics are EMStats and its M-step
// EMPlan.MStep whatever the source.
//
// The E-step splits the patterns into blocks whose number depends on the
// data and the model only, calibrates the blocks on every core, and sums
// them in block order: the result is the same bit for bit on any number of
// cores.

// Init says where an iterative method starts.
type Init int

const (
	InitAuto    Init = iota // random if the model has hidden variables, else InitModel
	InitModel               // the model's own tables; a variable without one starts uniform
	InitUniform             // uniform rows
	InitRandom              // rows drawn uniformly from the simplex (Dirichlet(1, …, 1))
)

// InitNames are the names of the starts, as options give them.
var InitNames = []string{"model", "uniform", "random"}

func (i Init) String() string {
	if i >= InitModel && int(i) <= len(InitNames) {
		return InitNames[i-1]
	}
	return "auto"
}

// parseInit returns the start named s ("" is InitAuto).
func parseInit(s string) (Init, bool) {
	if s == "" {
		return InitAuto, true
	}
	i := slices.Index(InitNames, s)
	return Init(i + 1), i >= 0
}

// ErrCanceled is the kind of error of learning stopped through
// Options.Cancel.
var ErrCanceled = errors.New("learning canceled")

// ErrDecrease is the kind of error of an EM iteration that decreased its
// objective beyond rounding: Theorem 24.3 says it cannot, so it is a bug.
var ErrDecrease = errors.New("the EM objective decreased")

// Progress is what an iterative method reports after each iteration.
type Progress struct {
	Start, Starts int     // this start (1-based), of Starts
	Iteration     int     // iterations done in this start
	LogLik        float64 // after them
	Rows          int     // data rows, each iteration's work
	Seconds       float64 // since learning started
}

// emRun is one run of an iterative method over a data set.
type emRun struct {
	opt     Options
	prior   Options // the estimator of the M-step: MLE, or Bayes with the prior's pseudo-counts
	m       *ir.Model
	p       *patterns
	learned []ir.VarID
	parents [][]ir.VarID // parents[v]: the scope of v's table, less v (learned variables)
	maxIter int
	workers int
	start   time.Time
	tree    infer.Learner // the compiled structure
	approx  *ApproxEStep  // the E-step is approximate (estep.go), or nil

	rows     [][]int       // the patterns with a missing or hidden cell, calibrated
	weight   []float64     // their weights
	line     []int         // their first lines
	complete []int         // the wholly observed patterns (indices into p), counted directly
	blocks   [][2]int      // ranges of rows, summed in order
	acc      [][][]float64 // acc[b][v]: block b's expected counts of v's family
	ll       []float64     // ll[b]: block b's log-likelihood
	imp      []int         // imp[b]: block b's impossible rows
	errs     []error       // errs[b]
	total    [][]float64   // total[v]: the expected counts of v's family
	kept     [][]float64   // gradient ascent: total set aside during a line search

	// Real variables (density.go): their densities, and the rows that
	// give them values, in blocks of their own (after the patterns').
	dens    []*density
	hidden  []bool         // hidden[v]: no row observes the discrete v
	scopes  [][]ir.VarID   // the likelihood slots: the parents of the densities that have some
	prows   []infer.LikRow // the patterns of rows as rows for ExpectLik (when there are slots)
	rblocks [][2]int       // ranges of real rows
	racc    [][][]float64  // racc[b][v]: real block b's expected counts of v's family
	rstats  [][][]float64  // rstats[b][i]: real block b's statistics of density i
	rll     []float64      // rll[b]
	rimp    []int          // rimp[b]: real block b's first impossible row, or -1
	rerr    []error        // rerr[b]
	rwork   []*realWork    // rwork[b]: real block b's buffers
	dstats  [][]float64    // dstats[i]: the statistics of density i
	comps   []*realComp    // the components of linear Gaussian densities (emmissing.go)
}

// fit is the result of one start.
type fit struct {
	m         *ir.Model
	trace     []float64
	obj       float64 // the objective at m (the log-likelihood, plus the log prior for MAP)
	iters     int
	converged bool
	rows      int64 // the data's rows
}

// newEMRun sets up a run of EM or gradient ascent on m from the patterns p:
// it refuses a tan classifier (its structure is learned from complete
// data), gives a known-variance mixture's component a uniform table when
// the model has none (only the means are learned), and sets the learned
// variables, the densities and the slots. It returns the run (its model
// e.m, with those tables) and which variables are learned.
func newEMRun(m *ir.Model, p *patterns, opt Options) (*emRun, []bool, error) {
	if cl := m.Classifier; cl != nil && cl.Kind == ir.TAN {
		return nil, nil, modelErrorf("method %s learns the tables of a given structure, and a tan classifier's structure is learned from complete data: learn it with mle or bayes", opt.Method)
	}
	e := &emRun{opt: opt, m: m, p: p, start: time.Now(), maxIter: opt.MaxIter}
	if e.maxIter <= 0 {
		e.maxIter = DefaultEMIter
	}
	isLearned := make([]bool, len(m.Vars))
	for _, v := range learnedVars(m, opt) {
		isLearned[v] = true
	}
	// The component of a mixture with a known variance keeps its table
	// (uniform if the model gives none): only the means are learned.
	var uniform []ir.Dist
	for _, mx := range m.Mixtures {
		if c := mx.Component; mx.Variance > 0 && isLearned[c] {
			isLearned[c] = false
			if m.Table(c) == nil && len(m.Vars[c].States) > 0 {
				e.parents = make([][]ir.VarID, len(m.Vars))
				e.parents[c] = m.Parents[c]
				f := e.newFactor(c)
				k := len(m.Vars[c].States)
				for i := range f.Vals {
					f.Vals[i] = 1 / float64(k)
				}
				uniform = append(uniform, e.cpt(c, f))
			}
		}
	}
	if len(uniform) > 0 {
		var err error
		if m, err = m.WithDists(uniform...); err != nil {
			return nil, nil, err
		}
		e.m = m
	}
	for v, x := range m.Vars {
		if isLearned[v] && x.Discrete() {
			e.learned = append(e.learned, ir.VarID(v))
		}
	}
	if p.reals == nil {
		p.reals = densityVars(m) // rows without real columns (an inline table): every value missing
	}
	var err error
	if e.dens, err = densities(m, p.reals, isLearned); err != nil {
		return nil, nil, err
	}
	e.setSlots()
	e.setComps()
	return e, isLearned, nil
}

// learnIterative learns m's CPTs from the patterns p by opt.Method (EM or
// Gradient).
func learnIterative(m *ir.Model, p *patterns, opt Options) (*ir.Model, *Report, error) {
	if p.n == 0 {
		return nil, nil, ErrNoRows
	}
	if opt.Method == Gradient {
		for v, x := range m.Vars {
			if !x.Discrete() && (m.Dist(ir.VarID(v)) != nil || len(m.Parents[v]) > 0) {
				return nil, nil, modelErrorf("method %s learns discrete networks, and %s is real-valued: learn it with em", opt.Method, ir.Quote(m.Vars[v].Name))
			}
		}
	}
	e, isLearned, err := newEMRun(m, p, opt)
	if err != nil {
		return nil, nil, err
	}
	m = e.m
	// A variable no row observes is hidden: without a column, or with a
	// column of missing cells only (its states as symmetric under uniform
	// tables either way).
	observed := make([]bool, len(m.Vars))
	for _, rows := range [][][]int{p.rows, p.real.obs} {
		for _, row := range rows {
			for v, s := range row {
				observed[v] = observed[v] || s >= 0
			}
		}
	}
	if err := e.setHidden(isLearned, func(v ir.VarID) bool { return !observed[v] }); err != nil {
		return nil, nil, err
	}
	if err := e.setFamilies(); err != nil {
		return nil, nil, err
	}
	if opt.Method == Gradient && opt.MaxIter <= 0 {
		e.maxIter = DefaultGradientIter
	}
	e.workers = opt.Workers
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	plan := &EMPlan{e: e}
	init := plan.Init()
	start := func(r int, how Init) (*ir.Model, error) {
		m0, err := e.initial(how, r)
		if err != nil {
			return nil, err
		}
		if e.tree == nil {
			e.tree, e.approx, err = e.opt.compile(e.slotted(m0))
			if errors.Is(err, infer.ErrCanceled) {
				return nil, ErrCanceled
			}
			if err != nil {
				return nil, err
			}
			e.allocate()
		}
		return m0, nil
	}
	var best *fit
	var bestStart int
	if opt.Method == Gradient {
		best, bestStart, err = bestOfStarts(max(1, opt.Restarts), init, e.opt.canceled, func(r int, how Init) (*fit, error) {
			m0, err := start(r, how)
			if err != nil {
				return nil, err
			}
			return e.gradient(m0, r, max(1, opt.Restarts))
		})
	} else {
		best, bestStart, err = plan.fit(memory{e}, init, start)
	}
	if err != nil {
		return nil, nil, err
	}
	rep := e.report(best, bestStart, init)
	rep.Patterns = len(p.rows) + p.real.n()
	return best.m, rep, nil
}

// setHidden checks that every discrete variable of e's model has a table
// or is learned (isLearned), and has states, and sets e.hidden: the
// discrete variables hidden(v) says no row observes.
func (e *emRun) setHidden(isLearned []bool, hidden func(v ir.VarID) bool) error {
	m := e.m
	e.hidden = make([]bool, len(m.Vars))
	for v, x := range m.Vars {
		if !x.Discrete() {
			continue
		}
		switch {
		case !isLearned[v] && m.Dist(ir.VarID(v)) == nil:
			return modelErrorf("%s has no table, and is not among the variables to learn", ir.Quote(x.Name))
		case len(x.States) == 0:
			return modelErrorf("%s has no states: no row of the data gives it a value; declare its states", ir.Quote(x.Name))
		}
		e.hidden[v] = hidden(ir.VarID(v))
	}
	return nil
}

// report returns the report of an iterative run whose first start was
// made by init, which kept the fit best of start bestStart.
func (e *emRun) report(best *fit, bestStart int, init Init) *Report {
	var hidden []ir.VarID
	for v, h := range e.hidden {
		if h {
			hidden = append(hidden, ir.VarID(v))
		}
	}
	return &Report{
		EStep:      e.approx.report(),
		Rows:       int(best.rows),
		LogLik:     best.trace[len(best.trace)-1],
		Iterations: best.iters,
		Converged:  best.converged,
		Restarts:   max(1, e.opt.Restarts),
		Best:       bestStart,
		Trace:      best.trace,
		Hidden:     hidden,
		Init:       init,
	}
}

// impossibleRow is the error of a data row of probability 0.
type impossibleRow struct {
	line  int    // its line, or 0
	index int    // its pattern, from 0
	what  string // "sequence" for a sequence (LearnSequences), "" for a row
	file  string // its file, when there are several (a sequence's shard), or ""
}

func (e *impossibleRow) Error() string {
	what := e.what
	if what == "" {
		what = "row"
	}
	if e.line > 0 && e.file != "" {
		return fmt.Sprintf("the %s at line %d of %s has probability 0", what, e.line, e.file)
	}
	if e.line > 0 {
		return fmt.Sprintf("the %s at line %d has probability 0", what, e.line)
	}
	return fmt.Sprintf("data %s %d has probability 0", what, e.index+1)
}

// setFamilies sets the parents of every learned variable (its table's
// order, where it has one) and the prior of the M-step (MAP for EM with
// alpha or ess, else maximum likelihood), refusing families whose tables
// would be too large.
func (e *emRun) setFamilies() error {
	m, opt := e.m, e.opt
	e.parents = make([][]ir.VarID, len(m.Vars))
	fams := make([][]ir.VarID, 0, len(e.learned))
	for _, v := range e.learned {
		ps := m.Parents[v]
		if c := m.Table(v); c != nil {
			ps = c.Parents
		}
		e.parents[v] = append([]ir.VarID(nil), ps...)
		fams = append(fams, append(append([]ir.VarID(nil), ps...), v))
	}
	if err := checkSizes(m, fams); err != nil {
		return err
	}
	e.prior = Options{Method: MLE}
	if opt.Method == EM && (opt.Alpha > 0 || opt.ESS > 0) {
		e.prior = Options{Method: Bayes, Alpha: opt.Alpha, ESS: opt.ESS}
	}
	return nil
}

// bestOfStarts runs every start of EM or gradient ascent — the first
// from init, the others random — by run, and keeps the fit of the highest
// objective, and its start. An error of a start ends the run, an impossible
// row explained by how the start began (startErr); cancellation is checked
// between starts.
func bestOfStarts(starts int, init Init, canceled func() bool, run func(r int, how Init) (*fit, error)) (*fit, int, error) {
	var best *fit
	bestStart := 0
	for r := range starts {
		if r > 0 && canceled() {
			return nil, 0, ErrCanceled
		}
		how := init
		if r > 0 {
			how = InitRandom
		}
		f, err := run(r, how)
		if err != nil {
			return nil, 0, startErr(err, how)
		}
		if best == nil || f.obj > best.obj {
			best, bestStart = f, r
		}
	}
	return best, bestStart, nil
}

// startErr says which start made a row impossible. Uniform and random
// starts have no zero entry: a row impossible from them is so under the
// tables not learned, whatever the learned ones, and another start would
// not help.
func startErr(err error, how Init) error {
	var row *impossibleRow
	switch {
	case !errors.As(err, &row):
		return err
	case how == InitModel:
		return fmt.Errorf("%w under the starting parameters (init %s): start from uniform or random tables, or give the model's zero entries a small probability", err, how)
	default:
		return fmt.Errorf("%w under the tables not learned, whatever the learned ones: learn those too, or give their zero entries a small probability", err)
	}
}

// startRows fills vals, rows of k entries, with EM's start: uniform
// rows when rng is nil, else each row drawn from the uniform Dirichlet
// (normalised exponential draws).
func startRows(vals []float64, k int, rng *rand.Rand) {
	for row := 0; row < len(vals); row += k {
		out := vals[row : row+k]
		if rng == nil {
			for j := range out {
				out[j] = 1 / float64(k)
			}
			continue
		}
		sum := 0.0
		for j := range out {
			out[j] = rng.ExpFloat64()
			sum += out[j]
		}
		for j := range out {
			out[j] /= sum
		}
	}
}

// initial returns the starting model of start r.
func (e *emRun) initial(how Init, r int) (*ir.Model, error) {
	var rng *rand.Rand
	if how == InitRandom {
		rng = rand.New(rand.NewPCG(e.opt.Seed, uint64(r)))
	}
	dists := make([]ir.Dist, 0, len(e.learned))
	for _, v := range e.learned {
		if how == InitModel && e.m.Table(v) != nil {
			continue
		}
		f := e.newFactor(v)
		k := f.Card[len(f.Card)-1]
		startRows(f.Vals, k, rng)
		dists = append(dists, e.cpt(v, f))
	}
	return e.startDensities(dists, how, r)
}

// newFactor returns a zero table for the family of the learned v.
func (e *emRun) newFactor(v ir.VarID) *ir.Factor {
	vars := append(append([]ir.VarID(nil), e.parents[v]...), v)
	card := make([]int, len(vars))
	for k, u := range vars {
		card[k] = len(e.m.Vars[u].States)
	}
	return ir.NewFactor(vars, card)
}

// cpt returns f as the table of the learned v.
func (e *emRun) cpt(v ir.VarID, f *ir.Factor) *ir.CPT {
	pos := e.m.Vars[v].Pos
	if old := e.m.Dist(v); old != nil {
		pos = old.Position()
	}
	return &ir.CPT{Pos: pos, Child: v, Parents: append([]ir.VarID(nil), e.parents[v]...), Factor: f}
}

// Blocking of the E-step: blocks of at least minBlock patterns, at most
// maxBlocks of them, and at most maxBlockEntries entries of counts over
// all blocks.
const (
	minBlock        = 32
	maxBlocks       = 64
	maxBlockEntries = 1 << 24
)

// allocate sets the wholly observed patterns apart, cuts the others into
// blocks and allocates their counts.
func (e *emRun) allocate() {
	entries := 0
	for _, v := range e.learned {
		entries += len(e.newFactor(v).Vals)
	}
	for k, row := range e.p.rows {
		if slices.Contains(row, -1) {
			e.rows = append(e.rows, row)
			e.weight = append(e.weight, e.p.weight[k])
			e.line = append(e.line, e.p.line[k])
		} else {
			e.complete = append(e.complete, k)
		}
	}
	n := len(e.rows)
	nb := min(maxBlocks, (n+minBlock-1)/minBlock, max(1, maxBlockEntries/max(1, entries)))
	nb = max(1, nb)
	for b := range nb {
		e.blocks = append(e.blocks, [2]int{b * n / nb, (b + 1) * n / nb})
	}
	e.acc = make([][][]float64, nb)
	for b := range e.acc {
		e.acc[b] = e.tables()
	}
	e.total = e.tables()
	e.ll = make([]float64, nb)
	e.imp = make([]int, nb)
	e.errs = make([]error, nb)
	e.allocateReal(entries)
}

// tables returns zero tables for the learned families, indexed by VarID.
func (e *emRun) tables() [][]float64 {
	t := make([][]float64, len(e.m.Vars))
	for _, v := range e.learned {
		t[v] = make([]float64, len(e.newFactor(v).Vals))
	}
	return t
}

// expect runs the E-step on t, the tree of m: it fills e.total with the
// expected family counts and returns the log-likelihood. A wholly
// observed pattern needs no inference: its counts are its own entries and
// its probability the product of its entries.
func (e *emRun) expect(t infer.Learner, m *ir.Model) (float64, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	if err := e.prepareDensities(m); err != nil {
		return 0, err
	}
	nb := len(e.blocks) + len(e.rblocks)
	for range min(e.workers, nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1)) - 1
				if b >= nb {
					return
				}
				if b >= len(e.blocks) {
					e.expectReal(t, b-len(e.blocks))
					continue
				}
				for _, a := range e.acc[b] {
					clear(a)
				}
				lo, hi := e.blocks[b][0], e.blocks[b][1]
				var st infer.ExpectStats
				var err error
				if e.prows != nil {
					st, err = t.ExpectLik(e.prows[lo:hi], e.acc[b], nil, nil)
				} else {
					st, err = t.Expect(e.rows[lo:hi], e.weight[lo:hi], e.acc[b])
				}
				e.ll[b], e.imp[b], e.errs[b] = st.LogLik, st.Impossible, err
			}
		}()
	}
	wg.Wait()
	ll := 0.0
	for b := range e.blocks {
		if e.errs[b] != nil {
			return 0, e.errs[b]
		}
		if e.imp[b] > 0 {
			return 0, e.impossible(t, b)
		}
		ll += e.ll[b]
	}
	rll, err := e.sumReal()
	if err != nil {
		return 0, err
	}
	ll += rll
	for _, v := range e.learned {
		tot := e.total[v]
		clear(tot)
		for b := range e.blocks {
			for i, x := range e.acc[b][v] {
				tot[i] += x
			}
		}
		for b := range e.rblocks {
			for i, x := range e.racc[b][v] {
				tot[i] += x
			}
		}
	}
	for _, k := range e.complete {
		row, w := e.p.rows[k], e.p.weight[k]
		lp := 0.0
		for v := range m.Vars {
			f := m.Factor(ir.VarID(v))
			if f == nil {
				continue // a real variable, none of whose values the row gives: integrated out
			}
			i := entryOf(f, row)
			lp += math.Log(f.Vals[i])
			if tot := e.total[v]; tot != nil {
				tot[i] += w
			}
		}
		if math.IsInf(lp, -1) {
			return 0, &impossibleRow{line: e.p.line[k], index: k}
		}
		ll += w * lp
	}
	return ll, nil
}

// entryOf returns the entry of f that the wholly observed row selects.
func entryOf(f *ir.Factor, row []int) int {
	off := 0
	for k, v := range f.Vars {
		off += row[v] * f.Stride[k]
	}
	return off
}

// impossible returns the error of the first row of block b of probability
// 0 under t.
func (e *emRun) impossible(t infer.Learner, b int) error {
	none := make([][]float64, len(e.m.Vars))
	for p := e.blocks[b][0]; p < e.blocks[b][1]; p++ {
		var st infer.ExpectStats
		var err error
		if e.prows != nil {
			st, err = t.ExpectLik(e.prows[p:p+1], none, nil, nil)
		} else {
			st, err = t.Expect(e.rows[p:p+1], nil, none)
		}
		if err != nil {
			return err
		}
		if st.Impossible > 0 {
			return &impossibleRow{line: e.line[p], index: p}
		}
	}
	panic("learn: a block's impossible row is possible alone")
}

// mstep returns the model whose learned tables are the estimates from
// e.total, and the log prior of its tables.
func (e *emRun) mstep() (*ir.Model, error) {
	dists := make([]ir.Dist, 0, len(e.learned))
	for _, v := range e.learned {
		f := e.newFactor(v)
		estimate(f.Vals, e.total[v], f.Card[len(f.Card)-1], e.prior)
		dists = append(dists, e.cpt(v, f))
	}
	for i, d := range e.dens {
		if !d.learned {
			continue
		}
		g, err := d.estimate(e.m, e.dstats[i])
		if err != nil {
			return nil, err
		}
		dists = append(dists, g)
	}
	return e.m.WithDists(dists...)
}

// logPrior returns Σ a ln θ over the cells of the learned tables of m, a
// being the prior's pseudo-count of a cell (0 for maximum likelihood).
func (e *emRun) logPrior(m *ir.Model) float64 {
	if e.prior.Method != Bayes {
		return 0
	}
	s := 0.0
	for _, v := range e.learned {
		f := m.Factor(v)
		a := e.prior.Alpha
		if e.prior.ESS > 0 {
			a = e.prior.ESS / float64(len(f.Vals))
		}
		for _, x := range f.Vals {
			s += a * math.Log(x)
		}
	}
	return s
}

// objective returns the log-likelihood ll at m plus its log prior.
func (e *emRun) objective(m *ir.Model, ll float64) float64 { return ll + e.logPrior(m) }

// expectAt runs the E-step at m on the tree (expect).
func (e *emRun) expectAt(m *ir.Model) (float64, error) {
	t, err := e.tree.Install(e.slotted(m))
	if err != nil {
		return 0, err
	}
	return e.expect(t, m)
}

// memory is the in-memory learner's data as an EMSource: the patterns of
// its run, calibrated on its tree. The statistics it returns are the
// run's own tables, overwritten by the next E-step.
type memory struct{ e *emRun }

func (s memory) Expect(params *ir.Model) (*EMStats, error) {
	e := s.e
	ll, err := e.expectAt(params)
	if err != nil {
		return nil, err
	}
	st := &EMStats{Rows: int64(e.p.n), LogLik: ll, Counts: make([][]float64, len(e.learned)), Dens: e.dstats}
	for i, v := range e.learned {
		st.Counts[i] = e.total[v]
	}
	return st, nil
}

// fit runs EM's starts on the data src, start making each start's
// parameters (start r, the first by init, the others random), and returns
// the fit of the highest objective and its start.
func (p *EMPlan) fit(src EMSource, init Init, start func(r int, how Init) (*ir.Model, error)) (*fit, int, error) {
	starts := max(1, p.e.opt.Restarts)
	return bestOfStarts(starts, init, p.e.opt.canceled, func(r int, how Init) (*fit, error) {
		m0, err := start(r, how)
		if err != nil {
			return nil, err
		}
		return p.iterate(src, m0, r, starts)
	})
}

// iterate runs EM on src from m0, start r of starts: E-step, M-step,
// until the run converges (Options.Tol), MaxIter iterations, or
// Options.Cancel. The objective never decreases (Theorem 24.3): a
// decrease beyond rounding is ErrDecrease.
func (p *EMPlan) iterate(src EMSource, m0 *ir.Model, r, starts int) (*fit, error) {
	e := p.e
	st, err := src.Expect(m0)
	if err != nil {
		return nil, err
	}
	f := &fit{m: m0, trace: []float64{st.LogLik}, obj: p.Objective(m0, st), rows: st.Rows}
	for it := 1; it <= e.maxIter; it++ {
		next, err := p.MStep(f.m, st)
		if err != nil {
			return nil, err
		}
		if st, err = src.Expect(next); err != nil {
			return nil, err
		}
		obj := p.Objective(next, st)
		// An approximate E-step's log-likelihood is not EM's objective:
		// it may decrease (estep.go).
		if obj < f.obj-1e-9*max(1, math.Abs(f.obj)) && e.approx == nil {
			return nil, fmt.Errorf("%w from %s to %s at iteration %d: this is a bug in pbl, please report it", ErrDecrease, ir.FormatFloat(f.obj), ir.FormatFloat(obj), it)
		}
		f.rows = st.Rows
		if done, err := e.advance(f, next, obj, st.LogLik, it, r, starts); done || err != nil {
			return f, err
		}
	}
	return f, nil
}

// advance records iteration it of start r of starts, which reached m, of
// objective obj and log-likelihood ll, and reports it. It returns done
// when the run has converged, and ErrCanceled when Options.Cancel is
// closed.
func (e *emRun) advance(f *fit, m *ir.Model, obj, ll float64, it, r, starts int) (done bool, err error) {
	// A start of objective -Inf (MAP from the model's own tables, with a
	// zero entry: ln 0 in the log prior) has not converged, whatever the
	// next objective: |obj - (-Inf)| <= tol·Inf would say so.
	var converged bool
	if e.opt.Method == Gradient {
		converged = objectiveSettled(e.opt.Tol, f.obj, obj)
	} else {
		converged = Converged(e.opt.Tol, f.m, m, f.obj, obj)
	}
	f.m, f.obj, f.iters = m, obj, it
	f.trace = append(f.trace, ll)
	e.progress(f, r, starts, it, ll)
	if converged {
		f.converged = true
		return true, nil
	}
	if e.opt.canceled() {
		return true, ErrCanceled
	}
	return false, nil
}

// Converged reports whether an EM run has converged at the tolerance tol
// (Options.Tol) in the iteration from the parameters prev, of objective
// prevObj (the log-likelihood, plus the log prior for MAP), to next, of
// objective obj: the objective changed by at most tol of itself, and no
// parameter moved by more than tol ([ParamStep]). Near a maximum the
// objective changes as the square of the parameters' step, so the
// objective alone would stop with the parameters still about √tol from
// the fixed point. With tol 0 no run converges (max_iter iterations run).
func Converged(tol float64, prev, next *ir.Model, prevObj, obj float64) bool {
	return objectiveSettled(tol, prevObj, obj) && ParamStep(prev, next) <= tol
}

// objectiveSettled reports whether the objective changed from prev to obj
// by at most tol of itself. A start of objective -Inf (MAP from tables
// with a zero entry: ln 0 in the log prior) has not settled, whatever the
// next objective: |obj - (-Inf)| <= tol·Inf would say so.
func objectiveSettled(tol, prev, obj float64) bool {
	return tol > 0 && !math.IsInf(prev, 0) && math.Abs(obj-prev) <= tol*math.Abs(prev)
}

// ParamStep returns the largest change of a parameter from the model a to
// b, which have the same variables and structure: of a table's entry (a
// probability, as it is), and of a normal density's mean, standard
// deviation or covariance relative to its size, |x - y| / max(1, |x|).
// Distributions a and b share are not compared. A change to or from NaN
// is +Inf.
func ParamStep(a, b *ir.Model) float64 {
	step := 0.0
	abs := func(x, y float64) {
		d := math.Abs(x - y)
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		step = max(step, d)
	}
	rel := func(x, y float64) {
		d := math.Abs(x-y) / max(1, math.Abs(x))
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		step = max(step, d)
	}
	rels := func(x, y []float64) {
		if len(x) != len(y) {
			step = math.Inf(1)
			return
		}
		for i := range x {
			rel(x[i], y[i])
		}
	}
	for v := range a.Vars {
		da, db := a.Dists[v], b.Dists[v]
		if da == db {
			continue
		}
		switch x := da.(type) {
		case *ir.CPT:
			y, ok := db.(*ir.CPT)
			if !ok || len(x.Factor.Vals) != len(y.Factor.Vals) {
				return math.Inf(1)
			}
			for i, p := range x.Factor.Vals {
				abs(p, y.Factor.Vals[i])
			}
		case *ir.Gaussian:
			y, ok := db.(*ir.Gaussian)
			if !ok {
				return math.Inf(1)
			}
			rels(x.Mean, y.Mean)
			rels(x.SD, y.SD)
			rels(x.Coef, y.Coef)
		case *ir.MultiNormal:
			y, ok := db.(*ir.MultiNormal)
			if !ok || len(x.Mean) != len(y.Mean) || len(x.Cov) != len(y.Cov) {
				return math.Inf(1)
			}
			if x.Children[0] != ir.VarID(v) {
				continue // compared at its first child
			}
			for u := range x.Mean {
				rels(x.Mean[u], y.Mean[u])
			}
			for u := range x.Cov {
				rels(x.Cov[u], y.Cov[u])
			}
		default:
			// Distributions EM does not learn (noisy-or, deterministic):
			// a new value of one is a step of unknown size.
			return math.Inf(1)
		}
	}
	return step
}

// progress reports an iteration.
func (e *emRun) progress(f *fit, r, starts, it int, ll float64) {
	if e.opt.Progress != nil {
		e.opt.Progress(Progress{Start: r + 1, Starts: starts, Iteration: it, LogLik: ll, Rows: int(f.rows), Seconds: time.Since(e.start).Seconds()})
	}
}
