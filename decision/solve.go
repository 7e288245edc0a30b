package decision

import (
	"slices"
)

// DefaultMaxEntries is the default limit on the entries of one table.
const DefaultMaxEntries = 1 << 24

// Options bounds a computation.
type Options struct {
	// MaxEntries is the most entries of any one table built (0: the
	// default, DefaultMaxEntries); a larger one is refused with a
	// *TooLargeError before it is allocated.
	MaxEntries int64
}

func (o Options) sizer(d *Diagram) *sizer {
	lim := o.MaxEntries
	if lim <= 0 {
		lim = DefaultMaxEntries
	}
	return &sizer{cards: d.cards(), limit: lim}
}

// Policy is a deterministic policy of a decision: the state chosen for
// each configuration of its information Info (indices of variables, in
// ascending order), Choice being row-major over Info, the last fastest.
// Impossible (same rows as Choice) marks the configurations of the
// information that cannot occur (see Diagram.Solve and
// Diagram.SolveLIMID): the choice there is arbitrary.
type Policy struct {
	Decision   int
	Info       []int
	Cards      []int // the number of states of each variable of Info
	Choice     []int
	Impossible []bool
}

// Choose returns the state the policy chooses when the variables take the
// states full (indexed by variable; only Info is read), or -1 if full is
// too short or a state of Info is out of range.
func (p *Policy) Choose(full []int) int {
	k := 0
	for j, v := range p.Info {
		if v >= len(full) || full[v] < 0 || full[v] >= p.Cards[j] {
			return -1
		}
		k = k*p.Cards[j] + full[v]
	}
	return p.Choice[k]
}

// Solution is the answer of Solve: the maximum expected utility and an
// optimal strategy, one policy per decision in the temporal order.
type Solution struct {
	MEU      float64
	Order    []int    // the decisions in temporal order
	Policies []Policy // Policies[i] is the policy of Order[i]

	d    *Diagram
	opts Options
}

// Policy returns the policy of decision v, nil if v is not a decision.
func (s *Solution) Policy(v int) *Policy {
	for i := range s.Policies {
		if s.Policies[i].Decision == v {
			return &s.Policies[i]
		}
	}
	return nil
}

// infoSets returns, for each decision of order, its information under
// no-forgetting: its parents and those of every earlier decision, and the
// earlier decisions, ascending.
func (d *Diagram) infoSets(order []int) [][]int {
	out := make([][]int, len(order))
	var acc []int
	for i, dec := range order {
		acc = union(acc, sortedCopy(d.Vars[dec].Parents))
		out[i] = slices.Clone(acc)
		acc = union(acc, []int{dec})
	}
	return out
}

func sortedCopy(xs []int) []int {
	c := slices.Clone(xs)
	slices.Sort(c)
	return c
}

// Solve returns the maximum expected utility of a perfect-recall
// (no-forgetting) diagram and an optimal strategy. The decisions are taken
// in the diagram's temporal order, each knowing its own information
// parents and everything known or decided before it. The computation is
// variable elimination in the reverse temporal order on pairs of
// probability and utility potentials (Jensen, Jensen and Dittmer 1994):
// the chance variables never observed are summed out, then the last
// decision maximised out, the chance variables observed just before it
// summed out, and so on; each decision's policy is the argmax found when
// it is eliminated (the first maximal state on ties), extended to its whole
// information set; on a configuration of probability zero the choice is
// arbitrary, and the policy marks it Impossible: its probability is zero
// whatever the decisions in it chose (given the findings); a configuration
// only a deviation from an earlier policy reaches is not marked, its
// choice being the best after that deviation. Every table's size is checked against opts.MaxEntries
// before it is allocated.
func (d *Diagram) Solve(opts Options) (*Solution, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	order, err := d.order()
	if err != nil {
		return nil, err
	}
	sz := opts.sizer(d)
	info := d.infoSets(order)
	// group[v]: the index of the first decision that knows chance v, or
	// len(order) if none does.
	k := len(order)
	group := make([]int, len(d.Vars))
	for v := range group {
		group[v] = k
	}
	for i := k - 1; i >= 0; i-- {
		for _, v := range info[i] {
			group[v] = i
		}
	}
	probs, utils, err := d.potentials(sz)
	if err != nil {
		return nil, err
	}
	sol := &Solution{Order: order, Policies: make([]Policy, k), d: d, opts: opts}
	for i := k; i >= 0; i-- {
		var chance []int
		for v, g := range group {
			if g == i && d.Vars[v].Kind == Chance {
				chance = append(chance, v)
			}
		}
		for len(chance) > 0 {
			j := cheapest(sz, probs, utils, chance)
			v := chance[j]
			chance = slices.Delete(chance, j, j+1)
			if probs, utils, err = sumOut(sz, probs, utils, v); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			break
		}
		dec := order[i-1]
		var arg *table
		if probs, utils, arg, err = maxOut(sz, probs, utils, dec); err != nil {
			return nil, err
		}
		pol, err := d.extend(sz, dec, info[i-1], arg)
		if err != nil {
			return nil, err
		}
		sol.Policies[i-1] = pol
	}
	p, u := 1.0, 0.0
	for _, t := range probs {
		p *= t.vals[0]
	}
	for _, t := range utils {
		u += t.vals[0]
	}
	if len(d.Findings) == 0 {
		sol.MEU = p * u
	} else {
		// p is the probability of the findings, u the conditional MEU.
		if !(p > 0) {
			return nil, errorf(ErrImpossible, "", "the findings have probability zero")
		}
		sol.MEU = u
	}
	if err := d.markImpossible(sz, sol.Policies, false); err != nil {
		return nil, err
	}
	return sol, nil
}

// potentials returns the CPTs of the chance variables, then the findings,
// as probability potentials, and the utilities as tables.
func (d *Diagram) potentials(sz *sizer) (probs, utils []*table, err error) {
	for i, v := range d.Vars {
		if v.Kind != Chance {
			continue
		}
		t, err := sz.familyTable(append(slices.Clone(v.Parents), i), v.CPT, "the table of "+v.Name)
		if err != nil {
			return nil, nil, err
		}
		probs = append(probs, t)
	}
	probs = append(probs, d.findingTables(sz)...)
	for _, u := range d.Utilities {
		t, err := sz.familyTable(u.Parents, u.Table, "the utility "+u.Name)
		if err != nil {
			return nil, nil, err
		}
		utils = append(utils, t)
	}
	return probs, utils, nil
}

// cheapest returns the index in vs of the variable whose elimination
// builds the smallest table (the union of the scopes that hold it).
func cheapest(sz *sizer, probs, utils []*table, vs []int) int {
	best, bestSize := 0, int64(-1)
	for j, v := range vs {
		var scope []int
		for _, t := range slices.Concat(probs, utils) {
			if t.has(v) {
				scope = union(scope, t.vars)
			}
		}
		n := int64(1)
		for _, w := range scope {
			n *= int64(sz.cards[w])
			if n > 1<<62/int64(MaxCard) {
				break
			}
		}
		if bestSize < 0 || n < bestSize {
			best, bestSize = j, n
		}
	}
	return best
}

// split separates the tables holding v from the others.
func split(ts []*table, v int) (with, without []*table) {
	for _, t := range ts {
		if t.has(v) {
			with = append(with, t)
		} else {
			without = append(without, t)
		}
	}
	return with, without
}

// combine folds ts with f, starting from start.
func combine(sz *sizer, ts []*table, f func(x, y float64) float64, start float64, what string) (*table, error) {
	acc := scalar(start)
	for _, t := range ts {
		var err error
		if acc, err = sz.binary(acc, t, f, what); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// sumOut eliminates chance variable v: with φ the product of the
// probability potentials holding v and ψ the sum of the utility ones,
// φ' = Σ_v φ and ψ' = Σ_v φ·ψ / φ'.
func sumOut(sz *sizer, probs, utils []*table, v int) ([]*table, []*table, error) {
	pw, probs := split(probs, v)
	uw, utils := split(utils, v)
	phi, err := combine(sz, pw, mul, 1, "a probability potential")
	if err != nil {
		return nil, nil, err
	}
	phi1, _ := phi.fold(v, false)
	probs = append(probs, phi1)
	if len(uw) == 0 {
		return probs, utils, nil
	}
	psi, err := combine(sz, uw, add, 0, "a utility potential")
	if err != nil {
		return nil, nil, err
	}
	if psi, err = sz.binary(phi, psi, mul, "a utility potential"); err != nil {
		return nil, nil, err
	}
	psi, _ = psi.fold(v, false)
	if psi, err = sz.binary(psi, phi1, div, "a utility potential"); err != nil {
		return nil, nil, err
	}
	return probs, append(utils, psi), nil
}

// maxOut eliminates decision v: ψ' = max_v ψ, the argmax its policy; the
// probability potentials holding v do not depend on it once the later
// variables are eliminated (up to rounding), so φ' = max_v φ. arg is the
// argmax as a table over ψ's scope without v.
func maxOut(sz *sizer, probs, utils []*table, v int) ([]*table, []*table, *table, error) {
	pw, probs := split(probs, v)
	uw, utils := split(utils, v)
	if len(pw) > 0 {
		phi, err := combine(sz, pw, mul, 1, "a probability potential")
		if err != nil {
			return nil, nil, nil, err
		}
		phi1, _ := phi.fold(v, true)
		probs = append(probs, phi1)
	}
	psi, err := combine(sz, uw, add, 0, "a utility potential")
	if err != nil {
		return nil, nil, nil, err
	}
	psi1, arg := psi.fold(v, true)
	at := &table{vars: psi1.vars, card: psi1.card, vals: make([]float64, len(psi1.vals))}
	for k, a := range arg {
		at.vals[k] = float64(a)
	}
	return probs, append(utils, psi1), at, nil
}

// extend returns decision dec's policy over info from arg, a table of
// chosen states over a subset of info (nil: a decision no utility
// depends on, which chooses state 0).
func (d *Diagram) extend(sz *sizer, dec int, info []int, arg *table) (Policy, error) {
	n, err := sz.size(info, "the policy of "+d.Vars[dec].Name)
	if err != nil {
		return Policy{}, err
	}
	cards := make([]int, len(info))
	for j, v := range info {
		cards[j] = sz.cards[v]
	}
	p := Policy{Decision: dec, Info: info, Cards: cards, Choice: make([]int, n)}
	if arg == nil {
		return p, nil
	}
	full := make([]int, len(d.Vars))
	idx := make([]int, len(info))
	for k := range p.Choice {
		for j, v := range info {
			full[v] = idx[j]
		}
		p.Choice[k] = int(arg.at(full))
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < sz.cards[info[j]] {
				break
			}
			idx[j] = 0
		}
	}
	return p, nil
}
