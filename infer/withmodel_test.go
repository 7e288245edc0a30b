package infer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// renumberMarkov returns a Markov network with m's variables and factor
// scopes and fresh random potentials.
func renumberMarkov(t *testing.T, rng *rand.Rand, m *ir.Model) *ir.Model {
	b := ir.NewBuilder("markov2.uai")
	for _, x := range m.Vars {
		b.AddVar(ir.Pos{File: "markov2.uai", Line: 1}, x.Name, x.Kind, x.States, 0)
	}
	for _, f := range m.Potentials {
		vals := make([]float64, len(f.Vals))
		for i := range vals {
			if rng.IntN(10) > 0 {
				vals[i] = 2 * rng.Float64()
			}
		}
		b.AddFactor(ir.Pos{File: "markov2.uai", Line: 2}, f.Vars, vals)
	}
	m2, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m2
}

// TestWithModel: a tree derived with WithModel shares the structure of the
// tree it comes from (same triangulation, index maps and clique tables'
// layout; no triangulation runs) and answers every query like a tree
// compiled afresh for the new model, to 1e-12 relatively; the original
// tree still answers for its own model.
func TestWithModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	for net := range 40 {
		var m1, m2 *ir.Model
		var card []int
		if net%4 == 3 {
			m1 = randomMarkov(t, rng, 3+rng.IntN(6))
			m2 = renumberMarkov(t, rng, m1)
			card = cards(m1)
		} else {
			spec := randomNet(rng, 3+rng.IntN(8), 4, 3, net%3 == 0)
			if net%5 == 4 {
				spec = localNet(rng, 60, 3, 6)
			}
			m1 = spec.build(t)
			m2 = spec.renumber(rng, net%2 == 0).build(t)
			card = spec.card
		}
		t1 := mustCompile(t, m1)
		runs := triangulations.Load()
		t2, err := t1.WithModel(m2)
		if err != nil {
			t.Fatalf("net %d: %v", net, err)
		}
		if n := triangulations.Load() - runs; n != 0 || t2.tri != t1.tri || t2.jtStructure != t1.jtStructure {
			t.Fatalf("net %d: WithModel triangulated %d times, triangulation %p vs %p, structure %p vs %p", net, n, t2.tri, t1.tri, t2.jtStructure, t1.jtStructure)
		}
		fresh := mustCompile(t, m2)
		if fresh.jtStructure == t1.jtStructure || triangulations.Load() == runs {
			t.Fatalf("net %d: Compile did not build a structure of its own", net)
		}
		for k := range 10 {
			q := randomQuery(rng, card)
			if k%4 == 3 {
				q = &ir.MPEQuery{QueryHeader: ir.QueryHeader{Pos: flat(q).Pos}, Conditions: ir.Conditions{Evidence: flat(q).Evidence}}
			}
			want, wantErr := fresh.Answer(q, Options{})
			got, err := t2.Answer(q, Options{})
			d := sameError(wantErr, err)
			if d == "" && err == nil {
				d = sameResultRel(want, got, 1e-12)
			}
			if d != "" {
				t.Fatalf("net %d, %+v, WithModel: %s", net, q, d)
			}
			// VE sums in another order: compare as the other engine
			// tests do.
			want, wantErr = Answer(m1, q, Options{Engine: VE})
			got, err = t1.Answer(q, Options{})
			if d := sameAnswer(want, wantErr, got, err, 1e-12); d != "" {
				t.Fatalf("net %d, %+v, original: %s", net, q, d)
			}
		}
	}
}

// TestWithModelMismatch: WithModel refuses a model whose variables or
// factor scopes differ from the compiled ones, or that lacks numbers.
func TestWithModelMismatch(t *testing.T) {
	base := netSpec{card: []int{2, 3, 2}, parents: [][]int{nil, {0}, {1}},
		cpt: [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5, 0.1, 0.1, 0.8}, {0.5, 0.5, 0.4, 0.6, 0.9, 0.1}}}
	jt := mustCompile(t, base.build(t))
	moreStates := netSpec{card: []int{2, 2, 2}, parents: base.parents,
		cpt: [][]float64{{0.5, 0.5}, {0.2, 0.8, 0.5, 0.5}, {0.5, 0.5, 0.4, 0.6}}}
	otherParents := netSpec{card: base.card, parents: [][]int{nil, {0}, {0}},
		cpt: [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5, 0.1, 0.1, 0.8}, {0.5, 0.5, 0.4, 0.6}}}
	fewer := netSpec{card: base.card[:2], parents: base.parents[:2], cpt: base.cpt[:2]}
	unl := []bool{false, false, true}
	// A Markov network whose potentials have the families' scopes.
	mb := ir.NewBuilder("markov.uai")
	for v, c := range base.card {
		mb.AddVar(ir.Pos{}, fmt.Sprintf("X%d", v), ir.Enum, []string{"a", "b", "c"}[:c], 0)
	}
	for v := range base.card {
		f := jt.m.Factor(ir.VarID(v))
		mb.AddFactor(ir.Pos{}, f.Vars, f.Vals)
	}
	markov, err := mb.Finish()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		m    *ir.Model
		want string
	}{
		{"states", moreStates.build(t), "X1 has 2 states; the junction tree was compiled for 3"},
		{"parents", otherParents.build(t), "factor 3 of the model is over (X0, X2); the junction tree was compiled for (X1, X2)"},
		{"variables", fewer.build(t), "the model has 2 variables; the junction tree was compiled for 3"},
		{"unlearned", base.buildPartial(t, unl), "partial.pbl: the model has no numbers yet for X2: learn them first (a learn statement, or pbl learn)"},
		{"markov", markov, "the model is a Markov network; the junction tree was compiled for a Bayesian network"},
	}
	for _, tt := range tests {
		got, err := jt.WithModel(tt.m)
		if got != nil || err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, %v; want %q", tt.name, got, err, tt.want)
		}
		if tt.name == "unlearned" && !errors.Is(err, ir.ErrNoDistribution) {
			t.Errorf("%s: %v is not ErrNoDistribution", tt.name, err)
		}
	}
}

// BenchmarkJTWithModel measures WithModel on corpus networks: one product
// of the factors into the clique tables, with no triangulation.
func BenchmarkJTWithModel(b *testing.B) {
	for _, name := range []string{"alarm", "hepar2", "win95pts", "pathfinder"} {
		b.Run(name, func(b *testing.B) {
			jt := compiledCorpus(b, name)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jt.WithModel(jt.m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
