package mixture

import "math"

// hartigan refines a k-means partition by single-row moves, as Hartigan
// and Wong's algorithm (J. A. Hartigan and M. A. Wong, Algorithm AS 136,
// Applied Statistics 28, 1979) and Telgarsky and Vattani's analysis of it
// (Hartigan's method: k-means clustering without Voronoi, AISTATS 2010).
// Moving row x from cluster a (of n_a rows, centre c_a) to cluster b
// changes the inertia, the centres being the means, by
//
//	n_b/(n_b+1) |x - c_b|² - n_a/(n_a-1) |x - c_a|²
//
// which can be negative even when c_a is x's nearest centre, so a Lloyd
// fixed point is not always a local minimum for single moves. Each sweep
// first finds, in parallel over the blocks, the rows with a move that
// lowers the inertia (by more than a relative 1e-12, which rounding cannot
// make cycle), then goes through them in row order, each time with the
// centres as the moves so far left them, and makes the best move if it
// still lowers the inertia. Sweeps stop when one finds no row to move (or
// after maxSweeps), so the result is a Lloyd fixed point too: a row nearer
// to another centre always has a move that lowers the inertia. Every move
// lowers the inertia; the result is the same with any number of workers.
//
// labels is the partition, changed in place; hartigan returns the centres
// (the means of the clusters, from sums added in block order) and the
// number of moves made. No cluster is empty on entry, and none is emptied.
func (km *kmeans) hartigan(labels []int32, maxSweeps int) (centers []float64, moves int) {
	x, k, n, d := km.x, km.k, km.x.Rows, km.x.Cols
	centers, counts := km.means(labels)
	sums := make([]float64, k*d)
	for j := range k {
		for l := range d {
			sums[j*d+l] = centers[j*d+l] * counts[j]
		}
	}
	nb := numBlocks(n)
	if len(km.scan) < nb*blockRows {
		km.scan = make([]int, nb*blockRows)
	}
	found := make([]int, nb)
	for range maxSweeps {
		forBlocks(km.w, n, func(_, b int) {
			lo, hi := blockRange(b, n)
			list := km.scan[b*blockRows : b*blockRows : (b+1)*blockRows]
			for i := lo; i < hi; i++ {
				if _, ok := bestMove(x.Row(i), int(labels[i]), centers, counts); ok {
					list = append(list, i)
				}
			}
			found[b] = len(list)
		})
		moved := 0
		for b := range nb {
			for _, i := range km.scan[b*blockRows : b*blockRows+found[b]] {
				row, a := x.Row(i), int(labels[i])
				t, ok := bestMove(row, a, centers, counts)
				if !ok {
					continue
				}
				labels[i] = int32(t)
				counts[a]--
				counts[t]++
				sa, st := sums[a*d:(a+1)*d], sums[t*d:(t+1)*d]
				ca, ct := centers[a*d:(a+1)*d], centers[t*d:(t+1)*d]
				for l, v := range row {
					sa[l] -= v
					st[l] += v
					ca[l] = sa[l] / counts[a]
					ct[l] = st[l] / counts[t]
				}
				moved++
			}
		}
		moves += moved
		if moved == 0 {
			break
		}
	}
	if moves > 0 {
		centers, _ = km.means(labels) // without the sums' drift
	}
	return centers, moves
}

// bestMove returns the cluster to which moving row x from cluster a lowers
// the inertia the most, and whether there is one.
func bestMove(x []float64, a int, centers, counts []float64) (int, bool) {
	na := counts[a]
	if na <= 1 {
		return 0, false
	}
	d := len(x)
	stay := na / (na - 1) * sqDist(x, centers[a*d:(a+1)*d])
	best, to := math.Inf(1), -1
	for j, nj := range counts {
		if j == a {
			continue
		}
		if v := nj / (nj + 1) * sqDist(x, centers[j*d:(j+1)*d]); v < best {
			best, to = v, j
		}
	}
	if to < 0 || !(best < stay*(1-1e-12)) {
		return 0, false
	}
	return to, true
}

// means returns the means of the clusters of labels (their sums added per
// block, then in block order) and their sizes.
func (km *kmeans) means(labels []int32) (centers, counts []float64) {
	x, k, n, d := km.x, km.k, km.x.Rows, km.x.Cols
	nb := numBlocks(n)
	part := make([]float64, nb*k*d)
	forBlocks(km.w, n, func(_, b int) {
		lo, hi := blockRange(b, n)
		addRows(part[b*k*d:(b+1)*k*d], x.Data, d, labels, lo, hi)
	})
	centers, counts = make([]float64, k*d), make([]float64, k)
	for b := range nb {
		addTo(centers, part[b*k*d:(b+1)*k*d])
	}
	for _, j := range labels {
		counts[j]++
	}
	for j := range k {
		if counts[j] > 0 {
			for l := range d {
				centers[j*d+l] /= counts[j]
			}
		}
	}
	return centers, counts
}
