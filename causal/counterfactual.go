package causal

import (
	"math"
	"sort"
)

// maxExoConfigs bounds the joint states of a structural model's exogenous
// variables, which Counterfactual enumerates.
const maxExoConfigs = 1 << 24

// Exogenous is an exogenous (latent, background) variable of a structural
// model: a distribution over its states, independent of the others.
type Exogenous struct {
	Name string
	P    []float64 // P[k] = P(state k)
}

// Endogenous is a variable of a structural model fixed by its parents: F
// gives its state for every joint state of Parents (exogenous or
// endogenous, row-major in the order given, the last fastest).
type Endogenous struct {
	Name    string
	Card    int
	Parents []string
	F       []int
}

// SCM is a structural causal model with deterministic mechanisms: every
// endogenous variable a function of its parents, all randomness in the
// exogenous variables. Build one with NewSCM; it is a value.
type SCM struct {
	exo   []Exogenous
	endo  []Endogenous
	index map[string]int // exogenous 0..len(exo)-1, endogenous after
	card  []int
	pa    [][]int
	order []int // endogenous variables (by global index) in a topological order
}

// NewSCM checks and returns the model, or an *Error (ErrDuplicate,
// ErrUnknownVariable, ErrShape, ErrProb, ErrValue, ErrTooLarge) or a
// *CycleError.
func NewSCM(exo []Exogenous, endo []Endogenous) (*SCM, error) {
	m := &SCM{exo: exo, endo: endo, index: map[string]int{}}
	configs := 1
	for _, u := range exo {
		if u.Name == "" {
			return nil, errorf(ErrDuplicate, "an exogenous variable has an empty name")
		}
		if _, dup := m.index[u.Name]; dup {
			return nil, errorf(ErrDuplicate, "variable %s is declared twice", u.Name)
		}
		m.index[u.Name] = len(m.card)
		m.card = append(m.card, len(u.P))
		if len(u.P) == 0 {
			return nil, errorf(ErrShape, "exogenous %s has no states", u.Name)
		}
		total := 0.0
		for _, p := range u.P {
			if !(p >= 0) || math.IsInf(p, 0) {
				return nil, errorf(ErrProb, "exogenous %s has probability %v", u.Name, p)
			}
			total += p
		}
		if !(math.Abs(total-1) <= 1e-9) {
			return nil, errorf(ErrProb, "exogenous %s's probabilities sum to %v, not 1", u.Name, total)
		}
		if configs > maxExoConfigs/len(u.P) {
			return nil, errorf(ErrTooLarge, "the exogenous variables have more than %d joint states", maxExoConfigs)
		}
		configs *= len(u.P)
	}
	for _, v := range endo {
		if v.Name == "" {
			return nil, errorf(ErrDuplicate, "an endogenous variable has an empty name")
		}
		if _, dup := m.index[v.Name]; dup {
			return nil, errorf(ErrDuplicate, "variable %s is declared twice", v.Name)
		}
		if v.Card < 1 {
			return nil, errorf(ErrShape, "%s has cardinality %d", v.Name, v.Card)
		}
		m.index[v.Name] = len(m.card)
		m.card = append(m.card, v.Card)
	}
	nExo := len(exo)
	m.pa = make([][]int, len(m.card))
	var names []string
	var edges []Edge
	for k, v := range endo {
		rows := 1
		for _, p := range v.Parents {
			i, ok := m.index[p]
			if !ok {
				return nil, errorf(ErrUnknownVariable, "%s: no variable %s", v.Name, p)
			}
			m.pa[nExo+k] = append(m.pa[nExo+k], i)
			if rows > maxCells/m.card[i] {
				return nil, errorf(ErrTooLarge, "%s's table has more than %d rows", v.Name, maxCells)
			}
			rows *= m.card[i]
			if i >= nExo {
				edges = append(edges, Edge{p, v.Name})
			}
		}
		if len(v.F) != rows {
			return nil, errorf(ErrShape, "%s's function has %d entries for %d parent states", v.Name, len(v.F), rows)
		}
		for r, s := range v.F {
			if s < 0 || s >= v.Card {
				return nil, errorf(ErrValue, "%s's function gives state %d at row %d, outside 0..%d", v.Name, s, r, v.Card-1)
			}
		}
		names = append(names, v.Name)
	}
	g, err := Build(names, edges, nil) // acyclicity
	if err != nil {
		return nil, err
	}
	for _, i := range g.order {
		m.order = append(m.order, nExo+i)
	}
	return m, nil
}

// Event is a statement about one world: in the model with the
// intervention Do (empty: the factual world), the variables of Values
// take those states.
type Event struct {
	Do     map[string]int
	Values map[string]int
}

// Counterfactual returns P(query | evidence), every event a statement
// about its own world, all worlds sharing the exogenous variables (the
// twin network, or several): by abduction (the exogenous states weighted
// by how well they explain the evidence), action (the interventions) and
// prediction (the query's worlds solved from those states). It enumerates
// the exogenous variables' joint states. Evidence of probability 0 is an
// ErrPositivity error.
func (m *SCM) Counterfactual(query, evidence []Event) (float64, error) {
	type world struct {
		do     []int // -1 or the forced state, by global index
		values [][2]int
	}
	compile := func(evs []Event) ([]world, error) {
		var out []world
		for _, e := range evs {
			w := world{do: make([]int, len(m.card))}
			for i := range w.do {
				w.do[i] = -1
			}
			for _, kv := range sortedPairs(e.Do) {
				i, err := m.endoIndex(kv.name, kv.state)
				if err != nil {
					return nil, err
				}
				w.do[i] = kv.state
			}
			for _, kv := range sortedPairs(e.Values) {
				i, err := m.endoIndex(kv.name, kv.state)
				if err != nil {
					return nil, err
				}
				w.values = append(w.values, [2]int{i, kv.state})
			}
			out = append(out, w)
		}
		return out, nil
	}
	qw, err := compile(query)
	if err != nil {
		return 0, err
	}
	ew, err := compile(evidence)
	if err != nil {
		return 0, err
	}
	state := make([]int, len(m.card))
	nExo := len(m.exo)
	holds := func(w world) bool {
		for _, i := range m.order {
			if w.do[i] >= 0 {
				state[i] = w.do[i]
				continue
			}
			row := 0
			for _, p := range m.pa[i] {
				row = row*m.card[p] + state[p]
			}
			state[i] = m.endo[i-nExo].F[row]
		}
		for _, kv := range w.values {
			if state[kv[0]] != kv[1] {
				return false
			}
		}
		return true
	}
	var num, den float64
	for {
		pu := 1.0
		for k := range nExo {
			pu *= m.exo[k].P[state[k]]
		}
		if pu > 0 {
			ok := true
			for _, w := range ew {
				if ok = holds(w); !ok {
					break
				}
			}
			if ok {
				den += pu
				for _, w := range qw {
					if ok = holds(w); !ok {
						break
					}
				}
				if ok {
					num += pu
				}
			}
		}
		k := nExo - 1
		for k >= 0 {
			state[k]++
			if state[k] < m.card[k] {
				break
			}
			state[k] = 0
			k--
		}
		if k < 0 {
			break
		}
	}
	if den == 0 {
		return 0, errorf(ErrPositivity, "the evidence has probability 0")
	}
	return num / den, nil
}

type pair struct {
	name  string
	state int
}

func sortedPairs(m map[string]int) []pair {
	out := make([]pair, 0, len(m))
	for k, v := range m {
		out = append(out, pair{k, v})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out
}

func (m *SCM) endoIndex(name string, state int) (int, error) {
	i, ok := m.index[name]
	if !ok || i < len(m.exo) {
		return 0, errorf(ErrUnknownVariable, "no endogenous variable %s", name)
	}
	if state < 0 || state >= m.card[i] {
		return 0, errorf(ErrValue, "state %d of %s, which has %d", state, name, m.card[i])
	}
	return i, nil
}

// Necessity returns the probability of necessity PN = P(Y_{x'} = y' | X = x,
// Y = y): that Y would not have been y had X been x' instead of x, given
// that X was x and Y was y (Pearl 2009, ch. 9).
func (m *SCM) Necessity(xName string, x, xPrime int, yName string, y, yPrime int) (float64, error) {
	return m.Counterfactual(
		[]Event{{Do: map[string]int{xName: xPrime}, Values: map[string]int{yName: yPrime}}},
		[]Event{{Values: map[string]int{xName: x, yName: y}}})
}

// Sufficiency returns the probability of sufficiency PS = P(Y_x = y | X = x',
// Y = y'): that Y would have been y had X been x, given that X was x' and
// Y was y'.
func (m *SCM) Sufficiency(xName string, x, xPrime int, yName string, y, yPrime int) (float64, error) {
	return m.Counterfactual(
		[]Event{{Do: map[string]int{xName: x}, Values: map[string]int{yName: y}}},
		[]Event{{Values: map[string]int{xName: xPrime, yName: yPrime}}})
}

// NecessityAndSufficiency returns PNS = P(Y_x = y, Y_{x'} = y').
func (m *SCM) NecessityAndSufficiency(xName string, x, xPrime int, yName string, y, yPrime int) (float64, error) {
	return m.Counterfactual([]Event{
		{Do: map[string]int{xName: x}, Values: map[string]int{yName: y}},
		{Do: map[string]int{xName: xPrime}, Values: map[string]int{yName: yPrime}},
	}, nil)
}
