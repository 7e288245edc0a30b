package mixture

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// withoutSMEM runs fn with split-and-merge turned off.
func withoutSMEM(fn func()) {
	saved := smemCandidates
	smemCandidates = 0
	defer func() { smemCandidates = saved }()
	fn()
}

// trappedStart returns three clusters in the plane, A far from B and C,
// and a start with two components on A and one covering B and C: a local
// maximum EM stays at, which one move (merge the two on A, split the
// one on B and C) leaves.
func trappedStart(cov CovarianceType) (*Matrix, *GMM) {
	var data []float64
	centres := [][2]float64{{-20, 0}, {10, -4}, {10, 4}}
	b := blobs(1500, 2, 1, 0, 3) // one cluster about 0
	for i := range b.Rows {
		c := centres[i%3]
		data = append(data, c[0]+b.Data[2*i]*0.3, c[1]+b.Data[2*i+1]*0.3)
	}
	x := NewMatrix(b.Rows, 2, data)
	g := &GMM{
		Weights: []float64{1. / 6, 1. / 6, 2. / 3},
		Means:   []float64{-20, -0.5, -20, 0.5, 10, 0},
	}
	switch cov {
	case Full:
		g.Covariances = []float64{1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 20}
	case Diag:
		g.Covariances = []float64{1, 1, 1, 1, 1, 20}
	case Spherical:
		g.Covariances = []float64{1, 1, 10}
	case Tied:
		g.Covariances = []float64{1, 0, 0, 4}
	}
	return x, g
}

// TestSMEMLeavesTrap checks that split-and-merge leaves the local maximum
// of trappedStart for every covariance type (EM alone stays there), and
// that the fit it keeps has a higher log-likelihood, a trace that never
// decreases, and the same numbers bit for bit with 1 and 4 workers.
func TestSMEMLeavesTrap(t *testing.T) {
	for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
		x, given := trappedStart(cov)
		opt := DefaultGMMOptions(3)
		// Ten restarts (all the same) give split and merge its budget.
		opt.Covariance, opt.Init, opt.Given, opt.NInit = cov, InitGiven, given, 10
		off, on := fitWithoutAndWith(t, x, opt, cov.String())
		if !(on.LogLikelihood > off.LogLikelihood+0.1) {
			t.Errorf("%s: log-likelihood %v with split-and-merge, %v without: want it higher", cov, on.LogLikelihood, off.LogLikelihood)
		}
	}
}

// fitWithoutAndWith fits x by opt without split and merge, and with it on
// 1 and 4 workers; it checks that the fit with it has a trace that never
// decreases, a value for each iteration, and the same numbers bit for bit
// on 1 and 4 workers, and returns the fit without it and the fit with it.
// what begins the messages.
func fitWithoutAndWith(t *testing.T, x *Matrix, opt GMMOptions, what string) (off, on *GMM) {
	t.Helper()
	withoutSMEM(func() {
		var err error
		if off, err = FitGMM(x, opt); err != nil {
			t.Fatal(err)
		}
	})
	var fits []*GMM
	for _, w := range []int{1, 4} {
		opt.Workers = w
		g, err := FitGMM(x, opt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fits = append(fits, g)
	}
	on = fits[0]
	tr := on.Trace
	for i := 1; i < len(tr); i++ {
		if !(tr[i] >= tr[i-1]-1e-9*math.Abs(tr[i-1])) {
			t.Fatalf("%s: log-likelihood decreases at iteration %d: %v after %v", what, i+1, tr[i], tr[i-1])
		}
	}
	if len(tr) != on.Iterations {
		t.Errorf("%s: %d trace values for %d iterations", what, len(tr), on.Iterations)
	}
	a, b := fits[0], fits[1]
	if a.LogLikelihood != b.LogLikelihood || !slices.Equal(a.Trace, b.Trace) || !slices.Equal(a.Means, b.Means) ||
		!slices.Equal(a.Covariances, b.Covariances) || !slices.Equal(a.Weights, b.Weights) {
		t.Errorf("%s: 1 and 4 workers differ: %v vs %v", what, a.LogLikelihood, b.LogLikelihood)
	}
	return off, on
}

// TestSMEMNeverWorse checks that split-and-merge never lowers the kept
// log-likelihood, on the hard data sets of testdata, for every covariance
// type and a few seeds, and that it does not run with tol 0.
func TestSMEMNeverWorse(t *testing.T) {
	for _, name := range []string{"overlap3d", "fresh1_040", "fresh1_063"} {
		x := readCSV(t, "testdata/"+name+".csv")
		for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
			for seed := uint64(1); seed <= 2; seed++ {
				opt := DefaultGMMOptions(6)
				opt.Covariance, opt.NInit, opt.Seed = cov, 3, seed
				var off *GMM
				withoutSMEM(func() {
					var err error
					if off, err = FitGMM(x, opt); err != nil {
						t.Fatal(err)
					}
				})
				on, err := FitGMM(x, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !(on.LogLikelihood >= off.LogLikelihood) {
					t.Errorf("%s %s seed %d: log-likelihood %v with split-and-merge, %v without", name, cov, seed, on.LogLikelihood, off.LogLikelihood)
				}
				noNaN(t, "means", on.Means...)
				noNaN(t, "covariances", on.Covariances...)
			}
			opt := DefaultGMMOptions(6)
			opt.Covariance, opt.Tol, opt.MaxIter = cov, 0, 20
			var off *GMM
			withoutSMEM(func() { off, _ = FitGMM(x, opt) })
			on, err := FitGMM(x, opt)
			if err != nil || off == nil {
				t.Fatal(err)
			}
			if on.LogLikelihood != off.LogLikelihood || !slices.Equal(on.Means, off.Means) {
				t.Errorf("%s %s tol 0: split-and-merge ran", name, cov)
			}
		}
	}
}

// TestSpikeMove checks the spike move: two unit Gaussians in five
// dimensions, fitted with three components from a start with two on the
// first (a local maximum EM stays at). A component alone on one row has
// a density far above any Gaussian's at the floor's variance, so the fit
// kept must merge the two and put a component on a single row (its
// weight 1/n, its mean the row, its variances the floor), which raises
// the log-likelihood by more than 0.01, with a trace that never decreases
// and the same numbers with 1 and 4 workers.
func TestSpikeMove(t *testing.T) {
	const d, n = 5, 800
	rng := rand.New(rand.NewPCG(7, 1))
	data := make([]float64, n*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	for i := n / 2; i < n; i++ {
		data[i*d] += 30
	}
	x := NewMatrix(n, d, data)
	given := &GMM{
		Weights:     []float64{0.25, 0.25, 0.5},
		Means:       make([]float64, 3*d),
		Covariances: make([]float64, 3*d),
	}
	given.Means[0], given.Means[d], given.Means[2*d] = -0.8, 0.8, 30
	for t := range given.Covariances {
		given.Covariances[t] = 1
	}
	opt := DefaultGMMOptions(3)
	opt.Covariance, opt.Init, opt.Given, opt.NInit = Diag, InitGiven, given, 10
	off, on := fitWithoutAndWith(t, x, opt, "spike")
	if !(on.LogLikelihood > off.LogLikelihood+0.01) {
		t.Errorf("log-likelihood %v with the moves, %v without: want it higher", on.LogLikelihood, off.LogLikelihood)
	}
	spike := slices.Index(on.Weights, slices.Min(on.Weights))
	if w := on.Weights[spike]; !(math.Abs(w*n-1) <= 1e-6) {
		t.Errorf("the smallest weight is %v, want 1/%d", w, n)
	}
	row := -1
	for i := range n {
		if sqDist(on.Mean(spike), x.Row(i)) <= 1e-18 {
			row = i
		}
	}
	if row < 0 {
		t.Errorf("the spike's mean %v is no row", on.Mean(spike))
	}
	for _, v := range on.Covariances[spike*d : (spike+1)*d] {
		if !(math.Abs(v-opt.RegCovar) <= 1e-12) {
			t.Errorf("the spike's variance is %v, want the floor %v", v, opt.RegCovar)
		}
	}
}
