package decision

import (
	"math"
	"slices"
)

// Kind is the kind of a variable of a diagram: a chance variable, with a
// conditional probability table, or a decision, whose value is chosen.
type Kind uint8

// The kinds of variable.
const (
	Chance Kind = iota
	Decision
)

// MaxCard is the largest cardinality of a variable.
const MaxCard = 1 << 16

// Var is a variable of a diagram, identified by its index in
// Diagram.Vars.
//
// For a chance variable Parents are its parents and CPT its conditional
// distribution: a flat row-major table over Parents (in the order given)
// then the variable itself, the variable varying fastest, so that the row
// of each configuration of the parents sums to 1. For a decision Parents
// are its information parents (what is known when it is taken: their
// values are observed, or, for decisions, chosen, before it) and CPT must
// be nil.
type Var struct {
	Name    string
	Kind    Kind
	Card    int // the number of states, at least 1
	Parents []int
	CPT     []float64
}

// Utility is a utility node: a real function of Parents (variables of the
// diagram), a flat row-major table over them in the order given, the last
// varying fastest. A utility has no children, by construction; the total
// utility is the sum of a diagram's utilities.
type Utility struct {
	Name    string
	Parents []int
	Table   []float64
}

// Diagram is an influence diagram: chance variables, decisions and
// utilities. Order, when not nil, is the temporal order of the decisions
// (their indices in Vars, each once), which must not contradict the arcs;
// when nil, Solve takes the order the arcs imply and refuses a diagram
// whose decisions they do not totally order. As a LIMID (SolveLIMID) a
// diagram is read without no-forgetting: each decision knows its own
// parents only. Findings, when not nil, are evidence known before any
// decision (see Finding): every answer is conditioned on them.
type Diagram struct {
	Vars      []Var
	Utilities []Utility
	Order     []int
	Findings  []Finding
}

// cptTol is how far a CPT row's sum may be from 1.
const cptTol = 1e-9

// Validate checks a diagram: cardinalities, parent indices (in range, not
// repeated, not the variable itself), table lengths, CPT rows (entries
// finite and non-negative, summing to 1), utilities finite, no directed
// cycle, the findings (see Finding), and Order, when given, a permutation of the decisions that no arc
// contradicts. It returns the first *Error found.
func (d *Diagram) Validate() error {
	for i, v := range d.Vars {
		if v.Card < 1 || v.Card > MaxCard {
			return errorf(ErrShape, v.Name, "variable %s has %d states; it needs between 1 and %d", v.Name, v.Card, MaxCard)
		}
		if err := d.checkParents(v.Name, i, v.Parents); err != nil {
			return err
		}
	}
	for i, v := range d.Vars {
		switch v.Kind {
		case Decision:
			if v.CPT != nil {
				return errorf(ErrShape, v.Name, "decision %s has a probability table", v.Name)
			}
		case Chance:
			if err := d.checkCPT(i); err != nil {
				return err
			}
		default:
			return errorf(ErrShape, v.Name, "variable %s has an unknown kind %d", v.Name, v.Kind)
		}
	}
	for _, u := range d.Utilities {
		if err := d.checkParents(u.Name, -1, u.Parents); err != nil {
			return err
		}
		rows, ok := d.configs(u.Parents)
		if !ok || rows != len(u.Table) {
			return errorf(ErrShape, u.Name, "utility %s has %d entries; its parents have %d configurations", u.Name, len(u.Table), rows)
		}
		for k, x := range u.Table {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errorf(ErrUtility, u.Name, "utility %s: entry %d is %v", u.Name, k, x)
			}
		}
	}
	if _, err := d.topo(); err != nil {
		return err
	}
	if err := d.checkFindings(); err != nil {
		return err
	}
	if d.Order != nil {
		return d.checkOrder(d.Order)
	}
	return nil
}

// checkParents checks the parent list of the node named name (variable
// self, or -1 for a utility).
func (d *Diagram) checkParents(name string, self int, ps []int) error {
	for k, p := range ps {
		if p < 0 || p >= len(d.Vars) {
			return errorf(ErrShape, name, "%s has parent index %d, out of range", name, p)
		}
		if p == self {
			return errorf(ErrCycle, name, "%s is its own parent", name)
		}
		if slices.Contains(ps[:k], p) {
			return errorf(ErrShape, name, "%s has parent %s twice", name, d.Vars[p].Name)
		}
	}
	return nil
}

// configs returns the number of configurations of vars, false if it
// overflows an int.
func (d *Diagram) configs(vars []int) (int, bool) {
	n := 1
	for _, v := range vars {
		c := d.Vars[v].Card
		if n > math.MaxInt/c {
			return 0, false
		}
		n *= c
	}
	return n, true
}

// checkCPT checks chance variable i's table.
func (d *Diagram) checkCPT(i int) error {
	v := d.Vars[i]
	rows, ok := d.configs(v.Parents)
	if !ok || rows > math.MaxInt/v.Card || rows*v.Card != len(v.CPT) {
		return errorf(ErrShape, v.Name, "variable %s has %d probabilities; its parents and states need %d", v.Name, len(v.CPT), rows*v.Card)
	}
	for r := range rows {
		row := v.CPT[r*v.Card : (r+1)*v.Card]
		sum := 0.0
		for _, p := range row {
			if !(p >= 0) || math.IsInf(p, 0) {
				return errorf(ErrCPT, v.Name, "variable %s: row %d has entry %v", v.Name, r, p)
			}
			sum += p
		}
		if !(math.Abs(sum-1) <= cptTol) {
			return errorf(ErrCPT, v.Name, "variable %s: row %d sums to %v, not 1", v.Name, r, sum)
		}
	}
	return nil
}

// topo returns the variables in a topological order (parents first, ties
// by index), or an ErrCycle error naming a variable on a cycle.
func (d *Diagram) topo() ([]int, error) {
	n := len(d.Vars)
	indeg := make([]int, n)
	kids := make([][]int, n)
	for i, v := range d.Vars {
		indeg[i] = len(v.Parents)
		for _, p := range v.Parents {
			kids[p] = append(kids[p], i)
		}
	}
	var order, ready []int
	for i := range n {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		v := ready[0]
		ready = ready[1:]
		order = append(order, v)
		for _, c := range kids[v] {
			indeg[c]--
			if indeg[c] == 0 {
				ready = append(ready, c)
			}
		}
	}
	if len(order) < n {
		for i := range n {
			if indeg[i] > 0 {
				return nil, errorf(ErrCycle, d.Vars[i].Name, "variable %s is on a directed cycle", d.Vars[i].Name)
			}
		}
	}
	return order, nil
}

// ancestors returns, for variable v, whether each variable is a proper
// ancestor of v.
func (d *Diagram) ancestors(v int) []bool {
	anc := make([]bool, len(d.Vars))
	stack := slices.Clone(d.Vars[v].Parents)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if anc[p] {
			continue
		}
		anc[p] = true
		stack = append(stack, d.Vars[p].Parents...)
	}
	return anc
}

// decisions returns the indices of the decisions, ascending.
func (d *Diagram) decisions() []int {
	var ds []int
	for i, v := range d.Vars {
		if v.Kind == Decision {
			ds = append(ds, i)
		}
	}
	return ds
}

// checkOrder checks that order is a permutation of the decisions and that
// no decision is an ancestor of one before it.
func (d *Diagram) checkOrder(order []int) error {
	ds := d.decisions()
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	if !slices.Equal(sorted, ds) {
		return errorf(ErrOrder, "", "the decision order is not a permutation of the %d decisions", len(ds))
	}
	for i, a := range order {
		anc := d.ancestors(a)
		for _, b := range order[i+1:] {
			if anc[b] {
				return errorf(ErrOrder, d.Vars[b].Name, "decision %s is ordered after %s but is its ancestor", d.Vars[b].Name, d.Vars[a].Name)
			}
		}
	}
	return nil
}

// order returns the temporal order of the decisions: Order when given,
// else the order the arcs imply, which must be total (each decision an
// ancestor of the next).
func (d *Diagram) order() ([]int, error) {
	if d.Order != nil {
		return slices.Clone(d.Order), nil
	}
	topo, err := d.topo()
	if err != nil {
		return nil, err
	}
	var order []int
	for _, v := range topo {
		if d.Vars[v].Kind == Decision {
			order = append(order, v)
		}
	}
	for i := 1; i < len(order); i++ {
		if !d.ancestors(order[i])[order[i-1]] {
			return nil, errorf(ErrNoOrder, d.Vars[order[i]].Name, "no directed path from decision %s to %s, and no decision order given", d.Vars[order[i-1]].Name, d.Vars[order[i]].Name)
		}
	}
	return order, nil
}

// familyTable returns a flat table over vars (in the order given; the
// last fastest) as a table over the same variables sorted.
func (s *sizer) familyTable(vars []int, vals []float64, what string) (*table, error) {
	sorted := slices.Clone(vars)
	slices.Sort(sorted)
	t, err := s.newTable(sorted, what)
	if err != nil {
		return nil, err
	}
	st := t.stridesIn(vars) // stride in t of each variable in the given order
	idx := make([]int, len(vars))
	k := 0
	for _, x := range vals {
		t.vals[k] = x
		for j := len(vars) - 1; j >= 0; j-- {
			idx[j]++
			k += st[j]
			if idx[j] < s.cards[vars[j]] {
				break
			}
			k -= st[j] * s.cards[vars[j]]
			idx[j] = 0
		}
	}
	return t, nil
}

// cards returns the cardinality of each variable.
func (d *Diagram) cards() []int {
	c := make([]int, len(d.Vars))
	for i, v := range d.Vars {
		c[i] = v.Card
	}
	return c
}
