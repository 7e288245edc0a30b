// Package learn will hold pbl's learners: counting with priors, naive
// Bayes, EM, gradient ascent, Gaussian mixtures, k-means and hypothesis
// spaces. It is empty until the learning issue lands.
package learn
