package decision

import (
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// The brute force here shares nothing with the solver but the Diagram
// type: strategies are enumerated as lists of policy tables, and a
// strategy's expected utility is a sum over every configuration of the
// chance variables in the order the nodes were generated.

// genDiagram draws a small diagram whose variables are generated in a
// topological order (so Order, the decisions in that order, is
// consistent): 2–4 chance variables and 1–3 decisions, binary or ternary,
// at most two parents each, one or two utilities over one to three
// variables. CPT entries are small integers normalised, zeros included, so
// that configurations of probability zero occur.
func genDiagram(t *rapid.T, maxDec int) *Diagram {
	nc := rapid.IntRange(2, 4).Draw(t, "chance")
	nd := rapid.IntRange(1, maxDec).Draw(t, "decisions")
	kinds := make([]Kind, nc+nd)
	for i := nc; i < nc+nd; i++ {
		kinds[i] = Decision
	}
	perm := rapid.Permutation(kinds).Draw(t, "kinds")
	d := &Diagram{}
	for i, k := range perm {
		v := Var{Name: string(rune('A' + i)), Kind: k, Card: rapid.IntRange(2, 3).Draw(t, "card")}
		if k == Decision {
			v.Card = 2
		}
		if i > 0 {
			np := rapid.IntRange(0, min(2, i)).Draw(t, "nparents")
			cand := make([]int, i)
			for j := range cand {
				cand[j] = j
			}
			cand = rapid.Permutation(cand).Draw(t, "parents")
			v.Parents = cand[:np]
		}
		if k == Chance {
			rows := 1
			for _, p := range v.Parents {
				rows *= d.Vars[p].Card
			}
			for range rows {
				row := make([]float64, v.Card)
				sum := 0.0
				for sum == 0 {
					for x := range row {
						row[x] = float64(rapid.IntRange(0, 4).Draw(t, "p"))
						sum += row[x]
					}
				}
				for x := range row {
					row[x] /= sum
				}
				v.CPT = append(v.CPT, row...)
			}
		} else {
			d.Order = append(d.Order, i)
		}
		d.Vars = append(d.Vars, v)
	}
	nu := rapid.IntRange(1, 2).Draw(t, "utilities")
	all := make([]int, len(d.Vars))
	for j := range all {
		all[j] = j
	}
	for u := range nu {
		ps := rapid.Permutation(all).Draw(t, "uparents")[:rapid.IntRange(1, 3).Draw(t, "nu")]
		n := 1
		for _, p := range ps {
			n *= d.Vars[p].Card
		}
		tab := make([]float64, n)
		for k := range tab {
			tab[k] = float64(rapid.IntRange(-20, 20).Draw(t, "u")) / 2
		}
		d.Utilities = append(d.Utilities, Utility{Name: string(rune('U' + u)), Parents: ps, Table: tab})
	}
	return d
}

// bruteInfo returns the no-forgetting information set of each decision of
// order, ascending.
func bruteInfo(d *Diagram, order []int) [][]int {
	out := make([][]int, len(order))
	seen := map[int]bool{}
	for i, dec := range order {
		for _, p := range d.Vars[dec].Parents {
			seen[p] = true
		}
		for v := range seen {
			out[i] = append(out[i], v)
		}
		slices.Sort(out[i])
		seen[dec] = true
	}
	return out
}

// bpolicy is a policy table of the brute force: choice per configuration
// of info, row-major, the last fastest.
type bpolicy struct {
	dec    int
	info   []int
	choice []int
}

func (p bpolicy) choose(d *Diagram, x []int) int {
	k := 0
	for _, v := range p.info {
		k = k*d.Vars[v].Card + x[v]
	}
	return p.choice[k]
}

func configs(d *Diagram, vs []int) int {
	n := 1
	for _, v := range vs {
		n *= d.Vars[v].Card
	}
	return n
}

// strategies calls f with every strategy over the given information sets
// (one policy per decision of order) while it returns true.
func strategies(d *Diagram, order []int, info [][]int, f func([]bpolicy) bool) {
	ps := make([]bpolicy, len(order))
	for i := range order {
		ps[i] = bpolicy{dec: order[i], info: info[i], choice: make([]int, configs(d, info[i]))}
	}
	for {
		if !f(ps) {
			return
		}
		// odometer over every choice of every policy
		i, k := 0, 0
		for {
			if i == len(ps) {
				return
			}
			if k == len(ps[i].choice) {
				i, k = i+1, 0
				continue
			}
			ps[i].choice[k]++
			if ps[i].choice[k] < d.Vars[ps[i].dec].Card {
				break
			}
			ps[i].choice[k] = 0
			k++
		}
	}
}

// strategyCount returns the number of strategies, capped at cap+1.
func strategyCount(d *Diagram, order []int, info [][]int, cap float64) float64 {
	n := 1.0
	for i, dec := range order {
		n *= math.Pow(float64(d.Vars[dec].Card), float64(configs(d, info[i])))
		if n > cap {
			return cap + 1
		}
	}
	return n
}

// bruteEU returns Σ P·U and Σ P over every configuration of the variables
// (in index order, a topological order here) where the decisions follow
// pols, except those in fixed (set to the given state), and the chance
// variables in cond take the given states (others summed).
func bruteEU(d *Diagram, pols []bpolicy, fixed, cond map[int]int) (num, den float64) {
	x := make([]int, len(d.Vars))
	var rec func(i int, p float64)
	rec = func(i int, p float64) {
		if p == 0 {
			return
		}
		if i == len(d.Vars) {
			u := 0.0
			for _, ut := range d.Utilities {
				k := 0
				for _, v := range ut.Parents {
					k = k*d.Vars[v].Card + x[v]
				}
				u += ut.Table[k]
			}
			num += p * u
			den += p
			return
		}
		v := d.Vars[i]
		if v.Kind == Decision {
			if s, ok := fixed[i]; ok {
				x[i] = s
			} else {
				for _, pol := range pols {
					if pol.dec == i {
						x[i] = pol.choose(d, x)
					}
				}
			}
			rec(i+1, p)
			return
		}
		row := 0
		for _, q := range v.Parents {
			row = row*d.Vars[q].Card + x[q]
		}
		for s := range v.Card {
			if c, ok := cond[i]; ok && c != s {
				continue
			}
			x[i] = s
			rec(i+1, p*v.CPT[row*v.Card+s])
		}
	}
	rec(0, 1)
	return num, den
}

func toBrute(ps []Policy) []bpolicy {
	out := make([]bpolicy, len(ps))
	for i, p := range ps {
		out[i] = bpolicy{dec: p.Decision, info: p.Info, choice: p.Choice}
	}
	return out
}

const tol = 1e-9

var solveChecked, euChecked atomic.Int64

// TestSolveBrute: Solve's MEU is the best expected utility over every
// strategy, and its own strategy attains it; EU(D=s | e) for e a whole
// configuration of D's information is the best conditional expected
// utility over every strategy of the later decisions.
func TestSolveBrute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDiagram(t, 3)
		sol, err := d.Solve(Options{})
		if err != nil {
			t.Fatalf("Solve: %v", err)
		}
		order := d.Order
		info := bruteInfo(d, order)
		for i, p := range sol.Policies {
			if p.Decision != order[i] || !slices.Equal(p.Info, info[i]) {
				t.Fatalf("policy %d: decision %d over %v, want %d over %v", i, p.Decision, p.Info, order[i], info[i])
			}
		}
		own, _ := bruteEU(d, toBrute(sol.Policies), nil, nil)
		if !(math.Abs(own-sol.MEU) <= tol) {
			t.Fatalf("Solve's strategy is worth %v, its MEU %v", own, sol.MEU)
		}
		if strategyCount(d, order, info, 1<<14) <= 1<<14 {
			best := math.Inf(-1)
			strategies(d, order, info, func(ps []bpolicy) bool {
				u, _ := bruteEU(d, ps, nil, nil)
				best = math.Max(best, u)
				return true
			})
			if !(math.Abs(best-sol.MEU) <= tol) {
				t.Fatalf("MEU %v, brute force %v", sol.MEU, best)
			}
			solveChecked.Add(1)
		}
		// EU at one decision given evidence on part of its information:
		// the earlier decisions not named follow Solve's policies, the
		// later ones the best strategy of all.
		{
			i := rapid.IntRange(0, len(order)-1).Draw(t, "partial decision")
			if strategyCount(d, order[i+1:], info[i+1:], 1<<10) <= 1<<10 {
				dec := order[i]
				fixed, cond, ev := map[int]int{}, map[int]int{}, map[int]int{}
				for _, v := range info[i] {
					if rapid.Bool().Draw(t, "named") {
						x := rapid.IntRange(0, d.Vars[v].Card-1).Draw(t, "state")
						ev[v] = x
						if d.Vars[v].Kind == Decision {
							fixed[v] = x
						} else {
							cond[v] = x
						}
					}
				}
				var earlier []bpolicy
				for _, p := range toBrute(sol.Policies[:i]) {
					if _, ok := fixed[p.dec]; !ok {
						earlier = append(earlier, p)
					}
				}
				for s := range d.Vars[dec].Card {
					fixed[dec] = s
					best, den := math.Inf(-1), 0.0
					strategies(d, order[i+1:], info[i+1:], func(ps []bpolicy) bool {
						var num float64
						num, den = bruteEU(d, slices.Concat(earlier, ps), fixed, cond)
						if den > 0 {
							best = math.Max(best, num/den)
						}
						return den > 0
					})
					got, err := sol.EU(dec, s, ev)
					if den == 0 {
						if !errors.Is(err, ErrImpossible) {
							t.Fatalf("EU(%d=%d | %v) of probability 0: %v, %v", dec, s, ev, got, err)
						}
						continue
					}
					if err != nil || !(math.Abs(got-best) <= tol) {
						t.Fatalf("EU(%d=%d | %v) = %v, %v; brute force %v", dec, s, ev, got, err, best)
					}
					euChecked.Add(1)
				}
			}
		}
		// EU at one decision, every configuration of its information.
		i := rapid.IntRange(0, len(order)-1).Draw(t, "eu decision")
		later := order[i+1:]
		if strategyCount(d, later, info[i+1:], 1<<10) > 1<<10 {
			return
		}
		dec := order[i]
		// Without evidence: the earlier decisions follow Solve's
		// policies, the later ones the best strategy of all.
		earlier := toBrute(sol.Policies[:i])
		for s := range d.Vars[dec].Card {
			best := math.Inf(-1)
			strategies(d, later, info[i+1:], func(ps []bpolicy) bool {
				u, _ := bruteEU(d, slices.Concat(earlier, ps), map[int]int{dec: s}, nil)
				best = math.Max(best, u)
				return true
			})
			got, err := sol.EU(dec, s, nil)
			if err != nil {
				t.Fatalf("EU(%d=%d): %v", dec, s, err)
			}
			if !(math.Abs(got-best) <= tol) {
				t.Fatalf("EU(%d=%d) = %v, brute force %v", dec, s, got, best)
			}
			euChecked.Add(1)
		}
		x := make([]int, len(d.Vars))
		for k := range configs(d, info[i]) {
			r := k
			for j := len(info[i]) - 1; j >= 0; j-- {
				v := info[i][j]
				x[v] = r % d.Vars[v].Card
				r /= d.Vars[v].Card
			}
			fixed, cond, ev := map[int]int{}, map[int]int{}, map[int]int{}
			for _, v := range info[i] {
				ev[v] = x[v]
				if d.Vars[v].Kind == Decision {
					fixed[v] = x[v]
				} else {
					cond[v] = x[v]
				}
			}
			for s := range d.Vars[dec].Card {
				fixed[dec] = s
				best, den := math.Inf(-1), 0.0
				strategies(d, later, info[i+1:], func(ps []bpolicy) bool {
					var num float64
					num, den = bruteEU(d, ps, fixed, cond)
					if den > 0 {
						best = math.Max(best, num/den)
					}
					return den > 0
				})
				got, err := sol.EU(dec, s, ev)
				if den == 0 {
					if !errors.Is(err, ErrImpossible) {
						t.Fatalf("EU(%d=%d | %v) of probability 0: %v, %v", dec, s, ev, got, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("EU(%d=%d | %v): %v", dec, s, ev, err)
				}
				if !(math.Abs(got-best) <= tol) {
					t.Fatalf("EU(%d=%d | %v) = %v, brute force %v", dec, s, ev, got, best)
				}
				euChecked.Add(1)
			}
		}
	})
	t.Logf("MEU checked by enumerating strategies on %d diagrams; %d EU values checked", solveChecked.Load(), euChecked.Load())
	if solveChecked.Load() == 0 || euChecked.Load() == 0 {
		t.Error("no diagram small enough to check by brute force")
	}
}
