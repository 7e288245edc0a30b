package infer

import (
	"errors"
	"math"

	"github.com/pbl-lang/pbl/ir"
)

// This file is the API for programs that ask without a query text:
// learners and classifiers. Each call goes through the same validation,
// engine choice and errors as Answer, positioned at the model's file.

// Posterior returns P(target | evidence) on m: p[s] = P(target = s | e).
// It chooses the engine as [Answer] does for the query P(target | e) and
// gives the same numbers. Errors are *ir.Error values at the model's file
// with the kinds Answer uses: [ErrImpossible] for evidence of probability
// 0, ir.ErrNoDistribution when the question needs a variable still to be
// learned, a *[TooLargeError] over the limits; a real or observed target,
// or a malformed observation, is an error too.
func Posterior(m *ir.Model, target ir.VarID, evidence []ir.Obs, opt Options) ([]float64, error) {
	if m == nil {
		panic("infer: Posterior: nil model")
	}
	q := &query{Pos: ir.Pos{File: m.Source}, Kind: kindProb, Targets: []ir.VarID{target}, TargetStates: []int{-1}, Conditions: ir.Conditions{Evidence: evidence}}
	a := &answerer{m: m, q: q, opt: opt}
	if err := a.setup(); err != nil {
		return nil, err
	}
	defer a.release()
	return a.posterior(q.Targets)
}

// LogPE returns ln P(evidence) on m (the log-likelihood of one data row),
// finite even where P(e) underflows float64; on a Markov network, P(e) is
// normalised by the partition function, as Answer's is. It chooses the engine as
// [Answer] does for the query P(e). Evidence of probability 0 gives -Inf
// and an error whose kind is [ErrImpossible]; the other errors are those
// of [Posterior], with 0.
func LogPE(m *ir.Model, evidence []ir.Obs, opt Options) (float64, error) {
	if m == nil {
		panic("infer: LogPE: nil model")
	}
	q := &query{Pos: ir.Pos{File: m.Source}, Kind: kindProb, Conditions: ir.Conditions{Evidence: evidence}}
	a := &answerer{m: m, q: q, opt: opt}
	if err := a.setup(); err != nil {
		return 0, err
	}
	defer a.release()
	pe, err := a.pe()
	switch {
	case errors.Is(err, ErrImpossible):
		return math.Inf(-1), err
	case err != nil:
		return 0, err
	}
	z, err := a.z()
	if err != nil {
		return 0, err
	}
	return min(0, pe.Log()-z.Log()), nil
}
