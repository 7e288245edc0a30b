package decision

import "slices"

// VPI returns the expected value of perfect information about chance
// variable x for decision dec of a perfect-recall diagram: the maximum
// expected utility (Solve) when x is added to dec's information minus the
// maximum expected utility without. It is 0 when x is already known at dec
// (under no-forgetting), never negative beyond rounding. x must not be a
// descendant of dec (an ErrCycle error), and knowing it at dec must not
// contradict the decision order (an ErrOrder error).
func (d *Diagram) VPI(dec, x int, opts Options) (float64, error) {
	if dec < 0 || dec >= len(d.Vars) || d.Vars[dec].Kind != Decision {
		return 0, errorf(ErrShape, "", "variable %d is not a decision", dec)
	}
	if x < 0 || x >= len(d.Vars) || d.Vars[x].Kind != Chance {
		return 0, errorf(ErrShape, "", "variable %d is not a chance variable", x)
	}
	base, err := d.Solve(opts)
	if err != nil {
		return 0, err
	}
	if slices.Contains(base.Policy(dec).Info, x) {
		return 0, nil
	}
	if d.ancestors(x)[dec] {
		return 0, errorf(ErrCycle, d.Vars[x].Name, "%s is a descendant of %s, so it cannot be known when %s is taken", d.Vars[x].Name, d.Vars[dec].Name, d.Vars[dec].Name)
	}
	e := *d
	e.Vars = slices.Clone(d.Vars)
	e.Vars[dec].Parents = append(slices.Clone(d.Vars[dec].Parents), x)
	if e.Order == nil {
		// Keep the temporal order of d: the new arc may leave the arcs
		// alone unable to imply it.
		e.Order = base.Order
	}
	with, err := e.Solve(opts)
	if err != nil {
		return 0, err
	}
	return with.MEU - base.MEU, nil
}

// Valued is a variable with a value.
type Valued struct {
	Var   int
	Value float64
}

// RankVPI returns the value of perfect information (VPI) of every chance
// variable that could be known at decision dec and is not yet (not a
// descendant of dec or of a later decision, not in dec's information
// under no-forgetting, without a finding), highest first, ties by index.
func (d *Diagram) RankVPI(dec int, opts Options) ([]Valued, error) {
	if dec < 0 || dec >= len(d.Vars) || d.Vars[dec].Kind != Decision {
		return nil, errorf(ErrShape, "", "variable %d is not a decision", dec)
	}
	base, err := d.Solve(opts)
	if err != nil {
		return nil, err
	}
	pos := slices.Index(base.Order, dec)
	late := make([]bool, len(d.Vars)) // descendants of dec and later decisions
	for i := range d.Vars {
		anc := d.ancestors(i)
		for _, o := range base.Order[pos:] {
			if anc[o] {
				late[i] = true
			}
		}
	}
	var out []Valued
	for x, v := range d.Vars {
		if v.Kind != Chance || late[x] || slices.Contains(base.Policies[pos].Info, x) || d.hasFinding(x) {
			continue
		}
		e := *d
		e.Vars = slices.Clone(d.Vars)
		e.Vars[dec].Parents = append(slices.Clone(d.Vars[dec].Parents), x)
		e.Order = base.Order
		with, err := e.Solve(opts)
		if err != nil {
			return nil, err
		}
		out = append(out, Valued{Var: x, Value: with.MEU - base.MEU})
	}
	slices.SortStableFunc(out, func(a, b Valued) int {
		switch {
		case a.Value > b.Value:
			return -1
		case a.Value < b.Value:
			return 1
		}
		return 0
	})
	return out, nil
}
