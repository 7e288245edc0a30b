package ir

import "errors"

// ErrNoDistribution is the kind of error (see [Error]) of a question that
// needs the distribution of a variable whose numbers are still to be
// learned: a structure without tables.
var ErrNoDistribution = errors.New("no distribution yet")

// ErrNonLinearMean is the kind of error of a normal density whose mean is
// not affine in the real parents: Age * Age, Age * Smoker, exp(Age), a
// comparison. A linear Gaussian density's mean is a number plus numbers
// times real parents.
var ErrNonLinearMean = errors.New("the mean is not affine in the real parents")

// ErrNotAParent is the kind of error of a name in a normal density's mean
// that is not a real parent listed after | (a variable not listed, or no
// variable at all).
var ErrNotAParent = errors.New("a name in the mean is not a real parent")

// ErrRealParentOfDiscrete is the kind of error of a discrete variable
// given a real-valued parent (P(Alarm | Pressure)) by a table, or by an
// edge with no distribution to learn it into: its distribution given a
// real parent is logistic(...) or softmax(...) ([Softmax]).
var ErrRealParentOfDiscrete = errors.New("a table with a real-valued parent")

// ErrCycle is the kind of error of parents that form a directed cycle,
// through discrete or real-valued parents.
var ErrCycle = errors.New("the parents form a cycle")

// ErrUnobservedRealParent is the kind of error of the likelihood of a
// linear Gaussian density's value (LogDensities) when a real parent of it
// has no value: its mean is not known.
var ErrUnobservedRealParent = errors.New("a real parent of a linear Gaussian density has no value")
