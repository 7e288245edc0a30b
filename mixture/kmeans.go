package mixture

import (
	"fmt"
	"math"
	"slices"
)

// KMeansOptions configures [KMeans]. Start from [DefaultKMeansOptions].
type KMeansOptions struct {
	K       int     // the number of clusters, at least 1
	NInit   int     // restarts, at least 1; the lowest inertia is kept
	MaxIter int     // Lloyd iterations per restart, at least 1
	Tol     float64 // stop when the squared centre movement is at most Tol × the mean column variance; ≥ 0
	Seed    uint64  // the random seed
	Workers int     // goroutines; 0 for GOMAXPROCS
}

// DefaultKMeansOptions returns scikit-learn's defaults for k clusters:
// one restart, 300 iterations, tol 1e-4, seed 0.
func DefaultKMeansOptions(k int) KMeansOptions {
	return KMeansOptions{K: k, NInit: 1, MaxIter: 300, Tol: 1e-4}
}

func (o *KMeansOptions) check() error { return checkRuns(o.NInit, o.MaxIter, o.Tol) }

// checkRuns checks the options k-means and Gaussian mixture EM share: the
// restarts, the iterations per restart and the tolerance.
func checkRuns(nInit, maxIter int, tol float64) error {
	switch {
	case nInit < 1:
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("n-init %d: want at least 1 restart", nInit)}
	case maxIter < 1:
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("max-iter %d: want at least 1 iteration", maxIter)}
	case !(tol >= 0) || math.IsInf(tol, 0):
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("tol %v: want a finite number at least 0", tol)}
	}
	return nil
}

// KMeansResult is a fitted k-means clustering.
type KMeansResult struct {
	K, D       int
	Centers    []float64 // K×D, row-major
	Labels     []int32   // the nearest centre of each row
	Sizes      []int     // the number of rows of each cluster
	Inertia    float64   // the sum of squared distances to the nearest centre, rounded to float64 (0, subnormal or +Inf beyond its range: see LogInertia)
	LogInertia float64   // the natural log of the inertia (-Inf if it is 0), which holds it where Inertia cannot
	Iterations int       // Lloyd iterations of the kept restart
	Converged  bool      // the kept restart's Lloyd iterations stopped before MaxIter
	Moves      int       // single-row moves of the kept restart's refinement after Lloyd (0 if not converged)
	NInit      int       // the number of restarts run
}

// Center returns centre j.
func (r *KMeansResult) Center(j int) []float64 { return r.Centers[j*r.D : (j+1)*r.D] }

// KMeans clusters the rows of x into opt.K clusters by Lloyd's algorithm
// from k-means++ seeds, refined by Hartigan's single-row moves, keeping the
// best of opt.NInit restarts (see the package documentation).
func KMeans(x *Matrix, opt KMeansOptions) (*KMeansResult, error) {
	if err := x.check(opt.K); err != nil {
		return nil, err
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	x, sc := scaleData(x)
	km := newKMeans(x, opt.K, workers(opt.Workers))
	tol := opt.Tol * x.colMeanVariance()
	var best *KMeansResult
	iters := 0
	for i := range opt.NInit {
		centers, _ := km.seed(newRand(opt.Seed, i))
		r := km.lloyd(centers, opt.MaxIter, tol)
		iters += r.Iterations
		if r.Converged {
			km.refine(r)
		}
		if best == nil || r.Inertia < best.Inertia {
			best = r
		}
	}
	if best.Converged && opt.Tol > 0 {
		best = km.swap(best, opt.MaxIter, tol, int(swapBudget*float64(iters)))
	}
	if math.IsInf(best.Inertia, 0) || math.IsNaN(best.Inertia) {
		// Not reached: scaleData keeps squared distances in range.
		return nil, &Error{Err: ErrOverflow, Msg: "squared distances overflow: rescale the data"}
	}
	// The inertia, and its log, on the data's scale.
	frac, e := best.Inertia, 0
	if frac < 0x1p-900 {
		// Squared distances within the clusters may have lost digits
		// or vanished: add them up again, scaled.
		frac, e = km.scaledInertia(best.Centers, best.Labels)
	}
	if sc != nil {
		sc.centers(best.Centers)
		e += sc.sqExp()
	}
	best.Inertia, best.LogInertia = math.Ldexp(frac, e), math.Log(frac)+float64(e)*math.Ln2
	best.NInit = opt.NInit
	return best, nil
}

// refine moves r, a converged Lloyd result, to a local minimum of the
// inertia for single-row moves (see hartigan).
func (km *kmeans) refine(r *KMeansResult) {
	centers, moves := km.hartigan(r.Labels, 1000)
	r.Moves = moves
	if moves == 0 {
		return
	}
	r.Centers = centers
	clear(r.Sizes)
	for _, j := range r.Labels {
		r.Sizes[j]++
	}
	r.Inertia = km.inertia(centers, r.Labels)
}

// kmeans holds the data and scratch space of a k-means fit.
type kmeans struct {
	x       *Matrix
	k, w    int
	xnorm   []float64 // squared norm of each row
	labels  []int32
	dist    []float64   // squared distance of each row to its centre
	bsums   []float64   // per block: k×d sums, then k counts, then 1 changed count
	closest []float64   // seeding: the squared distance to the nearest seed
	scan    []int       // per block: the rows to scan against every centre
	out     [][]float64 // per worker: the AVX-512 kernel's output
}

func newKMeans(x *Matrix, k, w int) *kmeans {
	n := x.Rows
	km := &kmeans{x: x, k: k, w: w, xnorm: make([]float64, n), labels: make([]int32, n), dist: make([]float64, n)}
	forBlocks(w, n, func(_, b int) {
		lo, hi := blockRange(b, n)
		rowNorms(km.xnorm, x.Data, x.Cols, lo, hi)
	})
	return km
}

// lloyd runs Lloyd iterations from centers (which it takes over) and
// returns the result, as scikit-learn's _kmeans_single_lloyd.
//
// It skips the distances that cannot change a row's cluster by Hamerly's
// bounds (G. Hamerly, Making k-means even faster, SDM 2010): per row an
// upper bound u on the distance to its centre and a lower bound l on the
// distance to every other centre, loosened each iteration by how far the
// centres moved. A row is scanned against every centre only when u
// exceeds both l and half the distance from its centre to the nearest
// other centre; otherwise its cluster cannot change. The assignments are
// those of plain Lloyd iterations; only the work differs.
func (km *kmeans) lloyd(centers []float64, maxIter int, tol float64) *KMeansResult {
	x, k, n, d := km.x, km.k, km.x.Rows, km.x.Cols
	nb := numBlocks(n)
	stride := k*d + k + 1
	if len(km.bsums) < nb*stride {
		km.bsums = make([]float64, nb*stride)
	}
	labels := km.labels
	for i := range labels {
		labels[i] = -1
	}
	upper, lower := make([]float64, n), make([]float64, n)
	if len(km.scan) < nb*blockRows {
		km.scan = make([]int, nb*blockRows)
	}
	old := make([]int32, nb*blockRows) // the labels before the iteration, by block
	cnorm := make([]float64, k)
	half := make([]float64, k)  // half the distance from each centre to the nearest other
	delta := make([]float64, k) // how far each centre moved in the last update
	next := make([]float64, k*d)
	counts := make([]float64, k)
	var pan *panel
	if useAVX512() {
		pan = newPanel(k, d)
		if len(km.out) < km.w {
			km.out = make([][]float64, km.w)
		}
		for wk := range km.out {
			if len(km.out[wk]) < 4*pan.kp {
				km.out[wk] = make([]float64, 4*pan.kp)
			}
		}
	}
	r := &KMeansResult{K: k, D: d}
	strict := false
	for it := 1; it <= maxIter; it++ {
		r.Iterations = it
		first := it == 1
		for j := range k {
			cnorm[j] = sqNorm(centers[j*d : (j+1)*d])
		}
		for j := range k {
			h := math.Inf(1)
			for t := range k {
				if t != j {
					h = min(h, sqDist(centers[j*d:(j+1)*d], centers[t*d:(t+1)*d]))
				}
			}
			half[j] = 0.5 * math.Sqrt(h)
		}
		// The largest move, and the largest of the other centres' moves.
		maxD, maxD2, argMax := 0.0, 0.0, -1
		for j, v := range delta {
			if v > maxD {
				maxD, maxD2, argMax = v, maxD, j
			} else if v > maxD2 {
				maxD2 = v
			}
		}
		if pan != nil {
			pan.set(centers, cnorm)
		}
		forBlocks(km.w, n, func(wk, b int) {
			lo, hi := blockRange(b, n)
			s := km.bsums[b*stride : (b+1)*stride]
			clear(s)
			sums, cnt := s[:k*d], s[k*d:k*d+k]
			// First the bounds: the rows whose cluster may change are
			// listed in scan, and scanned two at a time.
			scan := km.scan[b*blockRows : b*blockRows : (b+1)*blockRows]
			for i := lo; i < hi; i++ {
				old[i-lo+b*blockRows] = labels[i]
				if first {
					scan = append(scan, i)
					continue
				}
				a := labels[i]
				upper[i] += delta[a]
				if int(a) == argMax {
					lower[i] -= maxD2
				} else {
					lower[i] -= maxD
				}
				if upper[i] > max(half[a], lower[i]) {
					scan = append(scan, i)
				}
			}
			if !first {
				// Tighten the upper bounds of the rows listed to the
				// distance to their centre, four rows at a time, and keep
				// those whose bound is still above the lower ones.
				sqDist4(upper, x.Data, d, scan, centers, labels)
				m := 0
				for _, i := range scan {
					a := labels[i]
					upper[i] = math.Sqrt(upper[i])
					if upper[i] > max(half[a], lower[i]) {
						scan[m] = i
						m++
					}
				}
				scan = scan[:m]
			}
			if pan != nil {
				out := km.out[wk]
				for t := 0; t < len(scan); t += 4 {
					rows := scan[t:min(t+4, len(scan))]
					pan.dots(out, x.Data, rows)
					for r, i := range rows {
						a, b0, b1 := pan.argmin2(out[r*pan.kp:])
						xn := km.xnorm[i]
						labels[i], upper[i], lower[i] = a, math.Sqrt(max(0, xn+b0)), math.Sqrt(max(0, xn+b1))
					}
				}
			} else {
				t := 0
				for ; t+1 < len(scan); t += 2 {
					i, h := scan[t], scan[t+1]
					labels[i], labels[h], upper[i], lower[i], upper[h], lower[h] = nearest2x2(x.Row(i), x.Row(h), centers, cnorm, k, km.xnorm[i], km.xnorm[h])
				}
				if t < len(scan) {
					i := scan[t]
					labels[i], upper[i], lower[i] = nearest2(x.Row(i), centers, cnorm, k, km.xnorm[i])
				}
			}
			changed := 0
			for i := lo; i < hi; i++ {
				j := labels[i]
				if j != old[i-lo+b*blockRows] {
					changed++
				}
				cnt[j]++
			}
			addRows(sums, x.Data, d, labels, lo, hi)
			s[k*d+k] = float64(changed)
		})
		clear(next)
		clear(counts)
		changed := 0.0
		for b := range nb {
			s := km.bsums[b*stride : (b+1)*stride]
			addTo(next, s[:k*d])
			addTo(counts, s[k*d:k*d+k])
			changed += s[k*d+k]
		}
		km.relocate(next, counts, centers)
		shift := 0.0
		for j := range k {
			cj, nj := centers[j*d:(j+1)*d], next[j*d:(j+1)*d]
			if counts[j] > 0 {
				for l := range nj {
					nj[l] /= counts[j]
				}
			} else {
				copy(nj, cj) // only when there are fewer rows than clusters, which KMeans refuses
			}
			m := sqDist(cj, nj)
			shift += m
			delta[j] = math.Sqrt(m)
		}
		centers, next = next, centers
		if changed == 0 {
			strict = true
			r.Converged = true
			break
		}
		if shift <= tol {
			r.Converged = true
			break
		}
	}
	if !strict {
		for j := range k {
			cnorm[j] = sqNorm(centers[j*d : (j+1)*d])
		}
		if pan != nil {
			pan.set(centers, cnorm)
		}
		forBlocks(km.w, n, func(wk, b int) {
			lo, hi := blockRange(b, n)
			if pan != nil {
				nearestPanel(labels, km.dist, x.Data, lo, hi, pan, km.out[wk], km.xnorm)
			} else {
				nearest(labels, km.dist, x.Data, d, lo, hi, centers, cnorm, k, km.xnorm)
			}
		})
	}
	r.Centers = centers
	r.Labels = slices.Clone(labels)
	r.Sizes = make([]int, k)
	for _, j := range labels {
		r.Sizes[j]++
	}
	r.Inertia = km.inertia(centers, labels)
	return r
}

// relocate re-seeds the empty clusters as scikit-learn's
// _relocate_empty_clusters_dense: the empty clusters in index order take
// the rows farthest from their assigned centre (by the exact squared
// distance to old, the centres of the assignment), each leaving the
// cluster it was in. sums and counts are the clusters' sums and sizes,
// changed in place.
func (km *kmeans) relocate(sums, counts, old []float64) {
	var empty []int
	for j, c := range counts {
		if c == 0 {
			empty = append(empty, j)
		}
	}
	if len(empty) == 0 {
		return
	}
	x, d := km.x, km.x.Cols
	n := x.Rows
	dist := make([]float64, n)
	for i := range n {
		j := int(km.labels[i])
		dist[i] = sqDist(x.Row(i), old[j*d:(j+1)*d])
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// The farthest first; equal distances by row order (a stable sort).
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case dist[a] > dist[b]:
			return -1
		case dist[a] < dist[b]:
			return 1
		}
		return 0
	})
	for t, j := range empty {
		i := order[t]
		from := int(km.labels[i])
		row := x.Row(i)
		fs, js := sums[from*d:(from+1)*d], sums[j*d:(j+1)*d]
		for l, v := range row {
			fs[l] -= v
			js[l] = v
		}
		counts[from]--
		counts[j] = 1
	}
}

// inertia returns the sum of the squared distances of the rows to their
// labelled centres, summed per block and then in block order.
func (km *kmeans) inertia(centers []float64, labels []int32) float64 {
	x, d, n := km.x, km.x.Cols, km.x.Rows
	part := make([]float64, numBlocks(n))
	forBlocks(km.w, n, func(_, b int) {
		lo, hi := blockRange(b, n)
		s := 0.0
		for i := lo; i < hi; i++ {
			j := int(labels[i])
			s += sqDist(x.Row(i), centers[j*d:(j+1)*d])
		}
		part[b] = s
	})
	s := 0.0
	for _, v := range part {
		s += v
	}
	return s
}

// scaledInertia returns the inertia of the labels and centres as frac ×
// 2^exp, the differences scaled by a power of two so that their squares
// neither underflow nor overflow (with frac 0 if every row is on its
// centre).
func (km *kmeans) scaledInertia(centers []float64, labels []int32) (frac float64, exp int) {
	x, d := km.x, km.x.Cols
	t := 0.0
	for i, j := range labels {
		c := centers[int(j)*d : (int(j)+1)*d]
		for l, v := range x.Row(i) {
			t = max(t, math.Abs(v-c[l]))
		}
	}
	if t == 0 {
		return 0, 0
	}
	s := -math.Ilogb(t)
	for i, j := range labels {
		c := centers[int(j)*d : (int(j)+1)*d]
		for l, v := range x.Row(i) {
			u := math.Ldexp(v-c[l], s)
			frac += u * u
		}
	}
	return frac, -2 * s
}

func sqNorm(a []float64) float64 {
	s := 0.0
	for _, v := range a {
		s += v * v
	}
	return s
}
