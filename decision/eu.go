package decision

import (
	"slices"
)

// EU returns the expected total utility of choosing state of decision dec
// given evidence (a state for some variables of dec's information under
// no-forgetting, earlier decisions included), the decisions after dec
// following the solution's optimal policies. A decision named in evidence
// is taken as set to that state (an intervention); an earlier decision not
// named follows its optimal policy; a chance variable named is observed
// (conditioned on). Evidence of probability zero under that strategy is an
// ErrImpossible error; evidence outside dec's information an ErrEvidence.
func (s *Solution) EU(dec, state int, evidence map[int]int) (float64, error) {
	return expectedUtility(s.d, s.opts, s.Policies, dec, state, evidence)
}

// EU returns the expected total utility of choosing state of decision dec
// given evidence on some of dec's parents (its whole information in a
// LIMID), every other decision following the strategy found, as
// Solution.EU does.
func (s *LIMIDSolution) EU(dec, state int, evidence map[int]int) (float64, error) {
	return expectedUtility(s.d, s.opts, s.Policies, dec, state, evidence)
}

// expectedUtility is EU for the strategy pols (one policy per decision).
func expectedUtility(d *Diagram, opts Options, pols []Policy, dec, state int, evidence map[int]int) (float64, error) {
	pos := slices.IndexFunc(pols, func(p Policy) bool { return p.Decision == dec })
	if pos < 0 {
		return 0, errorf(ErrEvidence, "", "variable %d is not a decision", dec)
	}
	name := d.Vars[dec].Name
	if state < 0 || state >= d.Vars[dec].Card {
		return 0, errorf(ErrEvidence, name, "decision %s has no state %d", name, state)
	}
	info := pols[pos].Info
	for v, x := range evidence {
		if !slices.Contains(info, v) {
			vn := "?"
			if v >= 0 && v < len(d.Vars) {
				vn = d.Vars[v].Name
			}
			return 0, errorf(ErrEvidence, vn, "%s is not known when %s is taken", vn, name)
		}
		if x < 0 || x >= d.Vars[v].Card {
			return 0, errorf(ErrEvidence, d.Vars[v].Name, "%s has no state %d", d.Vars[v].Name, x)
		}
	}
	sz := opts.sizer(d)
	probs, utils, err := d.potentials(sz)
	if err != nil {
		return 0, err
	}
	for i := range pols {
		o := pols[i].Decision
		switch x, ok := evidence[o]; {
		case o == dec:
			probs = append(probs, sz.indicator(o, state))
		case ok:
			probs = append(probs, sz.indicator(o, x))
		default:
			t, err := sz.policyTable(&pols[i])
			if err != nil {
				return 0, err
			}
			probs = append(probs, t)
		}
	}
	for v, x := range evidence {
		if d.Vars[v].Kind == Chance {
			probs = append(probs, sz.indicator(v, x))
		}
	}
	p, q, err := eliminate(sz, probs, utils, nil)
	if err != nil {
		return 0, err
	}
	if !(p.vals[0] > 0) {
		return 0, errorf(ErrImpossible, name, "the evidence is impossible when %s is taken", name)
	}
	return q.vals[0] / p.vals[0], nil
}
