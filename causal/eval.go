package causal

import (
	"math"
	"sync"
)

// maxCells bounds a joint table's cells.
const maxCells = 1 << 26

// Joint is a dense table of the observed distribution over every variable
// of a graph, in index order, row-major (the last variable varies
// fastest).
type Joint struct {
	card   []int
	p      []float64
	stride []int
	mu     sync.Mutex // guards cache
	cache  map[Set][]float64
}

// NewJoint returns the joint table with the given cardinalities and
// probabilities, or an *Error: ErrShape (a cardinality below 1, or len(p)
// not their product), ErrTooLarge, ErrProb (a negative or non-finite
// cell, or cells not summing to 1 within 1e-9).
func NewJoint(card []int, p []float64) (*Joint, error) {
	cells := 1
	for i, c := range card {
		if c < 1 {
			return nil, errorf(ErrShape, "variable %d has cardinality %d", i, c)
		}
		if cells > maxCells/c {
			return nil, errorf(ErrTooLarge, "a joint table of more than %d cells", maxCells)
		}
		cells *= c
	}
	if len(p) != cells {
		return nil, errorf(ErrShape, "a joint table of %d cells for cardinalities whose product is %d", len(p), cells)
	}
	total := 0.0
	for i, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, errorf(ErrProb, "cell %d is %v", i, v)
		}
		total += v
	}
	if !(math.Abs(total-1) <= 1e-9) {
		return nil, errorf(ErrProb, "the cells sum to %v, not 1", total)
	}
	j := &Joint{card: append([]int(nil), card...), p: append([]float64(nil), p...), stride: make([]int, len(card)), cache: make(map[Set][]float64)}
	s := 1
	for i := len(card) - 1; i >= 0; i-- {
		j.stride[i] = s
		s *= card[i]
	}
	return j, nil
}

// marginal returns the table of the marginal over s (row-major over s's
// members in index order).
func (j *Joint) marginal(s Set) []float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if t, ok := j.cache[s]; ok {
		return t
	}
	m := s.members()
	size := 1
	for _, i := range m {
		size *= j.card[i]
	}
	t := make([]float64, size)
	state := make([]int, len(j.card))
	for cell, v := range j.p {
		rem := cell
		for i := range j.card {
			state[i] = rem / j.stride[i]
			rem %= j.stride[i]
		}
		k := 0
		for _, i := range m {
			k = k*j.card[i] + state[i]
		}
		t[k] += v
	}
	j.cache[s] = t
	return t
}

// prob returns P(s = env's values).
func (j *Joint) prob(s Set, env []int) float64 {
	t := j.marginal(s)
	k := 0
	for _, i := range s.members() {
		k = k*j.card[i] + env[i]
	}
	return t[k]
}

// Eval returns the estimand's value at the given states of the query's
// variables (every variable of Y, X and Z by name, a state in
// 0..cardinality-1) on the joint table of the observed distribution. A
// Joint caches the marginals it has computed; any number of goroutines may
// share it.
func (e *Estimand) Eval(j *Joint, values map[string]int) (float64, error) {
	g := e.g
	if len(j.card) != g.Len() {
		return 0, errorf(ErrShape, "a joint table over %d variables for a graph of %d", len(j.card), g.Len())
	}
	env := make([]int, g.Len())
	for i := range env {
		env[i] = -1
	}
	for name, v := range values {
		i, ok := g.Index(name)
		if !ok {
			return 0, errorf(ErrUnknownVariable, "no variable %s", name)
		}
		if v < 0 || v >= j.card[i] {
			return 0, errorf(ErrValue, "state %d of %s, which has %d", v, name, j.card[i])
		}
		env[i] = v
	}
	for _, i := range (e.y | e.x | e.z).members() {
		if env[i] < 0 {
			return 0, errorf(ErrQuery, "no value for %s", g.Name(i))
		}
	}
	for _, i := range Free(e.Expr).minus(e.y | e.x | e.z).members() {
		env[i] = 0 // any value: the effect does not depend on it
	}
	return j.eval(e.Expr, env)
}

func (j *Joint) eval(e Expr, env []int) (float64, error) {
	switch e := e.(type) {
	case Prob:
		num := j.prob(e.Vars|e.Given, env)
		if e.Given.empty() {
			return num, nil
		}
		den := j.prob(e.Given, env)
		if den == 0 {
			return 0, errorf(ErrPositivity, "a conditional probability given an event of probability 0")
		}
		return num / den, nil
	case Product:
		r := 1.0
		for _, f := range e.Factors {
			v, err := j.eval(f, env)
			if err != nil {
				return 0, err
			}
			r *= v
			if r == 0 {
				return 0, nil
			}
		}
		return r, nil
	case Sum:
		m := e.Over.members()
		saved := make([]int, len(m))
		for k, i := range m {
			saved[k] = env[i]
			env[i] = 0
		}
		defer func() {
			for k, i := range m {
				env[i] = saved[k]
			}
		}()
		total := 0.0
		for {
			v, err := j.eval(e.Body, env)
			if err != nil {
				return 0, err
			}
			total += v
			k := len(m) - 1
			for k >= 0 {
				env[m[k]]++
				if env[m[k]] < j.card[m[k]] {
					break
				}
				env[m[k]] = 0
				k--
			}
			if k < 0 {
				return total, nil
			}
		}
	case Ratio:
		num, err := j.eval(e.Num, env)
		if err != nil {
			return 0, err
		}
		den, err := j.eval(e.Den, env)
		if err != nil {
			return 0, err
		}
		if den == 0 {
			return 0, errorf(ErrPositivity, "a ratio whose denominator is 0")
		}
		return num / den, nil
	}
	return 0, errorf(ErrQuery, "an expression of unknown kind")
}
