package infer

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/ir"
)

// This file holds the regression tests of the probability of evidence on
// Markov networks (normalised by Z, with Result.LogZ), of under- and
// overflow in every engine, and of answers above 1.

// markov builds a Markov network of binary variables X0..X(n-1) with the
// given factors.
func markov(t *testing.T, n int, factors ...struct {
	vars []ir.VarID
	vals []float64
}) *ir.Model {
	t.Helper()
	b := ir.NewBuilder("m.uai")
	for v := range n {
		b.AddVar(ir.Pos{File: "m.uai", Line: 1}, "X"+string(rune('0'+v)), ir.Enum, []string{"0", "1"}, 0)
	}
	for _, f := range factors {
		b.AddFactor(ir.Pos{File: "m.uai", Line: 2}, f.vars, f.vals)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type fac = struct {
	vars []ir.VarID
	vals []float64
}

// evidenceQuery is P(e) for the observations X_v = s.
func evidenceQuery(obs ...ir.Obs) ir.Query {
	return &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 1, Col: 1}}, Conditions: ir.Conditions{Evidence: obs}}
}

// TestMarkovPE: P(e) on a Markov network is Z(e)/Z, the probability, in
// every engine, and Result.LogZ is ln Z(e), finite where Z(e) overflows
// float64. An all-ones network of three variables answered P(X0=0) = 4
// (Z(e)); a factor of 1e308 gave NaN and +Inf from VE.
func TestMarkovPE(t *testing.T) {
	ones := markov(t, 3, fac{ids(0, 1, 2), []float64{1, 1, 1, 1, 1, 1, 1, 1}})
	huge := markov(t, 2, fac{ids(0, 1), []float64{1e308, 1e308, 1e308, 1e308}})
	skew := markov(t, 2, fac{ids(0), []float64{1e300, 3e300}}, fac{ids(0, 1), []float64{1e300, 1e300, 1e-300, 1}})
	tests := []struct {
		name  string
		m     *ir.Model
		ev    []ir.Obs
		p     float64 // P(e)
		logZe float64 // ln Z(e)
	}{
		{"ones", ones, []ir.Obs{{Var: 0, State: 0}}, 0.5, math.Log(4)},
		{"ones, two observed", ones, []ir.Obs{{Var: 0, State: 0}, {Var: 2, State: 1}}, 0.25, math.Log(2)},
		{"1e308", huge, []ir.Obs{{Var: 0, State: 0}}, 0.5, math.Log(2) + math.Log(1e308)},
		// Z(X0=0) = 1e300·(1e300+1e300), Z(X0=1) = 3e300·(1e-300+1).
		{"1e300 and 1e-300", skew, []ir.Obs{{Var: 0, State: 1}}, 3e300 / (2e600 + 3e300), math.Log(3e300)},
	}
	for _, tc := range tests {
		for _, e := range everyEngine {
			r, err := Answer(tc.m, evidenceQuery(tc.ev...), e.opt)
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, e.name, err)
			}
			if !relEqual(r.(*Evidence).P, tc.p, 1e-12) || !logClose(r.(*Evidence).LogZ, tc.logZe) || !logClose(r.(*Evidence).LogP, math.Log(tc.p)) {
				t.Errorf("%s, %s: P(e) = %v, LogP %v, LogZ %v; want %v, %v, %v", tc.name, e.name, r.(*Evidence).P, r.(*Evidence).LogP, r.(*Evidence).LogZ, tc.p, math.Log(tc.p), tc.logZe)
			}
		}
	}
	// The marginal of a variable of the 1e308 network is 0.5, not NaN.
	for _, e := range everyEngine {
		r, err := Answer(huge, &ir.ProbQuery{Targets: ids(0), TargetStates: []int{-1}}, e.opt)
		if err != nil || !relEqual(r.(*Table).Rows[0].P, 0.5, 1e-15) || !relEqual(r.(*Table).Rows[1].P, 0.5, 1e-15) {
			t.Errorf("%s: P(X0) on the 1e308 network = %v, %v", e.name, r, err)
		}
	}
}

// TestMarkovPEZero: a Markov network whose every assignment has weight 0
// has no distribution: P(e) is the impossible-evidence error, not 0/0.
func TestMarkovPEZero(t *testing.T) {
	m := markov(t, 2, fac{ids(0, 1), []float64{0, 0, 0, 0}})
	for _, e := range everyEngine {
		if _, err := Answer(m, evidenceQuery(ir.Obs{Var: 0, State: 1}), e.opt); !errors.Is(err, ErrImpossible) {
			t.Errorf("%s: got %v, want ErrImpossible", e.name, err)
		}
	}
}

// TestGrids12PE: on the UAI instance Grids_12, P(X0=0) is X0's marginal
// (it answered 3.8e+302, Z(e)), and ln Z without evidence is the .PR
// file's log10 Z times ln 10.
func TestGrids12PE(t *testing.T) {
	dir := corpus(t)
	m, err := uai.ReadFile(filepath.Join(dir, "uai", "Grids_12.uai"))
	if err != nil {
		t.Fatal(err)
	}
	marg, err := Answer(m, &ir.ProbQuery{Targets: ids(0), TargetStates: []int{-1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []testEngine{{"ve", Options{Engine: VE}}, {"jt", jtOpt}, {"auto", Options{}}} {
		r, err := Answer(m, evidenceQuery(ir.Obs{Var: 0, State: 0}), e.opt)
		if err != nil {
			t.Fatal(err)
		}
		if !relEqual(r.(*Evidence).P, marg.(*Table).Rows[0].P, 1e-12) || !(math.Abs(r.(*Evidence).P-0.3127) < 1e-4) {
			t.Errorf("%s: P(X0=0) = %v, want P(X0)[0] = %v", e.name, r.(*Evidence).P, marg.(*Table).Rows[0].P)
		}
		// Z(X0=0) = P(X0=0)·Z, and log10 Z = 303.086 (Grids_12.uai.PR).
		if got := (r.(*Evidence).LogZ - math.Log(r.(*Evidence).P)) / math.Ln10; !(math.Abs(got-303.086) <= 5e-4) {
			t.Errorf("%s: log10 Z = %v, want 303.086", e.name, got)
		}
	}
}

// fiveChildren is X with five children E0..E4 whose rows give E=true
// probability 1e-200 (X=true) and 2e-200 (X=false): the evidence that
// every E is true has probability 0.5·(1e-1000 + 32e-1000).
func fiveChildren(t *testing.T) *ir.Model {
	s := newSpec(6)
	s.card[0], s.cpt[0] = 2, []float64{0.5, 0.5}
	for v := 1; v <= 5; v++ {
		s.card[v], s.parents[v] = 2, []int{0}
		s.cpt[v] = []float64{1e-200, 1 - 1e-200, 2e-200, 1 - 2e-200}
	}
	return s.build(t)
}

// TestUnderflowEveryEngine: P(X | E0=s0, …, E4=s0) on fiveChildren is
// (1/33, 32/33) in every engine (VE answered "impossible evidence"), and
// P(e) is an underflow error carrying ln P(e), not 0.
func TestUnderflowEveryEngine(t *testing.T) {
	m := fiveChildren(t)
	var ev []ir.Obs
	for v := 1; v <= 5; v++ {
		ev = append(ev, ir.Obs{Var: ir.VarID(v), State: 0})
	}
	logPE := math.Log(16.5) - 1000*math.Ln10
	for _, e := range everyEngine {
		r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(0), TargetStates: []int{-1}}, e.opt)
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if !relEqual(r.(*Table).Rows[0].P, 1.0/33, 1e-12) || !relEqual(r.(*Table).Rows[1].P, 32.0/33, 1e-12) {
			t.Errorf("%s: P(X | e) = %v, %v; want 1/33, 32/33", e.name, r.(*Table).Rows[0].P, r.(*Table).Rows[1].P)
		}
		r, err = Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(0), TargetStates: []int{0}}, e.opt)
		if err != nil || !relEqual(r.(*Number).P, 1.0/33, 1e-12) {
			t.Errorf("%s: P(X=s0 | e) = %v, %v; want 1/33", e.name, r, err)
		}
		_, err = Answer(m, evidenceQuery(ev...), e.opt)
		var u *UnderflowError
		if !errors.As(err, &u) || !errors.Is(err, ErrUnderflow) || !logClose(u.LogP, logPE) || !logClose(u.LogZ, logPE) {
			t.Errorf("%s: P(e) gave %v, want an underflow with ln P(e) = %v", e.name, err, logPE)
		}
		if lp, err := LogPE(m, ev, e.opt); err != nil || !logClose(lp, logPE) {
			t.Errorf("%s: LogPE = %v, %v; want %v", e.name, lp, err, logPE)
		}
	}
}

// TestIncompatibleMaxima: the product of tables whose largest entries sit
// at different assignments falls below float64's range relative to each
// table's largest; every engine must still give the exact answer (the
// fast runs detect it and answer exactly). X has six children, three that
// make X=s0 1e300 times likelier and three that make X=s1 so.
func TestIncompatibleMaxima(t *testing.T) {
	s := newSpec(7)
	s.card[0], s.cpt[0] = 2, []float64{0.25, 0.75}
	for v := 1; v <= 6; v++ {
		s.card[v], s.parents[v] = 2, []int{0}
		if v <= 3 {
			s.cpt[v] = []float64{1, 0, 1e-300, 1 - 1e-300}
		} else {
			s.cpt[v] = []float64{1e-300, 1 - 1e-300, 1, 0}
		}
	}
	m := s.build(t)
	var ev []ir.Obs
	for v := 1; v <= 6; v++ {
		ev = append(ev, ir.Obs{Var: ir.VarID(v), State: 0})
	}
	for _, e := range everyEngine {
		r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(0), TargetStates: []int{-1}}, e.opt)
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if !relEqual(r.(*Table).Rows[0].P, 0.25, 1e-12) || !relEqual(r.(*Table).Rows[1].P, 0.75, 1e-12) {
			t.Errorf("%s: P(X | e) = %v, %v; want 0.25, 0.75", e.name, r.(*Table).Rows[0].P, r.(*Table).Rows[1].P)
		}
		st, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, e.opt)
		if err != nil || !relEqual(st.(*Marginals).Marginals[0].P[0], 0.25, 1e-12) {
			t.Errorf("%s: P(* | e) = %v, %v", e.name, st, err)
		}
		mpe, err := Answer(m, &ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}, e.opt)
		if err != nil || mpe.(*Assignment).Assignment[0].State != 1 || !relEqual(mpe.(*Assignment).P, 0.75, 1e-12) {
			t.Errorf("%s: MPE = %v, %v; want X=s1 with p 0.75", e.name, mpe, err)
		}
	}
	// Given the last three children, X=s0 has probability 3e-901: its
	// row is not "impossible", and holds its conditional.
	q := &ir.ProbQuery{Conditions: ir.Conditions{Free: ids(0), Evidence: ev[3:]}, Targets: ids(1), TargetStates: []int{-1}}
	for _, e := range everyEngine {
		r, err := Answer(m, q, e.opt)
		if err != nil || r.(*Table).Omitted != 0 || len(r.(*Table).Rows) != 4 {
			t.Fatalf("%s: %v, %v", e.name, r, err)
		}
		if r.(*Table).Rows[0].P != 1 || r.(*Table).Rows[1].P != 0 || !relEqual(r.(*Table).Rows[2].P, 1e-300, 1e-12) {
			t.Errorf("%s: P(X1 | X, e) rows %v", e.name, r.(*Table).Rows)
		}
	}
	// P(X=s0 | e) itself is 1e-900: 0 as a float64, with a finite LogP.
	for _, e := range everyEngine {
		r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev[3:]}, Targets: ids(0), TargetStates: []int{0}}, e.opt)
		if want := math.Log(0.25) - math.Log(0.75) - 900*math.Ln10; err != nil || r.(*Number).P != 0 || !logClose(r.(*Number).LogP, want) {
			t.Errorf("%s: P(X=s0 | e) = %v, %v; want 0 with LogP %v", e.name, r, err, want)
		}
	}
}

// TestNeverAboveOne: answers computed as the ratio of two sums taken apart
// (MPE's maximum over P(e), a Bayesian network's P(e) with rows summing to
// 1 + 1e-6 as written) never exceed 1.
func TestNeverAboveOne(t *testing.T) {
	// A deterministic chain: the MPE assignment has all the mass.
	s := newSpec(12)
	for v := range 12 {
		s.card[v] = 3
		if v == 0 {
			s.cpt[v] = []float64{0.1, 0.2, 0.7}
			continue
		}
		s.parents[v] = []int{v - 1}
		s.cpt[v] = []float64{0, 1, 0, 0, 0, 1, 1, 0, 0}
	}
	m := s.build(t)
	for _, e := range everyEngine {
		for st := range 3 {
			r, err := Answer(m, &ir.MPEQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 11, State: st}}}}, e.opt)
			if err != nil || !(r.(*Assignment).P <= 1) || !relEqual(r.(*Assignment).P, 1, 1e-15) || !(r.(*Assignment).LogP <= 0) {
				t.Errorf("%s: MPE p = %v, LogP %v, %v", e.name, r.(*Assignment).P, r.(*Assignment).LogP, err)
			}
		}
	}
	// Rows summing to 1+9e-7 as written: P(e) of an all-but-certain
	// observation stays at most 1.
	s = newSpec(2)
	s.card[0], s.cpt[0] = 2, []float64{1 - 1e-17, 1e-17 + 9e-7}
	s.card[1], s.parents[1], s.cpt[1] = 2, []int{0}, []float64{1, 9e-7, 0.5, 0.5 + 9e-7}
	m = s.build(t)
	for _, e := range everyEngine {
		r, err := Answer(m, evidenceQuery(ir.Obs{Var: 1, State: 0}), e.opt)
		if err != nil || !(r.(*Evidence).P <= 1) || !(r.(*Evidence).LogP <= 0) {
			t.Errorf("%s: P(e) = %v, %v", e.name, r, err)
		}
	}
}
