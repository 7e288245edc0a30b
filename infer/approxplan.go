package infer

import (
	"errors"
	"time"

	"github.com/pbl-lang/pbl/ir"
)

// This file is the Auto engine's last resort: when the exact plan does not
// fit — the junction tree and variable elimination over MaxMemory (their
// *TooLargeError, raised before any work; a table over MaxTable counts
// when MaxTable is the default, or when the table alone needs more than
// MaxMemory, so that a caller's own small MaxTable is still a refusal), or
// the
// planner's estimate of the time over the time limit, or the exact engine
// still running at half the time limit — Auto answers with the
// approximate engine best suited to the network's shape (approxFor), and
// the answer says so (Header.Engine, Header.Why) with an error per number.
// Options.Exact refuses instead, with the exact engines' error.

// approxFor returns the approximate engine Auto answers q on m with:
//
//   - MPE and MAP: local search from iterative join-graph propagation's
//     beliefs (ijgp's MaxAssign);
//   - everything else (marginals, tables, P(e)): the cascade
//     (approx.Auto): cutset enumeration where a small cutset isolates the
//     other variables (exact), weighted mini-buckets on the network with
//     the observed variables removed (exact when the i-bound reaches its
//     width; otherwise bounds on ln P(e)), then IJGP for the time left,
//     keeping the answer whose ln P(e) is the better known. Measured
//     against the samplers and the other engines on grids, random
//     networks and the UAI 2014 instances (docs/performance.md,
//     "Approximate inference: pbl's engines against the references"), it
//     was the most accurate at equal time on every one.
//   - on a model where a discrete variable has a real-valued parent:
//     likelihood weighting on the hybrid network (hybrid.go), whatever the
//     query.
func approxFor(m *ir.Model, q *query) string {
	if hasDiscreteChildOfReal(m) {
		return hybridEngine
	}
	if q.Kind == kindMPE || q.Kind == kindMAP {
		return "ijgp"
	}
	return "cascade"
}

// slowError is the planner's refusal of an exact plan whose estimated time
// is over what is left of the time limit.
type slowError struct{ need, limit time.Duration }

func (e *slowError) Error() string {
	return (&Why{Need: e.need, Limit: e.limit}).String()
}

// answerAuto answers q on m, falling back on an approximate engine when
// Auto's exact plan does not fit (see the file's comment).
func answerAuto(m *ir.Model, q *query, opt Options) (Result, error) {
	start := time.Now()
	dl := opt.deadline(start)
	if opt.Exact || opt.Engine != "" && opt.Engine != Auto || opt.fallback {
		if dl.IsZero() || opt.fallback {
			return answer(m, q, opt, nil)
		}
		// No fallback: the time limit stops the engine (an approximate
		// one answers with its best so far, by its own deadline; an
		// exact one is canceled).
		user := opt.Cancel
		var stop func()
		opt.Deadline, opt.TimeLimit = dl, 0
		opt.Cancel, stop = cancelAt(user, dl.Add(timeGrace))
		r, err := answer(m, q, opt, nil)
		stop()
		if errors.Is(err, ErrCanceled) && !closed(user) {
			return nil, &ir.Error{Pos: q.Pos, Err: &TimeLimitError{Limit: dl.Sub(start)},
				Msg: (&TimeLimitError{Limit: dl.Sub(start)}).Error()}
		}
		return r, err
	}
	eopt := opt
	eopt.fallback = true
	stop := func() {}
	if !dl.IsZero() {
		// The exact engines get half the time; the approximate one, if
		// it comes to that, the rest.
		half := start.Add(dl.Sub(start) / 2)
		eopt.Deadline, eopt.TimeLimit = half, 0
		eopt.Cancel, stop = cancelAt(opt.Cancel, half)
	}
	r, err := answer(m, q, eopt, nil)
	stop()
	if err == nil {
		return r, nil
	}
	why := whyApprox(err, opt, dl, start)
	if why == nil {
		if errors.Is(err, ErrCanceled) && eopt.Cancel != opt.Cancel {
			return nil, canceled(q.Pos) // the caller's cancellation, not the limit
		}
		return nil, err
	}
	aopt := opt
	aopt.Deadline, aopt.TimeLimit = dl, 0
	aopt.Engine = approxFor(m, q)
	aopt.fallback = true
	r, err2 := answer(m, q, aopt, nil)
	if errors.Is(err2, ErrCanceled) && !closed(opt.Cancel) {
		// The approximate engine had no answer by the time limit.
		e := &TimeLimitError{Limit: dl.Sub(start)}
		return nil, &ir.Error{Pos: q.Pos, Err: e, Msg: e.Error()}
	}
	if err2 != nil {
		return nil, err2
	}
	r.Head().Why = why
	return r, nil
}

// whyApprox returns why the exact engines' error err calls for an
// approximate answer, or nil if it does not: a refusal over MaxMemory (or
// over MaxTable, when it is the default or the table alone needs more
// than MaxMemory), the
// planner's estimate over the time limit, or the exact engine canceled at
// its share of the time (and not by the caller).
func whyApprox(err error, opt Options, dl, start time.Time) *Why {
	var tl *TooLargeError
	var se *slowError
	switch {
	case errors.Is(err, ErrDiscreteChildOfReal):
		var he *HybridError
		if !errors.As(err, &he) || he.Engine != "" {
			return nil // not the exact engines' refusal: a query the sampler does not answer either
		}
		return &Why{Hybrid: true}
	case errors.As(err, &tl):
		switch {
		case tl.What == OversizeMemory:
			return &Why{TooLarge: tl}
		case (tl.What == OversizeTable || tl.What == OversizeClique) && tl.Size*8 > float64(opt.maxMemory()):
			// A table over MaxTable that alone needs more than
			// MaxMemory: the plan does not fit the memory either.
			return &Why{TooLarge: &TooLargeError{What: OversizeMemory, Vars: tl.Vars, Size: tl.Size * 8, Limit: opt.maxMemory(), msg: tl.msg}}
		case (tl.What == OversizeTable || tl.What == OversizeClique) && opt.maxTable() == DefaultMaxTable:
			// Over the default table limit, the engines' own guard.
			return &Why{TooLarge: tl}
		}
		// A table over a MaxTable the caller chose, within MaxMemory, or
		// an answer of too many rows, which an approximate engine would
		// have as many of: refused.
		return nil
	case errors.As(err, &se):
		return &Why{Need: se.need, Limit: dl.Sub(start)}
	case errors.Is(err, ErrCanceled) && !dl.IsZero() && !closed(opt.Cancel):
		return &Why{Limit: dl.Sub(start)}
	}
	return nil
}

// timeGrace is how long after the time limit an engine named by the caller
// is canceled: an approximate one stops at the limit by itself and needs
// a moment to return its answer.
const timeGrace = 100 * time.Millisecond

// TimeLimitError is the error of an answer that did not finish within
// Options.TimeLimit or Options.Deadline: an exact one (Options.Exact, or
// an exact engine named by the caller), or Auto's approximate one that had
// no answer yet; errors.Is(err, ErrCanceled) holds for it.
type TimeLimitError struct {
	Limit time.Duration // the time the answer had
}

func (e *TimeLimitError) Error() string {
	return "no answer within the time limit of " + durationString(e.Limit)
}

// Is reports whether target is ErrCanceled.
func (e *TimeLimitError) Is(target error) bool { return target == ErrCanceled }

// closed reports whether c is closed (false for nil).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// cancelAt returns a channel closed at t or when parent is closed, and a
// function that releases its timer.
func cancelAt(parent <-chan struct{}, t time.Time) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	done := make(chan struct{})
	timer := time.NewTimer(time.Until(t))
	go func() {
		select {
		case <-parent:
		case <-timer.C:
		case <-done:
			return
		}
		close(ch)
	}()
	return ch, func() { timer.Stop(); close(done) }
}
