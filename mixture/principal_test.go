package mixture

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// wide returns n rows of d columns around k random centres (spread 3)
// with unit noise, of unequal sizes.
func wide(n, d, k int, seed uint64) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 7))
	means := make([]float64, k*d)
	for i := range means {
		means[i] = 3 * rng.NormFloat64()
	}
	x := make([]float64, n*d)
	for i := range n {
		c := min(k-1, int(float64(k)*rng.Float64()*rng.Float64()*1.5))
		for l := range d {
			x[i*d+l] = means[c*d+l] + rng.NormFloat64()
		}
	}
	return NewMatrix(n, d, x)
}

// TestPrincipalWide checks principalWide, by the Gram matrix (at most
// gramMaxRows rows) and by subspace iteration (more), weighted and not,
// against the top eigenpair of the d×d scatter from gonum's dense
// EigenSym.
func TestPrincipalWide(t *testing.T) {
	for _, tc := range []struct {
		n, d     int
		weighted bool
	}{{50, 40, false}, {50, 40, true}, {600, 40, false}, {600, 40, true}, {30, 200, true}} {
		x := wide(tc.n, tc.d, 3, uint64(tc.n+tc.d))
		d := x.Cols
		rng := rand.New(rand.NewPCG(1, 2))
		var rows []int
		var w []float64
		for i := range x.Rows {
			if i%5 == 0 {
				continue // rows not listed
			}
			rows = append(rows, i)
			if tc.weighted {
				w = append(w, rng.Float64())
			}
		}
		mu := make([]float64, d)
		for l := range mu {
			mu[l] = rng.NormFloat64()
		}
		lam, v := principalWide(x, rows, w, mu)
		// The reference: the d×d scatter, by gonum's EigenSym.
		s := mat.NewSymDense(d, nil)
		wsum := 0.0
		for t2, i := range rows {
			wi := 1.0
			if w != nil {
				wi = w[t2]
			}
			wsum += wi
			for a := range d {
				for b := a; b < d; b++ {
					s.SetSym(a, b, s.At(a, b)+wi*(x.Row(i)[a]-mu[a])*(x.Row(i)[b]-mu[b]))
				}
			}
		}
		s.ScaleSym(1/wsum, s)
		var es mat.EigenSym
		if !es.Factorize(s, true) {
			t.Fatal("EigenSym failed")
		}
		vals := es.Values(nil)
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		if want := vals[d-1]; !(math.Abs(lam-want) <= 1e-9*want) {
			t.Errorf("n=%d d=%d weighted=%v: λ %v, want %v", tc.n, d, tc.weighted, lam, want)
		}
		dot := 0.0
		for l := range d {
			dot += v[l] * vecs.At(l, d-1)
		}
		if !(math.Abs(math.Abs(dot)-1) <= 1e-6) {
			t.Errorf("n=%d d=%d weighted=%v: |v·v₁| = %v, want 1", tc.n, d, tc.weighted, math.Abs(dot))
		}
		for _, e := range v {
			if e != 0 {
				if e < 0 {
					t.Errorf("n=%d d=%d: the first nonzero element is negative", tc.n, d)
				}
				break
			}
		}
	}
}

// TestKMeansWide checks k-means on 60 rows of 3,000 columns against
// scikit-learn's best of 10 (an inertia at most 1e-4 higher), within a
// few seconds: the merge-and-split moves' principal axes formed the
// 3,000×3,000 scatter and its eigendecomposition per cluster, minutes
// on such data. A diagonal Gaussian mixture of the same data, whose
// split-and-merge moves did the same, is timed too.
func TestKMeansWide(t *testing.T) {
	x := wide(60, 3000, 4, 11)
	want, _ := sklearnKMeans(t, x, 4)
	opt := DefaultKMeansOptions(4)
	opt.NInit, opt.Seed = 10, 1
	start := time.Now()
	r, err := KMeans(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	secs := time.Since(start).Seconds()
	if !(r.Inertia <= want*(1+1e-4)) {
		t.Errorf("inertia %v, scikit-learn's %v", r.Inertia, want)
	}
	if secs > 5 {
		t.Errorf("k-means took %.1f s", secs)
	}
	t.Logf("60×3000 k=4: inertia %v (scikit-learn %v) in %.2f s", r.Inertia, want, secs)
	gopt := DefaultGMMOptions(4)
	gopt.Covariance, gopt.Seed = Diag, 1
	start = time.Now()
	if _, err := FitGMM(x, gopt); err != nil {
		t.Fatal(err)
	}
	secs = time.Since(start).Seconds()
	if secs > 5 {
		t.Errorf("the diagonal mixture took %.1f s", secs)
	}
	t.Logf("60×3000 k=4 diag mixture in %.2f s", secs)
}
