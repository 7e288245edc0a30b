package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// bruteFamilies returns P(family_v | e) for every variable with a family,
// and ln P(e), from the full joint (independently of the engines).
func bruteFamilies(m *ir.Model, obs []int) ([][]float64, float64) {
	joint, card := bruteJoint(m)
	out := allFamilies(m)
	pe := 0.0
	for a, p := range jointGiven(joint, card, obsList(obs)) {
		pe += p
		for v, d := range out {
			if d != nil {
				d[offset(m.Factor(ir.VarID(v)), a)] += p
			}
		}
	}
	for _, d := range out {
		for i := range d {
			d[i] /= pe
		}
	}
	return out, math.Log(pe)
}

// veFamily returns P(family_v | e) from VE: the table of the family's
// unobserved members given e, spread over the family's layout.
func veFamily(t *testing.T, m *ir.Model, v int, obs []int) []float64 {
	f := m.Factor(ir.VarID(v))
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: obsList(obs)}}
	for _, w := range f.Vars {
		if obs[w] < 0 {
			q.Targets = append(q.Targets, w)
			q.TargetStates = append(q.TargetStates, -1)
		}
	}
	out := make([]float64, len(f.Vals))
	a := make([]int, len(m.Vars))
	copy(a, obs)
	if len(q.Targets) == 0 {
		out[f.Index(pick(a, f.Vars))] = 1
		return out
	}
	r, err := Answer(m, q, Options{Engine: VE})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.(*Table).Rows {
		for k, w := range q.Targets {
			a[w] = row.Values[k]
		}
		out[f.Index(pick(a, f.Vars))] = row.P
	}
	return out
}

// pick returns a's states of vs.
func pick(a []int, vs []ir.VarID) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = a[v]
	}
	return out
}

// randomObs observes each variable with probability p at a random state
// (so that, on networks with zeros, some evidence is impossible).
func randomObs(rng *rand.Rand, card []int, p float64) []int {
	obs := make([]int, len(card))
	for v := range obs {
		obs[v] = -1
		if rng.Float64() < p {
			obs[v] = rng.IntN(card[v])
		}
	}
	return obs
}

// obsRow returns the observations of ev as a data row over n variables,
// indexed by VarID, -1 where a variable is not observed (obsList's inverse).
func obsRow(n int, ev []ir.Obs) []int {
	row := make([]int, n)
	for v := range row {
		row[v] = -1
	}
	for _, o := range ev {
		row[o.Var] = o.State
	}
	return row
}

// allFamilies returns a dst for Families with a table for every family.
func allFamilies(m *ir.Model) [][]float64 {
	dst := make([][]float64, len(m.Vars))
	for v := range dst {
		if f := m.Factor(ir.VarID(v)); f != nil {
			dst[v] = make([]float64, len(f.Vals))
		}
	}
	return dst
}

// TestFamiliesBrute: on random Bayesian networks, with random evidence
// (on family members too), Families gives P(family | e) and ln P(e) of
// the full joint to 1e-12, on compiled trees and on trees derived with
// WithModel, and impossible evidence is an ErrImpossible error.
func TestFamiliesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	checked, impossibles := 0, 0
	for net := range raceFewer(60, 20) {
		spec := randomNet(rng, 3+rng.IntN(7), 4, 3, net%3 == 0)
		m := spec.build(t)
		jt := mustCompile(t, m)
		if net%2 == 1 {
			// The same questions on a tree derived from another model.
			var err error
			if jt, err = mustCompile(t, spec.renumber(rng, false).build(t)).WithModel(m); err != nil {
				t.Fatal(err)
			}
		}
		for range 8 {
			obs := randomObs(rng, spec.card, 0.3)
			want, wantLog := bruteFamilies(m, obs)
			dst := allFamilies(m)
			// Leave some families out: they must stay nil and untouched.
			skip := rng.IntN(len(dst))
			dst[skip] = nil
			logPE, err := jt.Families(obs, dst)
			if math.IsInf(wantLog, -1) {
				var ie *ir.Error
				if !errors.Is(err, ErrImpossible) || !errors.As(err, &ie) || ie.Pos.File != "test.pbl" ||
					!strings.HasPrefix(ie.Msg, "impossible evidence: P(") || !math.IsInf(logPE, -1) {
					t.Fatalf("net %d, evidence %v: got %v, %v; want ErrImpossible", net, obs, logPE, err)
				}
				impossibles++
				continue
			}
			if err != nil || !equal(logPE, wantLog, 1e-12) {
				t.Fatalf("net %d, evidence %v: ln P(e) = %v, %v; want %v", net, obs, logPE, err, wantLog)
			}
			for v, d := range dst {
				if v == skip {
					continue
				}
				for i := range d {
					if !equal(d[i], want[v][i], 1e-12) {
						t.Fatalf("net %d, evidence %v: P(family of X%d entry %d | e) = %v, want %v", net, obs, v, i, d[i], want[v][i])
					}
				}
				checked++
			}
		}
	}
	t.Logf("%d families checked, %d impossible evidence sets", checked, impossibles)
	if impossibles == 0 {
		t.Error("no evidence was impossible; the error path is untested")
	}
}

// TestFamiliesVE: on networks too large for the full joint, Families
// agrees with VE's table of the unobserved family members.
func TestFamiliesVE(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	for trial := range 4 {
		spec := localNet(rng, 80, 3, 6)
		m := spec.build(t)
		jt := mustCompile(t, m)
		obs := randomObs(rng, spec.card, 0.1)
		dst := allFamilies(m)
		logPE, err := jt.Families(obs, dst)
		if err != nil {
			t.Fatal(err)
		}
		pe, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: obsList(obs)}}, Options{Engine: VE})
		if err != nil || !equal(logPE, pe.(*Evidence).LogP, 1e-12) {
			t.Fatalf("trial %d: ln P(e) = %v, VE %v (%v)", trial, logPE, pe, err)
		}
		for _, v := range rng.Perm(len(dst))[:20] {
			want := veFamily(t, m, v, obs)
			for i := range want {
				if !equal(dst[v][i], want[i], 1e-12) {
					t.Fatalf("trial %d: P(family of X%d entry %d | e) = %v, VE %v", trial, v, i, dst[v][i], want[i])
				}
			}
		}
	}
}

// TestExpect: Expect over rows with repeated evidence (grouped) adds what
// one call per row adds, and what Families gives row by row, to 1e-12;
// its log-likelihood is Σ w ln P(row); impossible rows are skipped and
// counted, not errors.
func TestExpect(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 43))
	totalImpossible := 0
	for net := range 40 {
		spec := randomNet(rng, 3+rng.IntN(7), 4, 3, net%2 == 0)
		m := spec.build(t)
		jt := mustCompile(t, m)
		// Rows drawn from a few evidence patterns, so that groups form.
		pool := make([][]int, 1+rng.IntN(6))
		for i := range pool {
			pool[i] = randomObs(rng, spec.card, 0.4)
		}
		rows := make([][]int, 30)
		weights := make([]float64, len(rows))
		for r := range rows {
			rows[r] = append([]int(nil), pool[rng.IntN(len(pool))]...)
			weights[r] = rng.Float64() * 3
		}
		if net%5 == 0 {
			weights = nil
		}
		w := func(r int) float64 {
			if weights == nil {
				return 1
			}
			return weights[r]
		}
		grouped := allFamilies(m)
		st, err := jt.Expect(rows, weights, grouped)
		if err != nil {
			t.Fatal(err)
		}
		single := allFamilies(m)
		byFam := allFamilies(m)
		var want ExpectStats
		for r, row := range rows {
			s1, err := jt.Expect([][]int{row}, []float64{w(r)}, single)
			if err != nil {
				t.Fatal(err)
			}
			want.Rows += s1.Rows
			want.Impossible += s1.Impossible
			want.LogLik += s1.LogLik
			dst := allFamilies(m)
			logPE, err := jt.Families(row, dst)
			if errors.Is(err, ErrImpossible) {
				if s1.Impossible != 1 || s1.Rows != 0 || s1.LogLik != 0 {
					t.Fatalf("net %d, row %d: impossible, Expect says %+v", net, r, s1)
				}
				continue
			}
			if err != nil || s1.Rows != 1 || !equal(s1.LogLik, w(r)*logPE, 1e-12) {
				t.Fatalf("net %d, row %d: Expect %+v, Families ln P %v, %v", net, r, s1, logPE, err)
			}
			for v, d := range dst {
				for i, x := range d {
					byFam[v][i] += w(r) * x
				}
			}
		}
		totalImpossible += want.Impossible
		if st.Rows != want.Rows || st.Impossible != want.Impossible || st.Rows+st.Impossible != len(rows) || !equal(st.LogLik, want.LogLik, 1e-12) {
			t.Fatalf("net %d: grouped %+v, one by one %+v", net, st, want)
		}
		for v := range grouped {
			for i := range grouped[v] {
				if !equal(grouped[v][i], single[v][i], 1e-12) || !equal(grouped[v][i], byFam[v][i], 1e-12) {
					t.Fatalf("net %d: acc[X%d][%d]: grouped %v, one by one %v, Families %v", net, v, i, grouped[v][i], single[v][i], byFam[v][i])
				}
			}
		}
	}
	if totalImpossible == 0 {
		t.Error("no row was impossible; that path is untested")
	}
}

// TestExpectChain: the expected counts of a small chain, worked by hand,
// and a bad weight is an error that adds nothing.
func TestExpectChain(t *testing.T) {
	m := chainNet(5, 0.8).build(t)
	jt := mustCompile(t, m)
	a := []int{0, -1, -1, 1, -1}
	b := []int{-1, 1, -1, -1, -1}
	rows := [][]int{a, b, a, a, b, a}
	acc := allFamilies(m)
	st, err := jt.Expect(rows, nil, acc)
	if err != nil || st.Rows != 6 || st.Impossible != 0 {
		t.Fatalf("Expect: %+v, %v", st, err)
	}
	// The family of X0 is X0 alone: P(X0=s0 | a) = 1, P(X0=s0 | b) =
	// P(X1=s1 | X0=s0)·0.5 / P(X1=s1) = 0.2·0.5 / 0.5.
	if !equal(acc[0][0], 4+2*0.2, 1e-12) || !equal(acc[0][1], 2*0.8, 1e-12) {
		t.Errorf("acc[X0] = %v, want [4.4 1.6]", acc[0])
	}
	// The family of X1 is (X0, X1). Under a, P(X1=x | X0=s0, X3=s1) is
	// proportional to P(x | s0)·P(X3=s1 | x), with P(X3≠X1) = 2·0.8·0.2.
	p0 := 0.8 * 0.32 / (0.8*0.32 + 0.2*0.68)
	if want := []float64{4 * p0, 4*(1-p0) + 2*0.2, 0, 2 * 0.8}; !equal(acc[1][0], want[0], 1e-12) ||
		!equal(acc[1][1], want[1], 1e-12) || acc[1][2] != 0 || !equal(acc[1][3], want[3], 1e-12) {
		t.Errorf("acc[X1] = %v, want %v", acc[1], want)
	}
	before := fmt.Sprint(acc)
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		ws := []float64{1, 1, 1, 1, 1, bad}
		if _, err := jt.Expect(rows, ws, acc); err == nil || !strings.Contains(err.Error(), "row 6") {
			t.Errorf("weight %v: got %v, want an error naming row 6", bad, err)
		}
	}
	if fmt.Sprint(acc) != before {
		t.Errorf("a refused call changed acc")
	}
}

// TestFamiliesPanics: malformed arguments are programmer errors.
func TestFamiliesPanics(t *testing.T) {
	b := ir.NewBuilder("real.pbl")
	a, _ := b.AddVar(ir.Pos{}, "A", ir.Bool, nil, 0)
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Real, nil, 0)
	b.SetCPT(ir.Pos{}, a, nil, []float64{0.3, 0.7}, nil)
	_ = x
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	jt := mustCompile(t, m)
	tests := []struct {
		name string
		fn   func()
		want string
	}{
		{"short obs", func() { jt.Families([]int{-1}, make([][]float64, 2)) }, "evidence for 1 variables"},
		{"state", func() { jt.Families([]int{2, -1}, make([][]float64, 2)) }, "state 2 of A is out of range"},
		{"real", func() { jt.Families([]int{-1, 0}, make([][]float64, 2)) }, "X is real-valued"},
		{"dst length", func() { jt.Families([]int{-1, -1}, [][]float64{make([]float64, 3), nil}) }, "a table of 3 entries for the family of A, which has 2"},
		{"no family", func() { jt.Families([]int{-1, -1}, [][]float64{nil, make([]float64, 1)}) }, "for the family of X"},
		{"short dst", func() { jt.Families([]int{-1, -1}, nil) }, "0 family tables for 2 variables"},
		{"weights", func() { jt.Expect([][]int{{-1, -1}}, []float64{1, 2}, make([][]float64, 2)) }, "2 weights for 1 rows"},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "infer: ") || !strings.Contains(s, tt.want) {
					t.Errorf("%s: panic %v, want one with %q", tt.name, r, tt.want)
				}
			}()
			tt.fn()
		}()
	}
}

// TestJTConcurrentFamilies: Expect, Families and Answer run at once on one
// shared tree (run with -race) and give the answers they give alone.
func TestJTConcurrentFamilies(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 44))
	spec := localNet(rng, 40, 3, 6)
	m := spec.build(t)
	jt := mustCompile(t, m)
	rows := make([][]int, 50)
	for r := range rows {
		rows[r] = randomObs(rng, spec.card, 0.2)
	}
	wantAcc := allFamilies(m)
	wantSt, err := jt.Expect(rows, nil, wantAcc)
	if err != nil {
		t.Fatal(err)
	}
	wantFam := allFamilies(m)
	wantLog, err := jt.Families(rows[0], wantFam)
	if err != nil {
		t.Fatal(err)
	}
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: obsList(rows[1])}, Star: true}
	wantAns, err := jt.Answer(q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 12)
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				switch g % 3 {
				case 0:
					acc := allFamilies(m)
					st, err := jt.Expect(rows, nil, acc)
					if err != nil || st != wantSt || fmt.Sprint(acc) != fmt.Sprint(wantAcc) {
						errs <- fmt.Sprintf("Expect: %+v, %v", st, err)
						return
					}
				case 1:
					dst := allFamilies(m)
					logPE, err := jt.Families(rows[0], dst)
					if err != nil || logPE != wantLog || fmt.Sprint(dst) != fmt.Sprint(wantFam) {
						errs <- fmt.Sprintf("Families: %v, %v", logPE, err)
						return
					}
				case 2:
					r, err := jt.Answer(q, Options{})
					if err != nil || sameResultRel(wantAns, r, 0) != "" {
						errs <- fmt.Sprintf("Answer: %v", err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// BenchmarkJTFamilies measures one evidence update (five observed
// variables) and the posterior of every family, on a compiled tree,
// single-threaded.
func BenchmarkJTFamilies(b *testing.B) {
	for _, name := range []string{"alarm", "hepar2"} {
		b.Run(name, func(b *testing.B) {
			jt := compiledCorpus(b, name)
			var obs [][]int
			for _, ev := range benchEvidence(jt.m) {
				obs = append(obs, obsRow(len(jt.m.Vars), ev))
			}
			dst := allFamilies(jt.m)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// Alternate evidence sets so that every iteration
				// recalibrates.
				if _, err := jt.Families(obs[i%len(obs)], dst); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkJTExpect measures the E-step over 1000 rows of alarm sampled
// with 30% of the cells missing (each row its own evidence), per row.
func BenchmarkJTExpect(b *testing.B) {
	jt := compiledCorpus(b, "alarm")
	m := jt.m
	rng := rand.New(rand.NewPCG(6, 6))
	rows := make([][]int, 1000)
	for r := range rows {
		rows[r] = obsRow(len(m.Vars), randomEvidence(rng, m, len(m.Vars)*7/10))
	}
	acc := allFamilies(m)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jt.Expect(rows, nil, acc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
}

// TestExpectLostDigits: where a clique's initial product falls below
// float64's normal range (1e-200 · 1e-200), Expect answers by exact
// elimination: given Y = t and Z = t, P(X = a) = 1/3 (P(Y=t | a) is half
// P(Y=t | b)), and ln P(row) is ln(0.5 · 3e-400).
func TestExpectLostDigits(t *testing.T) {
	b := ir.NewBuilder("lost")
	pos := ir.Pos{File: "lost", Line: 1, Col: 1}
	states := []string{"t", "f"}
	x, _ := b.AddVar(pos, "X", ir.Enum, []string{"a", "b"}, 0)
	y, _ := b.AddVar(pos, "Y", ir.Enum, states, 0)
	z, _ := b.AddVar(pos, "Z", ir.Enum, states, 0)
	b.SetCPT(pos, x, nil, []float64{0.5, 0.5}, nil)
	b.SetCPT(pos, y, []ir.VarID{x}, []float64{1e-200, 1 - 1e-200, 2e-200, 1 - 2e-200}, nil)
	zt := []float64{}
	for range 4 {
		zt = append(zt, 1e-200, 1-1e-200)
	}
	b.SetCPT(pos, z, []ir.VarID{x, y}, zt, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	jt := mustCompile(t, m)
	row := []int{-1, 0, 0}
	acc := make([][]float64, len(m.Vars))
	acc[x] = make([]float64, 2)
	st, err := jt.Expect([][]int{row, row}, []float64{1, 2}, acc)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 2 || !equal(acc[x][0], 1, 1e-12) || !equal(acc[x][1], 2, 1e-12) {
		t.Errorf("rows %d, counts of X %v; want 2, [1, 2] (3 rows × 1/3, 2/3)", st.Rows, acc[x])
	}
	lp := math.Log(0.5) + math.Log(3) - 400*math.Ln10
	if !equal(st.LogLik, 3*lp, 1e-12) {
		t.Errorf("log-likelihood %v, want %v", st.LogLik, 3*lp)
	}
}
