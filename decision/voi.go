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
