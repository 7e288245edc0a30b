package learn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/learn"
)

// BenchmarkSequenceEM times one EM iteration (two E-steps and an
// M-step: MaxIter 1) on 100 sequences of 100 steps: a hidden Markov
// model by its hmm fast path and by the general E-step, and the DBN of
// chainSrc (a hidden chain of order 2, a static parent, a Gaussian).
func BenchmarkSequenceEM(b *testing.B) {
	t := &testing.T{}
	hmmTruth := loadModel(t, hmmSrc)
	chain := truthOf(t, chainSrc, map[string]int{"A": 2, "O": 0, "Y": 0}, 5)
	r := rand.New(rand.NewPCG(1, 1))
	hseqs := sampleSeqs(t, hmmTruth, r, 100, 100, []string{"Z"}, 0.05)
	cseqs := sampleSeqs(t, chain, r, 100, 100, []string{"A"}, 0.05)
	for _, c := range []struct {
		name    string
		general bool
	}{{"hmm/fast", false}, {"hmm/general", true}, {"dbn", true}} {
		b.Run(c.name, func(b *testing.B) {
			m, seqs := hmmTruth, hseqs
			if c.name == "dbn" {
				m, seqs = chain, cseqs
			}
			for b.Loop() {
				if _, _, err := learn.LearnSequences(m, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 1}, General: c.general}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
