package causal

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// The firing squad (Pearl 2009, section 7.1.2): court order U, nervous
// rifleman W; C = U, A = C or W, B = C, D = A or B. Had A not shot, the
// prisoner would be dead (D = 1) exactly when the court ordered:
// P(D_{A=0} = 1 | D = 1) = P(U = 1 | D = 1) = p / (1 - (1-p)(1-q)).
func TestFiringSquad(t *testing.T) {
	p, q := 0.7, 0.2
	or := []int{0, 1, 1, 1}
	m, err := NewSCM(
		[]Exogenous{{"U", []float64{1 - p, p}}, {"W", []float64{1 - q, q}}},
		[]Endogenous{
			{"C", 2, []string{"U"}, []int{0, 1}},
			{"A", 2, []string{"C", "W"}, or},
			{"B", 2, []string{"C"}, []int{0, 1}},
			{"D", 2, []string{"A", "B"}, or},
		})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Counterfactual([]Event{{Do: map[string]int{"A": 0}, Values: map[string]int{"D": 1}}}, []Event{{Values: map[string]int{"D": 1}}})
	want := p / (1 - (1-p)*(1-q))
	if err != nil || !near(got, want) {
		t.Errorf("P(D_{A=0}=1 | D=1) = %v, %v, want %v", got, err, want)
	}
	// A shot, so the prisoner is dead whatever B did: P(D_{B=0} = 1 | A = 1) = 1.
	got, err = m.Counterfactual([]Event{{Do: map[string]int{"B": 0}, Values: map[string]int{"D": 1}}}, []Event{{Values: map[string]int{"A": 1}}})
	if err != nil || !(got == 1) {
		t.Errorf("P(D_{B=0}=1 | A=1) = %v, %v, want 1", got, err)
	}
}

// Under exogeneity and monotonicity the probabilities of causation have
// closed forms (Pearl 2009, theorem 9.2.15): with X = U_X and
// Y = (X and U1) or U2, P(y|x) = 1 - (1-a)(1-b), P(y|x') = b, and
// PN = (P(y|x) - P(y|x')) / P(y|x), PS = (P(y|x) - P(y|x')) / (1 - P(y|x')),
// PNS = P(y|x) - P(y|x').
func TestProbabilitiesOfCausation(t *testing.T) {
	a, b, c := 0.6, 0.25, 0.4
	m, err := NewSCM(
		[]Exogenous{{"UX", []float64{1 - c, c}}, {"U1", []float64{1 - a, a}}, {"U2", []float64{1 - b, b}}},
		[]Endogenous{
			{"X", 2, []string{"UX"}, []int{0, 1}},
			{"Y", 2, []string{"X", "U1", "U2"}, []int{0, 1, 0, 1, 0, 1, 1, 1}},
		})
	if err != nil {
		t.Fatal(err)
	}
	py1, py0 := 1-(1-a)*(1-b), b
	pn, err1 := m.Necessity("X", 1, 0, "Y", 1, 0)
	ps, err2 := m.Sufficiency("X", 1, 0, "Y", 1, 0)
	pns, err3 := m.NecessityAndSufficiency("X", 1, 0, "Y", 1, 0)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"PN", pn, (py1 - py0) / py1},
		{"PS", ps, (py1 - py0) / (1 - py0)},
		{"PNS", pns, py1 - py0},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestSCMErrors(t *testing.T) {
	u := []Exogenous{{"U", []float64{0.5, 0.5}}}
	tests := []struct {
		name string
		exo  []Exogenous
		endo []Endogenous
		kind error
	}{
		{"cycle", u, []Endogenous{{"A", 2, []string{"B"}, []int{0, 1}}, {"B", 2, []string{"A"}, []int{0, 1}}}, ErrCycle},
		{"unknown parent", u, []Endogenous{{"A", 2, []string{"Q"}, []int{0, 1}}}, ErrUnknownVariable},
		{"short table", u, []Endogenous{{"A", 2, []string{"U"}, []int{0}}}, ErrShape},
		{"state out of range", u, []Endogenous{{"A", 2, []string{"U"}, []int{0, 2}}}, ErrValue},
		{"bad exogenous", []Exogenous{{"U", []float64{0.5, 0.6}}}, nil, ErrProb},
		{"duplicate", u, []Endogenous{{"U", 2, nil, []int{0}}}, ErrDuplicate},
	}
	for _, tt := range tests {
		if _, err := NewSCM(tt.exo, tt.endo); !errors.Is(err, tt.kind) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.kind)
		}
	}
	m, err := NewSCM(u, []Endogenous{{"A", 2, []string{"U"}, []int{0, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Counterfactual(nil, []Event{{Values: map[string]int{"A": 1}}}); !errors.Is(err, ErrPositivity) {
		t.Errorf("impossible evidence: got %v", err)
	}
	if _, err := m.Counterfactual([]Event{{Values: map[string]int{"U": 1}}}, nil); !errors.Is(err, ErrUnknownVariable) {
		t.Errorf("exogenous in an event: got %v", err)
	}
}

// twin computes P(query | evidence) independently of Counterfactual: the
// network of the exogenous variables and one copy of every endogenous
// variable per world (the twin network when there are two), each copy's
// CPT the indicator of its mechanism (or of its forced state), enumerated
// over the joint states of every variable of that network.
func twin(m *SCM, query, evidence []Event) float64 {
	worlds := append(append([]Event(nil), query...), evidence...)
	nExo, nEndo := len(m.exo), len(m.endo)
	n := nExo + len(worlds)*nEndo
	card := make([]int, n)
	for k := range nExo {
		card[k] = len(m.exo[k].P)
	}
	for w := range worlds {
		for k := range nEndo {
			card[nExo+w*nEndo+k] = m.endo[k].Card
		}
	}
	idx := func(w int, i int) int { // global model index i → network index in world w
		if i < nExo {
			return i
		}
		return nExo + w*nEndo + (i - nExo)
	}
	state := make([]int, n)
	var num, den float64
	for {
		pr := 1.0
		for k := range nExo {
			pr *= m.exo[k].P[state[k]]
		}
		for w, ev := range worlds {
			for k, v := range m.endo {
				s := state[nExo+w*nEndo+k]
				want := -1
				if d, ok := ev.Do[v.Name]; ok {
					want = d
				} else {
					row := 0
					for _, p := range v.Parents {
						i := m.index[p]
						row = row*m.card[i] + state[idx(w, i)]
					}
					want = v.F[row]
				}
				if s != want {
					pr = 0
				}
			}
		}
		if pr > 0 {
			match := func(ws []Event, off int) bool {
				for w, ev := range ws {
					for name, s := range ev.Values {
						if state[idx(off+w, m.index[name])] != s {
							return false
						}
					}
				}
				return true
			}
			if match(evidence, len(query)) {
				den += pr
				if match(query, 0) {
					num += pr
				}
			}
		}
		k := n - 1
		for k >= 0 {
			state[k]++
			if state[k] < card[k] {
				break
			}
			state[k] = 0
			k--
		}
		if k < 0 {
			break
		}
	}
	return num / den
}

func randomSCM(r *rand.Rand) *SCM {
	nExo, nEndo := 1+r.IntN(3), 2+r.IntN(2)
	var exo []Exogenous
	for k := range nExo {
		p := make([]float64, 2+r.IntN(2))
		total := 0.0
		for i := range p {
			p[i] = 0.05 + r.Float64()
			total += p[i]
		}
		for i := range p {
			p[i] /= total
		}
		exo = append(exo, Exogenous{fmt.Sprintf("U%d", k), p})
	}
	var endo []Endogenous
	cards := map[string]int{}
	for k, u := range exo {
		cards[u.Name] = len(exo[k].P)
	}
	for k := range nEndo {
		v := Endogenous{Name: fmt.Sprintf("V%d", k), Card: 2 + r.IntN(2)}
		v.Parents = append(v.Parents, exo[r.IntN(nExo)].Name)
		for j := range k {
			if r.Float64() < 0.5 {
				v.Parents = append(v.Parents, fmt.Sprintf("V%d", j))
			}
		}
		rows := 1
		for _, p := range v.Parents {
			rows *= cards[p]
		}
		for range rows {
			v.F = append(v.F, r.IntN(v.Card))
		}
		cards[v.Name] = v.Card
		endo = append(endo, v)
	}
	m, err := NewSCM(exo, endo)
	if err != nil {
		panic(err) // a defect of the generator
	}
	return m
}

// TestRandomCounterfactuals compares Counterfactual with the twin network
// enumerated on random structural models: a factual world and one or two
// intervened ones.
func TestRandomCounterfactuals(t *testing.T) {
	checked := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 7))
		m := randomSCM(r)
		pick := func() (string, int) {
			v := m.endo[r.IntN(len(m.endo))]
			return v.Name, r.IntN(v.Card)
		}
		xn, xv := pick()
		yn, yv := pick()
		en, ev := pick()
		query := []Event{{Do: map[string]int{xn: xv}, Values: map[string]int{yn: yv}}}
		if r.IntN(2) == 0 {
			x2, _ := pick()
			query = append(query, Event{Do: map[string]int{x2: 0}, Values: map[string]int{yn: 0}})
		}
		evidence := []Event{{Values: map[string]int{en: ev}}}
		got, err := m.Counterfactual(query, evidence)
		if errors.Is(err, ErrPositivity) {
			return
		}
		if err != nil {
			rt.Fatal(err)
		}
		want := twin(m, query, evidence)
		if !(math.Abs(got-want) <= 1e-9) {
			rt.Fatalf("%v | %v: %v, twin network %v", query, evidence, got, want)
		}
		checked++
	})
	if checked < 50 {
		t.Errorf("only %d counterfactuals checked", checked)
	}
}
