package ir

// Space is a hypothesis space, `space H { ... }` (Mitchell §6.2–6.8):
// the hypotheses, a prior over them, and the likelihood of a row of data
// under each. Its queries (`P(H | D)`, `MAP(H | D)`, `ML(H | D)`,
// `MDL(H | D)`, a new instance's classification) are answered by package
// hypothesis given a data table.
//
// A space is one of two kinds:
//   - a parameterised family: Params span a grid (the hypotheses are
//     every combination of their values, the last parameter fastest),
//     Prior weighs them and Obs say how each row's columns are
//     distributed given a hypothesis;
//   - a conjunctive concept (Concept != nil): Mitchell's conjunctions of
//     constraints over discrete attributes, with the noise-free
//     likelihood.
type Space struct {
	Pos  Pos
	Name string

	Params []*SpaceParam
	// Prior is the unnormalised prior weight of a hypothesis, an
	// expression of the parameters only (no columns), >= 0; nil means
	// uniform.
	Prior Expr
	// Columns are the data columns the space reads, in order of first
	// mention: the observed columns and those their expressions name.
	Columns []string
	Obs     []*Observation

	Concept *Concept
}

// SpaceParam is a parameter of a space and the values it ranges over, in
// increasing order: `w0 in -5 .. 5 by 0.01` (the grid lo, lo+step, …, hi,
// each computed as lo + i*step) or `k in {1, 2, 3}`. Values is nil for a
// continuous parameter, `w0 in real`: a space with one has no table of
// hypotheses, and its ML hypothesis is found in closed form (least
// squares, for a mean linear in the parameters under normal noise) or by
// gradient ascent (a sigmoid unit, bernoulli(sigmoid(linear))).
type SpaceParam struct {
	Pos    Pos
	Name   string
	Values []float64 // nil: continuous
}

// Observation is `COLUMN ~ FAMILY(ARGS)`: the column's value in a row is
// distributed, given a hypothesis, as the family with those arguments,
// expressions of the parameters and of the row's other columns.
type Observation struct {
	Pos    Pos
	Column int // index in Space.Columns
	Family Family
	Args   []Expr
}

// Family is the distribution of an observed column.
type Family int

const (
	// FamilyNormal is normal(MEAN, SD): a real value with that density.
	FamilyNormal Family = iota
	// FamilyBernoulli is bernoulli(P): the value 1 (true) with
	// probability P, 0 (false) with 1 − P.
	FamilyBernoulli
)

func (f Family) String() string {
	switch f {
	case FamilyNormal:
		return "normal"
	case FamilyBernoulli:
		return "bernoulli"
	}
	return "?"
}

// Concept is a space of conjunctive concepts: `EnjoySport = yes if
// conjunction(Sky, AirTemp, ...)`. A hypothesis has one constraint per
// attribute — a state (the attribute must have it), ? (any state), or ∅
// (no state) — and classifies an instance positive (Target = Positive)
// when every constraint holds. Every hypothesis with an ∅ constraint
// classifies every instance negative: they count as the one empty
// hypothesis (Mitchell's 973 for EnjoySport). The likelihood is
// noise-free: 1 if the hypothesis classifies every row as the data does,
// else 0.
type Concept struct {
	Pos      Pos
	Attrs    []VarID // discrete variables of the model, in the order written
	Target   VarID
	Positive int // the state of Target that a satisfied conjunction predicts
}

func (s *Space) Position() Pos { return s.Pos }

// Continuous reports whether a parameter of s is continuous: s then has
// no table of hypotheses, only an ML hypothesis found by fitting.
func (s *Space) Continuous() bool {
	for _, p := range s.Params {
		if p.Values == nil {
			return true
		}
	}
	return false
}
