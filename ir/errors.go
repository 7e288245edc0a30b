package ir

import "errors"

// ErrNoDistribution is the kind of error (see [Error]) of a question that
// needs the distribution of a variable whose numbers are still to be
// learned: a structure without tables.
var ErrNoDistribution = errors.New("no distribution yet")
