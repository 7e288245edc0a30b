package mixture

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// partitions returns the row ranges of n rows cut into parts pieces at
// random places (some possibly empty).
func partitions(n, parts int, rng *rand.Rand) [][2]int {
	cuts := []int{0}
	for range parts - 1 {
		cuts = append(cuts, rng.IntN(n+1))
	}
	cuts = append(cuts, n)
	for i := 1; i < len(cuts); i++ { // insertion sort: few cuts
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	var out [][2]int
	for i := 1; i < len(cuts); i++ {
		out = append(out, [2]int{cuts[i-1], cuts[i]})
	}
	return out
}

// rows returns rows lo to hi of x, sharing its storage.
func rows(x *Matrix, lo, hi int) *Matrix {
	return NewMatrix(hi-lo, x.Cols, x.Data[lo*x.Cols:hi*x.Cols])
}

// mergeRandomly merges the statistics in a random order and grouping,
// and returns the result.
func mergeRandomly[S any](parts []S, merge func(a, b S), rng *rand.Rand) S {
	for len(parts) > 1 {
		i := rng.IntN(len(parts))
		j := rng.IntN(len(parts) - 1)
		if j >= i {
			j++
		}
		merge(parts[i], parts[j])
		parts = append(parts[:j], parts[j+1:]...)
	}
	return parts[0]
}

// near reports whether got is within tol of want relative to scale,
// failing on NaN.
func near(got, want, tol, scale float64) bool {
	return math.Abs(got-want) <= tol*math.Max(scale, math.Abs(want))
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func TestGMMStatsShardInvariance(t *testing.T) {
	tests := []struct {
		cov     CovarianceType
		n, d, k int
	}{
		{Full, 3000, 3, 3},
		{Full, 1000, 1, 1},
		{Diag, 3000, 4, 3},
		{Spherical, 2000, 2, 4},
		{Tied, 3000, 3, 2},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/k%d/d%d", tc.cov, tc.k, tc.d), func(t *testing.T) {
			x := blobs(tc.n, tc.d, tc.k, 6, 7)
			// Start from a rough fit (two iterations) so the centres are
			// not the final means.
			opt := DefaultGMMOptions(tc.k)
			opt.Covariance, opt.MaxIter, opt.NInit, opt.Tol = tc.cov, 2, 1, 0
			g0, err := FitGMM(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			// The reference: FitGMM's own iteration from g0.
			ropt := opt
			ropt.Init, ropt.Given, ropt.MaxIter = InitGiven, g0, 1
			ref, err := FitGMM(x, ropt)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			for _, parts := range []int{1, 2, 5, 17} {
				var stats []*GMMStats
				for _, r := range partitions(x.Rows, parts, rng) {
					s := NewGMMStats(g0)
					if err := AddGMM(s, g0, rows(x, r[0], r[1])); err != nil {
						t.Fatal(err)
					}
					stats = append(stats, s)
				}
				s := mergeRandomly(stats, (*GMMStats).Merge, rng)
				if s.N != int64(x.Rows) {
					t.Fatalf("%d parts: N = %d, want %d", parts, s.N, x.Rows)
				}
				if got, want := s.MeanLogLik(), ref.Trace[0]; !near(got, want, 1e-12, 0) {
					t.Errorf("%d parts: mean log-likelihood %v, FitGMM's %v", parts, got, want)
				}
				g := s.Update(opt.RegCovar)
				for _, c := range []struct {
					name      string
					got, want []float64
				}{
					{"weights", g.Weights, ref.Weights},
					{"means", g.Means, ref.Means},
					{"covariances", g.Covariances, ref.Covariances},
				} {
					if len(c.got) != len(c.want) {
						t.Fatalf("%d parts: %d %s, want %d", parts, len(c.got), c.name, len(c.want))
					}
					scale := maxAbs(c.want)
					for i := range c.got {
						if !near(c.got[i], c.want[i], 1e-12, scale) {
							t.Errorf("%d parts: %s[%d] = %v, FitGMM's %v", parts, c.name, i, c.got[i], c.want[i])
						}
					}
				}
			}
		})
	}
}

// TestKMeansStatsShardInvariance checks the statistics of a Lloyd
// iteration against a direct computation: the counts exactly, the sums
// and the inertia to 1e-12, on any partition of the rows.
func TestKMeansStatsShardInvariance(t *testing.T) {
	tests := []struct{ n, d, k int }{
		{2000, 2, 3},
		{1500, 5, 8},
		{300, 1, 1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("k%d/d%d", tc.k, tc.d), func(t *testing.T) {
			x := blobs(tc.n, tc.d, tc.k, 5, 3)
			rng := rand.New(rand.NewPCG(2, 2))
			centers := make([]float64, tc.k*tc.d)
			for j := range tc.k {
				copy(centers[j*tc.d:], x.Row(rng.IntN(x.Rows)))
			}
			// The reference: each row to its nearest centre by a plain scan.
			count := make([]int64, tc.k)
			sum := make([]float64, tc.k*tc.d)
			inertia := 0.0
			for i := range x.Rows {
				best, bd := 0, math.Inf(1)
				for j := range tc.k {
					dd := 0.0
					for l, v := range x.Row(i) {
						e := v - centers[j*tc.d+l]
						dd += e * e
					}
					if dd < bd {
						best, bd = j, dd
					}
				}
				count[best]++
				for l, v := range x.Row(i) {
					sum[best*tc.d+l] += v
				}
				inertia += bd
			}
			for _, parts := range []int{1, 3, 11} {
				var stats []*KMeansStats
				for _, r := range partitions(x.Rows, parts, rng) {
					s := NewKMeansStats(tc.k, tc.d)
					AddKMeans(s, rows(x, r[0], r[1]), centers)
					stats = append(stats, s)
				}
				s := mergeRandomly(stats, (*KMeansStats).Merge, rng)
				for j := range count {
					if s.Count[j] != count[j] {
						t.Errorf("%d parts: count[%d] = %d, want %d", parts, j, s.Count[j], count[j])
					}
				}
				scale := maxAbs(sum)
				for i := range sum {
					if !near(s.Sum[i], sum[i], 1e-12, scale) {
						t.Errorf("%d parts: sum[%d] = %v, want %v", parts, i, s.Sum[i], sum[i])
					}
				}
				if !near(s.Inertia, inertia, 1e-12, 0) {
					t.Errorf("%d parts: inertia %v, want %v", parts, s.Inertia, inertia)
				}
				next, empty := s.Centers(centers)
				for j := range tc.k {
					for l := range tc.d {
						want := centers[j*tc.d+l]
						if count[j] > 0 {
							want = sum[j*tc.d+l] / float64(count[j])
						} else if empty == 0 {
							t.Errorf("%d parts: cluster %d is empty, Centers says none is", parts, j)
						}
						if !near(next[j*tc.d+l], want, 1e-12, 1) {
							t.Errorf("%d parts: centre %d[%d] = %v, want %v", parts, j, l, next[j*tc.d+l], want)
						}
					}
				}
			}
		})
	}
}
