package learn

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// This file is EM over data too varied to hold: the in-memory learner
// (em.go) keeps the data's distinct rows (patterns) and calibrates once
// per pattern, which is fast while patterns repeat (a latent class model's
// few symptoms) but holds every row when they do not (ALARM with one
// variable hidden: 236,701 patterns in 1,000,000 rows). Past
// maxPatternCells cells of patterns, Learn streams instead: each iteration
// reads the file again, its E-step's statistics computed per batch on
// every core (EMPlan, emshard.go) and merged, so memory does not grow
// with the data. The iterations, the restarts, the stopping rule, the
// checks and the report are the in-memory learner's; the numbers agree
// with it to rounding (the sums are in another order: about 1e-15
// relative, not to the last bit).

// maxPatternCells is the most cells (patterns × variables) that EM holds
// in memory (some 30 MB: a pattern costs about 13 bytes per variable and
// 60 more); past it, Learn streams.
var maxPatternCells = 1 << 21

// readPatternsUpTo reads the rows of r into patterns for m, and reports
// false as soon as they hold more than maxCells cells.
func readPatternsUpTo(r *data.Reader, m *ir.Model, maxCells int) (*patterns, bool, error) {
	p := newPatterns(len(m.Vars))
	p.reals = densityVars(m)
	p.file = r.File()
	b := r.NewBatch(batchRows)
	for {
		err := r.Read(b)
		p.add(b)
		if (len(p.rows)+p.real.n())*max(1, len(m.Vars)+len(p.reals)) > maxCells {
			return nil, false, nil
		}
		if err == io.EOF {
			return p, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// learnStream learns m by EM (opt.Method is EM), reading the data from
// open once per E-step.
func learnStream(m *ir.Model, open func(m *ir.Model) (*data.Reader, error), opt Options) (*ir.Model, *Report, error) {
	start := time.Now()
	// Open variables' states first, so that every pass numbers them alike.
	r, err := open(m)
	if err != nil {
		return nil, nil, err
	}
	if hasOpen(m, r.Vars) {
		states, err := data.ScanStates(r)
		r.Close()
		if err != nil {
			return nil, nil, err
		}
		m = m.WithStates(states)
		if r, err = open(m); err != nil {
			return nil, nil, err
		}
	}
	cols := r.Vars
	// The rows a density that starts from data starts from: the first
	// ones (the in-memory learner uses them all).
	sample, err := data.ReadHead(r, 1<<16)
	r.Close()
	if err != nil {
		return nil, nil, err
	}
	plan, err := NewEMPlan(m, cols, opt)
	if err != nil {
		return nil, nil, err
	}
	s := &stream{plan: plan, open: open, opt: opt, start: start}
	starts := max(1, opt.Restarts)
	init := plan.Init()
	best, bestStart, err := bestOfStarts(starts, init, s.opt.canceled, func(k int, _ Init) (*fit, error) {
		m0, err := plan.Start(k, sample)
		if err != nil {
			return nil, err
		}
		return s.em(m0, k, starts)
	})
	if err != nil {
		return nil, nil, err
	}
	var hidden []ir.VarID
	for v, h := range plan.e.hidden {
		if h {
			hidden = append(hidden, ir.VarID(v))
		}
	}
	rep := &Report{
		Rows:       int(s.rows),
		LogLik:     best.trace[len(best.trace)-1],
		Iterations: best.iters,
		Converged:  best.converged,
		Restarts:   starts,
		Best:       bestStart,
		Trace:      best.trace,
		Hidden:     hidden,
		Init:       init,
		Seconds:    time.Since(start).Seconds(),
	}
	return best.m, rep, nil
}

// hasOpen reports whether one of cols is an open variable of m.
func hasOpen(m *ir.Model, cols []ir.VarID) bool {
	for _, v := range cols {
		if m.Vars[v].Open {
			return true
		}
	}
	return false
}

// stream is a streaming EM run.
type stream struct {
	plan  *EMPlan
	open  func(m *ir.Model) (*data.Reader, error)
	opt   Options
	start time.Time
	rows  int64
}

// expect runs the E-step from params over the whole data, on every core.
func (s *stream) expect(params *ir.Model) (*EMStats, error) {
	es, err := s.plan.EStep(params)
	if err != nil {
		return nil, err
	}
	r, err := s.open(s.plan.Model())
	if err != nil {
		return nil, err
	}
	defer r.Close()
	parts := make([]*EMStats, max(1, r.Workers()))
	for w := range parts {
		parts[w] = es.NewStats()
	}
	if err := r.ReadParallel(func(w int, b *data.Batch) error { return es.Add(parts[w], b) }); err != nil {
		return nil, err
	}
	for _, p := range parts[1:] {
		parts[0].Merge(p)
	}
	if parts[0].Rows == 0 {
		return nil, ErrNoRows
	}
	s.rows = parts[0].Rows
	if math.IsNaN(parts[0].LogLik) {
		return nil, errors.New("learn: the log-likelihood is not a number")
	}
	return parts[0], nil
}

// em runs EM from m0, start k of starts, as emRun.em does.
func (s *stream) em(m0 *ir.Model, k, starts int) (*fit, error) {
	st, err := s.expect(m0)
	if err != nil {
		return nil, err
	}
	cur := m0
	f := &fit{m: cur, trace: []float64{st.LogLik}, obj: s.plan.Objective(cur, st)}
	maxIter := s.opt.MaxIter
	if maxIter <= 0 {
		maxIter = DefaultEMIter
	}
	for it := 1; it <= maxIter; it++ {
		next, err := s.plan.MStep(cur, st)
		if err != nil {
			return nil, err
		}
		if st, err = s.expect(next); err != nil {
			return nil, err
		}
		prev := cur
		cur = next
		obj := s.plan.Objective(next, st)
		if obj < f.obj-1e-9*max(1, math.Abs(f.obj)) {
			return nil, fmt.Errorf("%w from %s to %s at iteration %d: this is a bug in pbl, please report it", ErrDecrease, ir.FormatFloat(f.obj), ir.FormatFloat(obj), it)
		}
		converged := Converged(s.opt.Tol, prev, next, f.obj, obj)
		f.m, f.obj, f.iters = next, obj, it
		f.trace = append(f.trace, st.LogLik)
		if s.opt.Progress != nil {
			s.opt.Progress(Progress{Start: k + 1, Starts: starts, Iteration: it, LogLik: st.LogLik, Rows: int(s.rows), Seconds: time.Since(s.start).Seconds()})
		}
		if converged {
			f.converged = true
			return f, nil
		}
		if s.opt.canceled() {
			return f, ErrCanceled
		}
	}
	return f, nil
}
