package hmm_test

import (
	"fmt"

	"github.com/pbl-lang/pbl/hmm"
)

// The umbrella world of Russell and Norvig (AIMA, 3rd ed., §15.2): state 0
// is rain, state 1 none; symbol 0 is an umbrella, 1 none. Their filtered
// P(rain) after umbrellas on days 1 and 2 is 0.818 and 0.883, and the
// smoothed P(rain on day 1) 0.883; the most likely weather for
// umbrellas on days 1, 2, 4 and 5 is rain, rain, none, rain, rain, of
// probability 0.45 · 0.63 · 0.24 · 0.27 · 0.63 = 0.01157 (log -4.459).
func Example() {
	h := &hmm.HMM{
		K:     2,
		Init:  []float64{0.5, 0.5}, // day 1, from day 0's uniform prior and the symmetric transitions
		Trans: []float64{0.7, 0.3, 0.3, 0.7},
		Emit:  &hmm.Categorical{M: 2, Prob: []float64{0.9, 0.1, 0.2, 0.8}},
	}
	days := hmm.Seq{Sym: []int{0, 0}}
	h.Filter(days, func(t int, p []float64) { fmt.Printf("filtered P(rain on day %d) = %.3f\n", t+1, p[0]) })
	post, _ := h.Smooth(days)
	fmt.Printf("smoothed P(rain on day 1) = %.3f\n", post.At(0)[0])
	path, logp, _ := h.Viterbi(hmm.Seq{Sym: []int{0, 0, 1, 0, 0}})
	fmt.Printf("most likely weather: %v (log-probability %.3f)\n", path, logp)
	next, _ := h.Predict(days, 1)
	fmt.Printf("P(rain on day 3) = %.3f\n", next[0])
	// Output:
	// filtered P(rain on day 1) = 0.818
	// filtered P(rain on day 2) = 0.883
	// smoothed P(rain on day 1) = 0.883
	// most likely weather: [0 0 1 0 0] (log-probability -4.459)
	// P(rain on day 3) = 0.653
}
