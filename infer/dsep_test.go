package infer

import (
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// dagModel builds a binary network with the given parents and random CPTs.
func dagModel(t *testing.T, parents [][]int) *ir.Model {
	rng := rand.New(rand.NewPCG(1, 1))
	s := netSpec{card: make([]int, len(parents)), parents: parents, cpt: make([][]float64, len(parents))}
	for v := range parents {
		s.card[v] = 2
	}
	for v := range parents {
		s.randomTable(rng, v, false)
	}
	return s.build(t)
}

func TestIndependentClassic(t *testing.T) {
	chain := [][]int{nil, {0}, {1}}            // 0 -> 1 -> 2
	fork := [][]int{{1}, nil, {1}}             // 0 <- 1 -> 2
	collider := [][]int{nil, {0, 2}, nil, {1}} // 0 -> 1 <- 2, 1 -> 3
	tests := []struct {
		name    string
		parents [][]int
		a, b, c []int
		want    bool
	}{
		{"chain", chain, []int{0}, []int{2}, nil, false},
		{"chain given middle", chain, []int{0}, []int{2}, []int{1}, true},
		{"fork", fork, []int{0}, []int{2}, nil, false},
		{"fork given root", fork, []int{0}, []int{2}, []int{1}, true},
		{"collider", collider, []int{0}, []int{2}, nil, true},
		{"collider given middle", collider, []int{0}, []int{2}, []int{1}, false},
		{"collider given descendant", collider, []int{0}, []int{2}, []int{3}, false},
		{"collider descendant", collider, []int{0}, []int{3}, nil, false},
		{"symmetric", collider, []int{2}, []int{0}, []int{3}, false},
		{"A in C", chain, []int{0, 1}, []int{2}, []int{1}, true},
		{"B in C", chain, []int{0}, []int{1}, []int{1}, true},
		{"A and B overlap", collider, []int{0}, []int{0, 2}, nil, false},
		{"empty B", chain, []int{0}, nil, nil, true},
	}
	for _, tt := range tests {
		m := dagModel(t, tt.parents)
		got, err := Independent(m, ids(tt.a...), ids(tt.b...), ids(tt.c...))
		if err != nil || got != tt.want {
			t.Errorf("%s: indep(%v, %v | %v) = %v, %v; want %v", tt.name, tt.a, tt.b, tt.c, got, err, tt.want)
		}
		r, err := Answer(m, &ir.IndepQuery{A: ids(tt.a...), B: ids(tt.b...), C: ids(tt.c...)}, Options{})
		if err != nil || r.(*Independence).Independent != tt.want {
			t.Errorf("%s: Answer = %+v, %v", tt.name, r, err)
		}
	}
	if _, err := Independent(dagModel(t, chain), ids(5), ids(0), nil); err == nil {
		t.Error("no error for a variable outside the model")
	}
}

// TestIndependentNumeric checks d-separation against the numbers: whenever
// indep(A, B | C) is true, P(A | B, C) = P(A | C) for every configuration
// with P(B, C) > 0. Random CPTs are faithful with probability 1, so when it
// is false some configuration differs (checked: the seeded CPTs are faithful).
func TestIndependentNumeric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	indep, dep := 0, 0
	for net := 0; net < 40; net++ {
		spec := randomNet(rng, 4+rng.IntN(4), 3, 3, false)
		m := spec.build(t)
		joint, card := bruteJoint(m)
		n := len(card)
		for k := 0; k < 20; k++ {
			perm := rng.Perm(n)
			na := 1 + rng.IntN(2)
			nb := 1 + rng.IntN(2)
			nc := rng.IntN(min(3, n-na-nb) + 1)
			a, b, c := perm[:na], perm[na:na+nb], perm[na+nb:na+nb+nc]
			ok, err := Independent(m, ids(a...), ids(b...), ids(c...))
			if err != nil {
				t.Fatal(err)
			}
			// Marginal tables over (A,B,C) and (A,C) keyed by mixed radix.
			abc := map[[3]int]float64{}
			idx := func(vs []int, x []int) int {
				r := 0
				for _, v := range vs {
					r = r*card[v] + x[v]
				}
				return r
			}
			for x, p := range jointGiven(joint, card, nil) {
				abc[[3]int{idx(a, x), idx(b, x), idx(c, x)}] += p
			}
			bc := map[[2]int]float64{}
			ac := map[[2]int]float64{}
			cc := map[int]float64{}
			for key, p := range abc {
				bc[[2]int{key[1], key[2]}] += p
				ac[[2]int{key[0], key[2]}] += p
				cc[key[2]] += p
			}
			differs := false
			for key, p := range abc {
				pbc := bc[[2]int{key[1], key[2]}]
				if pbc == 0 {
					continue
				}
				lhs := p / pbc
				rhs := ac[[2]int{key[0], key[2]}] / cc[key[2]]
				if !equal(lhs, rhs, 1e-12) {
					differs = true
					if ok {
						t.Fatalf("net %d: indep(%v, %v | %v) but P(A|B,C) = %v, P(A|C) = %v", net, a, b, c, lhs, rhs)
					}
				}
			}
			if ok {
				indep++
			} else if differs {
				dep++
			}
		}
	}
	t.Logf("%d independent, %d dependent (numerically confirmed)", indep, dep)
	if total := 40 * 20; indep+dep != total {
		t.Errorf("%d queries d-connected but numerically independent; random CPTs should be faithful", total-indep-dep)
	}
	if indep == 0 || dep == 0 {
		t.Errorf("degenerate test: %d independent, %d dependent", indep, dep)
	}
}
