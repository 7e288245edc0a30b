package decision

import "slices"

// markImpossible sets each policy's Impossible: a configuration of its
// information is impossible when its probability is zero given the
// findings, the other decisions following pols, and, when free, the
// decisions in the information taking the configuration's states (as a
// perfect-recall solution chooses well after any earlier choice), else
// following their own policies too (single policy updating chose
// arbitrarily after a choice its strategy never makes).
func (d *Diagram) markImpossible(sz *sizer, pols []Policy, followInfo bool) error {
	probs, _, err := d.potentials(sz)
	if err != nil {
		return err
	}
	for i := range pols {
		p := &pols[i]
		ps := slices.Clone(probs)
		for j := range pols {
			if j == i || (!followInfo && slices.Contains(p.Info, pols[j].Decision)) {
				continue
			}
			t, err := sz.policyTable(&pols[j])
			if err != nil {
				return err
			}
			ps = append(ps, t)
		}
		pt, _, err := eliminate(sz, ps, nil, p.Info)
		if err != nil {
			return err
		}
		p.Impossible = make([]bool, len(p.Choice))
		full := make([]int, len(d.Vars))
		idx := make([]int, len(p.Info))
		for k := range p.Choice {
			for j, v := range p.Info {
				full[v] = idx[j]
			}
			p.Impossible[k] = !(pt.at(full) > 0)
			for j := len(idx) - 1; j >= 0; j-- {
				idx[j]++
				if idx[j] < p.Cards[j] {
					break
				}
				idx[j] = 0
			}
		}
	}
	return nil
}
