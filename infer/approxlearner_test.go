package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// randomPolytree returns a random Bayesian network over n variables of 2
// or 3 states whose undirected graph has no cycle: each variable's
// parents (up to maxPar) come from distinct connected components of the
// earlier ones, so that the factor graph of its tables is a tree (or a
// forest), on which loopy belief propagation is exact.
func randomPolytree(rng *rand.Rand, n, maxPar int) netSpec {
	s := newSpec(n)
	comp := make([]int, n)
	for v := range n {
		comp[v] = v
		s.card[v] = 2 + rng.IntN(2)
		seen := map[int]bool{}
		for _, p := range rng.Perm(max(1, v))[:rng.IntN(min(v, maxPar)+1)] {
			if seen[comp[p]] {
				continue
			}
			seen[comp[p]] = true
			s.parents[v] = append(s.parents[v], p)
		}
		for _, p := range s.parents[v] {
			old := comp[p]
			for u := range v {
				if comp[u] == old {
					comp[u] = v
				}
			}
		}
		s.randomTable(rng, v, false)
	}
	return s
}

// bruteFamiliesLik returns, by enumeration, the posterior of every
// variable's family given obs (laid out as its table), the posterior of
// each potential's scope, and ln Σ_{x ⊨ obs} Π φ(x) Π_j lik_j(x) for the
// likelihoods lik in the model's potentials (nil: ones).
func bruteFamiliesLik(m *ir.Model, obs []int, lik [][]float64) (fam, post [][]float64, logp float64) {
	card := cards(m)
	n := 1
	for _, c := range card {
		n *= c
	}
	fam = make([][]float64, len(m.Vars))
	for v := range fam {
		fam[v] = make([]float64, len(m.Factor(ir.VarID(v)).Vals))
	}
	post = make([][]float64, len(m.Potentials))
	for j, p := range m.Potentials {
		post[j] = make([]float64, len(p.Vals))
	}
	a := make([]int, len(card))
	z := 0.0
	for i := range n {
		decode(a, card, i)
		ok := true
		for v, s := range obs {
			ok = ok && (s < 0 || a[v] == s)
		}
		if !ok {
			continue
		}
		p := 1.0
		for v := range m.Vars {
			f := m.Factor(ir.VarID(v))
			p *= f.Vals[offset(f, a)]
		}
		for j, l := range lik {
			if l != nil {
				p *= l[offset(m.Potentials[j], a)]
			}
		}
		z += p
		for v := range m.Vars {
			fam[v][offset(m.Factor(ir.VarID(v)), a)] += p
		}
		for j, q := range m.Potentials {
			post[j][offset(q, a)] += p
		}
	}
	for _, t := range append(fam, post...) {
		for i := range t {
			t[i] /= z
		}
	}
	return fam, post, math.Log(z)
}

// TestApproxLearnerTree: on polytrees, where belief propagation is exact,
// the approximate learner's family posteriors and log-likelihoods (Expect,
// rows grouped and weighted) and its slots' posteriors (ExpectLik, with
// likelihoods in slots over single variables, which keep the graph a
// tree) equal enumeration's to 1e-8 (propagation stops when no message
// moves by more than 1e-9).
func TestApproxLearnerTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	for k := range 40 {
		s := randomPolytree(rng, 3+rng.IntN(6), 3)
		m := s.build(t)
		card := cards(m)
		name := fmt.Sprintf("net %d", k)
		l, err := CompileApproxLearner(m, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows := [][]int{randomObs(rng, card, 1.0/3), randomObs(rng, card, 1.0/3), nil}
		rows[2] = rows[0]
		weights := []float64{1.5, 0.25, 2}
		acc := make([][]float64, len(m.Vars))
		for v := range acc {
			acc[v] = make([]float64, len(m.Factor(ir.VarID(v)).Vals))
		}
		st, err := l.Expect(rows, weights, acc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := make([][]float64, len(m.Vars))
		for v := range want {
			want[v] = make([]float64, len(acc[v]))
		}
		wantLL := 0.0
		for r, row := range rows {
			fam, _, lp := bruteFamiliesLik(m, row, nil)
			wantLL += weights[r] * lp
			for v := range fam {
				for i, x := range fam[v] {
					want[v][i] += weights[r] * x
				}
			}
		}
		if st.Rows != 3 || st.Impossible != 0 || !(math.Abs(st.LogLik-wantLL) <= 1e-8*max(1, math.Abs(wantLL))) {
			t.Errorf("%s: %+v, want 3 rows and log-likelihood %v", name, st, wantLL)
		}
		for v := range want {
			for i := range want[v] {
				if !(math.Abs(acc[v][i]-want[v][i]) <= 1e-8) {
					t.Fatalf("%s: family of X%d entry %d: %v, want %v", name, v, i, acc[v][i], want[v][i])
				}
			}
		}
		if eng, stuck := l.Approximate(); eng != LearnerEngine || stuck != 0 {
			t.Errorf("%s: Approximate() = %q, %d; want %q, 0 (a tree converges)", name, eng, stuck, LearnerEngine)
		}

		// Slots over single variables, with likelihoods.
		var scopes [][]ir.VarID
		for _, v := range rng.Perm(len(m.Vars))[:1+rng.IntN(2)] {
			scopes = append(scopes, []ir.VarID{ir.VarID(v)})
		}
		ms := LikelihoodSlots(m, scopes)
		ls, err := CompileApproxLearner(ms, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		row := LikRow{Obs: randomObs(rng, card, 1.0/3), Weight: 1, Lik: make([][]float64, len(ms.Potentials))}
		for j, p := range ms.Potentials {
			if j == 0 || rng.IntN(2) == 0 {
				row.Lik[j] = make([]float64, len(p.Vals))
				for i := range row.Lik[j] {
					row.Lik[j][i] = math.Exp(-50 * rng.Float64()) // far tails too
				}
			}
		}
		acc2 := make([][]float64, len(m.Vars))
		for v := range acc2 {
			acc2[v] = make([]float64, len(acc[v]))
		}
		post := [][][]float64{make([][]float64, len(ms.Potentials))}
		for j, p := range ms.Potentials {
			post[0][j] = make([]float64, len(p.Vals))
		}
		logp := make([]float64, 1)
		if _, err := ls.ExpectLik([]LikRow{row}, acc2, post, logp); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fam, wpost, lp := bruteFamiliesLik(ms, row.Obs, row.Lik)
		if !(math.Abs(logp[0]-lp) <= 1e-8*max(1, math.Abs(lp))) {
			t.Errorf("%s, slots: log-likelihood %v, want %v", name, logp[0], lp)
		}
		for v := range fam {
			for i := range fam[v] {
				if !(math.Abs(acc2[v][i]-fam[v][i]) <= 1e-8) {
					t.Fatalf("%s, slots: family of X%d entry %d: %v, want %v", name, v, i, acc2[v][i], fam[v][i])
				}
			}
		}
		for j := range wpost {
			for i := range wpost[j] {
				if !(math.Abs(post[0][j][i]-wpost[j][i]) <= 1e-8) {
					t.Fatalf("%s, slots: slot %d entry %d: %v, want %v", name, j, i, post[0][j][i], wpost[j][i])
				}
			}
		}
	}
}

// TestApproxLearnerLoopy: on networks with cycles, belief propagation is
// approximate, but at a fixed point its beliefs are consistent: the
// posterior of a variable's family and those of its children's families
// give the variable the same marginal (to 1e-6, rows that converged), each
// posterior is a distribution, and the log-likelihood is finite. An
// impossible row (a deterministic table contradicted) is counted, not an
// error.
func TestApproxLearnerLoopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for k := range 30 {
		s := randomNet(rng, 4+rng.IntN(5), 3, 3, false)
		m := s.build(t)
		card := cards(m)
		name := fmt.Sprintf("net %d", k)
		l, err := CompileApproxLearner(m, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		row := randomObs(rng, card, 1.0/3)
		acc := make([][]float64, len(m.Vars))
		for v := range acc {
			acc[v] = make([]float64, len(m.Factor(ir.VarID(v)).Vals))
		}
		st, err := l.Expect([][]int{row}, nil, acc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Rows != 1 || math.IsNaN(st.LogLik) || math.IsInf(st.LogLik, 0) || st.LogLik > 1e-12 {
			t.Fatalf("%s: %+v", name, st)
		}
		_, stuck := l.Approximate()
		marg := func(f *ir.Factor, b []float64, v ir.VarID) []float64 {
			out := make([]float64, card[v])
			a := make([]int, len(card))
			for i, x := range b {
				for k, u := range f.Vars {
					a[u] = (i / f.Stride[k]) % f.Card[k]
				}
				out[a[v]] += x
			}
			return out
		}
		for v := range m.Vars {
			sum := 0.0
			for _, x := range acc[v] {
				sum += x
			}
			if !(math.Abs(sum-1) <= 1e-9) {
				t.Errorf("%s: the family of X%d sums to %v", name, v, sum)
			}
			if stuck > 0 {
				continue
			}
			own := marg(m.Factor(ir.VarID(v)), acc[v], ir.VarID(v))
			for c := range m.Vars {
				f := m.Factor(ir.VarID(c))
				for _, u := range f.Vars[:len(f.Vars)-1] {
					if u != ir.VarID(v) {
						continue
					}
					other := marg(f, acc[c], ir.VarID(v))
					for x := range own {
						if !(math.Abs(own[x]-other[x]) <= 1e-6) {
							t.Errorf("%s: X%d's marginal %v from its family, %v from X%d's", name, v, own, other, c)
						}
					}
				}
			}
		}
	}
	// An impossible row: B copies A.
	s := newSpec(2)
	s.card = []int{2, 2}
	s.parents[1] = []int{0}
	s.cpt[0] = []float64{0.5, 0.5}
	s.cpt[1] = []float64{1, 0, 0, 1}
	m := s.build(t)
	l, err := CompileApproxLearner(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	acc := [][]float64{make([]float64, 2), make([]float64, 4)}
	st, err := l.Expect([][]int{{0, 1}, {0, -1}}, nil, acc)
	if err != nil || st.Impossible != 1 || st.Rows != 1 || !(math.Abs(st.LogLik-math.Log(0.5)) <= 1e-12) {
		t.Errorf("impossible row: %+v, %v; want 1 row of ln 0.5 and 1 impossible", st, err)
	}
}

// TestApproxLearnerRefuses: a Markov network (a variable without a
// table) and a potential that is not a slot of ones are refused.
func TestApproxLearnerRefuses(t *testing.T) {
	if _, err := CompileApproxLearner(randomMarkov(t, rand.New(rand.NewPCG(1, 1)), 3), Options{}); err == nil {
		t.Error("a Markov network: no error")
	}
}
