package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// equal reports whether a and b agree within tol, absolutely or relatively.
// It is false if either is NaN.
func equal(a, b, tol float64) bool {
	if a == b {
		return true
	}
	d := math.Abs(a - b)
	if d <= tol {
		return true
	}
	return d <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// netSpec describes a discrete network for tests: cards, parents, CPT values.
type netSpec struct {
	card    []int
	parents [][]int
	cpt     [][]float64
}

func (s netSpec) build(t testing.TB) *ir.Model {
	t.Helper()
	b := ir.NewBuilder("test.pbl")
	for v, c := range s.card {
		states := make([]string, c)
		for i := range states {
			states[i] = fmt.Sprintf("s%d", i)
		}
		b.AddVar(ir.Pos{File: "test.pbl", Line: v + 1, Col: 1}, fmt.Sprintf("X%d", v), ir.Enum, states, 0)
	}
	for v := range s.card {
		ps := make([]ir.VarID, len(s.parents[v]))
		for i, p := range s.parents[v] {
			ps[i] = ir.VarID(p)
		}
		b.SetCPT(ir.Pos{File: "test.pbl", Line: v + 1, Col: 1}, ir.VarID(v), ps, s.cpt[v], nil)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomRow fills row with a random distribution; with zeros, some entries
// may be 0 (but never all). The last entry is 1 minus the sum of the others,
// so the row sums to 1 as exactly as float64 allows.
func randomRow(rng *rand.Rand, row []float64, zeros bool) {
	for {
		sum := 0.0
		for i := range row {
			row[i] = rng.Float64() + 0.05
			if zeros && rng.IntN(5) == 0 {
				row[i] = 0
			}
			sum += row[i]
		}
		if sum == 0 {
			continue
		}
		rest := 0.0
		for i := range row[:len(row)-1] {
			row[i] /= sum
			rest += row[i]
		}
		row[len(row)-1] = math.Max(0, 1-rest)
		return
	}
}

// randomNet returns a random DAG over n variables of 2..maxCard states, each
// with up to maxPar parents among the earlier variables.
func randomNet(rng *rand.Rand, n, maxCard, maxPar int, zeros bool) netSpec {
	s := netSpec{card: make([]int, n), parents: make([][]int, n), cpt: make([][]float64, n)}
	for v := 0; v < n; v++ {
		s.card[v] = 2 + rng.IntN(maxCard-1)
		if v > 0 {
			k := rng.IntN(min(v, maxPar) + 1)
			for _, p := range rng.Perm(v)[:k] {
				s.parents[v] = append(s.parents[v], p)
			}
		}
		size := s.card[v]
		for _, p := range s.parents[v] {
			size *= s.card[p]
		}
		s.cpt[v] = make([]float64, size)
		for r := 0; r < size; r += s.card[v] {
			randomRow(rng, s.cpt[v][r:r+s.card[v]], zeros)
		}
	}
	return s
}

// chainNet returns a chain X0 -> X1 -> ... of n binary variables with
// P(X0=s0) = 0.5 and P(Xi = X(i-1)) = stay.
func chainNet(n int, stay float64) netSpec {
	s := netSpec{card: make([]int, n), parents: make([][]int, n), cpt: make([][]float64, n)}
	for v := range n {
		s.card[v] = 2
		if v == 0 {
			s.cpt[v] = []float64{0.5, 0.5}
			continue
		}
		s.parents[v] = []int{v - 1}
		s.cpt[v] = []float64{stay, 1 - stay, 1 - stay, stay}
	}
	return s
}

// bruteJoint returns the full joint of m over every variable, in row-major
// VarID order, computed independently of the package.
func bruteJoint(m *ir.Model) (joint []float64, card []int) {
	card = make([]int, len(m.Vars))
	n := 1
	for v := range m.Vars {
		card[v] = len(m.Vars[v].States)
		n *= card[v]
	}
	joint = make([]float64, n)
	a := make([]int, len(card))
	for i := range joint {
		r := i
		for v := len(card) - 1; v >= 0; v-- {
			a[v] = r % card[v]
			r /= card[v]
		}
		p := 1.0
		for _, f := range m.Factors() {
			off := 0
			for k, w := range f.Vars {
				off += a[w] * f.Stride[k]
			}
			p *= f.Vals[off]
		}
		joint[i] = p
	}
	return joint, card
}

// decode writes the assignment of joint index i into a.
func decode(a, card []int, i int) {
	for v := len(card) - 1; v >= 0; v-- {
		a[v] = i % card[v]
		i /= card[v]
	}
}

// consistent reports whether a agrees with every observation.
func consistent(a []int, obs []ir.Obs) bool {
	for _, o := range obs {
		if a[o.Var] != o.State {
			return false
		}
	}
	return true
}

func ids(vs ...int) []ir.VarID {
	out := make([]ir.VarID, len(vs))
	for i, v := range vs {
		out[i] = ir.VarID(v)
	}
	return out
}

var allEngines = []struct {
	name string
	opt  Options
}{
	{"enum", Options{Engine: Enum}},
	{"ve-minfill", Options{Engine: VE, Order: MinFill}},
	{"ve-minweight", Options{Engine: VE, Order: MinWeight}},
}
