package ir

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
}

// State returns the index of the named state, or -1.
func (v *Variable) State(name string) int {
	for i, s := range v.States {
		if s == name {
			return i
		}
	}
	return -1
}

// CPT is the conditional distribution of one variable given its parents.
// Its factor's scope is (Parents..., Child): one row per configuration of
// the parents, in row-major order, the child's states fastest.
type CPT struct {
	Pos     Pos
	Child   VarID
	Parents []VarID
	Factor  *Factor
}

// Model is a validated probabilistic model: variables, the DAG, one CPT per
// discrete variable, and the statements of the file it came from.
type Model struct {
	Vars    []*Variable
	Parents [][]VarID // Parents[v] in CPT order
	CPTs    []*CPT    // CPTs[v], nil for Real variables and for variables of a Markov network
	Stmts   []Stmt    // in source order; empty for imported formats

	// Potentials are factors that are not conditional distributions: the
	// factors of a Markov network (UAI MARKOV files). nil for a Bayesian
	// network.
	Potentials []*Factor

	Gaussians []*Gaussian // Gaussians[v]: the density of real variable v, or nil

	Classifier *Classifier  // the naive_bayes or tan declaration, or nil
	Tables     []*DataTable // inline data tables, in source order
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
	for _, c := range m.CPTs {
		if c != nil {
			fs = append(fs, c.Factor)
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
	for v, c := range m.CPTs {
		switch {
		case m.Vars[v].Kind != Real:
			if c == nil {
				out = append(out, VarID(v))
			}
		case m.Parents[v] != nil && m.Gaussian(VarID(v)) == nil:
			out = append(out, VarID(v))
		}
	}
	return out
}

// Gaussian returns the density of real variable v, or nil.
func (m *Model) Gaussian(v VarID) *Gaussian {
	if int(v) < len(m.Gaussians) {
		return m.Gaussians[v]
	}
	return nil
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

// IsBayesNet reports whether the model is a Bayesian network: a product of
// CPTs only, whose rows sum to 1, so that the DAG's semantics (barren
// nodes, d-separation) hold.
func (m *Model) IsBayesNet() bool { return len(m.Potentials) == 0 }

// Discrete reports whether v takes part in discrete inference.
func (m *Model) Discrete(v VarID) bool { return m.Vars[v].Kind != Real }

// Factor returns the conditional table of the discrete variable v given
// its parents, laid out over (parents..., v) with v fastest, as the
// engines multiply it: the lowered form of v's distribution. It is nil for
// a real variable, for a variable whose distribution is still to be
// learned, and for the variables of a Markov network.
func (m *Model) Factor(v VarID) *Factor {
	if c := m.CPTs[v]; c != nil {
		return c.Factor
	}
	return nil
}
