// Package structure learns the graph of a Bayesian network from data:
// decomposable scores computed from counts (log-likelihood, AIC, BIC,
// BDeu, K2), hill climbing as a tabu search from several start graphs
// with random restarts, K2 with a given ordering, the Chow–Liu tree, and
// the PC algorithm; bootstrap edge strengths and the averaged network;
// and the structural Hamming distance between CPDAGs.
//
// Data are held column-major as int32 state indices, -1 for a missing
// cell. Missing cells are handled by available-case counting per family:
// a row missing the child or any parent of a family is left out of that
// family's counts (and only of that family's), so families are scored on
// different numbers of rows when cells are missing.
package structure
