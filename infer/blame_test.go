package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestBlameProperty: with likelihood evidence and do(...), an impossible
// query names a part of its evidence that is impossible (issue 27, item
// 6: P(lung | either~[0, 1], tub=yes) said P(tub=yes) = 0, where it is
// 0.0104). On random networks with zeros in their tables, discrete
// evidence, interventions and likelihood evidence with zeros, every
// engine calls the evidence impossible exactly when the brute-force joint
// gives it weight 0, and then what blame names is checked on the joint
// of the network after the interventions: the discrete evidence has
// probability 0, or it has the probability blame gives (not 0) and the
// likelihood evidence named gives every assignment that agrees with it
// weight 0.
func TestBlameProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 6))
	seen := map[int]int{}
	for trial := range 400 {
		m := randomNet(rng, 3+rng.IntN(4), 3, 2, true).build(t)
		card := cards(m)
		perm := rng.Perm(len(card))
		take := func() ir.VarID { v := perm[0]; perm = perm[1:]; return ir.VarID(v) }
		target := take()
		q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(target | e)", Bar: true}, Targets: []ir.VarID{target}, TargetStates: []int{-1}}
		for len(perm) > 0 && rng.IntN(2) == 0 {
			v := take()
			q.Evidence = append(q.Evidence, ir.Obs{Var: v, State: rng.IntN(card[v])})
		}
		if len(perm) > 0 && rng.IntN(3) == 0 {
			v := take()
			q.Do = append(q.Do, ir.Obs{Var: v, State: rng.IntN(card[v])})
		}
		for len(perm) > 0 && (len(q.Soft) == 0 || rng.IntN(2) == 0) {
			v := take()
			l := make([]float64, card[v])
			for i := range l {
				l[i] = float64(rng.IntN(2))
			}
			l[rng.IntN(len(l))] = 1
			q.Soft = append(q.Soft, ir.SoftObs{Var: v, Lambda: l})
		}
		md, err := m.WithDo(q.Do)
		if err != nil {
			t.Fatal(err)
		}
		hard := append(append([]ir.Obs(nil), q.Evidence...), q.Do...)
		joint, jc := bruteJoint(md)
		// weight returns Σ over the assignments that agree with hard of
		// P(x) Π λ(x) over soft.
		weight := func(soft []ir.SoftObs) float64 {
			w := 0.0
			for a, p := range jointGiven(joint, jc, hard) {
				for _, s := range soft {
					p *= s.Lambda[a[s.Var]]
				}
				w += p
			}
			return w
		}
		impossible := weight(q.Soft) == 0
		for _, eng := range tailEngines {
			name := fmt.Sprintf("trial %d, %v, ev %v, do %v, soft %v", trial, eng, q.Evidence, q.Do, q.Soft)
			_, err := Answer(m, q, Options{Engine: eng})
			if errors.Is(err, ErrImpossible) != impossible {
				t.Errorf("%s: impossible %v, got %v", name, impossible, err)
				continue
			}
			if !impossible {
				continue
			}
			b, ok := blame(m, flat(q), Options{Engine: eng})
			if !ok {
				t.Errorf("%s: blame found nothing", name)
				continue
			}
			seen[b.part]++
			switch ph := weight(nil); b.part {
			case blameHard:
				if ph != 0 {
					t.Errorf("%s: blames the discrete evidence, whose probability is %v", name, ph)
				}
			case blameSoft:
				if !(math.Abs(math.Exp(b.logP)-ph) <= 1e-12) || ph == 0 {
					t.Errorf("%s: P(e | do) = %v, want %v", name, math.Exp(b.logP), ph)
				}
				if w := weight(b.soft); w != 0 {
					t.Errorf("%s: blames %v, which gives weight %v", name, b.soft, w)
				}
			default:
				t.Errorf("%s: blames part %d", name, b.part)
			}
		}
	}
	if seen[blameHard] == 0 || seen[blameSoft] == 0 {
		t.Errorf("blamed: %v; want both the discrete and the likelihood evidence", seen)
	}
}
