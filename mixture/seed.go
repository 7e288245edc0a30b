package mixture

import (
	"math"
	"math/rand/v2"
)

// seed chooses k centres among the rows by greedy k-means++, as
// scikit-learn's _kmeans_plusplus: the first uniformly; each next one the
// best of 2+⌊ln k⌋ candidates, drawn with probability proportional to the
// squared distance to the nearest centre so far, by the potential (the
// sum of those distances) it leaves. It returns the centres (k×d) and the
// rows chosen.
func (km *kmeans) seed(rng *rand.Rand) (centers []float64, rows []int) {
	x, k, n, d := km.x, km.k, km.x.Rows, km.x.Cols
	nb := numBlocks(n)
	trials := 2 + int(math.Log(float64(k)))
	centers = make([]float64, k*d)
	rows = make([]int, k)
	if len(km.closest) < n {
		km.closest = make([]float64, n)
	}
	closest := km.closest[:n]
	cand := make([][]float64, trials) // squared distance to the nearest centre if candidate t is added
	for t := range cand {
		cand[t] = make([]float64, n)
	}
	if len(km.scan) < nb*blockRows {
		km.scan = make([]int, nb*blockRows)
	}
	near := make([]int32, n)           // the index of each row's nearest centre so far
	cs := make([]float64, trials*k)    // cs[t*k+j]: squared distance from candidate t to centre j
	part := make([]float64, nb*trials) // per block: each candidate's potential
	bsum := make([]float64, nb)        // per block: the sum of closest

	first := rng.IntN(n)
	rows[0] = first
	copy(centers[:d], x.Row(first))
	c0 := x.Row(first)
	forBlocks(km.w, n, func(_, b int) {
		lo, hi := blockRange(b, n)
		s := 0.0
		for i := lo; i < hi; i++ {
			v := sqDist(x.Row(i), c0)
			closest[i] = v
			s += v
		}
		bsum[b] = s
	})
	ids := make([]int, trials)
	for c := 1; c < k; c++ {
		pot := 0.0
		for _, v := range bsum {
			pot += v
		}
		for t := range ids {
			ids[t] = pick(closest, bsum, rng.Float64()*pot)
			for j := range c {
				cs[t*k+j] = sqDist(x.Row(ids[t]), centers[j*d:(j+1)*d])
			}
		}
		// By the triangle inequality a candidate at least twice as far
		// from a row's nearest centre as the row is cannot be nearer
		// to the row: its distance is not computed.
		forBlocks(km.w, n, func(_, b int) {
			lo, hi := blockRange(b, n)
			for t, id := range ids {
				ct, dt, ct2 := x.Row(id), cand[t], cs[t*k:(t+1)*k]
				list := km.scan[b*blockRows : b*blockRows : (b+1)*blockRows]
				for i := lo; i < hi; i++ {
					if 4*closest[i] > ct2[near[i]] {
						list = append(list, i)
					}
				}
				sqDistTo4(dt, x.Data, d, list, ct)
				s := 0.0
				for i := lo; i < hi; i++ {
					v := closest[i]
					if 4*v > ct2[near[i]] {
						v = min(dt[i], v)
					}
					dt[i] = v
					s += v
				}
				part[b*trials+t] = s
			}
		})
		best, bestPot := 0, math.Inf(1)
		for t := range ids {
			p := 0.0
			for b := range nb {
				p += part[b*trials+t]
			}
			if p < bestPot {
				best, bestPot = t, p
			}
		}
		rows[c] = ids[best]
		copy(centers[c*d:(c+1)*d], x.Row(ids[best]))
		for i, v := range cand[best] {
			if v < closest[i] {
				near[i] = int32(c)
			}
		}
		copy(closest, cand[best])
		for b := range nb {
			bsum[b] = part[b*trials+best]
		}
	}
	return centers, rows
}

// pick returns the first row i at which the running sum of closest reaches
// target (numpy's searchsorted on the cumulative sum), or the last row if
// it never does. bsum holds closest's sums per block, which skip whole
// blocks.
func pick(closest, bsum []float64, target float64) int {
	n := len(closest)
	run := 0.0
	for b, s := range bsum {
		if run+s < target && b < len(bsum)-1 {
			run += s
			continue
		}
		lo, hi := blockRange(b, n)
		for i := lo; i < hi; i++ {
			run += closest[i]
			if run >= target {
				return i
			}
		}
		if b == len(bsum)-1 {
			break
		}
	}
	return n - 1
}
