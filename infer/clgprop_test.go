package infer

import (
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/pbl-lang/pbl/ir"
)

// TestCLGProperties checks, on random CLG networks, two identities the
// engine does not build in: the chain rule of densities, p(x, y | e) =
// p(x | e) p(y | x, e), and that setting a real root (no parents) by
// do(X=v) gives its descendants the posterior that observing X=v gives.
func TestCLGProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		nd := rapid.IntRange(1, 3).Draw(rt, "discrete")
		nr := rapid.IntRange(3, 12).Draw(rt, "real")
		r := rand.New(rand.NewPCG(seed, 1))
		net, err := randomCLG(r, nd, nr, 2, 2, 0)
		if err != nil {
			rt.Fatal(err)
		}
		m := net.m
		perm := r.Perm(nr)
		x, y, z := net.reals[perm[0]], net.reals[perm[1]], net.reals[perm[2]]
		vx, vy, vz := r.NormFloat64()*3, r.NormFloat64()*3, r.NormFloat64()*3
		ev := ir.Conditions{Real: []ir.RealObs{{Var: z, Value: vz}}}
		dens := func(vals []ir.RealObs, c ir.Conditions) float64 {
			res, err := Answer(m, &ir.DensityQuery{QueryHeader: clgQueryHeader("density"), Conditions: c, Values: vals}, Options{})
			if err != nil {
				rt.Fatal(err)
			}
			return res.(*Density).LogDensity
		}
		joint := dens([]ir.RealObs{{Var: x, Value: vx}, {Var: y, Value: vy}}, ev)
		first := dens([]ir.RealObs{{Var: x, Value: vx}}, ev)
		ev2 := ev
		ev2.Real = append([]ir.RealObs{{Var: x, Value: vx}}, ev.Real...)
		second := dens([]ir.RealObs{{Var: y, Value: vy}}, ev2)
		if !(math.Abs(joint-(first+second)) <= 1e-9*max(1, math.Abs(joint))) {
			rt.Fatalf("ln p(x, y | e) = %.15g, ln p(x | e) + ln p(y | x, e) = %.15g", joint, first+second)
		}

		// do(d0=s) of the discrete root d0 is observing it, for a real
		// variable's posterior given real evidence.
		d0 := net.disc[0]
		pd := func(c ir.Conditions) *Normals {
			res, err := Answer(m, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(x)"), Conditions: c, Targets: []ir.VarID{x}, TargetStates: []int{-1}}, Options{})
			if err != nil {
				rt.Fatal(err)
			}
			return res.(*Normals)
		}
		seen := pd(ir.Conditions{Real: ev.Real, Evidence: []ir.Obs{{Var: d0, State: 1}}})
		done := pd(ir.Conditions{Real: ev.Real, Do: []ir.Obs{{Var: d0, State: 1}}})
		if a, b := seen.Mean()[0], done.Mean()[0]; !(math.Abs(a-b) <= 1e-9*max(1, math.Abs(a))) {
			rt.Fatalf("E[x | d0=1, e] = %.15g, E[x | do(d0=1), e] = %.15g", a, b)
		}

		// A root: the first real variable has neither real parents
		// (randomCLG) nor, here, discrete ones.
		root := net.reals[0]
		if len(m.Parents[root]) > 0 || root == y {
			return
		}
		post := func(c ir.Conditions) *Normals {
			res, err := Answer(m, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(y)"), Conditions: c, Targets: []ir.VarID{y}, TargetStates: []int{-1}}, Options{})
			if err != nil {
				rt.Fatal(err)
			}
			return res.(*Normals)
		}
		if root == z {
			return
		}
		obs := post(ir.Conditions{Real: []ir.RealObs{{Var: root, Value: vx}}})
		set := post(ir.Conditions{DoReal: []ir.RealObs{{Var: root, Value: vx}}})
		if a, b := obs.Mean()[0], set.Mean()[0]; !(math.Abs(a-b) <= 1e-9*max(1, math.Abs(a))) {
			rt.Fatalf("E[y | root=v] = %.15g, E[y | do(root=v)] = %.15g", a, b)
		}
		if a, b := obs.Cov()[0], set.Cov()[0]; !(math.Abs(a-b) <= 1e-9*max(1, math.Abs(a))) {
			rt.Fatalf("Var[y | root=v] = %.15g, Var[y | do(root=v)] = %.15g", a, b)
		}
	})
}
