package ir

import (
	"math"
	"strconv"
)

// Dist is the distribution of one variable given its parents
// (Model.Parents). The set of kinds is closed: [*CPT] (a table),
// [*Gaussian] (a normal density per parent configuration) and
// [*MultiNormal] (the joint normal density of several real variables per
// parent configuration: a Gaussian mixture's components), and the compact
// tables [*NoisyOr], [*NoisyMax] and [*Deterministic] (compact.go), and
// [*Softmax] (a discrete variable given real-valued parents: logistic or
// softmax of scores affine in them, softmax.go; it has no table).
// Engines and learners do not switch over the kinds: [Model.Table] lowers
// a discrete variable's distribution to the flat table the engines
// multiply, in this file only, and a new kind adds a case there.
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

// NoisyOr is Pearl's noisy-OR of a bool child: each parent, in a state s,
// alone makes the child true with its link probability Link[i][s] (0 for
// an inactive state: false for a bool parent), independently of the
// others, and the leak (an unmodelled cause) with probability Leak:
//
//	P(child=false | x) = (1 − Leak) · Π_i (1 − Link[i][x_i])
//
// Its table is computed once, when the model is built.
type NoisyOr struct {
	Pos     Pos
	Child   VarID
	Parents []VarID
	Link    [][]float64 // Link[i][s]: one per state of parent i
	Leak    float64     // 0 if none

	table *CPT
}

// NoisyMax is Díez's noisy-MAX: the child's states are ordered from the
// most severe to the distinguished (absent) state, the last; each parent
// in state s, the other causes absent, gives the child the distribution
// Link[i][s] (the point mass on the last state for an inactive state), and
// the child's degree is the largest the causes and the leak produce:
//
//	P(child ∈ {y_j, ..., y_k−1} | x) = C_leak(j) · Π_i C_i(j | x_i)
//
// C being the sums of the links' last states from j on. NoisyOr is the
// case of a bool child.
type NoisyMax struct {
	Pos     Pos
	Child   VarID
	Parents []VarID
	Link    [][][]float64 // Link[i][s]: a distribution of the child
	Leak    []float64     // a distribution of the child; the point mass on its last state if none

	table *CPT

	// The links and the leak as written, when renormalising changed
	// them; else nil.
	writtenLink [][][]float64
	writtenLeak []float64
}

// Written returns the links and the leak with the numbers as they were
// written, for writers; they are Link and Leak when renormalising
// changed nothing. As a CPT's rows, links and a leak are accepted when
// they sum to 1 within [RowTolerance], and renormalised.
func (d *NoisyMax) Written() (link [][][]float64, leak []float64) {
	if d.writtenLink == nil {
		return d.Link, d.Leak
	}
	return d.writtenLink, d.writtenLeak
}

// normalize renormalises d's links and leak to sum to 1, keeping the
// numbers as written if that changes any. It is called once, while the
// model is built.
func (d *NoisyMax) normalize() {
	changed := false
	norm := func(dist []float64) []float64 {
		sum := 0.0
		for _, p := range dist {
			sum += p
		}
		if sum == 1 || !(sum > 0) {
			return dist
		}
		changed = true
		out := make([]float64, len(dist))
		for i, p := range dist {
			out[i] = p / sum
		}
		return out
	}
	link := make([][][]float64, len(d.Link))
	for i, l := range d.Link {
		link[i] = make([][]float64, len(l))
		for s, dist := range l {
			link[i][s] = norm(dist)
		}
	}
	leak := norm(d.Leak)
	if changed {
		d.writtenLink, d.writtenLeak = d.Link, d.Leak
		d.Link, d.Leak = link, leak
	}
}

// Deterministic is a table that gives the child one state per parent
// configuration: a lookup by the parents' states, or a logical formula of
// the parents (its child bool).
type Deterministic struct {
	Pos     Pos
	Child   VarID
	Parents []VarID
	Func    []int   // the child's state per parent configuration, row-major over Parents
	Formula Formula // the formula it was written as, or nil (a lookup)

	table *CPT
}

// Gaussian is the density of a real-valued variable given discrete
// parents: a normal distribution for each parent configuration (row-major
// over Parents, the last fastest), as in a naive Bayes classifier with
// Gaussian features.
//
// With real-valued parents Real (a linear Gaussian, or conditional linear
// Gaussian, density) the mean is affine in them: given configuration u of
// the discrete Parents, the child is normal with mean Mean[u] + Σ_j
// Coef[u*len(Real)+j]·Real[j] and standard deviation SD[u]. Real and Coef
// are nil for a density with discrete parents only; Model.Parents lists
// Parents then Real.
type Gaussian struct {
	Pos     Pos
	Child   VarID
	Parents []VarID   // the discrete parents
	Real    []VarID   // the real-valued parents, or nil
	Mean    []float64 // one per parent configuration: the mean, or with Real the intercept
	Coef    []float64 // len(Real) per configuration, row-major; nil when Real is nil
	SD      []float64 // standard deviations, > 0

	// Spread is how each configuration's spread was written (normal(0,
	// 2), normal(0, sd = 2), normal(0, var = 4)), or nil when every one is
	// by position, as learned densities are. Var holds, for those written
	// var = V, V as written (SD is its square root), else 0, so that a
	// writer gives back the number read; nil when none is.
	Spread []Spread
	Var    []float64
}

// Spread is how a normal density's spread was written: by position (a
// standard deviation for one variable, normal(0, 2); a covariance for
// several, normal([0, 0], 4)), or named: sd =, var = or cov =.
type Spread uint8

const (
	SpreadPositional Spread = iota // normal(MEAN, SD), normal([MEANS], COV)
	SpreadSD                       // sd = a standard deviation (several: one, or one per variable)
	SpreadVar                      // var = a variance (several: one, or one per variable)
	SpreadCov                      // cov = a covariance: as by position, of several variables
)

// SpreadNames are the names of the named spreads, indexed by Spread ("" for
// SpreadPositional).
var SpreadNames = [...]string{"", "sd", "var", "cov"}

func (s Spread) String() string {
	if int(s) < len(SpreadNames) {
		return SpreadNames[s]
	}
	return "Spread(" + strconv.Itoa(int(s)) + ")"
}

// SpreadOf returns how configuration u's spread was written.
func (d *Gaussian) SpreadOf(u int) Spread {
	if u < len(d.Spread) {
		return d.Spread[u]
	}
	return SpreadPositional
}

// VarOf returns the variance configuration u's was written with (var =
// V), and whether it was so written and is still the density's: V's
// square root is SD[u].
func (d *Gaussian) VarOf(u int) (float64, bool) {
	if d.SpreadOf(u) != SpreadVar || u >= len(d.Var) || math.Sqrt(d.Var[u]) != d.SD[u] {
		return 0, false
	}
	return d.Var[u], true
}

func (d *CPT) Position() Pos      { return d.Pos }
func (d *Gaussian) Position() Pos { return d.Pos }
func (*CPT) dist()                {}
func (*Gaussian) dist()           {}

func (d *NoisyOr) Position() Pos       { return d.Pos }
func (d *NoisyMax) Position() Pos      { return d.Pos }
func (d *Deterministic) Position() Pos { return d.Pos }
func (*NoisyOr) dist()                 {}
func (*NoisyMax) dist()                {}
func (*Deterministic) dist()           {}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// family returns the variable a distribution is the distribution of, and
// the parents it is given.
func family(d Dist) (child VarID, parents []VarID) {
	switch d := d.(type) {
	case *CPT:
		return d.Child, d.Parents
	case *Gaussian:
		if len(d.Real) > 0 {
			return d.Child, append(append([]VarID(nil), d.Parents...), d.Real...)
		}
		return d.Child, d.Parents
	case *MultiNormal:
		return d.Children[0], d.Parents
	case *NoisyOr:
		return d.Child, d.Parents
	case *NoisyMax:
		return d.Child, d.Parents
	case *Deterministic:
		return d.Child, d.Parents
	case *Softmax:
		return d.Child, append(append([]VarID(nil), d.Parents...), d.Real...)
	}
	panic("ir: unknown distribution kind")
}

// Dist returns v's distribution, or nil.
func (m *Model) Dist(v VarID) Dist { return m.Dists[v] }

// Table returns the discrete variable v's distribution lowered to a
// conditional probability table: the engines' and the table formats' view
// of it, whatever its kind. It is nil for a real variable, for a discrete
// one with real-valued parents ([*Softmax]), for a variable
// whose distribution is still to be learned, and for the variables of a
// Markov network. This is the one place where the kinds of distribution
// are lowered.
func (m *Model) Table(v VarID) *CPT {
	switch d := m.Dists[v].(type) {
	case *CPT:
		return d
	case *NoisyOr:
		return d.table
	case *NoisyMax:
		return d.table
	case *Deterministic:
		return d.table
	case *Gaussian, *MultiNormal, *Softmax, nil:
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
