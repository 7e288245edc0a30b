package infer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestPosteriorBrute: on random networks, Posterior and LogPE agree with
// the full joint to 1e-12 under every engine, Posterior gives exactly the
// numbers of the equivalent Answer query, and impossible evidence is an
// ErrImpossible error (with -Inf from LogPE).
func TestPosteriorBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 51))
	impossibles := 0
	for net := range 40 {
		spec := randomNet(rng, 3+rng.IntN(7), 4, 3, net%3 == 0)
		m := spec.build(t)
		joint, card := bruteJoint(m)
		for range 6 {
			perm := rng.Perm(len(card))
			target := ir.VarID(perm[0])
			var ev []ir.Obs
			for _, v := range perm[1 : 1+rng.IntN(min(3, len(perm)-1)+1)] {
				ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
			}
			want := make([]float64, card[target])
			pe := 0.0
			for a, p := range jointGiven(joint, card, ev) {
				want[a[target]] += p
				pe += p
			}
			for _, e := range everyEngine {
				p, err := Posterior(m, target, ev, e.opt)
				lp, lerr := LogPE(m, ev, e.opt)
				if pe == 0 {
					if !errors.Is(err, ErrImpossible) || !errors.Is(lerr, ErrImpossible) || !math.IsInf(lp, -1) {
						t.Fatalf("net %d, %s: Posterior %v, %v; LogPE %v, %v; want ErrImpossible", net, e.name, p, err, lp, lerr)
					}
					impossibles++
					continue
				}
				if err != nil || lerr != nil || !equal(lp, math.Log(pe), 1e-12) {
					t.Fatalf("net %d, %s: LogPE %v (%v), want %v; Posterior error %v", net, e.name, lp, lerr, math.Log(pe), err)
				}
				for s := range want {
					if !equal(p[s], want[s]/pe, 1e-12) {
						t.Fatalf("net %d, %s: P(X%d | %v) = %v, want %v", net, e.name, target, ev, p, want)
					}
				}
				r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: []ir.VarID{target}, TargetStates: []int{-1}}, e.opt)
				if err != nil {
					t.Fatal(err)
				}
				for s, row := range r.(*Table).Rows {
					if row.P != p[s] {
						t.Fatalf("net %d, %s: Posterior %v, Answer %v", net, e.name, p, r.(*Table).Rows)
					}
				}
			}
		}
	}
	if impossibles == 0 {
		t.Error("no evidence was impossible; that path is untested")
	}
}

// TestPosteriorErrors: Posterior and LogPE fail as Answer does, with the
// kinds of error programs test for, at the model's file.
func TestPosteriorErrors(t *testing.T) {
	// A long chain: P(e) underflows, ln P(e) does not.
	const n = 2000
	chain := chainNet(n, 0.9).build(t)
	alt := alternating(n)
	for _, opt := range []Options{{Engine: VE}, jtOpt, {}} {
		lp, err := LogPE(chain, alt, opt)
		want := math.Log(0.5) + (n-1)*math.Log(0.1)
		if err != nil || !equal(lp, want, 1e-12) {
			t.Errorf("%v: LogPE = %v, %v; want %v", opt.Engine, lp, err, want)
		}
		p, err := Posterior(chain, 1000, append(append([]ir.Obs(nil), alt[:1000]...), alt[1001:]...), opt)
		if err != nil || !equal(p[1], 0.81/0.82, 1e-12) {
			t.Errorf("%v: Posterior = %v, %v", opt.Engine, p, err)
		}
	}
	// Too large for enumeration.
	mw := roots(26, 0.5).build(t)
	_, err := Posterior(mw, 0, nil, Options{Engine: Enum})
	var tl *TooLargeError
	var ie *ir.Error
	if !errors.As(err, &tl) || tl.What != OversizeEnum || !errors.As(err, &ie) || ie.Pos.File != "test.pbl" {
		t.Errorf("Posterior with Enum on 26 variables: %v, want a *TooLargeError at test.pbl", err)
	}
	if _, err := LogPE(mw, nil, Options{Engine: Enum}); !errors.As(err, &tl) {
		t.Errorf("LogPE with Enum on 26 variables: %v, want a *TooLargeError", err)
	}
	// Variables still to be learned: needed or not.
	spec := netSpec{card: []int{2, 2, 2}, parents: [][]int{nil, {0}, {1}},
		cpt: [][]float64{{0.3, 0.7}, {0.9, 0.1, 0.2, 0.8}, {0.5, 0.5, 0.4, 0.6}}}
	part := spec.buildPartial(t, []bool{false, false, true})
	for _, opt := range []Options{{Engine: Enum}, {Engine: VE}, jtOpt, {}} {
		p, err := Posterior(part, 0, []ir.Obs{{Var: 1, State: 0}}, opt)
		if want := 0.3 * 0.9 / (0.3*0.9 + 0.7*0.2); err != nil || !equal(p[0], want, 1e-12) {
			t.Errorf("%v: P(X0 | X1=s0) = %v, %v; want %v", opt.Engine, p, err, want)
		}
		if _, err := Posterior(part, 0, []ir.Obs{{Var: 2, State: 0}}, opt); !errors.Is(err, ir.ErrNoDistribution) {
			t.Errorf("%v: P(X0 | X2=s0) gave %v, want ErrNoDistribution", opt.Engine, err)
		}
		if _, err := LogPE(part, []ir.Obs{{Var: 2, State: 0}}, opt); !errors.Is(err, ir.ErrNoDistribution) {
			t.Errorf("%v: P(X2=s0) gave %v, want ErrNoDistribution", opt.Engine, err)
		}
	}
	// A malformed question.
	m := spec.build(t)
	if _, err := Posterior(m, 1, []ir.Obs{{Var: 1, State: 0}}, Options{}); err == nil || err.Error() != `test.pbl: X1 is named twice in the query (as evidence and as a query variable)` {
		t.Errorf("observed target: %v", err)
	}
	// The same role twice says so, not "as evidence and as evidence".
	if _, err := LogPE(m, []ir.Obs{{Var: 1, State: 0}, {Var: 1, State: 1}}, Options{}); err == nil || err.Error() != `test.pbl: X1 is observed twice in the evidence` {
		t.Errorf("observed twice: %v", err)
	}
	if _, err := LogPE(m, []ir.Obs{{Var: 1, State: 2}}, Options{}); err == nil || err.Error() != "test.pbl: state 2 of X1 is out of range" {
		t.Errorf("state out of range: %v", err)
	}
}
