package hypothesis

import "errors"

// The kinds of the errors this package returns. Every user error is an
// *ir.Error (or an ir.ErrorList of them) positioned at the model's
// expression or at the data's cell, whose Err is one of these, so that
// programs test for them with errors.Is.
var (
	// ErrMissingColumn: the data have no column the space reads.
	ErrMissingColumn = errors.New("missing column")
	// ErrMissingValue: a cell the space reads is missing (in a CSV
	// file: empty, ?, NA, or NaN in a numeric column; errors.Is finds
	// package data's data.ErrMissingValue too).
	ErrMissingValue = errors.New("missing value")
	// ErrBadValue: a cell is not a value of its column: text, NaN or an
	// infinity in a numeric column, an unknown state, a bernoulli value
	// other than 0/1/true/false/yes/no (in a CSV file, errors.Is finds
	// data.ErrBadValue too).
	ErrBadValue = errors.New("bad value")
	// ErrDomain: an expression is out of its domain under a hypothesis:
	// a standard deviation ≤ 0, a probability outside [0, 1], a mean that
	// is NaN or infinite, NaN from log of a negative number.
	ErrDomain = errors.New("value out of domain")
	// ErrPrior: a prior weight is negative, NaN or +Inf, or depends on
	// the data, or is 0 for every hypothesis.
	ErrPrior = errors.New("invalid prior")
	// ErrImpossible: every hypothesis has posterior probability 0 (the
	// version space is empty, or the data are impossible under every
	// hypothesis the prior allows).
	ErrImpossible = errors.New("impossible data")
	// ErrRange: ln P(D|h) is below float64's range (−1.8e308) under every
	// hypothesis the prior allows, though the data are possible under
	// them (a normal observation whose |d − MEAN|/SD exceeds ~1e154), so
	// that their posteriors cannot be compared.
	ErrRange = errors.New("log-likelihood out of range")
	// ErrTooLarge: the space has more hypotheses than MaxHypotheses.
	ErrTooLarge = errors.New("too many hypotheses")
	// ErrContinuous: the space has a continuous parameter (`in real`),
	// so its hypotheses cannot be enumerated (use FitML), or FitML was
	// given a gridded one.
	ErrContinuous = errors.New("continuous parameter")
	// ErrNoClosedForm: FitML does not know how to fit the space: it is
	// neither a normal observation with a mean linear in the parameters
	// nor bernoulli(sigmoid(linear)).
	ErrNoClosedForm = errors.New("no ML fitting method")
	// ErrNotIdentifiable: the data do not determine the ML parameters,
	// or the likelihood has no maximum (collinear columns, fewer rows
	// than parameters, data on the fitted mean to within rounding, so
	// that the ML σ is 0, data a sigmoid unit separates, whose ML
	// weights are infinite).
	ErrNotIdentifiable = errors.New("parameters not identifiable")
)
