package ir

import "strconv"

// VarID indexes Model.Vars.
type VarID int

// Factor is a non-negative function of a set of discrete variables, stored
// as a flat row-major array with the last variable varying fastest.
type Factor struct {
	Vars   []VarID   // scope, in layout order; empty for a constant
	Card   []int     // Card[i] is the number of states of Vars[i]
	Stride []int     // Stride[i] is the step in Vals for Vars[i]
	Vals   []float64 // len = product of Card
}

// NewFactor returns a zero factor over vars with the given cardinalities.
// It panics if the table would not fit in memory; callers that take sizes
// from users must check [TableSize] first.
func NewFactor(vars []VarID, card []int) *Factor {
	if len(vars) != len(card) {
		panic("ir: NewFactor: len(vars) != len(card)")
	}
	n, ok := TableSize(card)
	if !ok {
		panic("ir: NewFactor: table too large")
	}
	f := &Factor{
		Vars:   append([]VarID(nil), vars...),
		Card:   append([]int(nil), card...),
		Stride: make([]int, len(vars)),
		Vals:   make([]float64, n),
	}
	s := 1
	for i := len(vars) - 1; i >= 0; i-- {
		f.Stride[i] = s
		s *= card[i]
	}
	return f
}

// MaxTableSize is the largest number of entries a single table may have.
const MaxTableSize = 1 << 31

// TableSize returns the product of card and whether it is at most
// MaxTableSize.
func TableSize(card []int) (int, bool) {
	n := 1
	for _, c := range card {
		if c <= 0 {
			return 0, false
		}
		if n > MaxTableSize/c {
			return 0, false
		}
		n *= c
	}
	return n, true
}

// Index returns the offset of the assignment a (one state per variable of
// the factor, in layout order).
func (f *Factor) Index(a []int) int {
	i := 0
	for k, s := range a {
		i += s * f.Stride[k]
	}
	return i
}

// Assignment writes into dst the states of the entry at offset i and
// returns dst. dst must have len(f.Vars) elements.
func (f *Factor) Assignment(dst []int, i int) []int {
	for k := len(f.Card) - 1; k >= 0; k-- {
		dst[k] = i % f.Card[k]
		i /= f.Card[k]
	}
	return dst
}

// Pos returns the position of v in the factor's scope, or -1.
func (f *Factor) Pos(v VarID) int {
	for i, w := range f.Vars {
		if w == v {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of f.
func (f *Factor) Clone() *Factor {
	return &Factor{
		Vars:   append([]VarID(nil), f.Vars...),
		Card:   append([]int(nil), f.Card...),
		Stride: append([]int(nil), f.Stride...),
		Vals:   append([]float64(nil), f.Vals...),
	}
}

// TooLarge describes a table over variables of the cardinalities card that
// is over limit entries, for a message: "would have 4294967296 entries, more
// than the limit of 2147483648".
func TooLarge(card []int, limit int) string {
	n := 1.0
	for _, c := range card {
		n *= float64(c)
	}
	size := strconv.FormatFloat(n, 'g', 3, 64)
	if n < 1<<53 {
		size = strconv.FormatFloat(n, 'f', 0, 64)
	}
	return "would have " + size + " entries, more than the limit of " + strconv.Itoa(limit)
}
