package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// Interventions and likelihood evidence are checked against references
// that share nothing with the code under test: brute-force enumeration of
// the surgically modified joint, times λ, written out here; and, on the
// corpus networks, ordinary queries on models rebuilt with the surgery
// done by hand and each likelihood as a virtual child (Pearl's method).

// bruteDo returns the joint of the network m after the interventions do,
// times the likelihoods soft, over every variable in row-major VarID
// order, built from m's tables without ir.Model.WithDo.
func bruteDo(m *ir.Model, do []ir.Obs, soft []ir.SoftObs) (joint []float64, card []int) {
	card = cards(m)
	n := 1
	for _, c := range card {
		n *= c
	}
	joint = make([]float64, n)
	a := make([]int, len(card))
	for i := range joint {
		decode(a, card, i)
		p := 1.0
		for v := range m.Vars {
			if k := slices.IndexFunc(do, func(o ir.Obs) bool { return int(o.Var) == v }); k >= 0 {
				if a[v] != do[k].State {
					p = 0
				}
				continue
			}
			if f := m.Factor(ir.VarID(v)); f != nil {
				p *= f.Vals[offset(f, a)]
			}
		}
		for _, f := range m.Potentials {
			p *= f.Vals[offset(f, a)]
		}
		for _, s := range soft {
			p *= s.Lambda[a[s.Var]]
		}
		joint[i] = p
	}
	return joint, card
}

// randomIntervention draws a query on a network with the cardinalities
// card: one target variable (its table, or one state), up to two hard
// observations, one or two interventions and up to two likelihoods, on
// distinct variables; with atMostOne, every likelihood is at most 1.
func randomIntervention(rng *rand.Rand, card []int, atMostOne bool) *ir.ProbQuery {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 1, Col: 1}, Text: "P(...)"}}
	perm := rng.Perm(len(card))
	t := perm[0]
	q.Targets = []ir.VarID{ir.VarID(t)}
	q.TargetStates = []int{-1}
	if rng.IntN(3) == 0 {
		q.TargetStates[0] = rng.IntN(card[t])
	}
	rest := perm[1:]
	nd := 1 + rng.IntN(2)
	for _, v := range rest[:nd] {
		q.Do = append(q.Do, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
	}
	rest = rest[nd:]
	ns := rng.IntN(3)
	for _, v := range rest[:min(ns, len(rest))] {
		l := make([]float64, card[v])
		for i := range l {
			l[i] = rng.Float64()
			if !atMostOne {
				l[i] *= 3
			}
		}
		q.Soft = append(q.Soft, ir.SoftObs{Var: ir.VarID(v), Lambda: l})
	}
	rest = rest[min(ns, len(rest)):]
	ne := rng.IntN(3)
	for _, v := range rest[:min(ne, len(rest))] {
		q.Evidence = append(q.Evidence, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
	}
	return q
}

// TestInterventionBrute: on random networks, P(Y | do(X=x), Z~λ, e), the
// number P(Y=y | ...), P(e, do, λ) and MPE agree with brute force to 1e-12
// under every engine.
func TestInterventionBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	for trial := range 150 {
		m := randomNet(rng, 3+rng.IntN(5), 3, 3, trial%3 == 0).build(t)
		q := randomIntervention(rng, cards(m), false)
		joint, card := bruteDo(m, q.Do, q.Soft)
		what := fmt.Sprintf("trial %d: %+v", trial, q)
		// The table (or number) of the target given everything else.
		y := q.Targets[0]
		py := make([]float64, card[y])
		total := 0.0
		for a, p := range jointGiven(joint, card, q.Evidence) {
			py[a[y]] += p
			total += p
		}
		for _, e := range everyEngine {
			r, err := Answer(m, q, e.opt)
			if total == 0 {
				if !errors.Is(err, ErrImpossible) {
					t.Fatalf("%s, %s: impossible evidence answered %v, %v", what, e.name, r, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s, %s: %v", what, e.name, err)
			}
			if s := q.TargetStates[0]; s >= 0 {
				if want := py[s] / total; !equal(r.(*Number).P, want, 1e-12) {
					t.Fatalf("%s, %s: P = %v, want %v", what, e.name, r.(*Number).P, want)
				}
				continue
			}
			for _, row := range r.(*Table).Rows {
				if want := py[row.Values[0]] / total; !equal(row.P, want, 1e-12) {
					t.Fatalf("%s, %s: row %v: %v, want %v", what, e.name, row.Values, row.P, want)
				}
			}
		}

		// P(e, do, λ) with every λ ≤ 1: Σ P_do(x, e) λ(x).
		pe := *q
		pe.Targets, pe.TargetStates = nil, nil
		for i := range pe.Soft {
			l := slices.Clone(pe.Soft[i].Lambda)
			top := slices.Max(l)
			for j := range l {
				l[j] /= max(1, top)
			}
			pe.Soft[i].Lambda = l
		}
		joint, card = bruteDo(m, pe.Do, pe.Soft)
		want := 0.0
		for _, p := range jointGiven(joint, card, pe.Evidence) {
			want += p
		}
		for _, e := range everyEngine {
			r, err := Answer(m, &pe, e.opt)
			if err != nil {
				t.Fatalf("P(e) %s, %s: %v", what, e.name, err)
			}
			if !equal(r.(*Evidence).P, want, 1e-12) || !(r.(*Evidence).P <= 1) {
				t.Fatalf("P(e) %s, %s: %v, want %v", what, e.name, r.(*Evidence).P, want)
			}
		}

		// MPE: the do variables are fixed, not maximised.
		if want == 0 {
			continue
		}
		mpe := ir.MPEQuery{QueryHeader: pe.QueryHeader, Conditions: pe.Conditions}
		best := 0.0
		for _, p := range jointGiven(joint, card, mpe.Evidence) {
			best = max(best, p)
		}
		for _, e := range everyEngine {
			r, err := Answer(m, &mpe, e.opt)
			if err != nil {
				t.Fatalf("MPE %s, %s: %v", what, e.name, err)
			}
			if !equal(r.(*Assignment).P, best/want, 1e-12) {
				t.Fatalf("MPE %s, %s: %v, want %v", what, e.name, r.(*Assignment).P, best/want)
			}
			for _, o := range r.(*Assignment).Assignment {
				if slices.ContainsFunc(mpe.Do, func(d ir.Obs) bool { return d.Var == o.Var }) {
					t.Fatalf("MPE %s, %s: the intervened-on %d is in the assignment", what, e.name, o.Var)
				}
			}
		}
	}
}

// TestLikelihoodMarkov: likelihood evidence on a Markov network agrees
// with brute force; do(...) on one is an error.
func TestLikelihoodMarkov(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	for trial := range 40 {
		m := randomMarkov(t, rng, 3+rng.IntN(3))
		card := cards(m)
		q := randomIntervention(rng, card, true)
		q.Do = nil
		pe := *q
		pe.Targets, pe.TargetStates = nil, nil
		joint, _ := bruteDo(m, nil, q.Soft)
		z, _ := bruteDo(m, nil, nil)
		want, zsum := 0.0, 0.0
		for _, p := range jointGiven(joint, card, q.Evidence) {
			want += p
		}
		for _, p := range z {
			zsum += p
		}
		if zsum == 0 || want == 0 {
			continue
		}
		for _, e := range everyEngine {
			r, err := Answer(m, &pe, e.opt)
			if err != nil {
				t.Fatalf("trial %d, %s: %v", trial, e.name, err)
			}
			if !equal(r.(*Evidence).P, want/zsum, 1e-12) {
				t.Fatalf("trial %d, %s: P(e) = %v, want %v", trial, e.name, r.(*Evidence).P, want/zsum)
			}
		}
		compareEngines(t, m, q, "markov", everyEngine...)
	}
	m := randomMarkov(t, rng, 3)
	q := &ir.ProbQuery{Conditions: ir.Conditions{Do: []ir.Obs{{Var: 1, State: 0}}}, Targets: ids(0), TargetStates: []int{-1}}
	if _, err := Answer(m, q, Options{}); err == nil {
		t.Fatal("do(...) on a Markov network answered")
	}
}

// rebuilt returns m rebuilt with an ir.Builder: the variables in do with a
// point mass and no parents, and each likelihood of soft as a binary
// virtual child "λk" of its variable with P(λk=yes | x) = λ(x) / max λ;
// and the evidence that asserts them (do's states and every λk=yes), and
// the factor Π max λ by which P(e) is to be multiplied.
func rebuilt(t *testing.T, m *ir.Model, do []ir.Obs, soft []ir.SoftObs) (*ir.Model, []ir.Obs, float64) {
	t.Helper()
	b := ir.NewBuilder("rebuilt.bif")
	at := ir.Pos{File: "rebuilt.bif", Line: 1}
	for _, x := range m.Vars {
		b.AddVar(at, x.Name, ir.Enum, x.States, 0)
	}
	for v := range m.Vars {
		if k := slices.IndexFunc(do, func(o ir.Obs) bool { return int(o.Var) == v }); k >= 0 {
			vals := make([]float64, len(m.Vars[v].States))
			vals[do[k].State] = 1
			b.SetCPT(at, ir.VarID(v), nil, vals, nil)
			continue
		}
		b.SetCPT(at, ir.VarID(v), m.Parents[v], slices.Clone(m.Factor(ir.VarID(v)).Vals), nil)
	}
	ev := slices.Clone(do)
	scale := 1.0
	for k, s := range soft {
		id := ir.VarID(len(m.Vars) + k)
		b.AddVar(at, fmt.Sprintf("λ%d", k), ir.Enum, []string{"yes", "no"}, 0)
		top := slices.Max(s.Lambda)
		vals := make([]float64, 0, 2*len(s.Lambda))
		for _, l := range s.Lambda {
			vals = append(vals, l/top, 1-l/top)
		}
		b.SetCPT(at, id, []ir.VarID{s.Var}, vals, nil)
		ev = append(ev, ir.Obs{Var: id, State: 0})
		scale *= top
	}
	r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return r, ev, scale
}

// TestInterventionCorpus: on asia and alarm, interventions and likelihood
// evidence agree to 2e-6 with ordinary queries on the network rebuilt by
// hand (surgery, virtual children), and on asia with brute force.
func TestInterventionCorpus(t *testing.T) {
	for _, name := range []string{"asia", "alarm"} {
		t.Run(name, func(t *testing.T) {
			m := readCorpus(t, name)
			rng := rand.New(rand.NewPCG(14, 4))
			compared := 0
			defer func() {
				if compared < 10 {
					t.Errorf("only %d of 20 queries compared (the others impossible)", compared)
				}
			}()
			for trial := range 20 {
				q := randomIntervention(rng, cards(m), trial%2 == 0)
				q.Evidence = randomEvidence(rng, m, 0)
				for _, o := range randomEvidence(rng, m, 3) {
					if !slices.Contains(q.Targets, o.Var) && !slices.ContainsFunc(q.Do, func(d ir.Obs) bool { return d.Var == o.Var }) &&
						!slices.ContainsFunc(q.Soft, func(s ir.SoftObs) bool { return s.Var == o.Var }) {
						q.Evidence = append(q.Evidence, o)
					}
				}
				q.TargetStates[0] = -1
				r, err := Answer(m, q, Options{})
				m2, ev, _ := rebuilt(t, m, q.Do, q.Soft)
				ref := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: q.Pos}, Conditions: ir.Conditions{Evidence: append(slices.Clone(q.Evidence), ev...)}, Targets: q.Targets, TargetStates: q.TargetStates}
				want, werr := Answer(m2, ref, Options{Engine: VE})
				if (err == nil) != (werr == nil) {
					t.Fatalf("trial %d: %v vs reference %v", trial, err, werr)
				}
				if err != nil {
					continue
				}
				compared++
				for i, row := range r.(*Table).Rows {
					if !equal(row.P, want.(*Table).Rows[i].P, 2e-6) {
						t.Fatalf("trial %d %+v: row %d: %v, reference %v", trial, q, i, row.P, want.(*Table).Rows[i].P)
					}
				}
				if name == "asia" {
					joint, card := bruteDo(m, q.Do, q.Soft)
					y := q.Targets[0]
					py := make([]float64, card[y])
					total := 0.0
					for a, p := range jointGiven(joint, card, q.Evidence) {
						py[a[y]] += p
						total += p
					}
					for _, row := range r.(*Table).Rows {
						if w := py[row.Values[0]] / total; !equal(row.P, w, 1e-12) {
							t.Fatalf("trial %d: brute force %v, got %v", trial, w, row.P)
						}
					}
					compareEngines(t, m, q, name, everyEngine...)
				}
				// P(e, do, λ ≤ 1) = P(e, do, λk=yes) · Π max λ.
				if trial%2 == 0 {
					pe := *q
					pe.Targets, pe.TargetStates = nil, nil
					r, err := Answer(m, &pe, Options{})
					ref.Targets, ref.TargetStates = nil, nil
					want, werr := Answer(m2, ref, Options{Engine: VE})
					_, _, scale := rebuilt(t, m, q.Do, q.Soft)
					if err != nil || werr != nil {
						t.Fatalf("P(e) trial %d: %v, %v", trial, err, werr)
					}
					if !equal(r.(*Evidence).P, want.(*Evidence).P*scale, 2e-6) {
						t.Fatalf("P(e) trial %d: %v, reference %v", trial, r.(*Evidence).P, want.(*Evidence).P*scale)
					}
				}
			}
		})
	}
}

// TestInterventionKeepsModel: answering with do(...) and likelihoods
// leaves the model as it was, and an unlearned variable set by do(...)
// needs no numbers.
func TestInterventionKeepsModel(t *testing.T) {
	s := chainNet(4, 0.9)
	m := s.buildPartial(t, []bool{false, true, false, false})
	q := &ir.ProbQuery{Conditions: ir.Conditions{Do: []ir.Obs{{Var: 1, State: 0}}}, Targets: ids(3), TargetStates: []int{-1}}
	before := m.Factor(2).Vals[0]
	r, err := Answer(m, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dist(1) != nil || m.Factor(2).Vals[0] != before || len(m.Potentials) != 0 {
		t.Fatal("the model changed")
	}
	// X1 = s0 for sure: P(X3) is the chain's two steps from s0.
	f2, f3 := m.Factor(2).Vals, m.Factor(3).Vals
	want := f2[0]*f3[0] + f2[1]*f3[2]
	if !equal(r.(*Table).Rows[0].P, want, 1e-12) || math.IsNaN(r.(*Table).Rows[0].P) {
		t.Fatalf("P(X3=s0 | do(X1=s0)) = %v, want %v", r.(*Table).Rows[0].P, want)
	}
	// Likelihoods make a product of potentials, which needs every table.
	m = s.buildPartial(t, []bool{false, false, true, false})
	q.Soft = []ir.SoftObs{{Var: 0, Lambda: []float64{0.5, 0.5}}}
	if _, err := Answer(m, q, Options{}); !errors.Is(err, ir.ErrNoDistribution) {
		t.Fatalf("likelihood evidence with an unlearned variable: %v", err)
	}
}
