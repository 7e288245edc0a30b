package dbn_test

import (
	"fmt"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/dbn"
)

// Russell and Norvig's umbrella world: the umbrella seen on days 1 and 2
// (step 0 is day 0, unobserved).
func Example() {
	m, err := pbl.Load("umbrella.pbl", []byte(`var Rain[t]: bool
var Umbrella[t]: bool
Rain[t-1] -> Rain[t]
Rain[t] -> Umbrella[t]
P(Rain[0]) = 0.5
P(Rain[t] | Rain[t-1]) = { true: 0.7  false: 0.3 }
P(Umbrella[t] | Rain[t]) = { true: 0.9  false: 0.2 }
`))
	if err != nil {
		panic(err)
	}
	net, err := dbn.Compile(m)
	if err != nil {
		panic(err)
	}
	fmt.Println(net.Vars())
	seq := dbn.Seq{Steps: [][]float64{{-1, -1}, {-1, 0}, {-1, 0}}} // state 0 is true
	net.Filter(seq, []string{"Rain"}, func(t int, post [][]float64) error {
		fmt.Printf("filtered day %d: P(rain) = %.3f\n", t, post[0][0])
		return nil
	})
	net.Smooth(seq, []string{"Rain"}, func(t int, post [][]float64) error {
		fmt.Printf("smoothed day %d: P(rain) = %.3f\n", t, post[0][0])
		return nil
	})
	path, _, _ := net.Viterbi(seq, []string{"Rain"})
	fmt.Println("most likely:", path)
	// Output:
	// [Rain Umbrella]
	// filtered day 0: P(rain) = 0.500
	// filtered day 1: P(rain) = 0.818
	// filtered day 2: P(rain) = 0.883
	// smoothed day 2: P(rain) = 0.883
	// smoothed day 1: P(rain) = 0.883
	// smoothed day 0: P(rain) = 0.653
	// most likely: [[0] [0] [0]]
}
