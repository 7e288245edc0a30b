package decision

import (
	"math"
	"slices"
)

// LIMIDSolution is the answer of SolveLIMID.
type LIMIDSolution struct {
	// MEU is the expected utility of the strategy found.
	MEU float64
	// Policies holds one policy per decision, in the order they were
	// updated (the reverse temporal order); each is over the decision's own parents only.
	Policies []Policy
	// Sweeps is the number of passes over the decisions, the last one
	// changing nothing.
	Sweeps int
	// LocalOptimum is true: single policy updating stops at a strategy
	// that no change of one policy improves, which need not be the best
	// strategy (it is when the LIMID is soluble, Lauritzen and Nilsson
	// 2001, and in particular for a perfect-recall diagram with its
	// information arcs made explicit).
	LocalOptimum bool
	// Exact is true when the answer is known to be the maximum expected
	// utility: the diagram has perfect recall as it stands (in the
	// temporal order each decision's parents include the decision before
	// it and all that one's parents), a soluble LIMID, which updating in
	// the reverse order solves exactly. False says only that this
	// sufficient condition does not hold.
	Exact bool

	d    *Diagram
	opts Options
}

// Policy returns the policy of decision v, nil if v is not a decision.
func (s *LIMIDSolution) Policy(v int) *Policy {
	for i := range s.Policies {
		if s.Policies[i].Decision == v {
			return &s.Policies[i]
		}
	}
	return nil
}

// improveTol is the relative gain below which a policy is not changed, so
// that rounding cannot make single policy updating cycle.
const improveTol = 1e-12

// SolveLIMID solves the diagram as a limited-memory influence diagram:
// each decision knows its own parents only (no no-forgetting), and the
// decisions need not be ordered. It runs single policy updating
// (Lauritzen and Nilsson 2001): starting from uniform random policies, it
// replaces each decision's policy in turn by the best one given the
// others, the last decision first (the reverse of Order when given, else
// of a topological order: so a soluble LIMID, a perfect-recall diagram
// with its information arcs explicit among them, is solved exactly in the
// first sweep), until a whole
// sweep changes none; a policy is replaced only where that gains more than
// a relative 1e-12. The result is a local optimum (see LIMIDSolution).
// Each policy marks Impossible the configurations of its decision's
// parents of probability zero under the strategy found (given the
// findings): single policy updating chose arbitrarily there.
func (d *Diagram) SolveLIMID(opts Options) (*LIMIDSolution, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	order := slices.Clone(d.Order)
	if order == nil {
		topo, _ := d.topo()
		for _, v := range topo {
			if d.Vars[v].Kind == Decision {
				order = append(order, v)
			}
		}
	}
	slices.Reverse(order)
	sz := opts.sizer(d)
	probs, utils, err := d.potentials(sz)
	if err != nil {
		return nil, err
	}
	// tabs[i]: decision order[i]'s policy as a probability table.
	tabs := make([]*table, len(order))
	pols := make([]Policy, len(order))
	for i, dec := range order {
		fam := union(sortedCopy(d.Vars[dec].Parents), []int{dec})
		if tabs[i], err = sz.newTable(fam, "a policy table"); err != nil {
			return nil, err
		}
		for k := range tabs[i].vals {
			tabs[i].vals[k] = 1 / float64(d.Vars[dec].Card)
		}
		info := sortedCopy(d.Vars[dec].Parents)
		n, err := sz.size(info, "a policy")
		if err != nil {
			return nil, err
		}
		cards := make([]int, len(info))
		for j, v := range info {
			cards[j] = d.Vars[v].Card
		}
		pols[i] = Policy{Decision: dec, Info: info, Cards: cards, Choice: make([]int, n)}
	}
	sol := &LIMIDSolution{LocalOptimum: true, Exact: d.explicitRecall(order), d: d, opts: opts}
	for first := true; ; first = false {
		sol.Sweeps++
		changed := false
		for i, dec := range order {
			others := slices.Concat(probs, tabs[:i], tabs[i+1:])
			fam := tabs[i].vars
			_, q, err := eliminate(sz, others, utils, fam)
			if err != nil {
				return nil, err
			}
			zero, err := sz.newTable(fam, "a policy table")
			if err != nil {
				return nil, err
			}
			if q, err = sz.binary(q, zero, add, "a policy table"); err != nil {
				return nil, err
			}
			if updatePolicy(&pols[i], q, dec, sz.cards, first) {
				changed = true
			}
			if tabs[i], err = sz.policyTable(&pols[i]); err != nil {
				return nil, err
			}
		}
		if !changed {
			break
		}
	}
	all := slices.Concat(probs, tabs)
	p, q, err := eliminate(sz, all, utils, nil)
	if err != nil {
		return nil, err
	}
	if !(p.vals[0] > 0) {
		return nil, errorf(ErrImpossible, "", "the findings have probability zero")
	}
	sol.MEU = q.vals[0] / p.vals[0]
	if len(d.Findings) == 0 {
		sol.MEU = q.vals[0] // p is 1 up to rounding
	}
	if err := d.markImpossible(sz, pols, true); err != nil {
		return nil, err
	}
	sol.Policies = pols
	return sol, nil
}

// updatePolicy sets p, for each configuration of its information, to the
// state of dec maximising q (a table over the information and dec), keeping
// the current state unless another gains more than improveTol (always
// replacing it when force is set, the first sweep from uniform policies).
// It reports whether anything changed.
func updatePolicy(p *Policy, q *table, dec int, cards []int, force bool) bool {
	changed := force
	full := make([]int, len(cards))
	idx := make([]int, len(p.Info))
	for k := range p.Choice {
		for j, v := range p.Info {
			full[v] = idx[j]
		}
		full[dec] = p.Choice[k]
		cur := q.at(full)
		best, bestX := math.Inf(-1), 0
		for x := range cards[dec] {
			full[dec] = x
			if y := q.at(full); y > best {
				best, bestX = y, x
			}
		}
		if force || best-cur > improveTol*(1+math.Abs(best)) {
			if p.Choice[k] != bestX {
				changed = true
			}
			p.Choice[k] = bestX
		}
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < cards[p.Info[j]] {
				break
			}
			idx[j] = 0
		}
	}
	return changed
}

// explicitRecall reports whether, rev being the decisions in reverse
// temporal order, each decision's parents include the one before it and
// that one's parents.
func (d *Diagram) explicitRecall(rev []int) bool {
	for i := 0; i+1 < len(rev); i++ {
		later, earlier := d.Vars[rev[i]].Parents, d.Vars[rev[i+1]].Parents
		if !slices.Contains(later, rev[i+1]) {
			return false
		}
		for _, p := range earlier {
			if !slices.Contains(later, p) {
				return false
			}
		}
	}
	return true
}
