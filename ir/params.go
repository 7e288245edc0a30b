package ir

// This file counts a model's free parameters (pbl check): the numbers
// its distributions are written with that are free to vary, each kind
// by its own rule, in this one place.

// Params returns the number of free parameters of the table: for each
// row (parent configuration), the child's number of states less one.
func (c *CPT) Params() int {
	f := c.Factor
	k := f.Card[len(f.Card)-1]
	return len(f.Vals) / k * (k - 1)
}

// Params returns the number of free parameters of the densities: a mean
// (an intercept) and a standard deviation per configuration of the
// discrete parents, and a coefficient per real parent and configuration.
func (g *Gaussian) Params() int { return 2*len(g.Mean) + len(g.Coef) }

// FreeParams returns the number of free parameters of m: the sum over
// its distributions (a joint density once) of their Params, and for each
// potential of a Markov network its number of entries less one (a
// potential is known up to a positive factor). A density of a mixture
// declared with a known variance (`variance = V`) counts its means only.
// Distributions still to learn count nothing.
func (m *Model) FreeParams() int {
	known := make([]bool, len(m.Vars)) // the variables of a mixture with a known variance
	for _, mx := range m.Mixtures {
		if mx.Variance > 0 {
			for _, v := range mx.Vars {
				known[v] = true
			}
		}
	}
	n := 0
	var tied []bool
	if m.Time != nil {
		tied = m.Time.Tied(len(m.Vars))
	}
	for v, d := range m.Dists {
		if tied != nil && tied[v] {
			continue // a copy of its template's numbers, counted once
		}
		switch d := d.(type) {
		case *CPT:
			n += d.Params()
		case *NoisyOr:
			n += d.Params()
		case *NoisyMax:
			n += d.Params()
		case *Deterministic:
			n += d.Params()
		case *Softmax:
			n += d.Params()
		case *Gaussian:
			if known[v] {
				n += len(d.Mean)
			} else {
				n += d.Params()
			}
		case *MultiNormal:
			switch {
			case d.Children[0] != VarID(v): // counted at its first child
			case known[v]:
				n += len(d.Mean) * len(d.Children)
			default:
				n += d.Params()
			}
		case nil:
		default:
			panic("ir: FreeParams: unknown distribution kind")
		}
	}
	for _, f := range m.Potentials {
		n += len(f.Vals) - 1
	}
	return n
}

// ToLearn returns the distributions of m still to learn (see
// [Model.Unlearned]), each as the variables it is the distribution of: a
// joint density that a mixture declares is one distribution of all its
// variables, in the declaration's order, at the place of its first. A
// decision has no distribution to learn: it is chosen; nor has a
// variable of a causal model whose observed distribution comes from an
// observed declaration.
func (m *Model) ToLearn() [][]VarID {
	joint := make(map[VarID][]VarID)
	for _, mx := range m.Mixtures {
		if len(mx.Vars) > 1 {
			for _, v := range mx.Vars {
				joint[v] = mx.Vars
			}
		}
	}
	var out [][]VarID
	done := make(map[VarID]bool)
	for _, v := range m.Unlearned() {
		if done[v] || m.Vars[v].Decision || m.Observed != nil {
			continue
		}
		vs, ok := joint[v]
		if !ok || m.Dists[vs[0]] != nil {
			out = append(out, []VarID{v})
			continue
		}
		for _, x := range vs {
			done[x] = true
		}
		out = append(out, append([]VarID(nil), vs...))
	}
	return out
}
