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
// Real-valued variables with a density are sampled after the discrete
// ones, from their own generator (below): first the joint normal
// densities (ir.MultiNormal), in the order of their first variables, each
// as mean + L·z for the lower Cholesky factor L of its configuration's
// covariance; then the normal densities (ir.Gaussian) in a topological
// order of their real parents (repeatedly the lowest-numbered variable
// whose real parents have been drawn), each as mean + sd·z, the mean of a
// linear Gaussian density being its configuration's intercept plus each
// coefficient times its real parent's value drawn in the row. Each z takes
// one 64-bit output x of the generator: z = Φ⁻¹(u) = −√2·erfc⁻¹(2u) at u =
// (⌊x / 2¹¹⌋ + ½) / 2⁵³. A real variable without a density (still to be
// learned) is not sampled and not written. A Markov network (one with
// potentials) is refused: forward sampling needs conditional
// distributions.
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
// blanking. The real values of chunk c draw from a second generator,
//
//	rand.NewPCG(splitmix64(seed ^ 0x5265616c56616c73), splitmix64(c))
//
// (see [ChunkRealSource]), one output per real value in the order above,
// so that a model's discrete columns are the same with or without real
// variables (when nothing is blanked). (The real values are computed
// without fused multiply-adds; math.Erfcinv is the standard library's, so
// an architecture whose math library differs in the last bit would
// differ there.) Chunks are generated concurrently
// on every core and written in order.
//
// # CSV
//
// The header names the sampled variables in declaration order; each row
// gives the discrete ones' states by name and the real ones' values as the
// shortest decimal that reads back as the float64 drawn. Output follows RFC 4180 with LF line ends:
// a field is quoted when it contains a comma, a double quote, CR or LF,
// starts or ends with a space or tab, or is empty, and inner quotes are
// doubled. A missing cell is empty; in a model with a single column it is
// written "" so that the line is not blank (readers skip blank lines).
package sample
