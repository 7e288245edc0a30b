package pbl

// UnrolledEngine returns opt answering on the model unrolled to the sequence's
// length (the exact engines' fallback), not by package dbn: the brute-force
// tests check both.
func UnrolledEngine(opt SeqOptions) SeqOptions {
	opt.unrolled = true
	return opt
}
