package infer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// randomMarkov builds a Markov network of n variables with random pairwise
// and triple potentials (values in [0, 2), some zeros).
func randomMarkov(t *testing.T, rng *rand.Rand, n int) *ir.Model {
	b := ir.NewBuilder("markov.uai")
	for i := range n {
		k := 2 + rng.IntN(2)
		states := make([]string, k)
		for s := range states {
			states[s] = fmt.Sprint(s)
		}
		b.AddVar(ir.Pos{File: "markov.uai", Line: 1}, fmt.Sprintf("X%d", i), ir.Enum, states, 0)
	}
	m := b.Model()
	for f := 0; f < n+2; f++ {
		size := 1 + rng.IntN(3)
		perm := rng.Perm(n)[:min(size, n)]
		vars := make([]ir.VarID, len(perm))
		card := 1
		for i, v := range perm {
			vars[i] = ir.VarID(v)
			card *= len(m.Vars[v].States)
		}
		vals := make([]float64, card)
		for i := range vals {
			if rng.IntN(10) > 0 {
				vals[i] = 2 * rng.Float64()
			}
		}
		b.AddFactor(ir.Pos{File: "markov.uai", Line: 2}, vars, vals)
	}
	model, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// TestMarkovEnginesAgree: on Markov networks (potentials, no CPTs) VE and
// enumeration agree to 1e-12 on marginals, P(e) and MPE probabilities.
func TestMarkovEnginesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for k := 0; k < 40; k++ {
		m := randomMarkov(t, rng, 3+rng.IntN(6))
		var ev []ir.Obs
		for _, v := range rng.Perm(len(m.Vars))[:rng.IntN(3)] {
			ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(len(m.Vars[v].States))})
		}
		queries := []*ir.Query{
			{Kind: ir.Prob, Star: true, Evidence: ev},
			{Kind: ir.MPE, Evidence: ev},
		}
		if len(ev) > 0 {
			queries = append(queries, &ir.Query{Kind: ir.Prob, Evidence: ev})
		}
		for _, q := range queries {
			want, errE := Answer(m, q, Options{Engine: Enum})
			got, errV := Answer(m, q, Options{Engine: VE})
			if (errE != nil) != (errV != nil) {
				t.Fatalf("net %d, %v: enum error %v, ve error %v", k, q.Kind, errE, errV)
			}
			if errE != nil {
				continue
			}
			if !equal(want.P, got.P, 1e-12) {
				t.Errorf("net %d, %v: enum p %v, ve p %v", k, q.Kind, want.P, got.P)
			}
			for i, mg := range want.Marginals {
				for s, p := range mg.P {
					if !equal(p, got.Marginals[i].P[s], 1e-12) {
						t.Errorf("net %d: marginal of X%d: enum %v, ve %v", k, mg.Var, p, got.Marginals[i].P[s])
					}
				}
			}
		}
	}
}

// TestMarkovIndep: d-separation is refused on a Markov network.
func TestMarkovIndep(t *testing.T) {
	m := randomMarkov(t, rand.New(rand.NewPCG(8, 8)), 3)
	if _, err := Answer(m, &ir.Query{Kind: ir.Indep, A: ids(0), B: ids(1)}, Options{}); err == nil {
		t.Error("indep on a Markov network gave no error")
	}
}
