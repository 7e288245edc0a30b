package ir

import (
	"strconv"
	"strings"
)

// Kind is the kind of a variable's domain.
type Kind int

const (
	Bool  Kind = iota // states "true", "false" (in that order)
	Enum              // named states
	Range             // integer states lo..hi, named by their decimal form
	Real              // real-valued; not usable in discrete inference
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "bool"
	case Enum:
		return "enum"
	case Range:
		return "range"
	case Real:
		return "real"
	}
	return "?"
}

// Variable is a declared random variable.
type Variable struct {
	Pos    Pos
	ID     VarID
	Name   string
	Kind   Kind
	States []string // state names in index order; nil for Real
	Lo     int      // first integer of a Range, 0 otherwise
	Open   bool     // states are taken from the data (a classifier's undeclared variable)

	// Decision marks a decision of an influence diagram (`decision D:
	// TYPE`): its state is chosen, it has no distribution, and its parents
	// are what is known when it is taken.
	Decision bool

	// Latent marks a variable that is not observed (`latent U: TYPE`): an
	// unobserved confounder, or an exogenous variable of a structural
	// model; with or without a distribution.
	Latent bool
}

// Discrete reports whether v has states (it is not real-valued).
func (v *Variable) Discrete() bool { return v.Kind != Real }

// Domain returns v's type as a var declaration writes it: bool, real,
// lo..hi, or {s1, s2, ...}.
func (v *Variable) Domain() string {
	switch v.Kind {
	case Bool:
		return "bool"
	case Real:
		return "real"
	case Range:
		return strconv.Itoa(v.Lo) + ".." + strconv.Itoa(v.Lo+len(v.States)-1)
	}
	states := make([]string, len(v.States))
	for i, s := range v.States {
		states[i] = Quote(s)
	}
	return "{" + strings.Join(states, ", ") + "}"
}

// Card returns the number of states of v: 0 for a real variable.
func (v *Variable) Card() int { return len(v.States) }

// State returns the index of the named state, or -1.
func (v *Variable) State(name string) int {
	for i, s := range v.States {
		if s == name {
			return i
		}
	}
	return -1
}

// Model is a validated probabilistic model: variables, the DAG, each
// variable's distribution, and the statements of the file it came from.
//
// A Model is a value: once built (by [Lower], an importer's [Builder], or
// a derivation such as [Model.WithDists]) nothing writes to it or to
// anything it points to, so it may be shared by any number of goroutines.
// Learning returns a new Model.
type Model struct {
	Vars    []*Variable
	Parents [][]VarID // Parents[v] in the order of v's distribution
	Dists   []Dist    // Dists[v]: v's distribution, or nil (still to learn, or a variable of a Markov network)
	Stmts   []Stmt    // in source order; empty for imported formats

	// Potentials are factors that are not conditional distributions: the
	// factors of a Markov network (UAI MARKOV files). nil for a Bayesian
	// network.
	Potentials []*Factor

	Classifier *Classifier  // the naive_bayes or tan declaration, or nil
	Mixtures   []*Mixture   // the mixture declarations, in source order
	Tables     []*DataTable // named data sets (inline tables, CSV files), in source order
	Spaces     []*Space     // the hypothesis spaces, in source order
	Utilities  []*Utility   // the utility tables of an influence diagram, in source order
	Bidirected []Bidirected // the bidirected edges A <-> B (unobserved confounders), in source order
	Observed   *Observed    // where the observed variables' distribution comes from (observed "file"), or nil
	Time       *Time        // a time-indexed model's template and slices (var X[t]: ...), or nil; the model is its unrolling
	Source     string       // the file the model was read from, or ""

	byName map[string]VarID
}

// Lookup returns the variable with the given name.
func (m *Model) Lookup(name string) (*Variable, bool) {
	id, ok := m.byName[name]
	if !ok {
		return nil, false
	}
	return m.Vars[id], true
}

// Names returns the variable names in declaration order.
func (m *Model) Names() []string {
	out := make([]string, len(m.Vars))
	for i, v := range m.Vars {
		out[i] = v.Name
	}
	return out
}

// Children returns the children of every variable, in increasing VarID order.
func (m *Model) Children() [][]VarID {
	ch := make([][]VarID, len(m.Vars))
	for v, ps := range m.Parents {
		for _, p := range ps {
			ch[p] = append(ch[p], VarID(v))
		}
	}
	return ch
}

// Factors returns the factors whose product is the model's joint
// distribution (unnormalised for a Markov network): the CPTs' factors, in
// variable order, then the potentials.
func (m *Model) Factors() []*Factor {
	var fs []*Factor
	for v := range m.Vars {
		if f := m.Factor(VarID(v)); f != nil {
			fs = append(fs, f)
		}
	}
	return append(fs, m.Potentials...)
}

// Unlearned returns the variables of a Bayesian network that have a
// structure but no numbers yet: discrete variables without a CPT, and real
// variables with discrete parents (a classifier's Gaussian features) but no
// density. Their numbers are to be learned.
func (m *Model) Unlearned() []VarID {
	if !m.IsBayesNet() {
		return nil
	}
	var out []VarID
	for v, d := range m.Dists {
		if d == nil && (m.Vars[v].Discrete() || m.Parents[v] != nil) {
			out = append(out, VarID(v))
		}
	}
	return out
}

// IsBayesNet reports whether the model is a Bayesian network: a product of
// CPTs only, whose rows sum to 1, so that the DAG's semantics (barren
// nodes, d-separation) hold.
func (m *Model) IsBayesNet() bool { return len(m.Potentials) == 0 }

// Discrete reports whether v takes part in discrete inference.
func (m *Model) Discrete(v VarID) bool { return m.Vars[v].Discrete() }

// NameList names the variables vs for a message: up to max of their names,
// quoted where pbl source would quote them, and how many more there are
// ("A, B, C and 2 more").
func (m *Model) NameList(vs []VarID, max int) string {
	n := min(max, len(vs))
	names := make([]string, n)
	for i, v := range vs[:n] {
		names[i] = Quote(m.Vars[v].Name)
	}
	s := strings.Join(names, ", ")
	if len(vs) > n {
		s += " and " + strconv.Itoa(len(vs)-n) + " more"
	}
	return s
}
