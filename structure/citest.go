package structure

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// CITest is a test of conditional independence of two discrete variables
// given a set of others, computed from the counts n_xyz of the rows where
// X = x, Y = y and the conditioning set Z is in configuration z.
type CITest int

const (
	// G2 is the likelihood-ratio statistic (twice the sample size times the
	// conditional mutual information, in nats):
	//
	//	G² = 2 Σ_xyz n_xyz ln(n_xyz n_z / (n_xz n_yz))
	G2 CITest = iota
	// Chi2 is Pearson's statistic:
	//
	//	χ² = Σ_xyz (n_xyz − e_xyz)² / e_xyz,  e_xyz = n_xz n_yz / n_z
	//
	// over the cells with e_xyz > 0.
	Chi2
	// FisherZ is Fisher's z test of a zero partial correlation, for
	// real-valued variables (fisherz.go).
	FisherZ
)

var ciTestNames = []string{"g2", "x2", "zf"}

func (t CITest) String() string { return ciTestNames[t] }

// CITestNames returns the names ParseCITest accepts.
func CITestNames() []string { return append([]string(nil), ciTestNames...) }

// ParseCITest returns the test named name: g2 (or mi), x2 (or chi2) or
// zf (or fisher-z).
func ParseCITest(name string) (CITest, error) {
	switch name {
	case "g2", "mi":
		return G2, nil
	case "x2", "chi2":
		return Chi2, nil
	case "zf", "fisher-z":
		return FisherZ, nil
	}
	return 0, &UnknownNameError{What: "test", Name: name, Want: []string{"g2", "x2", "zf"}}
}

// CIResult is the outcome of one conditional-independence test.
type CIResult struct {
	Stat float64 // the statistic, G² or χ²
	DF   int     // the degrees of freedom, reduced for empty rows and columns (see Tester)
	P    float64 // the p-value: P(χ²_DF ≥ Stat); 1 when DF is 0
	N    int     // the rows used: those where X, Y and every variable of Z are observed
}

// A Tester runs conditional-independence tests on one data set. It holds
// scratch space, so one Tester serves one goroutine; NewTester is cheap
// and the data are shared, not copied.
//
// # Degrees of freedom
//
// The statistic is compared with a χ² distribution whose degrees of
// freedom are adjusted for empty cells as bnlearn's "adjusted degrees of
// freedom" tests (mi-adf, x2-adf) do: each stratum z of the conditioning
// set contributes (r_z − 1)(c_z − 1), where r_z and c_z are the numbers of
// states of X and of Y observed in that stratum (a stratum with no rows
// contributes nothing). Without empty cells this is the classical
// (|X| − 1)(|Y| − 1)·∏|Z|. When it is 0 — X or Y is constant in every
// stratum — the statistic is 0 and the p-value is 1: the data show no
// dependence.
//
// # Missing cells
//
// A test uses the available cases: the rows where X, Y and every variable
// of Z are observed (a cell < 0 is missing).
type Tester struct {
	Cols [][]int32 // Cols[v][r]: the state of v in row r, or < 0 if missing
	Card []int     // Card[v]: v's number of states
	Kind CITest

	// Corr and Rows, for FisherZ: the correlation matrix of the
	// variables and the number of rows it was computed from.
	Corr *mat.SymDense
	Rows int

	n      int
	strata []int32 // per row: the stratum of Z, or -1 if a cell is missing
	counts []int32 // n_xyz, flat: (stratum·|X| + x)·|Y| + y
	remap  map[int32]int32
	nx, ny []int32
}

// NewTester returns a tester of the columns; every column has the same
// number of rows, and card[v] bounds column v's states.
func NewTester(cols [][]int32, card []int, kind CITest) *Tester {
	t := &Tester{Cols: cols, Card: card, Kind: kind}
	if len(cols) > 0 {
		t.n = len(cols[0])
	}
	return t
}

// maxCells bounds a contingency table's cells.
const maxCells = 1 << 27

// Test tests the independence of x and y given z.
func (t *Tester) Test(x, y int, z []int) (CIResult, error) {
	if t.Kind == FisherZ {
		return t.fisherZ(x, y, z)
	}
	if len(z) == 2 && t.Card[z[0]]*t.Card[z[1]] <= t.n {
		return t.test2(x, y, z[0], z[1])
	}
	var strata []int32
	var nstrata int
	if len(z) == 1 && t.Card[z[0]] <= t.n {
		// One conditioning variable: its column numbers the strata (a
		// missing cell, < 0, is skipped below).
		strata, nstrata = t.Cols[z[0]], t.Card[z[0]]
	} else {
		var err error
		if nstrata, err = t.stratify(z); err != nil {
			return CIResult{}, err
		}
		strata = t.strata
	}
	cx, cy := t.Card[x], t.Card[y]
	cells := int64(nstrata) * int64(cx) * int64(cy)
	if cells > maxCells {
		return CIResult{}, errorf(ErrTooLarge, "testing %d given %d variables: a table of %d cells is too large", x, len(z), cells)
	}
	if cap(t.counts) < int(cells) {
		t.counts = make([]int32, cells)
	}
	counts := t.counts[:cells]
	clear(counts)
	xs, ys := t.Cols[x], t.Cols[y]
	used := 0
	if len(z) == 0 {
		for r, a := range xs {
			b := ys[r]
			if a < 0 || b < 0 {
				continue
			}
			counts[int(a)*cy+int(b)]++
			used++
		}
	} else {
		for r, s := range strata[:t.n] {
			a, b := xs[r], ys[r]
			if s < 0 || a < 0 || b < 0 {
				continue
			}
			counts[(int(s)*cx+int(a))*cy+int(b)]++
			used++
		}
	}
	res := t.statistic(counts, nstrata, cx, cy)
	res.N = used
	return res, nil
}

// test2 is Test given two variables u and v, numbering the strata
// u·|v| + v as it counts, in one pass over the rows.
func (t *Tester) test2(x, y, u, v int) (CIResult, error) {
	cx, cy, cv := t.Card[x], t.Card[y], t.Card[v]
	nstrata := t.Card[u] * cv
	cells := nstrata * cx * cy
	if cells > maxCells {
		return CIResult{}, errorf(ErrTooLarge, "testing %d given 2 variables: a table of %d cells is too large", x, cells)
	}
	if cap(t.counts) < cells {
		t.counts = make([]int32, cells)
	}
	counts := t.counts[:cells]
	clear(counts)
	xs, ys, us, vs := t.Cols[x][:t.n], t.Cols[y][:t.n], t.Cols[u][:t.n], t.Cols[v][:t.n]
	used := 0
	for r, a := range xs {
		b, p, q := ys[r], us[r], vs[r]
		if a < 0 || b < 0 || p < 0 || q < 0 {
			continue
		}
		counts[((int(p)*cv+int(q))*cx+int(a))*cy+int(b)]++
		used++
	}
	res := t.statistic(counts, nstrata, cx, cy)
	res.N = used
	return res, nil
}

// stratify sets t.strata to each row's configuration of z, numbered
// densely, and returns the number of strata. Configurations are numbered
// mixed-radix while the count stays small, and renumbered by first
// appearance when it would not.
func (t *Tester) stratify(z []int) (int, error) {
	if len(z) == 0 {
		return 1, nil
	}
	if cap(t.strata) < t.n {
		t.strata = make([]int32, t.n)
	}
	st := t.strata[:t.n]
	limit := max(4*t.n, 1<<16)
	nstrata := 1
	for i, v := range z {
		c := t.Card[v]
		col := t.Cols[v]
		if i == 0 {
			for r, a := range col {
				st[r] = max(a, -1)
			}
			nstrata = c
			continue
		}
		if nstrata*c > limit {
			nstrata = t.renumber(st)
		}
		if int64(nstrata)*int64(c) > math.MaxInt32 {
			return 0, errorf(ErrTooLarge, "a conditioning set of %d variables has too many configurations", len(z))
		}
		for r, a := range col {
			if a < 0 || st[r] < 0 {
				st[r] = -1
			} else {
				st[r] = st[r]*int32(c) + a
			}
		}
		nstrata *= c
	}
	if nstrata > t.n {
		nstrata = t.renumber(st)
	}
	return nstrata, nil
}

// renumber numbers the strata of st densely by first appearance.
func (t *Tester) renumber(st []int32) int {
	if t.remap == nil {
		t.remap = map[int32]int32{}
	}
	clear(t.remap)
	for r, s := range st {
		if s < 0 {
			continue
		}
		id, ok := t.remap[s]
		if !ok {
			id = int32(len(t.remap))
			t.remap[s] = id
		}
		st[r] = id
	}
	return max(len(t.remap), 1)
}

// statistic computes the test from the counts.
func (t *Tester) statistic(counts []int32, nstrata, cx, cy int) CIResult {
	if cap(t.nx) < cx {
		t.nx = make([]int32, cx)
	}
	if cap(t.ny) < cy {
		t.ny = make([]int32, cy)
	}
	nx, ny := t.nx[:cx], t.ny[:cy]
	var stat float64
	df := 0
	for s := range nstrata {
		tab := counts[s*cx*cy : (s+1)*cx*cy]
		clear(nx)
		clear(ny)
		nz := 0
		for a := range cx {
			row := tab[a*cy : (a+1)*cy]
			for b, k := range row {
				nx[a] += k
				ny[b] += k
			}
			nz += int(nx[a])
		}
		if nz == 0 {
			continue
		}
		r, c := 0, 0
		for _, k := range nx {
			if k > 0 {
				r++
			}
		}
		for _, k := range ny {
			if k > 0 {
				c++
			}
		}
		if r < 2 || c < 2 {
			continue // the stratum adds nothing to the statistic or to df
		}
		df += (r - 1) * (c - 1)
		fz := float64(nz)
		for a := range cx {
			if nx[a] == 0 {
				continue
			}
			fa := float64(nx[a])
			row := tab[a*cy : (a+1)*cy]
			for b, k := range row {
				if ny[b] == 0 {
					continue
				}
				e := fa * float64(ny[b]) / fz
				switch t.Kind {
				case G2:
					if k > 0 {
						stat += float64(k) * math.Log(float64(k)/e)
					}
				case Chi2:
					d := float64(k) - e
					stat += d * d / e
				}
			}
		}
	}
	if t.Kind == G2 {
		stat *= 2
	}
	if stat < 0 {
		stat = 0 // rounding: G² is never negative
	}
	p := 1.0
	if df > 0 {
		p = distuv.ChiSquared{K: float64(df)}.Survival(stat)
	}
	return CIResult{Stat: stat, DF: df, P: p}
}
