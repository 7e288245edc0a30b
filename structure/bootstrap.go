package structure

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/pbl-lang/pbl/internal/par"
)

// A Learner learns a graph from a data set; undirected lists the edges of
// the graph the method could not orient (PC's), as pairs of its edges.
// It is called on several goroutines at once and must not depend on
// anything but its data.
type Learner func(d *Data) (g *DAG, undirected [][2]int, err error)

// Strength is the bootstrap support of a pair of variables, as bnlearn's
// boot.strength: the fraction of the resamples whose graph joins From and
// To (Strength), and the fractions that direct the edge From -> To
// (Forward) and To -> From (Backward). An edge a method left undirected
// counts half each way, so Forward + Backward = Strength. From -> To is
// the direction more resamples take (on a tie, the lower column first).
type Strength struct {
	From, To                    int
	Strength, Forward, Backward float64
}

// Resample returns a resample of d: d.N rows drawn with replacement by
// rng.
func Resample(d *Data, rng *rand.Rand) *Data {
	rows := make([]int, d.N)
	for i := range rows {
		rows[i] = rng.IntN(d.N)
	}
	r := &Data{Names: d.Names, States: d.States, Card: d.Card, N: d.N, Cols: make([][]int32, len(d.Cols))}
	for v, col := range d.Cols {
		if col == nil {
			continue // a real-valued column: in r.Real below
		}
		c := make([]int32, d.N)
		for i, row := range rows {
			c[i] = col[row]
		}
		r.Cols[v] = c
	}
	if d.Real != nil {
		r.Real = make([][]float64, len(d.Real))
		for v, col := range d.Real {
			if col == nil {
				continue
			}
			c := make([]float64, d.N)
			for i, row := range rows {
				c[i] = col[row]
			}
			r.Real[v] = c
		}
	}
	return r
}

// Bootstrap learns a graph from each of n resamples of d and returns the
// support of every pair of variables some resample joins, the strongest
// first (then by column). Resample k is drawn by a generator seeded with
// (seed, k), so the result depends on the seed but not on workers, the
// number of resamples learned at once.
func Bootstrap(d *Data, n int, seed uint64, workers int, learn Learner) ([]Strength, error) {
	if n < 1 {
		return nil, errorf(ErrInvalidArgument, "structure: %d resamples: want at least 1", n)
	}
	vars := len(d.Names)
	type result struct {
		g   *DAG
		und [][2]int
		err error
	}
	res := make([]result, n)
	par.Workers(workers, n, func(_, k int) {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		g, und, err := learn(Resample(d, rng))
		res[k] = result{g, und, err}
	})
	fwd := make([]float64, vars*vars) // fwd[a*vars+b]: resamples directing a -> b
	for k, r := range res {
		if r.err != nil {
			return nil, fmt.Errorf("resample %d: %w", k+1, r.err)
		}
		half := make(map[[2]int]bool, len(r.und))
		for _, e := range r.und {
			half[[2]int{min(e[0], e[1]), max(e[0], e[1])}] = true
		}
		for _, e := range r.g.Edges() {
			a, b := e[0], e[1]
			if half[[2]int{min(a, b), max(a, b)}] {
				fwd[a*vars+b] += 0.5
				fwd[b*vars+a] += 0.5
			} else {
				fwd[a*vars+b]++
			}
		}
	}
	var out []Strength
	nf := float64(n)
	for a := range vars {
		for b := a + 1; b < vars; b++ {
			f, g := fwd[a*vars+b], fwd[b*vars+a]
			if f+g == 0 {
				continue
			}
			s := Strength{From: a, To: b, Strength: (f + g) / nf, Forward: f / nf, Backward: g / nf}
			if g > f {
				s.From, s.To, s.Forward, s.Backward = b, a, s.Backward, s.Forward
			}
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(x, y Strength) int { return cmp.Compare(y.Strength, x.Strength) }) // strongest first
	return out, nil
}

// Averaged returns the averaged network of bootstrap strengths (as
// bnlearn's averaged.network): the pairs whose strength is at least
// threshold, strongest first, each directed the way more resamples
// direct it (From -> To), an edge that would close a cycle with those
// already taken being left out. Every resample keeps to the same
// constraints, so required edges have strength 1 and forbidden ones 0;
// [Admit] then trims variables with more than MaxParents parents.
func Averaged(s *Scorer, strengths []Strength, threshold float64, opt Options) (*DAG, error) {
	g := NewDAG(s.D.Names)
	for _, st := range strengths {
		if st.Strength >= threshold {
			_ = g.AddEdge(st.From, st.To) // left out if it closes a cycle
		}
	}
	return Admit(s, g, opt)
}
