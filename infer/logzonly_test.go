package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestMarkovPEAuto: P(e) of random Markov networks by the Auto engine
// (the planner's variable elimination, whose plan is for the evidence:
// Z without the evidence must not use it), and under Options.LogZOnly,
// against enumeration of every assignment: ln Z_e, ln P(e) = ln Z_e − ln
// Z, and, under LogZOnly, ln Z_e alone with P and LogP NaN (not known).
// On a Bayesian network LogZOnly changes nothing.
func TestMarkovPEAuto(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for k := range 60 {
		m := randomMarkov(t, rng, 3+rng.IntN(5))
		var ev []ir.Obs
		for _, v := range rng.Perm(len(m.Vars))[:1+rng.IntN(2)] {
			ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(len(m.Vars[v].States))})
		}
		joint, card := bruteJoint(m)
		z, ze := 0.0, 0.0
		for _, p := range joint {
			z += p
		}
		for _, p := range jointGiven(joint, card, ev) {
			ze += p
		}
		if z == 0 || ze == 0 {
			continue
		}
		q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}
		name := fmt.Sprintf("net %d, evidence %v", k, ev)
		for _, only := range []bool{false, true} {
			r, err := Answer(m, q, Options{LogZOnly: only})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			e := r.(*Evidence)
			if !(math.Abs(e.LogZ-math.Log(ze)) <= 1e-12*max(1, math.Abs(e.LogZ))) {
				t.Errorf("%s, LogZOnly %v: ln Z_e %v, want %v", name, only, e.LogZ, math.Log(ze))
			}
			switch {
			case only && !(math.IsNaN(e.P) && math.IsNaN(e.LogP)):
				t.Errorf("%s, LogZOnly: P %v, ln P %v, want NaN (Z is not computed)", name, e.P, e.LogP)
			case !only && !(math.Abs(e.LogP-math.Log(ze/z)) <= 1e-12*max(1, math.Abs(e.LogP))):
				t.Errorf("%s: ln P(e) %v, want %v", name, e.LogP, math.Log(ze/z))
			}
		}
	}
	// A Bayesian network: LogZOnly gives P(e) as before.
	s := randomNet(rng, 6, 3, 2, false)
	m := s.build(t)
	ev := []ir.Obs{{Var: 1, State: 0}, {Var: 4, State: 1}}
	joint, card := bruteJoint(m)
	pe := 0.0
	for _, p := range jointGiven(joint, card, ev) {
		pe += p
	}
	r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{LogZOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if e := r.(*Evidence); !(math.Abs(e.P-pe) <= 1e-12) || !(math.Abs(e.LogZ-math.Log(pe)) <= 1e-12) {
		t.Errorf("Bayesian network, LogZOnly: P %v, ln Z %v, want %v", e.P, e.LogZ, pe)
	}
}

// TestApproxLogZErr: an approximate P(e) reports the error of ln Z_e
// (LogZErr) apart from that of ln P(e), which on a Markov network adds the
// partition function's; under LogZOnly the partition function is not
// computed. Loopy BP on a Markov network whose factors form a tree is
// exact, so every error holds the truth; on a loopy one the cascade's
// bounds (weighted mini-buckets) must.
func TestApproxLogZErr(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for k := range 30 {
		m := randomMarkov(t, rng, 3+rng.IntN(4))
		ev := []ir.Obs{{Var: 0, State: rng.IntN(len(m.Vars[0].States))}}
		joint, card := bruteJoint(m)
		z, ze := 0.0, 0.0
		for _, p := range joint {
			z += p
		}
		for _, p := range jointGiven(joint, card, ev) {
			ze += p
		}
		if z == 0 || ze == 0 {
			continue
		}
		q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}
		for _, only := range []bool{false, true} {
			name := fmt.Sprintf("net %d, LogZOnly %v", k, only)
			r, err := Answer(m, q, Options{Engine: "cascade", LogZOnly: only, Seed: 1})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			e := r.(*Evidence)
			if e.Exact || e.Engine != "cascade" {
				t.Fatalf("%s: exact %v, engine %q: want the cascade's approximate answer", name, e.Exact, e.Engine)
			}
			if d := math.Abs(e.LogZ - math.Log(ze)); !(d <= e.LogZErr+1e-9) {
				t.Errorf("%s: ln Z_e %v ± %v, truth %v", name, e.LogZ, e.LogZErr, math.Log(ze))
			}
			if !(e.LogZLo <= math.Log(ze)+1e-9 && math.Log(ze) <= e.LogZHi+1e-9) {
				t.Errorf("%s: ln Z_e bounds [%v, %v] miss the truth %v", name, e.LogZLo, e.LogZHi, math.Log(ze))
			}
			if only {
				if !math.IsNaN(e.LogP) || !math.IsInf(e.LogPErr, 1) {
					t.Errorf("%s: ln P %v ± %v, want NaN ± Inf", name, e.LogP, e.LogPErr)
				}
				continue
			}
			if d := math.Abs(e.LogP - math.Log(ze/z)); !(d <= e.LogPErr+1e-9) || e.LogPErr < e.LogZErr {
				t.Errorf("%s: ln P(e) %v ± %v (ln Z_e ± %v), truth %v", name, e.LogP, e.LogPErr, e.LogZErr, math.Log(ze/z))
			}
		}
	}
}
