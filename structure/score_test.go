package structure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomData returns n rows over variables of the given cards, each cell
// missing with probability miss; column v depends on column v-1.
func randomData(seed uint64, card []int, n int, miss float64) *Data {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := &Data{N: n, Card: card}
	for v, c := range card {
		d.Names = append(d.Names, fmt.Sprintf("V%d", v))
		var st []string
		for k := 0; k < c; k++ {
			st = append(st, fmt.Sprint(k))
		}
		d.States = append(d.States, st)
		d.Cols = append(d.Cols, make([]int32, n))
	}
	for i := 0; i < n; i++ {
		for v, c := range card {
			x := int32(rng.IntN(c))
			if v > 0 && d.Cols[v-1][i] >= 0 && rng.Float64() < 0.6 {
				x = d.Cols[v-1][i] % int32(c)
			}
			d.Cols[v][i] = x
		}
		for v := range card {
			if rng.Float64() < miss {
				d.Cols[v][i] = -1
			}
		}
	}
	return d
}

// directScore computes a family score from counts kept in a map, written
// independently of the package's counting.
func directScore(d *Data, kind Score, ess float64, child int, parents []int) float64 {
	type key struct{ cfg string }
	nijk := map[string][]float64{}
	total := 0.0
rows:
	for i := 0; i < d.N; i++ {
		cfg := ""
		for _, p := range parents {
			if d.Cols[p][i] < 0 {
				continue rows
			}
			cfg += fmt.Sprintf("%d,", d.Cols[p][i])
		}
		x := d.Cols[child][i]
		if x < 0 {
			continue
		}
		if nijk[cfg] == nil {
			nijk[cfg] = make([]float64, d.Card[child])
		}
		nijk[cfg][x]++
		total++
	}
	r := float64(d.Card[child])
	q := 1.0
	for _, p := range parents {
		q *= float64(d.Card[p])
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	s := 0.0
	for _, row := range nijk {
		nij := 0.0
		for _, c := range row {
			nij += c
		}
		switch kind {
		case BDeu:
			s += lg(ess/q) - lg(ess/q+nij)
			for _, c := range row {
				s += lg(ess/(q*r)+c) - lg(ess/(q*r))
			}
		case K2:
			// Cooper–Herskovits: Π_j (r−1)!/(N_ij+r−1)! Π_k N_ijk!
			s += lg(r) - lg(nij+r)
			for _, c := range row {
				s += lg(c + 1)
			}
		default:
			for _, c := range row {
				if c > 0 {
					s += c * math.Log(c/nij)
				}
			}
		}
	}
	params := q * (r - 1)
	switch kind {
	case AIC:
		s -= params
	case BIC:
		s -= math.Log(total) / 2 * params
	}
	return s
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*(1+math.Abs(b))
}

func TestScoresMatchDirectComputation(t *testing.T) {
	card := []int{2, 3, 2, 4}
	families := []struct {
		child   int
		parents []int
	}{
		{0, nil}, {1, []int{0}}, {2, []int{0, 1}}, {3, []int{1, 2}}, {3, []int{0, 1, 2}}, {0, []int{3}},
	}
	for _, miss := range []float64{0, 0.1} {
		d := randomData(3, card, 500, miss)
		for _, kind := range []Score{LogLik, AIC, BIC, BDeu, K2} {
			for _, ess := range []float64{1, 10} {
				s := NewScorer(d, kind, ess)
				for _, f := range families {
					got := s.Family(f.child, f.parents)
					want := directScore(d, kind, ess, f.child, f.parents)
					if !near(got, want) {
						t.Errorf("miss %g %s ess %g: family %d | %v = %.12g, want %.12g", miss, kind, ess, f.child, f.parents, got, want)
					}
				}
			}
		}
	}
}

// The sparse path (families too large for a dense table) and the path that
// adds a parent to a family's row indices agree bit for bit with counting
// from scratch.
func TestScorePathsAgree(t *testing.T) {
	d := randomData(5, []int{3, 2, 4, 3, 2}, 400, 0.05)
	for _, kind := range []Score{LogLik, BIC, BDeu, K2} {
		s := NewScorer(d, kind, 2)
		for child := 0; child < 5; child++ {
			for mask := 0; mask < 32; mask++ {
				var ps []int
				for p := 0; p < 5; p++ {
					if mask&(1<<p) != 0 && p != child {
						ps = append(ps, p)
					}
				}
				ref := s.countScore(child, ps, nil, -1)
				q := s.configs(ps)
				if sp := s.sparseScore(child, ps, q); sp != ref {
					t.Errorf("%s %d | %v: sparse %v, dense %v", kind, child, ps, sp, ref)
				}
				for k, extra := range ps {
					rest := slices.Delete(slices.Clone(ps), k, k+1)
					base := familyIndex(d, child, rest, nil)
					if got := s.countScore(child, ps, base, extra); got != ref {
						t.Errorf("%s %d | %v adding %d: %v, want %v", kind, child, ps, extra, got, ref)
					}
				}
				if want := directScore(d, kind, 2, child, ps); !near(ref, want) {
					t.Errorf("%s %d | %v = %v, want %v", kind, child, ps, ref, want)
				}
			}
		}
	}
}

// Every move's change of score, as the hill climber computes it per
// family, equals the difference of the full scores.
func TestMoveDeltasAreDecomposable(t *testing.T) {
	d := randomData(11, []int{2, 3, 2, 3, 2}, 300, 0.05)
	for _, kind := range []Score{LogLik, AIC, BIC, BDeu, K2} {
		s := NewScorer(d, kind, 1)
		g := NewDAG(d.Names)
		for _, e := range [][2]int{{0, 1}, {1, 2}, {0, 3}, {3, 4}} {
			if err := g.AddEdge(e[0], e[1]); err != nil {
				t.Fatal(err)
			}
		}
		opt := Options{}
		con, _ := newConstraints(5, &opt)
		c := newClimber(s, g.Clone(), &opt, con)
		before := s.Total(g)
		count := 0
		c.moves(func(m move) {
			h := g.Clone()
			switch m.kind {
			case moveAdd:
				h.AddEdge(m.from, m.to)
			case moveDelete:
				h.RemoveEdge(m.from, m.to)
			case moveReverse:
				h.RemoveEdge(m.from, m.to)
				if err := h.AddEdge(m.to, m.from); err != nil {
					t.Errorf("reverse %v: %v", m, err)
				}
			}
			count++
			if want := s.Total(h) - before; !(math.Abs(m.delta-want) <= 1e-9*(1+math.Abs(before))) {
				t.Errorf("%s: %s %d -> %d: delta %v, want %v", kind, m.kind, m.from, m.to, m.delta, want)
			}
		})
		if count == 0 {
			t.Errorf("%s: no moves", kind)
		}
	}
}

// TestLogRising compares ln Γ(a+n) − ln Γ(a) with the sum of ln(a+i),
// exact for a whole n, on both sides of the switch to Stirling's series,
// and checks that a huge a stays finite.
func TestLogRising(t *testing.T) {
	for _, a := range []float64{1e-3, 0.5, 1, 7, 99999, 1e5, 3e5, 1e8, 1e12, 1e200, 1e307} {
		for _, n := range []float64{0, 1, 2, 17, 400} {
			want := 0.0
			for i := 0.0; i < n; i++ {
				want += math.Log(a + i)
			}
			lgA, _ := math.Lgamma(a)
			got := logRising(a, lgA, n)
			if d := math.Abs(got - want); !(d <= 1e-9*math.Max(1, math.Abs(want))) {
				t.Errorf("logRising(%g, %g) = %.17g, want %.17g", a, n, got, want)
			}
		}
	}
}
