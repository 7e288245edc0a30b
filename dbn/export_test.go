package dbn

// Slow returns n without its hidden Markov model, so that the tests
// compare the interface algorithm with package hmm on the same model.
func Slow(n *Net) *Net {
	c := *n
	c.fast = nil
	return &c
}
