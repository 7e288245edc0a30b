// Package structure learns the graph of a Bayesian network from data:
// decomposable scores computed from counts (log-likelihood, AIC, BIC,
// BDeu, K2) or, for real-valued data, from sums of squares, hill
// climbing as a tabu search from several start graphs with random
// restarts, K2 with a given ordering, the Chow–Liu tree, and
// the PC algorithm; bootstrap edge strengths and the averaged network;
// and the structural Hamming distance between CPDAGs.
//
// Real-valued variables (Data.Real, found by [Data.Numeric]) are scored
// as linear Gaussian or conditional linear Gaussian regressions from
// means and scatter matrices (Gaussian and CLG log-likelihood, AIC, BIC,
// and BGe for all-real data; gaussian.go) and tested by Fisher's z
// (fisherz.go); a discrete variable never has a real parent.
//
// Data are held column-major as int32 state indices, -1 for a missing
// cell. Missing cells are handled by available-case counting per family:
// a row missing the child or any parent of a family is left out of that
// family's counts (and only of that family's), so families are scored on
// different numbers of rows when cells are missing.
package structure
