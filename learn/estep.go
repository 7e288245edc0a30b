package learn

import (
	"errors"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file chooses the inference of the iterative learners' E-step: the
// junction tree within Options.MaxMemory, or, where it does not fit and
// Options.Approximate allows it, the approximate learner of package infer
// (loopy belief propagation per row, infer.CompileApproxLearner), which the
// report names (Report.EStep). With an approximate E-step the
// log-likelihoods of the trace are approximate too (the Bethe
// approximation), and EM's check that its objective never decreases
// (ErrDecrease), which holds for exact expectations only, is not made.

// ApproxEStep describes an approximate E-step: which engine ran it and
// why.
type ApproxEStep struct {
	Engine string     // the approximate engine (infer.LearnerEngine for the fallback)
	Why    *infer.Why // why: the junction tree's refusal (Why.TooLarge), or Why.Caller when Options.Inference gave an approximate learner
	// Unconverged is the number of row propagations, over the whole run,
	// that stopped at their limit of sweeps without converging.
	Unconverged int64

	l infer.Learner // the compiled learner, whose installs share its count
}

// compile returns the inference of the learners for m: Options.Inference's,
// or the junction tree within MaxMemory, or the approximate learner where
// the tree does not fit and Approximate allows it. The second result
// describes an approximate E-step (nil for an exact one).
func (o *Options) compile(m *ir.Model) (infer.Learner, *ApproxEStep, error) {
	iopt := infer.Options{Cancel: o.Cancel, MaxMemory: o.MaxMemory}
	if c := o.Inference; c != nil {
		l, err := c(m, iopt)
		if err != nil {
			return nil, nil, err
		}
		if a, ok := l.(infer.InexactLearner); ok {
			eng, _ := a.Approximate()
			return l, &ApproxEStep{Engine: eng, Why: &infer.Why{Caller: true}, l: l}, nil
		}
		return l, nil, nil
	}
	t, err := infer.CompileLearner(m, iopt)
	var tl *infer.TooLargeError
	if err == nil || !o.Approximate || !errors.As(err, &tl) {
		return t, nil, err
	}
	a, aerr := infer.CompileApproxLearner(m, iopt)
	if aerr != nil {
		return nil, nil, err // the tree's refusal says more
	}
	return a, &ApproxEStep{Engine: infer.LearnerEngine, Why: &infer.Why{TooLarge: tl}, l: a}, nil
}

// report returns a copy of a for a report, with the count of
// propagations that did not converge so far; nil for nil.
func (a *ApproxEStep) report() *ApproxEStep {
	if a == nil {
		return nil
	}
	c := *a
	if x, ok := a.l.(infer.InexactLearner); ok {
		_, c.Unconverged = x.Approximate()
	}
	c.l = nil
	return &c
}
