package mixture

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// This file holds the merge-and-split moves that k-means's kept restart
// goes through after Hartigan's refinement: k-means's counterpart of
// split-and-merge EM (see the package documentation).

// swapCandidates is the number of moves tried per round; 0 turns the
// moves off (tests compare with them off).
var swapCandidates = 30

// swapBudget is the moves' budget of Lloyd iterations, as a multiple of the restarts'.
var swapBudget = 1.0

// kmMove is a candidate: merge clusters i and j into i, and split
// cluster c into j and c along its principal axis or, when c < 0, put
// centre j on row (the row farthest from its centre).
type kmMove struct {
	i, j, c, row int
	gain         float64 // the estimated decrease of the inertia
}

// swap improves r, the kept converged result, by merge-and-split moves
// until no candidate of a round lowers its inertia or budget Lloyd
// iterations are spent, and returns the result kept: r or a better one.
func (km *kmeans) swap(r *KMeansResult, maxIter int, tol float64, budget int) *KMeansResult {
	if km.k < 2 || swapCandidates == 0 {
		return r
	}
	cur := r
	for budget > 0 {
		moves, axes := km.swapMoves(cur)
		improved := false
		for _, mv := range moves[:min(swapCandidates, len(moves))] {
			if budget <= 0 {
				break
			}
			nr := km.lloyd(km.swapInit(cur, mv, axes), min(maxIter, budget), tol)
			budget -= nr.Iterations
			if !nr.Converged {
				continue
			}
			km.refine(nr)
			if nr.Inertia < cur.Inertia*(1-1e-12) {
				cur, improved = nr, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return cur
}

// swapMoves returns the candidate moves for r, the largest estimated gain
// first (equal gains in the order generated). Merging i and j costs
// n_i n_j/(n_i+n_j) |c_i-c_j|² (Ward's criterion); splitting c along
// its principal axis (variance λ₁) gains about (2/π) n_c λ₁, as it would
// for a Gaussian cluster; a centre on the row farthest from its centre
// gains at least that row's squared distance. It also returns each
// cluster's split: √(2λ₁/π) v₁, the mean distance of a Gaussian half
// from the centre along the principal axis v₁.
func (km *kmeans) swapMoves(r *KMeansResult) (moves []kmMove, axes []float64) {
	x, k, d, n := km.x, km.k, km.x.Cols, km.x.Rows
	lam, axes := km.principal(r)
	split := make([]float64, k)
	for c := range k {
		split[c] = 2 / math.Pi * float64(r.Sizes[c]) * lam[c]
		a := math.Sqrt(2 * lam[c] / math.Pi)
		for l := range d {
			axes[c*d+l] *= a
		}
	}
	far, farRow := -1.0, -1
	for i := range n {
		j := int(r.Labels[i])
		if r.Sizes[j] < 2 {
			continue
		}
		if v := sqDist(x.Row(i), r.Centers[j*d:(j+1)*d]); v > far {
			far, farRow = v, i
		}
	}
	for i := range k {
		for j := i + 1; j < k; j++ {
			ni, nj := float64(r.Sizes[i]), float64(r.Sizes[j])
			cost := ni * nj / (ni + nj) * sqDist(r.Centers[i*d:(i+1)*d], r.Centers[j*d:(j+1)*d])
			if farRow >= 0 && int(r.Labels[farRow]) != j {
				moves = append(moves, kmMove{i, j, -1, farRow, far - cost})
			}
			for c := range k {
				if c != i && c != j && r.Sizes[c] > 1 {
					moves = append(moves, kmMove{i, j, c, -1, split[c] - cost})
				}
			}
		}
	}
	slices.SortStableFunc(moves, func(a, b kmMove) int {
		switch {
		case a.gain > b.gain:
			return -1
		case a.gain < b.gain:
			return 1
		}
		return 0
	})
	return moves, axes
}

// principal returns, for each cluster of r, the largest eigenvalue of
// its rows' scatter about its centre divided by its size, and its unit
// eigenvector (k×d, the sign fixed so that the first nonzero element is
// positive): from the d×d scatter for at most denseMaxCols columns, by
// principalWide for more.
func (km *kmeans) principal(r *KMeansResult) (lam, vecs []float64) {
	x, k, d := km.x, km.k, km.x.Cols
	if d > denseMaxCols {
		// Without the d×d scatter: linear in the columns.
		members := make([][]int, k)
		for i, j := range r.Labels {
			members[j] = append(members[j], i)
		}
		lam, vecs = make([]float64, k), make([]float64, k*d)
		for c := range k {
			l, v := principalWide(x, members[c], nil, r.Centers[c*d:(c+1)*d])
			lam[c] = l
			copy(vecs[c*d:(c+1)*d], v)
		}
		return lam, vecs
	}
	s := make([]float64, k*d*d)
	diff := make([]float64, d)
	for i, j := range r.Labels {
		mu, sc := r.Centers[int(j)*d:(int(j)+1)*d], s[int(j)*d*d:(int(j)+1)*d*d]
		for l, v := range x.Row(i) {
			diff[l] = v - mu[l]
		}
		for a := range d {
			for b := a; b < d; b++ {
				sc[a*d+b] += diff[a] * diff[b]
			}
		}
	}
	lam, vecs = make([]float64, k), make([]float64, k*d)
	sym := mat.NewSymDense(d, nil)
	var es mat.EigenSym
	var ev mat.Dense
	for c := range k {
		nc := float64(max(r.Sizes[c], 1))
		for a := range d {
			for b := a; b < d; b++ {
				sym.SetSym(a, b, s[c*d*d+a*d+b]/nc)
			}
		}
		if !es.Factorize(sym, true) {
			continue
		}
		vals := es.Values(nil)
		es.VectorsTo(&ev)
		v := vecs[c*d : (c+1)*d]
		for l := range d {
			v[l] = ev.At(l, d-1) // ascending order
		}
		for _, e := range v {
			if e != 0 {
				if e < 0 {
					for l := range v {
						v[l] = -v[l]
					}
				}
				break
			}
		}
		lam[c] = max(vals[d-1], 0)
	}
	return lam, vecs
}

// swapInit returns the centres of r after the move mv: i and j merged
// into i at their size-weighted mean; c split into j and c at c ± its
// split axes[c] (see swapMoves), or j put on mv.row.
func (km *kmeans) swapInit(r *KMeansResult, mv kmMove, axes []float64) []float64 {
	d := km.x.Cols
	centers := slices.Clone(r.Centers)
	ni, nj := float64(r.Sizes[mv.i]), float64(r.Sizes[mv.j])
	for l := range d {
		centers[mv.i*d+l] = (ni*r.Centers[mv.i*d+l] + nj*r.Centers[mv.j*d+l]) / (ni + nj)
	}
	if mv.c < 0 {
		copy(centers[mv.j*d:(mv.j+1)*d], km.x.Row(mv.row))
		return centers
	}
	a := axes[mv.c*d : (mv.c+1)*d]
	for l := range d {
		centers[mv.j*d+l] = r.Centers[mv.c*d+l] + a[l]
		centers[mv.c*d+l] = r.Centers[mv.c*d+l] - a[l]
	}
	return centers
}
