package decision

import "slices"

// eliminate sums out every variable of the potentials not in keep, by
// sumOut in a greedy order, and returns the product of the probability
// potentials left, p, and q = p·Σψ: q(k) = Σ over the eliminated
// variables of Πφ·Σψ, whatever the potentials mean, the identity every
// step of sumOut keeps.
func eliminate(sz *sizer, probs, utils []*table, keep []int) (p, q *table, err error) {
	var rest []int
	for _, t := range slices.Concat(probs, utils) {
		for _, v := range t.vars {
			if !slices.Contains(keep, v) {
				rest = union(rest, []int{v})
			}
		}
	}
	for len(rest) > 0 {
		j := cheapest(sz, probs, utils, rest)
		v := rest[j]
		rest = slices.Delete(rest, j, j+1)
		if probs, utils, err = sumOut(sz, probs, utils, v); err != nil {
			return nil, nil, err
		}
	}
	if p, err = combine(sz, probs, mul, 1, "a probability potential"); err != nil {
		return nil, nil, err
	}
	psi, err := combine(sz, utils, add, 0, "a utility potential")
	if err != nil {
		return nil, nil, err
	}
	if q, err = sz.binary(p, psi, mul, "a utility potential"); err != nil {
		return nil, nil, err
	}
	return p, q, nil
}

// indicator returns the table over v that is 1 at state s and 0 elsewhere.
func (s *sizer) indicator(v, state int) *table {
	t := &table{vars: []int{v}, card: []int{s.cards[v]}, vals: make([]float64, s.cards[v])}
	t.vals[state] = 1
	return t
}

// policyTable returns a deterministic policy as a conditional probability
// table over its information and its decision.
func (s *sizer) policyTable(p *Policy) (*table, error) {
	t, err := s.newTable(union(p.Info, []int{p.Decision}), "a policy table")
	if err != nil {
		return nil, err
	}
	full := make([]int, len(s.cards))
	idx := make([]int, len(t.vars))
	for k := range t.vals {
		for j, v := range t.vars {
			full[v] = idx[j]
		}
		if p.Choose(full) == full[p.Decision] {
			t.vals[k] = 1
		}
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < t.card[j] {
				break
			}
			idx[j] = 0
		}
	}
	return t, nil
}
