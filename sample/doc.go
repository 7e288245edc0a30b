// Package sample draws independent samples from a Bayesian network by
// forward (ancestral) sampling and writes them as CSV.
//
// # Algorithm
//
// A [Sampler] is compiled once from an [ir.Model]. It fixes a topological
// order of the discrete variables: repeatedly the lowest-numbered variable
// (in declaration order) whose parents have all been placed. For a model
// declared parents first, that is the declaration order. Each CPT row is
// normalised by its sum (rows sum to 1 within [ir.RowTolerance]) and turned
// into cumulative thresholds, stored flat, one uint64 per state:
//
//	t[j] = ⌊2⁶³ · (p[0] + … + p[j]) / Σp⌋   for j < L,   t[j] = 2⁶³ for j ≥ L
//
// where L is the last state of positive probability. To draw a variable,
// the sampler computes its parents' row, takes u = x >> 1 for the next
// 64-bit output x of the generator, and returns the first j with u < t[j]:
// the number of thresholds at or below u, counted without branches, for up
// to 8 states; a binary search beyond. A state of probability zero is never
// drawn, and drawing allocates nothing.
//
// Real-valued variables have no CPT: they are not sampled and are not
// written. A Markov network (one with potentials) is refused: forward
// sampling needs conditional distributions.
//
// # Reproducibility
//
// The output of [Sampler.WriteCSV] is a function of the model, n, the seed
// and the missing fraction only: it is the same on every run, machine and
// GOMAXPROCS. The rows are cut into chunks of [ChunkRows] rows; chunk c
// (counting from 0) draws from its own generator
//
//	rand.NewPCG(seed, splitmix64(c))
//
// where splitmix64 is the SplitMix64 finaliser (see [ChunkSource]). Within
// a chunk, each row consumes the generator's Uint64 outputs in this order:
// one per sampled variable, in the sampler's topological order; then, when
// missing > 0, one per column, left to right, the cell being left empty
// when (x >> 1) < ⌊2⁶³ · missing⌋. With missing = 0 no draws are made for
// blanking. Chunks are generated concurrently on every core and written in
// order.
//
// # CSV
//
// The header names the discrete variables in declaration order; each row
// gives their states by name. Output follows RFC 4180 with LF line ends:
// a field is quoted when it contains a comma, a double quote, CR or LF,
// starts or ends with a space or tab, or is empty, and inner quotes are
// doubled. A missing cell is empty; in a model with a single column it is
// written "" so that the line is not blank (readers skip blank lines).
package sample
