package decision

import (
	"math"
	"slices"
)

// table is a dense real function of some variables of a diagram: vars in
// ascending order, the last varying fastest (row-major). Unlike a
// factor.Factor its entries may be negative (utilities), so the package
// keeps its own small type; the diagrams it solves are small enough that
// plain float64 arithmetic suffices (a probability table here is a
// product of at most the diagram's CPTs, never of thousands of them).
type table struct {
	vars []int
	card []int
	vals []float64
}

// sizer checks sizes against a limit before anything is allocated.
type sizer struct {
	cards []int // the cardinality of each variable of the diagram
	limit int64
}

// size returns the number of entries of a table over vars, or an error if
// it exceeds the limit.
func (s *sizer) size(vars []int, what string) (int, error) {
	n := int64(1)
	for _, v := range vars {
		c := int64(s.cards[v])
		if c != 0 && n > math.MaxInt64/c {
			return 0, &TooLargeError{What: what, Entries: math.MaxInt64, Limit: s.limit}
		}
		n *= c
	}
	if n > s.limit {
		return 0, &TooLargeError{What: what, Entries: n, Limit: s.limit}
	}
	return int(n), nil
}

// newTable returns a zero table over vars (sorted, distinct).
func (s *sizer) newTable(vars []int, what string) (*table, error) {
	n, err := s.size(vars, what)
	if err != nil {
		return nil, err
	}
	card := make([]int, len(vars))
	for i, v := range vars {
		card[i] = s.cards[v]
	}
	return &table{vars: slices.Clone(vars), card: card, vals: make([]float64, n)}, nil
}

// scalar returns a table of no variables with value x.
func scalar(x float64) *table { return &table{vals: []float64{x}} }

// has reports whether v is in the table's scope.
func (t *table) has(v int) bool {
	_, ok := slices.BinarySearch(t.vars, v)
	return ok
}

// strides returns the stride of each variable of t within t.
func (t *table) strides() []int {
	st := make([]int, len(t.vars))
	s := 1
	for i := len(t.vars) - 1; i >= 0; i-- {
		st[i] = s
		s *= t.card[i]
	}
	return st
}

// union returns the sorted union of two sorted scopes.
func union(a, b []int) []int {
	u := append(slices.Clone(a), b...)
	slices.Sort(u)
	return slices.Compact(u)
}

// stridesIn returns, for each variable of scope, its stride in t (0 when
// t does not have it).
func (t *table) stridesIn(scope []int) []int {
	st := t.strides()
	out := make([]int, len(scope))
	for i, v := range scope {
		if j, ok := slices.BinarySearch(t.vars, v); ok {
			out[i] = st[j]
		}
	}
	return out
}

// binary returns f(a, b) over the union of their scopes. Time O(n·v) for
// n entries of the result over v variables.
func (s *sizer) binary(a, b *table, f func(x, y float64) float64, what string) (*table, error) {
	r, err := s.newTable(union(a.vars, b.vars), what)
	if err != nil {
		return nil, err
	}
	sa, sb := a.stridesIn(r.vars), b.stridesIn(r.vars)
	idx := make([]int, len(r.vars))
	ia, ib := 0, 0
	for k := range r.vals {
		r.vals[k] = f(a.vals[ia], b.vals[ib])
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			ia += sa[j]
			ib += sb[j]
			if idx[j] < r.card[j] {
				break
			}
			ia -= sa[j] * r.card[j]
			ib -= sb[j] * r.card[j]
			idx[j] = 0
		}
	}
	return r, nil
}

func mul(x, y float64) float64 { return x * y }
func add(x, y float64) float64 { return x + y }

// div is x/y with 0/0 (and x/0) taken as 0: a utility conditioned on a
// configuration of probability zero contributes nothing.
func div(x, y float64) float64 {
	if y == 0 {
		return 0
	}
	return x / y
}

// fold returns t with v summed out (max false) or maximised out (max
// true); with max, arg holds for each entry of the result the first state
// of v attaining the maximum.
func (t *table) fold(v int, max bool) (r *table, arg []int) {
	j, ok := slices.BinarySearch(t.vars, v)
	if !ok {
		return t, nil
	}
	st := t.strides()
	inner, c := st[j], t.card[j]
	r = &table{
		vars: slices.Delete(slices.Clone(t.vars), j, j+1),
		card: slices.Delete(slices.Clone(t.card), j, j+1),
		vals: make([]float64, len(t.vals)/c),
	}
	if max {
		arg = make([]int, len(r.vals))
	}
	for k := range r.vals {
		hi, lo := k/inner, k%inner
		base := hi*c*inner + lo
		acc := t.vals[base]
		for x := 1; x < c; x++ {
			y := t.vals[base+x*inner]
			if max {
				if y > acc {
					acc, arg[k] = y, x
				}
			} else {
				acc += y
			}
		}
		r.vals[k] = acc
	}
	return r, arg
}

// at returns the entry of t at the assignment of the diagram's variables
// given by full (indexed by variable).
func (t *table) at(full []int) float64 {
	st := t.strides()
	k := 0
	for i, v := range t.vars {
		k += full[v] * st[i]
	}
	return t.vals[k]
}
