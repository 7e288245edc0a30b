package enginetest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/infer/internal/testnet"
	"github.com/pbl-lang/pbl/ir"
	"gonum.org/v1/gonum/floats"
)

// brute evaluates a model's quantities by enumerating every assignment of
// its variables, in log space: the reference of the suite.
type brute struct {
	m    *ir.Model
	fs   []*factor.Factor
	card []int
}

func newBrute(m *ir.Model) *brute {
	card := make([]int, len(m.Vars))
	for v := range card {
		card[v] = len(m.Vars[v].States)
	}
	return &brute{m: m, fs: m.Factors(), card: card}
}

// size returns the number of assignments of vars.
func (b *brute) size(vars []ir.VarID) int {
	n := 1
	for _, v := range vars {
		n *= b.card[v]
	}
	return n
}

// each calls fn with the log weight (ln Π φ) of every assignment
// consistent with obs (nil for none) and fix.
func (b *brute) each(obs []int, fix []ir.Obs, fn func(a []int, lw float64)) {
	a := make([]int, len(b.card))
	var rec func(v int)
	rec = func(v int) {
		if v == len(a) {
			lw := 0.0
			for _, f := range b.fs {
				off := 0
				for i, w := range f.Vars {
					off += a[w] * f.Stride[i]
				}
				lw += math.Log(f.Vals[off])
			}
			fn(a, lw)
			return
		}
		lo, hi := 0, b.card[v]
		if obs != nil && obs[v] >= 0 {
			lo, hi = obs[v], obs[v]+1
		}
		for _, o := range fix {
			if int(o.Var) == v {
				lo, hi = max(lo, o.State), min(hi, o.State+1)
			}
		}
		for s := lo; s < hi; s++ {
			a[v] = s
			rec(v + 1)
		}
	}
	rec(0)
}

// logSum returns ln Σ Π φ over the assignments consistent with obs and
// fix.
func (b *brute) logSum(obs []int, fix []ir.Obs) float64 {
	acc := math.Inf(-1)
	b.each(obs, fix, func(_ []int, lw float64) { acc = logAdd(acc, lw) })
	return acc
}

// logMax returns ln max over the states of vars of Σ Π φ over the
// assignments consistent with obs and those states.
func (b *brute) logMax(obs []int, vars []ir.VarID) float64 {
	sums := make(map[string]float64)
	b.each(obs, nil, func(a []int, lw float64) {
		key := ""
		for _, v := range vars {
			key += fmt.Sprint(a[v], ",")
		}
		if s, ok := sums[key]; ok {
			sums[key] = logAdd(s, lw)
		} else {
			sums[key] = lw
		}
	})
	best := math.Inf(-1)
	for _, s := range sums {
		best = math.Max(best, s)
	}
	return best
}

// logAdd returns ln(e^a + e^b).
func logAdd(a, b float64) float64 { return floats.LogSumExp([]float64{a, b}) }

// net describes a Bayesian network: each variable's states, parents and
// table (rows of the parents' configurations, first parent slowest).
type net struct {
	card    []int
	parents [][]int
	cpt     [][]float64
}

// model builds the network as the model of file name.pbl, variable Xv at
// line v+1.
func (s net) model(name string) (*ir.Model, error) {
	return testnet.Build(name+".pbl", s.card, s.parents, s.cpt, nil)
}

// randomNet returns a random network of n variables of 2 or 3 states,
// each with up to two parents among the earlier ones, and tables with
// some zeros.
func randomNet(rng *rand.Rand, n int) net {
	s := net{card: make([]int, n), parents: make([][]int, n), cpt: make([][]float64, n)}
	for v := range n {
		s.card[v] = 2 + rng.IntN(2)
		if v > 0 {
			for _, p := range rng.Perm(v)[:rng.IntN(min(v, 2)+1)] {
				s.parents[v] = append(s.parents[v], p)
			}
		}
		rows := 1
		for _, p := range s.parents[v] {
			rows *= s.card[p]
		}
		c := s.card[v]
		s.cpt[v] = make([]float64, rows*c)
		for r := range rows {
			row := s.cpt[v][r*c : (r+1)*c]
			sum := 0.0
			for i := range row {
				if rng.IntN(5) > 0 || i == 0 {
					row[i] = 0.05 + rng.Float64()
				}
				sum += row[i]
			}
			rest := 0.0
			for i := range row[:c-1] {
				row[i] /= sum
				rest += row[i]
			}
			row[c-1] = math.Max(0, 1-rest)
		}
	}
	return s
}

// markov returns a Markov network of n variables with random pairwise
// potentials, some zero, whose entries are 2^±span times a number in
// [0, 2): an engine must scale them to avoid over- and underflow.
func markov(rng *rand.Rand, name string, n int, span float64) (*ir.Model, error) {
	file := name + ".uai"
	b := ir.NewBuilder(file)
	for i := range n {
		b.AddVar(ir.Pos{File: file, Line: 1}, fmt.Sprintf("X%d", i), ir.Enum, []string{"0", "1", "2"}[:2+i%2], 0)
	}
	m := b.Model()
	for f := range n + 2 {
		u, v := f%n, (f*3+1)%n
		if u == v {
			v = (v + 1) % n
		}
		vars := []ir.VarID{ir.VarID(u), ir.VarID(v)}
		vals := make([]float64, len(m.Vars[u].States)*len(m.Vars[v].States))
		for i := range vals {
			if rng.IntN(8) > 0 {
				vals[i] = math.Ldexp(2*rng.Float64(), int(span*(2*rng.Float64()-1)))
			}
		}
		b.AddFactor(ir.Pos{File: file, Line: 2}, vars, vals)
	}
	return b.Finish()
}
