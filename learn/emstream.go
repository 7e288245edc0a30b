package learn

import (
	"errors"
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
// with the data. The file is an EMSource, iterated by the one EM loop
// (EMPlan.Run): the iterations, the restarts, the stopping rule, the
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
	plan.e.start = start
	out, rep, err := plan.Run(&stream{plan: plan, open: open}, sample)
	if err != nil {
		return nil, nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return out, rep, nil
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

// stream is the data of a streaming EM run as an EMSource: the file,
// opened again for every E-step.
type stream struct {
	plan *EMPlan
	open func(m *ir.Model) (*data.Reader, error)
}

// Expect runs the E-step from params over the whole data, on every core.
func (s *stream) Expect(params *ir.Model) (*EMStats, error) {
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
	if math.IsNaN(parts[0].LogLik) {
		return nil, errors.New("learn: the log-likelihood is not a number")
	}
	return parts[0], nil
}
