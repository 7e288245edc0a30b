package causal

import "math/bits"

// MaxVars is the most observed variables a graph may have: sets of
// variables are bit sets in a uint64.
const MaxVars = 64

// Set is a set of variables of one graph, by index: bit i is variable i.
type Set uint64

func single(i int) Set        { return Set(1) << uint(i) }
func (s Set) has(i int) bool  { return s&single(i) != 0 }
func (s Set) len() int        { return bits.OnesCount64(uint64(s)) }
func (s Set) sub(t Set) bool  { return s&^t == 0 }
func (s Set) minus(t Set) Set { return s &^ t }
func (s Set) empty() bool     { return s == 0 }
func (s Set) add(i int) Set   { return s | single(i) }

// members returns the indices in s in increasing order.
func (s Set) members() []int {
	out := make([]int, 0, s.len())
	for s != 0 {
		i := bits.TrailingZeros64(uint64(s))
		out = append(out, i)
		s &^= single(i)
	}
	return out
}

// SetOf returns the set of the given indices.
func SetOf(idx ...int) Set {
	var s Set
	for _, i := range idx {
		s |= single(i)
	}
	return s
}
