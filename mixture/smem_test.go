package mixture

import (
	"math"
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
		var off *GMM
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
				t.Fatalf("%s: %v", cov, err)
			}
			fits = append(fits, g)
		}
		on := fits[0]
		if !(on.LogLikelihood > off.LogLikelihood+0.1) {
			t.Errorf("%s: log-likelihood %v with split-and-merge, %v without: want it higher", cov, on.LogLikelihood, off.LogLikelihood)
		}
		tr := on.Trace
		for i := 1; i < len(tr); i++ {
			if !(tr[i] >= tr[i-1]-1e-9*math.Abs(tr[i-1])) {
				t.Fatalf("%s: log-likelihood decreases at iteration %d: %v after %v", cov, i+1, tr[i], tr[i-1])
			}
		}
		if len(tr) != on.Iterations {
			t.Errorf("%s: %d trace values for %d iterations", cov, len(tr), on.Iterations)
		}
		a, b := fits[0], fits[1]
		if a.LogLikelihood != b.LogLikelihood || !slices.Equal(a.Trace, b.Trace) || !slices.Equal(a.Means, b.Means) ||
			!slices.Equal(a.Covariances, b.Covariances) || !slices.Equal(a.Weights, b.Weights) {
			t.Errorf("%s: 1 and 4 workers differ: %v vs %v", cov, a.LogLikelihood, b.LogLikelihood)
		}
	}
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
