package pbl

import "github.com/pbl-lang/pbl/ir"

// This file is a sequence answer's storage: its steps' posteriors (or
// path states, or standard errors) in one flat array each, allocated once
// at the sequence's length, so that a sequence of 10^6 steps takes 16
// bytes a step for a binary target, not a slice header per step and
// target (which took 200 MB there).

// answerRows are the rows of an answer: n steps from from, each step's
// row the targets' distributions end to end (off[k] is where target k's
// starts, width the row's length), or their states on a path.
type answerRows struct {
	from, n int
	off     []int
	width   int
	post    []float64 // n×width; nil for a path
	errs    []float64 // n×width standard errors; nil for an exact answer
	path    []int32   // n×len(off) states; nil for distributions
}

// newRows returns the rows of n steps from from for the targets of m
// (indices into m.Time.Vars), as distributions (with standard errors if
// errs) or as a path.
func newRows(m *ir.Model, targets []int, from, n int, path, errs bool) answerRows {
	r := answerRows{from: from, n: n, off: make([]int, len(targets))}
	for k, i := range targets {
		r.off[k] = r.width
		r.width += len(m.Vars[m.Time.Vars[i].Slices[0]].States)
	}
	switch {
	case path:
		r.path = make([]int32, n*len(targets))
	default:
		r.post = make([]float64, n*r.width)
		if errs {
			r.errs = make([]float64, n*r.width)
		}
	}
	return r
}

// at returns target k's distribution (or standard errors) at row i of xs.
func (r *answerRows) at(xs []float64, i, k int) []float64 {
	lo := i*r.width + r.off[k]
	hi := i*r.width + r.width
	if k+1 < len(r.off) {
		hi = i*r.width + r.off[k+1]
	}
	return xs[lo:hi:hi]
}

// setPost stores the targets' distributions at row i.
func (r *answerRows) setPost(i int, post [][]float64) {
	for k, p := range post {
		copy(r.at(r.post, i, k), p)
	}
}

// setErrs stores the targets' standard errors at row i.
func (r *answerRows) setErrs(i int, errs [][]float64) {
	for k, e := range errs {
		copy(r.at(r.errs, i, k), e)
	}
}

// setPath stores the targets' states at row i.
func (r *answerRows) setPath(i int, states []int) {
	for k, s := range states {
		r.path[i*len(r.off)+k] = int32(s)
	}
}

// Len returns the number of steps the answer reports.
func (a *SeqAnswer) Len() int { return a.rows.n }

// Step returns the time step of the answer's row i: i for Filter, Smooth
// and Viterbi, T+i for Predict.
func (a *SeqAnswer) Step(i int) int { return a.rows.from + i }

// Posterior returns the distribution of Targets[k] at row i (Filter,
// Smooth, Predict); nil for a Viterbi path. The slice is the answer's:
// not to be changed.
func (a *SeqAnswer) Posterior(i, k int) []float64 {
	if a.rows.post == nil {
		return nil
	}
	return a.rows.at(a.rows.post, i, k)
}

// StdErr returns the standard errors of Posterior(i, k) for an
// approximate answer; nil for an exact one.
func (a *SeqAnswer) StdErr(i, k int) []float64 {
	if a.rows.errs == nil {
		return nil
	}
	return a.rows.at(a.rows.errs, i, k)
}

// IsPath reports whether the answer is a Viterbi path (State) rather than
// distributions (Posterior).
func (a *SeqAnswer) IsPath() bool { return a.rows.path != nil }

// State returns the state of Targets[k] at row i on the Viterbi path.
func (a *SeqAnswer) State(i, k int) int { return int(a.rows.path[i*len(a.rows.off)+k]) }

// Exact reports whether the answer is exact (not the particle filter's).
func (a *SeqAnswer) Exact() bool { return a.rows.errs == nil }
