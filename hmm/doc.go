// Package hmm is the numeric core of hidden Markov models: filtering,
// smoothing, prediction, the Viterbi path, the log-likelihood and
// Baum–Welch, on sequences given as slices (symbols or real values). It
// knows no model or data type of pbl and imports only gonum and the
// standard library; the language's time-indexed models are built on it.
package hmm
