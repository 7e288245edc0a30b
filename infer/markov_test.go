package infer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

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
		queries := []ir.Query{
			&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true},
			&ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}},
		}
		if len(ev) > 0 {
			queries = append(queries, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}})
		}
		for _, q := range queries {
			compareEngines(t, m, q, fmt.Sprintf("net %d", k), testEngine{"ve", Options{Engine: VE}})
		}
	}
}

// TestMarkovIndep: d-separation is refused on a Markov network.
func TestMarkovIndep(t *testing.T) {
	m := randomMarkov(t, rand.New(rand.NewPCG(8, 8)), 3)
	if _, err := Answer(m, &ir.IndepQuery{A: ids(0), B: ids(1)}, Options{}); err == nil {
		t.Error("indep on a Markov network gave no error")
	}
}
