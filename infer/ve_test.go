package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestUnderflowChain: on a chain of 2000 variables every engine gives a
// P(e) near the smallest normal float64 with its log to 1e-12, refuses one
// below it with an error that gives ln P(e), and answers posteriors and
// MPE under that evidence.
func TestUnderflowChain(t *testing.T) {
	const n = 2000
	m := chainNet(n, 0.9).build(t)
	same := make([]ir.Obs, n)
	for v := range n {
		same[v] = ir.Obs{Var: ir.VarID(v), State: 0}
	}
	alt := alternating(n)
	for _, e := range everyEngine {
		// P(all s0) = 0.5·0.9^1999 ≈ e^-211: small but a normal float64.
		r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: same}}, e.opt)
		wantLog := math.Log(0.5) + (n-1)*math.Log(0.9)
		if err != nil || !(r.(*Evidence).P > 0) || !equal(r.(*Evidence).LogP, wantLog, 1e-12) || !equal(r.(*Evidence).P, math.Exp(wantLog), 1e-10) {
			t.Errorf("%s: P(e) = %v (ln %v), %v; want exp(%v)", e.name, r.(*Evidence).P, r.(*Evidence).LogP, err, wantLog)
		}
		// Alternating states: P(e) = 0.5·0.1^1999 ≈ e^-4603, below every
		// float64. That is an error giving the log, not a silent 0.
		_, err = Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: alt}}, e.opt)
		var ie *ir.Error
		if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "underflows") || !strings.Contains(ie.Msg, "-4603.") {
			t.Errorf("%s: P(alternating) gave %v; want an underflow error with ln P ≈ -4603", e.name, err)
		}
		// Posteriors under that evidence are fine: with X1000 unobserved
		// between two observed s1 neighbours, P(X1000=s1 | e) = 0.81/0.82.
		ev := append(append([]ir.Obs(nil), alt[:1000]...), alt[1001:]...)
		r, err = Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(1000), TargetStates: []int{1}}, e.opt)
		// X999 and X1001 are both in state 1 (odd), so X1000 = 1 is favoured.
		if err != nil || !equal(r.(*Number).P, 0.81/0.82, 1e-12) {
			t.Errorf("%s: P(X1000=s1 | e) = %v, %v; want %v", e.name, r, err, 0.81/0.82)
		}
		// MPE fills X1000 in, with P = 0.81/0.82.
		r, err = Answer(m, &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}, e.opt)
		if err != nil || len(r.(*Assignment).Assignment) != 1 || r.(*Assignment).Assignment[0].State != 1 || !equal(r.(*Assignment).P, 0.81/0.82, 1e-12) {
			t.Errorf("%s: MPE = %v, %v", e.name, r, err)
		}
	}
}

func TestMaxTable(t *testing.T) {
	// Ten roots X0..X9 and a child X10 of all of them. P(X0 | X10=s0)
	// must eliminate X1..X9, whose tables reach 2^9 entries.
	s := fanIn(11)
	s.randomTable(rand.New(rand.NewPCG(1, 1)), 10, false)
	m := s.build(t)
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 2, Col: 1}}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 10, State: 0}}}, Targets: ids(0), TargetStates: []int{-1}}
	_, err := Answer(m, q, Options{MaxTable: 100})
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 100") || !strings.Contains(err.Error(), "X0") {
		t.Errorf("got %v, want a table-size error", err)
	}
	if _, err := Answer(m, q, Options{MaxTable: 1 << 9}); err != nil {
		t.Errorf("with MaxTable 512: %v", err)
	}
	// The final table over the query variables is checked too.
	q2 := &ir.ProbQuery{Targets: ids(0, 1, 2, 3, 4, 5, 6, 7), TargetStates: make([]int, 8)}
	for i := range q2.TargetStates {
		q2.TargetStates[i] = -1
	}
	_, err = Answer(m, q2, Options{MaxTable: 255})
	if err == nil || !strings.Contains(err.Error(), "256 entries") {
		t.Errorf("got %v, want a table-size error for 256 entries", err)
	}
}

func TestVEPrunesBarren(t *testing.T) {
	// A binary chain of 30 variables whose last has 13 parents: P(X3)
	// needs nothing below X3.
	// With pruning the tables stay tiny even with MaxTable 4.
	rng := rand.New(rand.NewPCG(1, 1))
	s := chainNet(30, 0.7)
	s.parents[29] = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	s.randomTable(rng, 29, false)
	m := s.build(t)
	r, err := Answer(m, &ir.ProbQuery{Targets: ids(3), TargetStates: []int{-1}}, Options{MaxTable: 4})
	if err != nil || !equal(r.(*Table).Rows[0].P, 0.5, 1e-15) {
		t.Errorf("P(X3) = %+v, %v", r, err)
	}
}

func TestVELargerNets(t *testing.T) {
	// VE's two orders agree on nets too big for enumeration.
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 5; trial++ {
		spec := localNet(rng, 100, 3, 8)
		q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: randomStates(rng, spec.card, 10)}, Star: true}
		a := agree(t, spec.build(t), q, Options{Order: MinFill}, Options{Order: MinWeight}, fmt.Sprintf("trial %d", trial))
		for _, mg := range a.(*Marginals).Marginals {
			sum := 0.0
			for _, p := range mg.P {
				sum += p
			}
			if !equal(sum, 1, 1e-12) {
				t.Fatalf("marginal of %d sums to %v", mg.Var, sum)
			}
		}
	}
}

func benchVE(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(1, 1))
	spec := localNet(rng, n, 3, 8)
	m := spec.build(b)
	q := &ir.ProbQuery{Targets: ids(n / 2), TargetStates: []int{-1}}
	for _, v := range rng.Perm(n)[:n/10] {
		if v != n/2 {
			q.Evidence = append(q.Evidence, ir.Obs{Var: ir.VarID(v), State: rng.IntN(spec.card[v])})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Answer(m, q, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVE(b *testing.B) {
	for _, n := range []int{50, 200, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchVE(b, n) })
	}
}

func BenchmarkVEMarginals200(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	spec := localNet(rng, 200, 3, 8)
	m := spec.build(b)
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 199, State: 0}}}, Star: true}
	for b.Loop() {
		if _, err := Answer(m, q, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
