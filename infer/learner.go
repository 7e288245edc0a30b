package infer

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file is the seam between learners and inference: what EM and
// gradient ascent (package learn) ask of an engine, as an interface that
// the junction tree implements. A learner compiles once, from the first
// parameters, and installs new numbers at every iteration; each E-step
// asks for the posteriors of every family given evidence rows — discrete
// cells, and real values as likelihoods in slots over their densities'
// parents (LikelihoodSlots) — and for each row's log-likelihood.
//
// The interface lives here, beside the engines, rather than in package
// learn: an engine implements it by importing infer and ir alone (an
// engine in a package of its own cannot import learn, which comes after
// it in the pipeline), and its methods' types (LikRow, ExpectStats) are
// infer's.

// Learner is the inference a learner runs on: a compiled model (a
// Bayesian network, with likelihood slots where densities have discrete
// parents) whose numbers can be replaced. Implementations must be safe
// for concurrent use of Expect and ExpectLik (each call with tables of
// its own), as the E-step runs blocks of rows on every core.
type Learner interface {
	// Install returns the inference for m, a model with the structure
	// the receiver was made for (the same variables and numbers of
	// states, factor scopes and slots) and new numbers. The receiver is
	// unchanged.
	Install(m *ir.Model) (Learner, error)

	// Expect adds to acc[v] the expected counts of v's family given each
	// row of discrete evidence (a state or -1 by VarID), times its
	// weight (nil: 1), and returns the weighted log-likelihood of the
	// possible rows and the count of impossible ones: see
	// [JTree.Expect]. It is ExpectLik on rows without likelihoods, and
	// may group equal rows.
	Expect(rows [][]int, weights []float64, acc [][]float64) (ExpectStats, error)

	// ExpectLik is Expect for rows with likelihoods in the model's slots
	// (real values), which also gives each row's posterior of every
	// slot's scope (post) and log-likelihood (logp): see
	// [JTree.ExpectLik].
	ExpectLik(rows []LikRow, acc [][]float64, post [][][]float64, logp []float64) (ExpectStats, error)
}

// CompileLearner compiles m's junction tree (Compile) as a Learner: the
// inference learners run on unless they are given another.
func CompileLearner(m *ir.Model, opt Options) (Learner, error) {
	t, err := Compile(m, opt)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Install is [JTree.WithModel] as a [Learner].
func (t *JTree) Install(m *ir.Model) (Learner, error) {
	u, err := t.WithModel(m)
	if err != nil {
		return nil, err
	}
	return u, nil
}

var _ Learner = (*JTree)(nil)

// expectOrder checks the rows and weights of an Expect call (check panics
// on a row that is not evidence for the model; a weight count other than
// the rows' panics too) and returns the rows' indices grouped by evidence:
// sorted by row, ties in the rows' order, so that the sums are the same
// from run to run. A weight that is not a finite non-negative number is an
// error.
func expectOrder(rows [][]int, weights []float64, check func(row []int)) ([]int, error) {
	if weights != nil && len(weights) != len(rows) {
		panic(fmt.Sprintf("infer: Expect: %d weights for %d rows", len(weights), len(rows)))
	}
	for r, row := range rows {
		check(row)
		if weights != nil && !(weights[r] >= 0 && weights[r] <= math.MaxFloat64) {
			return nil, fmt.Errorf("weight %s of row %d is not a finite non-negative number", ir.FormatFloat(weights[r]), r+1)
		}
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := slices.Compare(rows[a], rows[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order, nil
}
