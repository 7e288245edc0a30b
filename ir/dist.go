package ir

import "math"

// Dist is the distribution of one variable given its parents
// (Model.Parents). The set of kinds is closed: [*CPT] (a table),
// [*Gaussian] (a normal density per parent configuration) and
// [*MultiNormal] (the joint normal density of several real variables per
// parent configuration: a Gaussian mixture's components); noisy-OR,
// deterministic tables and mixtures join it here. Engines and learners do
// not switch over the kinds: [Model.Factor] lowers a discrete variable's
// distribution to the flat table the engines multiply, in this file only,
// and a new kind adds a case there.
type Dist interface {
	Node
	dist()
}

// CPT is a conditional probability table. Its factor's scope is
// (Parents..., Child): one row per configuration of the parents, in
// row-major order, the child's states fastest.
//
// Rows are accepted when they sum to 1 within [RowTolerance], and then
// renormalised, so that every engine answers the same model whatever it
// prunes: Factor holds the normalised rows, which the engines multiply.
// The numbers as written are kept for export ([CPT.Written]), so that a
// model read and written again comes back bit for bit.
type CPT struct {
	Pos     Pos
	Child   VarID
	Parents []VarID
	Factor  *Factor

	written []float64 // the numbers as written, when renormalising changed them; else nil
}

// Written returns the table with the numbers as they were written (read
// from a file), for writers; it is Factor when renormalising the rows
// changed nothing, and for learned tables.
func (c *CPT) Written() *Factor {
	if c.written == nil {
		return c.Factor
	}
	f := *c.Factor
	f.Vals = c.written
	return &f
}

// normalize renormalises the rows of c's factor to sum to 1, keeping the
// numbers as written if that changes any. It is called once, while the
// model is built.
func (c *CPT) normalize() {
	f := c.Factor
	k := f.Card[len(f.Card)-1]
	var orig []float64
	for r := 0; r*k < len(f.Vals); r++ {
		row := f.Vals[r*k : (r+1)*k]
		sum := 0.0
		for _, p := range row {
			sum += p
		}
		if sum == 1 || !(sum > 0) {
			continue
		}
		if orig == nil {
			orig = append([]float64(nil), f.Vals...)
		}
		for i := range row {
			row[i] /= sum
		}
	}
	c.written = orig
}

// Gaussian is the density of a real-valued variable given discrete
// parents: a normal distribution for each parent configuration (row-major
// over Parents, the last fastest), as in a naive Bayes classifier with
// Gaussian features.
type Gaussian struct {
	Pos     Pos
	Child   VarID
	Parents []VarID
	Mean    []float64 // one per parent configuration
	SD      []float64 // standard deviations, > 0
}

func (d *CPT) Position() Pos      { return d.Pos }
func (d *Gaussian) Position() Pos { return d.Pos }
func (*CPT) dist()                {}
func (*Gaussian) dist()           {}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// family returns the variable a distribution is the distribution of, and
// the parents it is given.
func family(d Dist) (child VarID, parents []VarID) {
	switch d := d.(type) {
	case *CPT:
		return d.Child, d.Parents
	case *Gaussian:
		return d.Child, d.Parents
	case *MultiNormal:
		return d.Children[0], d.Parents
	}
	panic("ir: unknown distribution kind")
}

// Dist returns v's distribution, or nil.
func (m *Model) Dist(v VarID) Dist { return m.Dists[v] }

// Table returns the discrete variable v's distribution lowered to a
// conditional probability table: the engines' and the table formats' view
// of it, whatever its kind. It is nil for a real variable, for a variable
// whose distribution is still to be learned, and for the variables of a
// Markov network. This is the one place where the kinds of distribution
// are lowered.
func (m *Model) Table(v VarID) *CPT {
	switch d := m.Dists[v].(type) {
	case *CPT:
		return d
	case *Gaussian, *MultiNormal, nil:
		return nil
	}
	panic("ir: unknown distribution kind")
}

// Factor returns the factor of v's [Model.Table], laid out over
// (parents..., v) with v fastest, as the engines multiply it, or nil.
func (m *Model) Factor(v VarID) *Factor {
	if t := m.Table(v); t != nil {
		return t.Factor
	}
	return nil
}

// CPT returns v's table, or nil if v's distribution is not a table.
func (m *Model) CPT(v VarID) *CPT {
	c, _ := m.Dists[v].(*CPT)
	return c
}

// Gaussian returns the density of real variable v, or nil.
func (m *Model) Gaussian(v VarID) *Gaussian {
	g, _ := m.Dists[v].(*Gaussian)
	return g
}
