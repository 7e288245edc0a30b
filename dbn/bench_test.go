package dbn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/dbn"
)

// threeVar is a first-order DBN of three template variables of three
// states (a chain with two sensors and cross-slice arcs) and a static
// parent.
const threeVar = `var S: {lo, mid, hi}
var A[t]: {a0, a1, a2}
var B[t]: {b0, b1, b2}
var C[t]: {c0, c1, c2}
A[t-1] -> A[t]
B[t-1] -> B[t]
A[t] -> B[t]
B[t] -> C[t]
S -> C[t]
P(S) = [0.2, 0.5, 0.3]
P(A[0]) = [0.3, 0.3, 0.4]
P(B[0] | A[0]) = { a0: [0.6, 0.2, 0.2]  a1: [0.2, 0.6, 0.2]  a2: [0.2, 0.2, 0.6] }
P(A[t] | A[t-1]) = { a0: [0.8, 0.1, 0.1]  a1: [0.1, 0.8, 0.1]  a2: [0.1, 0.1, 0.8] }
P(B[t] | B[t-1], A[t]) = {
  b0, a0: [0.7, 0.2, 0.1]  b0, a1: [0.5, 0.3, 0.2]  b0, a2: [0.4, 0.3, 0.3]
  b1, a0: [0.2, 0.6, 0.2]  b1, a1: [0.1, 0.8, 0.1]  b1, a2: [0.2, 0.5, 0.3]
  b2, a0: [0.3, 0.3, 0.4]  b2, a1: [0.1, 0.2, 0.7]  b2, a2: [0.1, 0.1, 0.8]
}
P(C[t] | B[t], S) = {
  b0, lo: [0.8, 0.1, 0.1]  b0, mid: [0.6, 0.2, 0.2]  b0, hi: [0.4, 0.3, 0.3]
  b1, lo: [0.1, 0.8, 0.1]  b1, mid: [0.2, 0.6, 0.2]  b1, hi: [0.3, 0.4, 0.3]
  b2, lo: [0.1, 0.1, 0.8]  b2, mid: [0.2, 0.2, 0.6]  b2, hi: [0.3, 0.3, 0.4]
}
`

func threeSeq(T int) dbn.Seq {
	r := rand.New(rand.NewPCG(1, 1))
	var s dbn.Seq
	for range T {
		s.Steps = append(s.Steps, []float64{-1, float64(r.IntN(4) - 1), float64(r.IntN(3))})
	}
	return s
}

// BenchmarkFilterThreeVar filters 1000 steps of threeVar: ns/op / 1000
// is the time of one step.
func BenchmarkFilterThreeVar(b *testing.B) {
	n := compile(&testing.T{}, threeVar)
	s := threeSeq(1000)
	b.ReportAllocs()
	for b.Loop() {
		if err := n.Filter(s, []string{"A", "S"}, func(int, [][]float64) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSmoothThreeVar smooths 1000 steps of threeVar.
func BenchmarkSmoothThreeVar(b *testing.B) {
	n := compile(&testing.T{}, threeVar)
	s := threeSeq(1000)
	b.ReportAllocs()
	for b.Loop() {
		if err := n.Smooth(s, []string{"A", "S"}, func(int, [][]float64) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkViterbiThreeVar decodes 1000 steps of threeVar.
func BenchmarkViterbiThreeVar(b *testing.B) {
	n := compile(&testing.T{}, threeVar)
	s := threeSeq(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := n.Viterbi(s, []string{"A"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSmoothHMM smooths 10^6 steps of the two-state model through
// package hmm.
func BenchmarkSmoothHMM(b *testing.B) {
	n := compile(&testing.T{}, twoState)
	s := longSeq(1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if err := n.Smooth(s, []string{"X"}, func(int, [][]float64) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
