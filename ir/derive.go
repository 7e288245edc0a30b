package ir

// This file derives new models from built ones. A built Model is never
// changed: each derivation copies what it changes (the slices and the
// variables it replaces) and shares the rest, which is read-only.

// clone returns a shallow copy of m with its own per-variable slices.
func (m *Model) clone() *Model {
	c := *m
	c.Vars = append([]*Variable(nil), m.Vars...)
	c.Parents = append([][]VarID(nil), m.Parents...)
	c.Dists = append([]Dist(nil), m.Dists...)
	return &c
}

// withStmts returns a copy of m with the statements stmts.
func (m *Model) withStmts(stmts []Stmt) *Model {
	c := *m
	c.Stmts = stmts
	return &c
}

// WithStates returns a copy of m in which each open variable v named in
// states has the states states[v] and is closed (no longer open): the
// states it took from the data, settled before its distributions are
// learned. The states must extend the variable's current ones (the data
// adds states, in order of first appearance; it never removes one). A
// variable that is not open is left as it is. m is not changed.
func (m *Model) WithStates(states map[VarID][]string) *Model {
	c := m.clone()
	for v, st := range states {
		x := m.Vars[v]
		if !x.Open {
			continue
		}
		if len(st) < len(x.States) {
			panic("ir: WithStates: fewer states than the variable has")
		}
		nx := *x
		nx.States = append([]string(nil), st...)
		nx.Open = false
		c.Vars[v] = &nx
	}
	return c
}

// WithDists returns a copy of m in which each distribution of ds replaces
// the distribution of its variable (and its parents, those of the
// distribution). The result is validated as a built model is: every table
// over the variables' states, every row a probability distribution, no
// cycle. Tables are renormalised as built models' are (see CPT), so that
// a learned model and the same model written and read back are equal:
// WithDists takes ownership of ds. m is not changed.
func (m *Model) WithDists(ds ...Dist) (*Model, error) {
	c := m.clone()
	var errs ErrorList
	for _, d := range ds {
		v, parents := family(d)
		c.Dists[v] = d
		c.Parents[v] = append([]VarID(nil), parents...)
		switch d := d.(type) {
		case *MultiNormal:
			for _, x := range d.Children {
				c.Dists[x] = d
				c.Parents[x] = append([]VarID(nil), parents...)
			}
			checkMultiNormal(&errs, c, d)
		case *CPT:
			card := make([]int, 0, len(d.Parents)+1)
			for _, p := range append(append([]VarID(nil), d.Parents...), v) {
				card = append(card, c.Vars[p].Card())
			}
			n, ok := TableSize(card)
			if !ok || len(d.Factor.Vals) != n || len(d.Factor.Vars) != len(card) {
				panic("ir: WithDists: a table does not fit its variables")
			}
			before := len(errs)
			checkRows(&errs, c, d, nil)
			if len(errs) == before {
				d.normalize() // as a table read from a file is: its rows sum to 1
			}
		case *Gaussian:
			checkGaussian(&errs, c, d)
		case *Softmax:
			checkSoftmax(&errs, c, d)
		}
	}
	checkCycles(&errs, c)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// WithPotentials returns m with the factors fs multiplied in as
// potentials: a Bayesian network becomes a product that is no longer
// normalised (the engines then divide by its partition function), as the
// likelihoods of real-valued evidence make it. The factors must be over
// m's discrete variables; WithPotentials takes ownership of them. m is not
// changed.
func (m *Model) WithPotentials(fs ...*Factor) *Model {
	if len(fs) == 0 {
		return m
	}
	c := m.clone()
	c.Potentials = append(append([]*Factor(nil), m.Potentials...), fs...)
	return c
}
