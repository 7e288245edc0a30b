package structure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/ir"
)

// randomNetwork returns a Bayesian network no test was tuned on: n
// variables of 2 to 4 states, each with up to maxParents parents drawn
// from the window variables before it, every CPT row drawn from a
// Dirichlet(1) (normalised exponentials) with no entry below 0.001, so
// that the network is faithful with probability one (no deterministic
// rows, unlike some corpus networks).
func randomNetwork(t testing.TB, seed uint64, n, maxParents, window int) *ir.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	card := make([]int, n)
	parents := make([][]int, n)
	for i := range n {
		card[i] = 2 + rng.IntN(3)
		lo := max(0, i-window)
		cand := make([]int, 0, i-lo)
		for p := lo; p < i; p++ {
			cand = append(cand, p)
		}
		rng.Shuffle(len(cand), func(a, b int) { cand[a], cand[b] = cand[b], cand[a] })
		k := rng.IntN(min(maxParents, len(cand)) + 1)
		parents[i] = slices.Sorted(slices.Values(cand[:k]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "network random%d {}\n", seed)
	state := func(j int) string { return fmt.Sprintf("s%d", j) }
	for i := range n {
		states := make([]string, card[i])
		for j := range states {
			states[j] = state(j)
		}
		fmt.Fprintf(&b, "variable V%d { type discrete [ %d ] { %s }; }\n", i, card[i], strings.Join(states, ", "))
	}
	row := func(r int) string {
		w := make([]float64, r)
		sum := 0.0
		for j := range w {
			w[j] = 0.001 + rng.ExpFloat64()
			sum += w[j]
		}
		parts := make([]string, r)
		rest := 1.0
		for j := range r - 1 {
			p := math.Round(w[j]/sum*1e6) / 1e6
			parts[j] = fmt.Sprintf("%.6f", p)
			rest -= p
		}
		parts[r-1] = fmt.Sprintf("%.6f", rest)
		return strings.Join(parts, ", ")
	}
	for i := range n {
		if len(parents[i]) == 0 {
			fmt.Fprintf(&b, "probability ( V%d ) { table %s; }\n", i, row(card[i]))
			continue
		}
		names := make([]string, len(parents[i]))
		for k, p := range parents[i] {
			names[k] = fmt.Sprintf("V%d", p)
		}
		fmt.Fprintf(&b, "probability ( V%d | %s ) {\n", i, strings.Join(names, ", "))
		idx := make([]int, len(parents[i]))
		for {
			cfg := make([]string, len(idx))
			for k, s := range idx {
				cfg[k] = state(s)
			}
			fmt.Fprintf(&b, "  (%s) %s;\n", strings.Join(cfg, ", "), row(card[i]))
			k := len(idx) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < card[parents[i][k]] {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
		b.WriteString("}\n")
	}
	m, err := bif.Read(fmt.Sprintf("random%d.bif", seed), []byte(b.String()))
	if err != nil {
		t.Fatalf("random network %d: %v", seed, err)
	}
	return m
}

// On data sampled from random networks that no setting was tuned on,
// hill climbing with BIC finds a graph scoring at least the true graph's
// less 0.05% whose skeleton has F1 ≥ 0.9 against the truth (issue 15's
// acceptance on unseen networks), the same with 1 and 2 workers. The
// corpus networks that miss F1 ≥ 0.9 (win95pts, hailfinder, water, barley,
// mildew) do so because of deterministic copies, which make the true
// graph one of several of equal score, or edges too weak for BIC at the
// sample size: see docs/performance.md.
func TestHillClimbRandomNetworks(t *testing.T) {
	tests := []struct {
		seed                 uint64
		n, maxParents, width int
		rows                 int
	}{
		{1, 30, 3, 8, 20000},
		{2, 30, 3, 8, 20000},
		{3, 40, 3, 10, 20000},
		{4, 40, 2, 6, 10000},
		{5, 25, 4, 6, 50000},
		{6, 50, 3, 10, 20000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("seed%d", tt.seed), func(t *testing.T) {
			if testing.Short() && tt.seed > 2 {
				t.Skip("short")
			}
			m := randomNetwork(t, tt.seed, tt.n, tt.maxParents, tt.width)
			d := pcSample(t, m, tt.rows, tt.seed+100, 0)
			climbAndCheck(t, d, FromModel(m), fmt.Sprintf("%d variables, %d rows", tt.n, tt.rows))
		})
	}
}
