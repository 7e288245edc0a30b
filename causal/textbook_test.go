package causal

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// graph parses "A->B, B<->C" into an ADMG over the given names.
func graph(t *testing.T, names string, edges string) *ADMG {
	t.Helper()
	var dir, bi []Edge
	for _, e := range strings.Split(edges, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if a, b, ok := strings.Cut(e, "<->"); ok {
			bi = append(bi, Edge{strings.TrimSpace(a), strings.TrimSpace(b)})
		} else if a, b, ok := strings.Cut(e, "->"); ok {
			dir = append(dir, Edge{strings.TrimSpace(a), strings.TrimSpace(b)})
		} else {
			t.Fatalf("bad edge %q", e)
		}
	}
	g, err := Build(strings.Fields(names), dir, bi)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func split(s string) []string { return strings.Fields(s) }

// The verdicts of textbook diagrams: Pearl's Causality (2009) ch. 3,
// Shpitser and Pearl (2006), Tian and Pearl (2002).
func TestTextbook(t *testing.T) {
	tests := []struct {
		name, vars, edges string
		y, x, z           string
		method            string // "" when not identifiable
		formula           string // if not empty, the estimand's String
	}{
		{"backdoor", "Z X Y", "Z->X, Z->Y, X->Y", "Y", "X", "", "backdoor", "Σ_{Z} P(Y | Z, X) P(Z)"},
		{"no-confounding", "X Y", "X->Y", "Y", "X", "", "backdoor", "P(Y | X)"},
		{"front-door smoking", "X M Y", "X->M, M->Y, X<->Y", "Y", "X", "", "front-door", "Σ_{M} P(M | X) [Σ_{X'} P(Y | X', M) P(X')]"},
		{"bow arc", "X Y", "X->Y, X<->Y", "Y", "X", "", "", ""},
		{"instrument", "Z X Y", "Z->X, X->Y, X<->Y", "Y", "X", "", "", ""},
		{"confounded mediator", "X Z Y", "X->Z, Z->Y, X<->Z", "Y", "X", "", "", ""},
		{"two arcs", "X Z Y", "X->Z, Z->Y, X<->Y, Z<->Y", "Y", "X", "", "", ""},
		{"mediator confounded with Y", "X Z Y", "X->Z, Z->Y, Z<->Y", "Y", "X", "", "backdoor", "P(Y | X)"},
		{"arcs through Z", "X Z Y", "X->Y, Z->Y, X<->Z, Z<->Y", "Y", "X", "", "", ""},
		{"arcs through Z, mediated", "X Z Y", "X->Z, Z->Y, X->Y, X<->Z, Z<->Y", "Y", "X", "", "", ""},
		{"napkin", "W1 W2 X Y", "W1->W2, W2->X, X->Y, W1<->X, W1<->Y", "Y", "X", "", "ID", "[Σ_{W1} P(W1) P(X | W1, W2) P(Y | W1, W2, X)] / [Σ_{W1} P(W1) P(X | W1, W2)], for any W2"},
		{"Verma", "A B C D", "A->B, B->C, C->D, B<->D", "D", "A", "", "backdoor", "P(D | A)"},
		{"Verma effect of B", "A B C D", "A->B, B->C, C->D, B<->D", "D", "B", "", "front-door", ""},
		{"Verma effect of C", "A B C D", "A->B, B->C, C->D, B<->D", "D", "C", "", "backdoor", ""},
		{"backdoor through arc", "Z X Y", "Z->X, X->Y, Z<->Y", "Y", "X", "", "backdoor", ""},
		{"front-door with arcs through Z2", "X Z1 Z2 Y", "X->Z1, Z1->Y, Z2->Y, X<->Z2, Z2<->Y", "Y", "X", "", "front-door", ""},
		{"IDC rule 2 after a bow", "X Y Z", "X->Y, Y->Z, X<->Y", "Z", "X", "Y", "IDC", "P(Z | X, Y)"},
		{"IDC bow", "X Y Z", "X->Y, Z->X, X<->Y", "Y", "X", "Z", "", ""},
		{"conditional backdoor", "Z W X Y", "Z->X, W->X, Z->Y, W->Y, X->Y", "Y", "X", "Z", "backdoor", "Σ_{W} P(Y | Z, W, X) P(W | Z)"},
		{"IDC front-door given Z", "X M Y Z", "X->M, M->Y, X<->Y, Z->X", "Y", "X", "Z", "IDC", ""},
		// figure 3.13 of pedemonte96/causaleffect's examples: W, Z, Y1, Y2
		// form one district of G \ X and G is one district, so ID fails at
		// line 5; the hedge check proves the verdict
		{"causaleffect fig. 3.13", "W X Z Y1 Y2", "W->X, X->Y1, Z->Y2, W->Z, W<->Y1, W<->Z, W<->Y2, X<->Z", "Y1 Y2", "X", "", "", ""},
		{"causaleffect fig. 3.13 without X<->Z", "W X Z Y1 Y2", "W->X, X->Y1, Z->Y2, W->Z, W<->Y1, W<->Z, W<->Y2", "Y1 Y2", "X", "", "?", ""},
		// IDC with a mediator as condition (figure 3.15(a) there)
		{"IDC mediator condition", "W X Z Y", "X<->Y, Z->Y, X->Z, W->X, W->Z", "Y", "X", "Z", "?", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, tt.vars, tt.edges)
			q := Query{Y: split(tt.y), X: split(tt.x), Z: split(tt.z)}
			est, err := g.Identify(q)
			checkNumerically(t, g, q, est, err)
			if tt.method == "?" { // the verdict is checked by the hedge or the numbers
				return
			}
			if tt.method == "" {
				var ne *NotIdentifiableError
				if !errors.As(err, &ne) || !errors.Is(err, ErrNotIdentifiable) {
					t.Fatalf("got %v, %v; want not identifiable", est, err)
				}
				if msg := checkHedge(g, q, ne.Hedge); msg != "" {
					t.Errorf("hedge %v: %s", ne.Hedge, msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("not identified: %v", err)
			}
			if tt.method != "ID" || est.Method != "IDC" { // IDC wraps ID
				if est.Method != tt.method {
					t.Errorf("method %s (%s), want %s", est.Method, est, tt.method)
				}
			}
			if tt.formula != "" && est.String() != tt.formula {
				t.Errorf("formula %s, want %s", est, tt.formula)
			}
		})
	}
}

// checkNumerically checks an answer on five random models with the graph:
// one latent with a random table per bidirected edge, random CPTs; an
// estimand must equal surgery on the full model, a hedge must be valid.
func checkNumerically(t *testing.T, g *ADMG, q Query, est *Estimand, err error) {
	t.Helper()
	if err != nil {
		var ne *NotIdentifiableError
		if errors.As(err, &ne) {
			if msg := checkHedge(g, q, ne.Hedge); msg != "" {
				t.Errorf("hedge %v: %s", ne.Hedge, msg)
			}
		}
		return
	}
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 1))
		m := modelOf(g, r)
		card, p := m.observed()
		j, err := NewJoint(card, p)
		if err != nil {
			t.Fatal(err)
		}
		idx := func(ns []string) []int {
			var out []int
			for _, n := range ns {
				i, _ := g.Index(n)
				out = append(out, i)
			}
			return out
		}
		y, x, z := idx(q.Y), idx(q.X), idx(q.Z)
		eachState(m, append(append(append([]int(nil), y...), x...), z...), func(vals map[int]int) {
			byName := map[string]int{}
			for v, s := range vals {
				byName[m.names[v]] = s
			}
			got, err := est.Eval(j, byName)
			want := m.surgery(y, x, z, vals)
			if err != nil || !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("%s at %v: %v, %v; surgery %v", est, byName, got, err, want)
			}
		})
	}
}

// modelOf returns a random full model whose latent projection is g: a
// latent root per bidirected edge.
func modelOf(g *ADMG, r *rand.Rand) *fullModel {
	n := g.Len()
	m := &fullModel{nObs: n}
	for i := range n {
		m.names = append(m.names, g.Name(i))
		m.card = append(m.card, 2+r.IntN(2))
		m.parents = append(m.parents, g.Parents(i).members())
	}
	for i := range n {
		for _, s := range g.Siblings(i).members() {
			if s > i {
				l := len(m.names)
				m.names = append(m.names, fmt.Sprintf("U%d", l))
				m.card = append(m.card, 2)
				m.parents = append(m.parents, nil)
				m.parents[i] = append(m.parents[i], l)
				m.parents[s] = append(m.parents[s], l)
			}
		}
	}
	for v := range m.names {
		rows := 1
		for _, p := range m.parents[v] {
			rows *= m.card[p]
		}
		t := make([]float64, rows*m.card[v])
		for row := range rows {
			total := 0.0
			for k := range m.card[v] {
				t[row*m.card[v]+k] = 0.05 + r.Float64()
				total += t[row*m.card[v]+k]
			}
			for k := range m.card[v] {
				t[row*m.card[v]+k] /= total
			}
		}
		m.cpt = append(m.cpt, t)
	}
	return m
}
