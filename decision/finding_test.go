package decision

import (
	"errors"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestFindingsBrute: with some decisions set (Set) and hard findings on
// chance variables no free decision influences, Solve's MEU is the best,
// over every strategy of the free decisions, of the expected utility
// conditioned on the findings, computed by the brute force on the
// original diagram (set decisions fixed, findings as conditions); its own
// strategy attains it; and each policy row is marked impossible exactly
// when the brute force gives its configuration probability zero, the
// decisions in it set to its states.
func TestFindingsBrute(t *testing.T) {
	var checked, impossible int
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 3)
		e := d
		fixed := map[int]int{}
		var order []int
		for _, dec := range d.Order {
			if rapid.IntRange(0, 2).Draw(t, "set") == 0 {
				s := rapid.IntRange(0, d.Vars[dec].Card-1).Draw(t, "set state")
				fixed[dec] = s
				var err error
				if e, err = e.Set(dec, s); err != nil {
					t.Fatalf("Set: %v", err)
				}
				continue
			}
			order = append(order, dec)
		}
		cond := map[int]int{}
		for x, v := range e.Vars {
			free := true // no free decision among x's ancestors
			for a, is := range e.ancestors(x) {
				if is && e.Vars[a].Kind == Decision {
					free = false
				}
			}
			if v.Kind == Chance && d.Vars[x].Kind == Chance && free && rapid.Bool().Draw(t, "finding") {
				s := rapid.IntRange(0, v.Card-1).Draw(t, "finding state")
				cond[x] = s
				w := make([]float64, v.Card)
				w[s] = 1
				e.Findings = append(e.Findings, Finding{Var: x, Weights: w})
			}
		}
		info := bruteInfo(d, order)
		_, pe := bruteEU(d, nil, fixed, cond)
		sol, err := e.Solve(Options{})
		if pe == 0 {
			if !errors.Is(err, ErrImpossible) {
				t.Fatalf("findings of probability 0: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Solve: %v", err)
		}
		for i, p := range sol.Policies {
			if p.Decision != order[i] || !slices.Equal(p.Info, info[i]) {
				t.Fatalf("policy %d: decision %d over %v, want %d over %v", i, p.Decision, p.Info, order[i], info[i])
			}
		}
		num, den := bruteEU(d, toBrute(sol.Policies), fixed, cond)
		if !(math.Abs(num/den-sol.MEU) <= tol) {
			t.Fatalf("Solve's strategy is worth %v given the findings, its MEU %v", num/den, sol.MEU)
		}
		for i, p := range sol.Policies {
			cfg := make([]int, len(p.Info))
			for k := range p.Choice {
				f, c := map[int]int{}, map[int]int{}
				for x, s := range fixed {
					f[x] = s
				}
				for x, s := range cond {
					c[x] = s
				}
				clash := false
				for j, v := range p.Info {
					if d.Vars[v].Kind == Decision {
						if s, ok := f[v]; ok && s != cfg[j] {
							clash = true
						}
						f[v] = cfg[j]
					} else {
						if s, ok := c[v]; ok && s != cfg[j] {
							clash = true
						}
						c[v] = cfg[j]
					}
				}
				var others []bpolicy
				for _, q := range toBrute(sol.Policies) {
					if _, ok := f[q.dec]; !ok && q.dec != p.Decision {
						others = append(others, q)
					}
				}
				// The decision itself follows its policy: its choice
				// changes no probability of its information.
				others = append(others, toBrute(sol.Policies[i:i+1])...)
				_, pr := bruteEU(d, others, f, c)
				if want := clash || pr == 0; p.Impossible[k] != want {
					t.Fatalf("policy of %d, row %v: impossible %v, probability %v", p.Decision, cfg, p.Impossible[k], pr)
				}
				if p.Impossible[k] {
					impossible++
				}
				for j := len(cfg) - 1; j >= 0; j-- {
					if cfg[j]++; cfg[j] < p.Cards[j] {
						break
					}
					cfg[j] = 0
				}
			}
		}
		if strategyCount(d, order, info, 1<<12) > 1<<12 {
			return
		}
		best := math.Inf(-1)
		strategies(d, order, info, func(ps []bpolicy) bool {
			num, den := bruteEU(d, ps, fixed, cond)
			best = math.Max(best, num/den)
			return true
		})
		if !(math.Abs(best-sol.MEU) <= tol) {
			t.Fatalf("MEU %v given the findings, brute force %v", sol.MEU, best)
		}
		checked++
	})
	t.Logf("MEU given findings checked by brute force on %d diagrams; %d impossible rows", checked, impossible)
	if checked == 0 || impossible == 0 {
		t.Error("nothing checked")
	}
}

// TestFindingErrors: findings on a decision, on a descendant of a
// decision, with the wrong number of weights, negative or all zero, and
// Set out of range, are *Errors of kind ErrEvidence.
func TestFindingErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Finding
	}{
		{"decision", Finding{Var: 1, Weights: []float64{1, 0}}},
		{"descendant", Finding{Var: 2, Weights: []float64{1, 0, 0}}},
		{"weights", Finding{Var: 0, Weights: []float64{1, 0}}},
		{"negative", Finding{Var: 0, Weights: []float64{1, -1, 0}}},
		{"zero", Finding{Var: 0, Weights: []float64{0, 0, 0}}},
		{"range", Finding{Var: 9, Weights: []float64{1}}},
	} {
		d := oil()
		d.Findings = []Finding{c.f}
		if _, err := d.Solve(Options{}); !errors.Is(err, ErrEvidence) {
			t.Errorf("%s: %v, want ErrEvidence", c.name, err)
		}
	}
	if _, err := oil().Set(1, 2); !errors.Is(err, ErrEvidence) {
		t.Errorf("Set to a state out of range: %v", err)
	}
	if _, err := oil().Set(-1, 0); !errors.Is(err, ErrEvidence) {
		t.Errorf("Set of a variable out of range: %v", err)
	}
}
