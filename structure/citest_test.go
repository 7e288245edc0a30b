package structure

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ciTable is a contingency table n[z][x][y] written by hand.
type ciTable [][][]int

// ciColumns returns the rows of t as columns x, y, z (z omitted when t has
// one stratum and noZ is set).
func ciColumns(t ciTable, noZ bool) (cols [][]int32, card []int) {
	var xs, ys, zs []int32
	for z, tab := range t {
		for x, row := range tab {
			for y, k := range row {
				for range k {
					xs, ys, zs = append(xs, int32(x)), append(ys, int32(y)), append(zs, int32(z))
				}
			}
		}
	}
	cols = [][]int32{xs, ys}
	card = []int{len(t[0]), len(t[0][0])}
	if !noZ {
		cols = append(cols, zs)
		card = append(card, len(t))
	}
	return cols, card
}

// ciDirect computes G² and χ² from the table with the textbook formulas.
func ciDirect(t ciTable) (g2, x2 float64) {
	for _, tab := range t {
		nz := 0.0
		nx := make([]float64, len(tab))
		ny := make([]float64, len(tab[0]))
		for x, row := range tab {
			for y, k := range row {
				nz += float64(k)
				nx[x] += float64(k)
				ny[y] += float64(k)
			}
		}
		if nz == 0 {
			continue
		}
		for x, row := range tab {
			for y, k := range row {
				e := nx[x] * ny[y] / nz
				if e == 0 {
					continue
				}
				if k > 0 {
					g2 += 2 * float64(k) * math.Log(float64(k)/e)
				}
				x2 += (float64(k) - e) * (float64(k) - e) / e
			}
		}
	}
	return g2, x2
}

// chiSurvival is P(χ²_df ≥ x) in closed form for df 1 to 4.
func chiSurvival(df int, x float64) float64 {
	switch df {
	case 1:
		return math.Erfc(math.Sqrt(x / 2))
	case 2:
		return math.Exp(-x / 2)
	case 3:
		return math.Erfc(math.Sqrt(x/2)) + math.Sqrt(2*x/math.Pi)*math.Exp(-x/2)
	case 4:
		return math.Exp(-x/2) * (1 + x/2)
	}
	panic("chiSurvival: df")
}

func ciClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-10*(1+math.Abs(b))
}

func TestCITestsByHand(t *testing.T) {
	tests := []struct {
		name  string
		table ciTable
		noZ   bool
		df    int
		g2    float64 // when nonzero, a reference value computed by hand
	}{
		{"2x2", ciTable{{{10, 20}, {30, 40}}}, true, 1, 0},
		{"3x3", ciTable{{{12, 5, 7}, {3, 20, 9}, {8, 6, 15}}}, true, 4, 0},
		{"2x2 given Z", ciTable{{{10, 5}, {5, 10}}, {{7, 8}, {9, 6}}}, false, 2, 0},
		// The first stratum never sees y = 1: it adds (2−1)(2−1), the second (2−1)(3−1).
		{"empty column", ciTable{{{5, 0, 7}, {6, 0, 2}}, {{3, 4, 5}, {6, 7, 1}}}, false, 3, 0},
		// A stratum with no rows adds nothing.
		{"empty stratum", ciTable{{{10, 5}, {5, 10}}, {{0, 0}, {0, 0}}}, false, 1, 0},
		// x is constant within each stratum: no degrees of freedom.
		{"degenerate", ciTable{{{4, 6}, {0, 0}}, {{0, 0}, {3, 9}}}, false, 0, 0},
		// Perfect dependence 2x2 with 10 and 10: G² = 2·20·ln 2.
		{"perfect", ciTable{{{10, 0}, {0, 10}}}, true, 1, 40 * math.Ln2},
	}
	for _, tc := range tests {
		cols, card := ciColumns(tc.table, tc.noZ)
		var z []int
		if !tc.noZ {
			z = []int{2}
		}
		g2, x2 := ciDirect(tc.table)
		if tc.g2 != 0 && !ciClose(g2, tc.g2) {
			t.Fatalf("%s: the direct G² %v is not the hand value %v", tc.name, g2, tc.g2)
		}
		for _, kind := range []CITest{G2, Chi2} {
			want := g2
			if kind == Chi2 {
				want = x2
			}
			wantP := 1.0
			if tc.df > 0 {
				wantP = chiSurvival(tc.df, want)
			}
			got, err := NewTester(cols, card, kind).Test(0, 1, z)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, kind, err)
			}
			if got.DF != tc.df {
				t.Errorf("%s %s: df %d, want %d", tc.name, kind, got.DF, tc.df)
			}
			if !ciClose(got.Stat, want) {
				t.Errorf("%s %s: statistic %v, want %v", tc.name, kind, got.Stat, want)
			}
			if !ciClose(got.P, wantP) {
				t.Errorf("%s %s: p %v, want %v", tc.name, kind, got.P, wantP)
			}
			if got.N != len(cols[0]) {
				t.Errorf("%s %s: %d rows used, want %d", tc.name, kind, got.N, len(cols[0]))
			}
		}
	}
}

// TestCIReferenceNumbers checks against numbers worked out on paper: for
// [[10, 20], [30, 40]], χ² = N(ad − bc)² / (row and column totals) =
// 100·200² / (30·70·40·60) = 0.793650…, p = erfc(√(χ²/2)) = 0.37300…
// (scipy.stats.chi2_contingency(..., correction=False) prints the same).
func TestCIReferenceNumbers(t *testing.T) {
	cols, card := ciColumns(ciTable{{{10, 20}, {30, 40}}}, true)
	got, err := NewTester(cols, card, Chi2).Test(0, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := 100.0 * 200 * 200 / (30 * 70 * 40 * 60); !ciClose(got.Stat, want) {
		t.Errorf("χ² %v, want %v", got.Stat, want)
	}
	if !(math.Abs(got.P-0.37300) <= 5e-6) {
		t.Errorf("p %v, want 0.37300", got.P)
	}
}

func TestCIMissingCells(t *testing.T) {
	table := ciTable{{{10, 5}, {5, 10}}, {{7, 8}, {9, 6}}}
	cols, card := ciColumns(table, false)
	want, _ := NewTester(cols, card, G2).Test(0, 1, []int{2})
	// Add rows each missing one of the three cells.
	for v := range 3 {
		for c := range cols {
			s := int32(1)
			if c == v {
				s = -1
			}
			cols[c] = append(cols[c], s)
		}
	}
	got, err := NewTester(cols, card, G2).Test(0, 1, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	if got.N != want.N || !ciClose(got.Stat, want.Stat) || got.DF != want.DF {
		t.Errorf("with missing rows %+v, want %+v", got, want)
	}
}

// TestCIManyStrata checks that a conditioning set whose configurations
// outnumber the rows (renumbered densely) gives the test of one variable
// coding the same configurations.
func TestCIManyStrata(t *testing.T) {
	const rows = 300
	card := []int{2, 3, 7, 11, 13, 5, 7 * 11 * 13 * 5}
	cols := make([][]int32, len(card))
	seed := uint64(12345)
	rnd := func(k int) int32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int32((seed >> 33) % uint64(k))
	}
	for r := 0; r < rows; r++ {
		z := []int32{rnd(7), rnd(11), rnd(13), rnd(5)}
		x := rnd(2)
		y := (x + z[0]%2 + rnd(2)) % 3
		row := []int32{x, y, z[0], z[1], z[2], z[3], ((z[0]*11+z[1])*13+z[2])*5 + z[3]}
		for v, s := range row {
			cols[v] = append(cols[v], s)
		}
	}
	for _, kind := range []CITest{G2, Chi2} {
		tester := NewTester(cols, card, kind)
		got, err := tester.Test(0, 1, []int{2, 3, 4, 5})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := NewTester(cols, card, kind).Test(0, 1, []int{6})
		if got.DF != want.DF || !ciClose(got.Stat, want.Stat) || !ciClose(got.P, want.P) {
			t.Errorf("%s: four variables %+v, one coding them %+v", kind, got, want)
		}
		// The tester's scratch is reused: a second, smaller test is unaffected.
		small, _ := tester.Test(0, 1, nil)
		fresh, _ := NewTester(cols, card, kind).Test(0, 1, nil)
		if small != fresh {
			t.Errorf("%s: reused tester %+v, fresh %+v", kind, small, fresh)
		}
	}
}

// A test given two variables (counted in one pass) equals the test given
// one variable whose states are their pairs, with missing cells too.
func TestCITwoConditioning(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n = 3000
	card := []int{3, 2, 4, 5, 20}
	cols := make([][]int32, len(card))
	for i := range cols {
		cols[i] = make([]int32, n)
	}
	for r := range n {
		u, v := int32(rng.IntN(4)), int32(rng.IntN(5))
		x := (u + int32(rng.IntN(2))) % 3
		y := (v + x + int32(rng.IntN(3))) % 2
		row := []int32{x, y, u, v, u*5 + v}
		for i, c := range row {
			if i < 4 && rng.Float64() < 0.03 {
				c = -1
			}
			cols[i][r] = c
		}
		if cols[2][r] < 0 || cols[3][r] < 0 {
			cols[4][r] = -1
		}
	}
	for _, kind := range []CITest{G2, Chi2} {
		got, err := NewTester(cols, card, kind).Test(0, 1, []int{2, 3})
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewTester(cols, card, kind).Test(0, 1, []int{4})
		if err != nil {
			t.Fatal(err)
		}
		if got != want || got.DF == 0 {
			t.Errorf("%v: given u, v %+v; given their pair %+v", kind, got, want)
		}
	}
}
