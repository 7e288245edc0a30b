package mixture

import (
	"fmt"
	"math"
)

// This file holds the mergeable sufficient statistics of one iteration of
// k-means (Lloyd) and of Gaussian mixture EM, for data that is not one
// Matrix: shards read by different goroutines, processes or machines (an
// Apache Beam pipeline). Each shard adds its rows to statistics of its
// own under the same current parameters; the statistics merge by adding
// (associative and commutative: any partition of the rows, merged in any
// grouping, gives the same sums to rounding, about 1e-15 relative); and
// one update from the merged statistics gives the next parameters.
//
// The statistics of an iteration are about fixed centres, the current
// means, so that a covariance is not the difference of two large sums:
//
//	W_j = Σ_i r_ij,  S_j = Σ_i r_ij (x_i − c_j),  Q_j = Σ_i r_ij (x_i − c_j)(x_i − c_j)ᵀ
//
// (r_ij = 1 for the nearest centre and 0 otherwise in k-means). The new
// mean is μ_j = c_j + S_j/N_j and the scatter about it Q_j − 2 S_j
// (μ_j−c_j)ᵀ + W_j (μ_j−c_j)(μ_j−c_j)ᵀ, which is the same number as
// FitGMM's second pass, Σ_i r_ij (x_i − μ_j)(x_i − μ_j)ᵀ, in exact
// arithmetic; the two agree to about 1e-13 relative (the tests check).

// KMeansStats are the sufficient statistics of a Lloyd iteration over some
// rows: each row is assigned to its nearest centre (the lowest index of
// equally near ones, as KMeans does), and each cluster sums its rows. The
// zero value is not usable: make one with NewKMeansStats.
type KMeansStats struct {
	K, D    int
	Count   []int64   // K: the rows assigned to each centre
	Sum     []float64 // K×D, row-major: the sums of the rows of each centre
	Inertia float64   // Σ over the rows of the squared distance to their centre
}

// NewKMeansStats returns empty statistics for k centres of d columns.
func NewKMeansStats(k, d int) *KMeansStats {
	return &KMeansStats{K: k, D: d, Count: make([]int64, k), Sum: make([]float64, k*d)}
}

// AddKMeans adds the rows of x to s, each assigned to the nearest of the
// k centres (K×D, row-major). It panics if the shapes disagree.
func AddKMeans(s *KMeansStats, x *Matrix, centers []float64) {
	k, d := s.K, s.D
	if x.Cols != d || len(centers) != k*d {
		panic(fmt.Sprintf("mixture: AddKMeans: %d columns and %d centre values for statistics of %d×%d", x.Cols, len(centers), k, d))
	}
	cnorm := make([]float64, k)
	for j := range k {
		cnorm[j] = sqNorm(centers[j*d : (j+1)*d])
	}
	for i := range x.Rows {
		row := x.Row(i)
		j, _, _ := nearest2(row, centers, cnorm, k, sqNorm(row))
		s.Count[j]++
		sum := s.Sum[int(j)*d : (int(j)+1)*d]
		for l, v := range row {
			sum[l] += v
		}
		s.Inertia += sqDist(row, centers[int(j)*d:(int(j)+1)*d])
	}
}

// Merge adds o's rows to s. It panics if the shapes differ.
func (s *KMeansStats) Merge(o *KMeansStats) {
	if s.K != o.K || s.D != o.D {
		panic("mixture: KMeansStats.Merge: statistics of different shapes")
	}
	for j, c := range o.Count {
		s.Count[j] += c
	}
	for i, v := range o.Sum {
		s.Sum[i] += v
	}
	s.Inertia += o.Inertia
}

// Centers returns the next centres, the means of the clusters, and the
// number of empty clusters, which keep their old centre (old, K×D).
// KMeans re-seeds an empty cluster with the row farthest from its centre,
// which needs every row: the statistics cannot say which that is.
func (s *KMeansStats) Centers(old []float64) (centers []float64, empty int) {
	k, d := s.K, s.D
	centers = make([]float64, k*d)
	for j := range k {
		c := centers[j*d : (j+1)*d]
		if s.Count[j] == 0 {
			copy(c, old[j*d:(j+1)*d])
			empty++
			continue
		}
		n := float64(s.Count[j])
		for l := range d {
			c[l] = s.Sum[j*d+l] / n
		}
	}
	return centers, empty
}

// GMMStats are the sufficient statistics of one EM iteration of a Gaussian
// mixture over some rows, under the current parameters (Center holds the
// current means, the statistics' centres). The zero value is not usable:
// make one with NewGMMStats.
type GMMStats struct {
	K, D       int
	Covariance CovarianceType
	Center     []float64 // K×D: the current means c_j (the same for every shard)
	N          int64     // rows added
	LogLik     float64   // Σ over the rows of log p(x_i) under the current parameters
	Weight     []float64 // K: W_j = Σ_i r_ij
	Sum        []float64 // K×D: S_j = Σ_i r_ij (x_i − c_j)
	Scatter    []float64 // full and tied: K×D×D, the upper triangles of Q_j; diag and spherical: K×D, its diagonals
}

// NewGMMStats returns empty statistics for an iteration from g's
// parameters (Weights, Means, Covariances).
func NewGMMStats(g *GMM) *GMMStats {
	k, d := g.K, g.D
	cl := k * d
	if g.Covariance == Full || g.Covariance == Tied {
		cl = k * d * d
	}
	return &GMMStats{K: k, D: d, Covariance: g.Covariance, Center: append([]float64(nil), g.Means...),
		Weight: make([]float64, k), Sum: make([]float64, k*d), Scatter: make([]float64, cl)}
}

// AddGMM adds the rows of x to s, their responsibilities computed under
// g's parameters, which must be those s was made for. It fails, adding
// nothing, if a covariance is not positive definite or a row's
// log-likelihood is not finite. It panics if the shapes disagree.
func AddGMM(s *GMMStats, g *GMM, x *Matrix) error {
	k, d := s.K, s.D
	if g.K != k || g.D != d || x.Cols != d || g.Covariance != s.Covariance {
		panic(fmt.Sprintf("mixture: AddGMM: a %d×%d mixture and %d columns for statistics of %d×%d", g.K, g.D, x.Cols, k, d))
	}
	gs, err := whiten(g.Covariance, k, d, g.Weights, g.Means, g.Covariances)
	if err != nil {
		return err
	}
	tri := s.Covariance == Full || s.Covariance == Tied
	n := x.Rows
	lp := make([]float64, blockRows*k)
	diff := make([]float64, d)
	var ll float64
	w, sum, q := make([]float64, k), make([]float64, k*d), make([]float64, len(s.Scatter))
	for lo := 0; lo < n; lo += blockRows {
		hi := min(lo+blockRows, n)
		p := lp[:(hi-lo)*k]
		gs.logProb(p, x.Data, lo, hi)
		ll += normalize(p, p, k)
		for i := lo; i < hi; i++ {
			r := p[(i-lo)*k : (i-lo+1)*k]
			row := x.Row(i)
			for j, rj := range r {
				if rj == 0 {
					continue
				}
				w[j] += rj
				c := s.Center[j*d : (j+1)*d]
				sj := sum[j*d : (j+1)*d]
				for l, v := range row {
					diff[l] = v - c[l]
					sj[l] += rj * diff[l]
				}
				if !tri {
					qj := q[j*d : (j+1)*d]
					for l, e := range diff {
						qj[l] += rj * e * e
					}
					continue
				}
				qj := q[j*d*d : (j+1)*d*d]
				for a := range d {
					ra := rj * diff[a]
					qa := qj[a*d : (a+1)*d]
					for b := a; b < d; b++ {
						qa[b] += ra * diff[b]
					}
				}
			}
		}
	}
	if math.IsNaN(ll) || math.IsInf(ll, 0) {
		return &Error{Err: ErrOverflow, Msg: "the log-likelihood is not finite: some row is too far from every component for float64 (rescale the data)"}
	}
	s.N += int64(n)
	s.LogLik += ll
	addTo(s.Weight, w)
	addTo(s.Sum, sum)
	addTo(s.Scatter, q)
	return nil
}

// Merge adds o's rows to s. Both must be statistics of the same
// iteration (the same centres). It panics if they are not.
func (s *GMMStats) Merge(o *GMMStats) {
	if s.K != o.K || s.D != o.D || s.Covariance != o.Covariance || len(s.Center) != len(o.Center) {
		panic("mixture: GMMStats.Merge: statistics of different shapes")
	}
	for i, c := range s.Center {
		if c != o.Center[i] && !(math.IsNaN(c) && math.IsNaN(o.Center[i])) {
			panic("mixture: GMMStats.Merge: statistics of different iterations (their centres differ)")
		}
	}
	s.N += o.N
	s.LogLik += o.LogLik
	addTo(s.Weight, o.Weight)
	addTo(s.Sum, o.Sum)
	addTo(s.Scatter, o.Scatter)
}

// MeanLogLik returns the mean log-likelihood per row under the parameters
// the statistics were computed with: FitGMM's trace value for the
// iteration.
func (s *GMMStats) MeanLogLik() float64 { return s.LogLik / float64(s.N) }

// Update returns the mixture that the M-step makes of s, with reg added to
// the covariances' diagonals (GMMOptions.RegCovar): FitGMM's M-step (see
// the package documentation), from statistics instead of the rows. The
// result has K, D, Covariance, Weights, Means, Covariances and N set.
// It panics if s has no rows.
func (s *GMMStats) Update(reg float64) *GMM {
	if s.N == 0 {
		panic("mixture: GMMStats.Update: no rows")
	}
	k, d := s.K, s.D
	const eps10 = 10 * 2.220446049250313e-16
	g := &GMM{K: k, D: d, Covariance: s.Covariance, N: int(s.N),
		Weights: make([]float64, k), Means: make([]float64, k*d), Covariances: make([]float64, s.Covariance.covLen(k, d))}
	nk := make([]float64, k)
	tot := 0.0
	for j := range k {
		nk[j] = s.Weight[j] + eps10
		tot += nk[j]
	}
	shift := make([]float64, k*d) // μ_j − c_j
	for j := range k {
		g.Weights[j] = nk[j] / tot
		for l := range d {
			shift[j*d+l] = s.Sum[j*d+l] / nk[j]
			g.Means[j*d+l] = s.Center[j*d+l] + shift[j*d+l]
		}
	}
	// scat returns the (a, b) entry of component j's scatter about μ_j.
	scat := func(j, a, b int, q float64) float64 {
		sa, sb := s.Sum[j*d+a], s.Sum[j*d+b]
		ma, mb := shift[j*d+a], shift[j*d+b]
		return q - sa*mb - sb*ma + s.Weight[j]*ma*mb
	}
	switch s.Covariance {
	case Full:
		for j := range k {
			qj, c := s.Scatter[j*d*d:(j+1)*d*d], g.Covariances[j*d*d:(j+1)*d*d]
			for a := range d {
				for b := a; b < d; b++ {
					v := scat(j, a, b, qj[a*d+b]) / nk[j]
					c[a*d+b], c[b*d+a] = v, v
				}
				c[a*d+a] += reg
			}
		}
	case Tied:
		c := g.Covariances
		for j := range k {
			qj := s.Scatter[j*d*d : (j+1)*d*d]
			for a := range d {
				for b := a; b < d; b++ {
					c[a*d+b] += scat(j, a, b, qj[a*d+b])
				}
			}
		}
		for a := range d {
			for b := a; b < d; b++ {
				v := c[a*d+b] / tot
				c[a*d+b], c[b*d+a] = v, v
			}
			c[a*d+a] += reg
		}
	case Diag:
		for j := range k {
			for l := range d {
				g.Covariances[j*d+l] = scat(j, l, l, s.Scatter[j*d+l])/nk[j] + reg
			}
		}
	case Spherical:
		for j := range k {
			v := 0.0
			for l := range d {
				v += scat(j, l, l, s.Scatter[j*d+l])/nk[j] + reg
			}
			g.Covariances[j] = v / float64(d)
		}
	}
	return g
}
