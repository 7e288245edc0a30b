package factor

// Var identifies a variable: an index into a model's variables (ir.VarID
// is an alias of it).
type Var int

// Factor is a non-negative function of a set of discrete variables, stored
// as a flat row-major array with the last variable varying fastest.
type Factor struct {
	Vars   []Var     // scope, in layout order; empty for a constant
	Card   []int     // Card[i] is the number of states of Vars[i]
	Stride []int     // Stride[i] is the step in Vals for Vars[i]
	Vals   []float64 // len = product of Card
}

// New returns a zero factor over vars with the given cardinalities. It
// panics if the table would not fit in memory; callers that take sizes
// from users must check [TableSize] first. Time and memory O(n) for a
// table of n entries.
func New(vars []Var, card []int) *Factor {
	if len(vars) != len(card) {
		panic("factor: New: len(vars) != len(card)")
	}
	n, ok := TableSize(card)
	if !ok {
		panic("factor: New: table too large")
	}
	f := &Factor{
		Vars:   append([]Var(nil), vars...),
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
// MaxTableSize (and every cardinality positive).
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

// Size returns the number of entries of a table with the given
// cardinalities, or -1 if it exceeds limit (checked without overflow). It
// panics on a non-positive cardinality.
func Size(card []int, limit int) int {
	n := 1
	for _, c := range card {
		if c <= 0 {
			panic("factor: Size: non-positive cardinality")
		}
		if n > limit/c {
			return -1
		}
		n *= c
	}
	return n
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
func (f *Factor) Pos(v Var) int { return IndexOf(f.Vars, v) }

// Clone returns a deep copy of f.
func (f *Factor) Clone() *Factor {
	return &Factor{
		Vars:   append([]Var(nil), f.Vars...),
		Card:   append([]int(nil), f.Card...),
		Stride: append([]int(nil), f.Stride...),
		Vals:   append([]float64(nil), f.Vals...),
	}
}

// IndexOf returns the position of v in vs, or -1.
func IndexOf(vs []Var, v Var) int {
	for i, w := range vs {
		if w == v {
			return i
		}
	}
	return -1
}

// UnionScope returns the variables of dst followed by the variables of fs
// that are not in dst, in order of first appearance, with their
// cardinalities (-1 for a variable of dst that no factor mentions). The
// variables after the first len(dst) are the ones [Combine] folds. It
// panics if two factors give a variable different cardinalities.
func UnionScope(dst []Var, fs []*Factor) (vars []Var, card []int) {
	vars = append(vars, dst...)
	card = make([]int, len(dst))
	for i := range card {
		card[i] = -1
	}
	for _, f := range fs {
		for i, v := range f.Vars {
			k := IndexOf(vars, v)
			if k < 0 {
				vars = append(vars, v)
				card = append(card, f.Card[i])
				continue
			}
			if card[k] < 0 {
				card[k] = f.Card[i]
			} else if card[k] != f.Card[i] {
				panic("factor: UnionScope: cardinality mismatch")
			}
		}
	}
	return vars, card
}
