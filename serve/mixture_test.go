package serve

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestMixtureComponents checks a mixture's curves: two_means (Mitchell
// §6.12.1, two normal densities of SD 1 with equal shares) without
// evidence, each component against 0.5 · N(x; μ_k, 1) by the closed form
// from the learned means; with Center observed, one component of weight 1
// that is the whole density; and mixture_network with evidence, whose
// components' weights are P(Species | e) and sum, point by point, to the
// density of pbl's answer.
func TestMixtureComponents(t *testing.T) {
	ctx := context.Background()
	s := openSession(t, filepath.Join(repoRoot(t), "examples", "two_means.pbl"))
	g, _ := s.Open(ctx, nil, nil)
	if len(g.Mixtures) != 1 || g.Mixtures[0].Component != "Center" || g.Mixtures[0].Covariance != "variance = 1" || len(g.Mixtures[0].Vars) != 1 {
		t.Fatalf("two_means: mixtures %+v", g.Mixtures)
	}
	m, _, _ := s.current()
	xv, _ := m.Lookup("x")
	gs := m.Dists[xv.ID].(*ir.Gaussian)
	normal := func(x, mu, sd float64) float64 {
		return math.Exp(-(x-mu)*(x-mu)/(2*sd*sd)) / (sd * math.Sqrt(2*math.Pi))
	}
	x := belief(t, s, nil, "x")
	if len(x.Components) != 2 {
		t.Fatalf("two_means: %d components", len(x.Components))
	}
	for k, c := range x.Components {
		if !(math.Abs(c.Weight-0.5) <= 1e-12) {
			t.Errorf("component %s: weight %v, want 0.5", c.State, c.Weight)
		}
		for i, xi := range x.X {
			want := 0.5 * normal(xi, gs.Mean[k], gs.SD[k])
			if !(math.Abs(c.Density[i]-want) <= 1e-12) {
				t.Fatalf("component %s at x=%v: %v, closed form %v", c.State, xi, c.Density[i], want)
			}
		}
	}
	x = belief(t, s, []Finding{{Var: "Center", State: "second"}}, "x")
	if len(x.Components) != 1 || x.Components[0].State != "second" || x.Components[0].Weight != 1 {
		t.Fatalf("Center observed: components %+v", x.Components)
	}
	for i := range x.X {
		if !(math.Abs(x.Components[0].Density[i]-x.Density[i]) <= 1e-12) {
			t.Fatalf("Center observed: the component differs from the density at %v", x.X[i])
		}
	}

	s = openSession(t, filepath.Join(repoRoot(t), "examples", "mixture_network.pbl"))
	ev := []Finding{{Var: "Lake", State: "north"}, {Var: "Colour", State: "dark"}}
	b, err := s.Update(ctx, ev)
	if err != nil || b.Error != "" {
		t.Fatal(err, b.Error)
	}
	var species []float64
	for _, bl := range b.Beliefs {
		if bl.Var == "Species" {
			species = bl.P
		}
	}
	for _, v := range []string{"length", "weight"} {
		bl := belief(t, s, ev, v)
		if len(bl.Components) != 3 {
			t.Fatalf("%s: %d components", v, len(bl.Components))
		}
		for k, c := range bl.Components {
			if !(math.Abs(c.Weight-species[k]) <= 1e-12) {
				t.Errorf("%s: the weight of %s is %v, P(Species | e) %v", v, c.State, c.Weight, species[k])
			}
		}
		for i := range bl.X {
			sum := 0.0
			for _, c := range bl.Components {
				sum += c.Density[i]
			}
			if !(math.Abs(sum-bl.Density[i]) <= 1e-12*math.Max(1, bl.Density[i])) {
				t.Fatalf("%s at %v: the components sum to %v, the density is %v", v, bl.X[i], sum, bl.Density[i])
			}
		}
	}
}

// belief returns v's belief given the evidence.
func belief(t *testing.T, s *Session, ev []Finding, v string) Belief {
	t.Helper()
	b, err := s.Update(context.Background(), ev)
	if err != nil || b.Error != "" {
		t.Fatal(err, b.Error)
	}
	for _, bl := range b.Beliefs {
		if bl.Var == v {
			return bl
		}
	}
	t.Fatalf("no belief of %s", v)
	return Belief{}
}
