// Package hypothesis evaluates hypothesis spaces (ir.Space): the Bayesian
// view of learning of Mitchell's chapter 6 (§6.2–6.8) made executable.
// Given a space — parameters on grids, a prior, and how each row of data
// is distributed under a hypothesis — and a data table, it computes for
// every hypothesis h the prior P(h), the likelihood P(D|h) and the
// posterior P(h|D), and from them h_MAP, h_ML, h_MDL, the Bayes optimal
// classification and Gibbs draws. A conjunctive concept space gets its
// version space with its boundaries S and G; a space with continuous
// parameters gets its ML hypothesis by least squares or by gradient
// ascent.
package hypothesis
