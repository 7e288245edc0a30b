package learn

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// Report says what learning used.
type Report struct {
	Rows int // data rows read

	// MissingCounts is the number of (row, family) contributions not
	// made because the child or a parent was missing in the row.
	MissingCounts int
	// PartialRows is the number of rows with a missing cell in some
	// learned family; each still counts for its other families.
	PartialRows int
	// EmptyGaussians is the number of parent configurations of learned
	// real variables in which no row gave the variable a value: each gets
	// the density normal(0, 1).
	EmptyGaussians int

	Seconds float64 // wall time

	// The iterative methods (EM, Gradient) report the run they kept:
	LogLik     float64    // its final log-likelihood: Σ over rows of ln P(the row's observed cells), priors excluded
	Trace      []float64  // Trace[0] the log-likelihood at the start, Trace[i] after iteration i
	Iterations int        // its iterations
	Converged  bool       // whether it stopped by Options.Tol (else by MaxIter)
	Restarts   int        // the number of starts
	Best       int        // the start kept, from 0
	Init       Init       // how the first start was made
	Patterns   int        // distinct rows (patterns of observed cells): one calibration each per iteration
	Hidden     []ir.VarID // the variables no row observes: without a column in the data, or with every cell empty
	// EStep, when not nil, says that the E-step was approximate (its
	// engine, and why): the log-likelihoods of LogLik and Trace are then
	// approximate too, and EM's monotonicity was not checked.
	EStep *ApproxEStep
}

// ErrNoRows is the error of learning from data without a row: a header
// alone would give every table its prior (or a uniform row) and look
// learned.
var ErrNoRows = errors.New("the data has no rows to learn from")

// batchRows is the number of rows per batch handed to a counting worker.
const batchRows = 4096

// Learn streams the reader that open returns (parsing and counting on
// every core, each worker into Counts of its own, merged at the end: see
// Counts.AddReader), then estimates the
// distributions (see Estimate). A TAN classifier's tree
// (m.Classifier.Kind == ir.TAN) is learned first, in a pass of its own
// over a second reader from open. Every variable whose distribution is
// learned, and each of its parents, must be a column of the data.
//
// Learn returns a new model: m is not changed. Open variables take their
// states from the data, in order of first appearance in the file (the
// reader numbers them so); they are settled in the new model, closed,
// before it is estimated.
func Learn(m *ir.Model, open func(m *ir.Model) (*data.Reader, error), opt Options) (*ir.Model, *Report, error) {
	start := time.Now()
	for v, d := range m.Dists {
		if _, ok := d.(*ir.Softmax); ok {
			// Neither counting nor EM (whose E-step is exact or loopy
			// propagation on tables) takes a logistic or softmax
			// regression.
			return nil, nil, modelErrorf("cannot learn a model in which %s, a discrete variable, has real-valued parents (logistic or softmax): learning such a distribution is not supported yet", ir.Quote(m.Vars[v].Name))
		}
	}
	if opt.Method.iterative() {
		mx, err := checkIterative(m, opt)
		if err != nil {
			return nil, nil, err
		}
		r, err := open(m)
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		if mx != nil {
			p, err := readPatterns(r, m)
			if err != nil {
				return nil, nil, err
			}
			return timed(start)(learnMixture(m, mx, p, r.States(), opt))
		}
		p, held, err := readPatternsUpTo(r, m, maxPatternCells)
		if err != nil {
			return nil, nil, err
		}
		if !held { // too many distinct rows to hold (emstream.go)
			r.Close()
			if opt.Method == EM {
				return timed(start)(learnStream(m, open, opt))
			}
			if r, err = open(m); err != nil {
				return nil, nil, err
			}
			defer r.Close()
			if p, err = readPatterns(r, m); err != nil {
				return nil, nil, err
			}
		}
		return timed(start)(learnIterative(m.WithStates(r.States()), p, opt))
	}
	out, rep, err := learn(m, opt, func(m *ir.Model, c *Counts) (map[ir.VarID][]string, error) {
		r, err := open(m)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		if err := checkColumns(m, c, r.Vars); err != nil {
			return nil, err
		}
		if err := countReader(r, c); err != nil {
			return nil, err
		}
		return r.States(), nil
	})
	if err != nil {
		return nil, nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return out, rep, nil
}

// LearnTable learns from an inline data table, like Learn: its columns
// are those of a CSV file (states of discrete variables, numbers of real
// ones), and its rows' lines, in the model file, position the errors
// about rows. The open variables of m already have the table's states
// (lowering gave them).
func LearnTable(m *ir.Model, t *ir.DataTable, opt Options) (*ir.Model, *Report, error) {
	b := &data.Batch{N: len(t.Rows), Cols: make([][]int32, len(t.Vars)), Reals: make([][]float64, len(t.Vars)), Vars: t.Vars}
	for j, v := range t.Vars {
		if !m.Vars[v].Discrete() {
			col := make([]float64, len(t.Rows))
			for i, r := range t.Reals {
				col[i] = r[j]
			}
			b.Reals[j] = col
			continue
		}
		col := make([]int32, len(t.Rows))
		for i, r := range t.Rows {
			col[i] = r[j]
		}
		b.Cols[j] = col
	}
	for _, l := range t.Lines {
		b.Lines = append(b.Lines, l.Line)
	}
	return learnBatch(m, b, t.Pos.File, opt)
}

// LearnBatch learns from the rows of b, like Learn. b's state indices
// must be those of m's variables, or of b.States for open variables (see
// data.ReadAll).
func LearnBatch(m *ir.Model, b *data.Batch, opt Options) (*ir.Model, *Report, error) {
	return learnBatch(m, b, "", opt)
}

// learnBatch is LearnBatch, b's rows being lines of file (for messages).
func learnBatch(m *ir.Model, b *data.Batch, file string, opt Options) (*ir.Model, *Report, error) {
	start := time.Now()
	for v, d := range m.Dists {
		if _, ok := d.(*ir.Softmax); ok {
			// Neither counting nor EM (whose E-step is exact or loopy
			// propagation on tables) takes a logistic or softmax
			// regression.
			return nil, nil, modelErrorf("cannot learn a model in which %s, a discrete variable, has real-valued parents (logistic or softmax): learning such a distribution is not supported yet", ir.Quote(m.Vars[v].Name))
		}
	}
	if opt.Method.iterative() {
		mx, err := checkIterative(m, opt)
		if err != nil {
			return nil, nil, err
		}
		p := newPatterns(len(m.Vars))
		p.reals = densityVars(m)
		p.file = file
		p.add(b)
		if mx != nil {
			return timed(start)(learnMixture(m, mx, p, b.States, opt))
		}
		return timed(start)(learnIterative(m.WithStates(b.States), p, opt))
	}
	var cols []ir.VarID
	for j, v := range b.Vars {
		if b.Cols[j] != nil || j < len(b.Reals) && b.Reals[j] != nil {
			cols = append(cols, v)
		}
	}
	out, rep, err := learn(m, opt, func(m *ir.Model, c *Counts) (map[ir.VarID][]string, error) {
		if err := checkColumns(m, c, cols); err != nil {
			return nil, err
		}
		c.Add(b)
		states := map[ir.VarID][]string{}
		for _, v := range m.Vars {
			if v.Open {
				states[v.ID] = v.States
			}
		}
		for v, st := range b.States {
			states[v] = st
		}
		return states, nil
	})
	if err != nil {
		return nil, nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return out, rep, nil
}

// timed returns a function that passes on a learner's results, with the
// report's time set to the time since start.
func timed(start time.Time) func(*ir.Model, *Report, error) (*ir.Model, *Report, error) {
	return func(m *ir.Model, rep *Report, err error) (*ir.Model, *Report, error) {
		if err != nil {
			return nil, nil, err
		}
		rep.Seconds = time.Since(start).Seconds()
		return m, rep, nil
	}
}

// A pass fills c from one pass over the data, read with the model m, and
// returns the states of m's open variables after it (see
// data.Reader.States).
type pass func(m *ir.Model, c *Counts) (map[ir.VarID][]string, error)

// learn learns the TAN structure if there is one, then counts and
// estimates, and returns the learned model.
func learn(m *ir.Model, opt Options, pass pass) (*ir.Model, *Report, error) {
	if err := checkModel(m, opt); err != nil {
		return nil, nil, err
	}
	if len(m.Mixtures) > 0 {
		return nil, nil, modelErrorf("the model declares a mixture of %s given %s, which %s does not learn: learn it with em",
			m.NameList(m.Mixtures[0].Vars, 3), ir.Quote(m.Vars[m.Mixtures[0].Component].Name), opt.Method)
	}
	var parents [][]ir.VarID // the TAN structure, to be installed
	if cl := m.Classifier; cl != nil && cl.Kind == ir.TAN && learnsAny(m, opt, discreteFeatures(m, cl)) {
		pc := newCounts(m, pairFamilies(m, cl))
		states, err := pass(m, pc)
		if err == nil {
			err = pc.err
		}
		if err != nil {
			return nil, nil, err
		}
		// The second pass reads with the states the first one settled.
		m = m.WithStates(states)
		tree := chowLiu(m, cl, pc)
		parents = make([][]ir.VarID, len(m.Vars))
		feats := discreteFeatures(m, cl)
		for i, f := range feats {
			parents[f] = []ir.VarID{cl.Class}
			if tree[i] >= 0 {
				parents[f] = append(parents[f], feats[tree[i]])
			}
		}
	}
	var fams [][]ir.VarID
	for _, v := range learnedVars(m, opt) {
		ps := m.Parents[v]
		if parents != nil && parents[v] != nil {
			ps = parents[v]
		}
		if !m.Vars[v].Discrete() {
			// A linear Gaussian density if some parents are real
			// (linear.go): the discrete ones first.
			fams = append(fams, realFamily(m, ps, v))
			continue
		}
		fams = append(fams, append(append([]ir.VarID(nil), ps...), v))
	}
	for _, f := range fams {
		if !m.Vars[f[len(f)-1]].Discrete() {
			continue
		}
		for _, v := range f[:len(f)-1] {
			if !m.Vars[v].Discrete() {
				return nil, nil, modelErrorf("cannot learn %s: its parent %s is real-valued (learning a discrete variable with a real-valued parent, logistic or softmax, is not supported yet)", familyName(m, f), ir.Quote(m.Vars[v].Name))
			}
		}
	}
	if err := checkSizes(m, fams); err != nil {
		return nil, nil, err
	}
	c := newCounts(m, fams)
	states, err := pass(m, c)
	if err == nil {
		err = c.err
	}
	if err != nil {
		return nil, nil, err
	}
	if c.rows == 0 {
		return nil, nil, ErrNoRows
	}
	out, err := Estimate(m.WithStates(states), c, opt)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Rows: c.rows, MissingCounts: c.missing, PartialRows: c.partial, EmptyGaussians: c.emptyConfigs()}
	return out, rep, nil
}

// learnsAny reports whether opt learns any of vs.
func learnsAny(m *ir.Model, opt Options, vs []ir.VarID) bool {
	if opt.Vars == nil {
		return true
	}
	for _, v := range opt.Vars {
		for _, w := range vs {
			if v == w {
				return true
			}
		}
	}
	return false
}

// checkIterative checks m for an iterative method, before reading data,
// and returns its mixture (nil if it has none).
func checkIterative(m *ir.Model, opt Options) (*ir.Mixture, error) {
	if err := checkModel(m, opt); err != nil {
		return nil, err
	}
	return mixtureModel(m)
}

// checkModel checks what can be checked before reading data.
func checkModel(m *ir.Model, opt Options) error {
	if !m.IsBayesNet() {
		return modelErrorf("cannot learn a Markov network's factors: only the CPTs of a Bayesian network")
	}
	for _, v := range opt.Vars {
		if int(v) < 0 || int(v) >= len(m.Vars) {
			panic("learn: Options.Vars names no variable")
		}
	}
	if s := opt.VarSmoothing; !(s >= 0) || math.IsInf(s, 0) {
		return fmt.Errorf("the variance smoothing must be a non-negative number, not %v", s)
	}
	switch opt.Method {
	case MLE:
	case Bayes:
		if !(opt.Alpha >= 0) || !(opt.ESS >= 0) || math.IsInf(opt.Alpha, 0) || math.IsInf(opt.ESS, 0) {
			return fmt.Errorf("the Dirichlet pseudo-count and the equivalent sample size must be non-negative numbers")
		}
	case MEstimate:
		if !(opt.M >= 0) || math.IsInf(opt.M, 0) {
			return fmt.Errorf("the m-estimate's m must be a non-negative number")
		}
	case EM, Gradient:
		if !(opt.Alpha >= 0) || !(opt.ESS >= 0) || math.IsInf(opt.Alpha, 0) || math.IsInf(opt.ESS, 0) {
			return fmt.Errorf("the Dirichlet pseudo-count and the equivalent sample size must be non-negative numbers")
		}
		if !(opt.Tol >= 0) || math.IsInf(opt.Tol, 0) || !(opt.Eta >= 0) || math.IsInf(opt.Eta, 0) || opt.MaxIter < 0 || opt.Restarts < 0 {
			return fmt.Errorf("the tolerance, the step size, the number of iterations and the number of restarts must be finite non-negative numbers")
		}
		if opt.Method == Gradient && (opt.Alpha > 0 || opt.ESS > 0) {
			return fmt.Errorf("gradient ascent maximises the likelihood and takes no prior: use em for MAP")
		}
	default:
		panic("learn: unknown method " + opt.Method.String())
	}
	return nil
}

// checkSizes refuses count tables that would be too large.
func checkSizes(m *ir.Model, fams [][]ir.VarID) error {
	for _, f := range fams {
		card := make([]int, len(f))
		for k, v := range f {
			card[k] = max(1, len(m.Vars[v].States)) // 1 for a real child
		}
		if n, ok := ir.TableSize(card); !ok || n > MaxCountEntries {
			return modelErrorf("the table of %s to learn %s", ir.Quote(m.Vars[f[len(f)-1]].Name), ir.TooLarge(card, MaxCountEntries))
		}
	}
	return nil
}

// checkColumns checks that the data has a column for every variable of
// every family counted.
func checkColumns(m *ir.Model, c *Counts, cols []ir.VarID) error {
	have := make([]bool, len(m.Vars))
	for _, v := range cols {
		have[v] = true
	}
	var missing []string
	var need string
	for _, f := range c.fams {
		for _, v := range f.vars {
			if !have[v] {
				have[v] = true // report once
				missing = append(missing, ir.Quote(m.Vars[v].Name))
				if need == "" {
					need = familyName(m, f.vars)
				}
			}
		}
	}
	if missing == nil {
		return nil
	}
	list := strings.Join(missing, ", ")
	if len(missing) > 10 {
		list = strings.Join(missing[:10], ", ") + fmt.Sprintf(" and %d more", len(missing)-10)
	}
	return fmt.Errorf("the data has no column for %s (needed to learn %s); add the column, or learn only some variables with learn X, Y from ...", list, need)
}

// familyName names a family as P(X | U, V).
func familyName(m *ir.Model, vars []ir.VarID) string {
	var b strings.Builder
	b.WriteString("P(" + ir.Quote(m.Vars[vars[len(vars)-1]].Name))
	for i, p := range vars[:len(vars)-1] {
		if i == 0 {
			b.WriteString(" | ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(ir.Quote(m.Vars[p].Name))
	}
	return b.String() + ")"
}

// countReader counts every row of r into c, on every core (see
// Counts.AddReader).
func countReader(r *data.Reader, c *Counts) error { return c.AddReader(r) }

// empty returns empty counts with c's families and their current sizes.
func (c *Counts) empty() *Counts {
	o := &Counts{open: c.open, names: c.names}
	for _, f := range c.fams {
		size, _ := tableSize(f.card)
		g := &family{child: f.child, vars: f.vars, card: append([]int(nil), f.card...), real: f.real, ndisc: f.ndisc}
		g.alloc(size)
		o.fams = append(o.fams, g)
	}
	return o
}
