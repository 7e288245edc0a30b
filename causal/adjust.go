package causal

// maxCandidates bounds the variables whose subsets AdjustmentSets
// enumerates; Identify looks for a backdoor set or front-door mediators
// only among at most maxPreferCandidates, and otherwise runs ID at once.
const (
	maxCandidates       = 20
	maxPreferCandidates = 12
)

// AdjustmentSets returns the minimal sets Z that satisfy the backdoor
// criterion for the effect of X on Y (no Z a descendant of X, and Z
// d-separating X from Y once the edges out of X are removed, bidirected
// edges counting as unobserved common causes), so that
// P(y | do(x)) = Σ_z P(y | x, z) P(z). None is nil; a single empty set
// means no adjustment is needed. More than 20 candidate variables is an
// ErrTooLarge error.
func (g *ADMG) AdjustmentSets(x, y []string) ([][]string, error) {
	xs, err := g.setOf(x)
	if err != nil {
		return nil, err
	}
	ys, err := g.setOf(y)
	if err != nil {
		return nil, err
	}
	if xs.empty() || ys.empty() || xs&ys != 0 {
		return nil, errorf(ErrQuery, "an adjustment set needs non-empty, disjoint causes and effects")
	}
	sets, err := g.adjustmentSets(xs, ys)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, s := range sets {
		out = append(out, g.namesOf(s))
	}
	return out, nil
}

func (g *ADMG) adjustmentSets(x, y Set) ([]Set, error) {
	return g.adjustmentSetsUpTo(x, y, maxCandidates)
}

func (g *ADMG) adjustmentSetsUpTo(x, y Set, limit int) ([]Set, error) {
	cand := g.all().minus(x | y | g.descendants(x, g.all()))
	if cand.len() > limit {
		return nil, errorf(ErrTooLarge, "%d candidate variables, more than the %d whose subsets are searched", cand.len(), limit)
	}
	d := g.augmented(0, x)
	return minimalSubsets(cand, func(z Set) bool { return d.separated(x, y, z) })
}

// minimalSubsets returns the minimal subsets of cand for which ok holds,
// smallest first, enumerating subsets by size.
func minimalSubsets(cand Set, ok func(Set) bool) ([]Set, error) {
	m := cand.members()
	if len(m) > maxCandidates {
		return nil, errorf(ErrTooLarge, "%d candidate variables, more than the %d whose subsets are searched", len(m), maxCandidates)
	}
	var found []Set
	n := len(m)
	for size := 0; size <= n; size++ {
		// enumerate combinations of size `size` of m
		idx := make([]int, size)
		for i := range idx {
			idx[i] = i
		}
		for {
			var s Set
			for _, i := range idx {
				s = s.add(m[i])
			}
			minimal := true
			for _, f := range found {
				if f.sub(s) {
					minimal = false
					break
				}
			}
			if minimal && ok(s) {
				found = append(found, s)
			}
			// next combination
			k := size - 1
			for k >= 0 && idx[k] == n-size+k {
				k--
			}
			if k < 0 {
				break
			}
			idx[k]++
			for j := k + 1; j < size; j++ {
				idx[j] = idx[j-1] + 1
			}
		}
	}
	return found, nil
}

// frontDoor returns a smallest set M satisfying the front-door criterion
// for the effect of X on Y (Pearl 2009, definition 3.3.3): M intercepts
// every directed path from X to Y, no backdoor path from X to M is open,
// and X blocks every backdoor path from M to Y.
func (g *ADMG) frontDoor(x, y Set) (Set, bool) {
	all := g.all()
	if (g.descendants(x, all) & y).empty() {
		return 0, false // no causal path: ID gives P(y)
	}
	cand := all.minus(x | y)
	if cand.len() > maxPreferCandidates {
		return 0, false
	}
	dx := g.augmented(0, x)
	sets, err := minimalSubsets(cand, func(m Set) bool {
		if m.empty() || !(g.descendants(x, all.minus(m)) & y).empty() {
			return false
		}
		if !dx.separated(x, m, 0) {
			return false
		}
		return g.augmented(0, m).separated(m, y, x)
	})
	if err != nil || len(sets) == 0 {
		return 0, false
	}
	best := sets[0]
	for _, s := range sets[1:] {
		if s.len() < best.len() {
			best = s
		}
	}
	return best, true
}

// conditionalBackdoor returns a smallest set S such that Z ∪ S satisfies
// the backdoor criterion for X and Y, when Z has no descendant of X:
// then P(y | do(x), z) = Σ_s P(y | x, z, s) P(s | z).
func (g *ADMG) conditionalBackdoor(x, y, z Set) (Set, bool) {
	de := g.descendants(x, g.all())
	if z&de != 0 {
		return 0, false
	}
	cand := g.all().minus(x | y | z | de)
	if cand.len() > maxPreferCandidates {
		return 0, false
	}
	d := g.augmented(0, x)
	sets, err := minimalSubsets(cand, func(s Set) bool { return d.separated(x, y, z|s) })
	if err != nil || len(sets) == 0 {
		return 0, false
	}
	best := sets[0]
	for _, s := range sets[1:] {
		if s.len() < best.len() {
			best = s
		}
	}
	return best, true
}
