package mixture

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestTraceMonotone checks that EM's log-likelihood never decreases, for
// every covariance type and initialisation, and that the final
// log-likelihood is at least the last value of the trace. The slack of
// 1e-9 (relative) is for rounding; a NaN fails.
func TestTraceMonotone(t *testing.T) {
	x := blobs(3000, 3, 4, 2, 7)
	for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
		for _, init := range []Init{InitKMeans, InitKMeansPP, InitRandom} {
			opt := DefaultGMMOptions(4)
			opt.Covariance, opt.Init, opt.Tol, opt.MaxIter, opt.Seed = cov, init, 0, 60, 3
			g, err := FitGMM(x, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", cov, init, err)
			}
			tr := append(slices.Clone(g.Trace), g.LogLikelihood)
			if len(tr) != 61 {
				t.Errorf("%s %s: %d trace values, want 60 and the final", cov, init, len(tr))
			}
			for i := 1; i < len(tr); i++ {
				if !(tr[i] >= tr[i-1]-1e-9*math.Abs(tr[i-1])) {
					t.Errorf("%s %s: log-likelihood decreases at iteration %d: %v after %v", cov, init, i+1, tr[i], tr[i-1])
					break
				}
			}
			noNaN(t, "weights", g.Weights...)
			noNaN(t, "means", g.Means...)
			noNaN(t, "covariances", g.Covariances...)
		}
	}
}

// TestWorkersGMM checks that a fit is the same bit for bit with 1 and 4
// workers (the data spans many blocks).
func TestWorkersGMM(t *testing.T) {
	x := blobs(5000, 4, 3, 3, 11)
	for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
		var fits []*GMM
		for _, w := range []int{1, 4} {
			opt := DefaultGMMOptions(3)
			opt.Covariance, opt.Workers, opt.NInit, opt.Seed = cov, w, 2, 5
			g, err := FitGMM(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			fits = append(fits, g)
		}
		a, b := fits[0], fits[1]
		if a.LogLikelihood != b.LogLikelihood || !slices.Equal(a.Trace, b.Trace) || !slices.Equal(a.Means, b.Means) ||
			!slices.Equal(a.Covariances, b.Covariances) || !slices.Equal(a.Weights, b.Weights) {
			t.Errorf("%s: 1 and 4 workers differ: %v vs %v", cov, a.LogLikelihood, b.LogLikelihood)
		}
	}
}

// TestDeterministic checks that a seed determines the fit and that more
// restarts never keep a worse one.
func TestDeterministic(t *testing.T) {
	x := blobs(1000, 2, 5, 1.5, 2)
	fit := func(seed uint64, ninit int) *GMM {
		opt := DefaultGMMOptions(5)
		opt.Seed, opt.NInit = seed, ninit
		g, err := FitGMM(x, opt)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if a, b := fit(4, 3), fit(4, 3); a.LogLikelihood != b.LogLikelihood || !slices.Equal(a.Means, b.Means) {
		t.Errorf("seed 4 gives %v then %v", a.LogLikelihood, b.LogLikelihood)
	}
	// The restarts of 3 are among those of 8, so the kept restart of 8
	// is no worse. Split and merge's greedy moves from either may reach
	// any optimum, so this holds of the restarts alone.
	withoutSMEM(func() {
		if a, b := fit(4, 3), fit(4, 8); !(b.LowerBound >= a.LowerBound) {
			t.Errorf("8 restarts: lower bound %v, below 3 restarts' %v", b.LowerBound, a.LowerBound)
		}
	})
}

// TestGMMDegenerate fits data that is degenerate in the ways users meet:
// every fit must succeed without NaN, or fail with the documented error.
func TestGMMDegenerate(t *testing.T) {
	dup := make([]float64, 0, 40)
	for i := range 20 {
		dup = append(dup, float64(i%2), 3) // two distinct rows, and a constant column
	}
	tests := []struct {
		name    string
		x       *Matrix
		k       int
		cov     CovarianceType
		init    Init
		reg     float64
		wantErr error
	}{
		{"duplicates k=2", NewMatrix(20, 2, dup), 2, Full, InitKMeans, 1e-6, nil},
		{"more clusters than distinct rows", NewMatrix(20, 2, dup), 5, Full, InitKMeans, 1e-6, nil},
		{"more clusters than distinct rows, k-means++", NewMatrix(20, 2, dup), 5, Diag, InitKMeansPP, 1e-6, nil},
		{"more clusters than distinct rows, random", NewMatrix(20, 2, dup), 5, Tied, InitRandom, 1e-6, nil},
		{"spherical", NewMatrix(20, 2, dup), 3, Spherical, InitKMeans, 1e-6, nil},
		{"one row", NewMatrix(1, 2, []float64{1, 2}), 1, Full, InitKMeans, 1e-6, nil},
		{"fewer rows than clusters", NewMatrix(2, 2, []float64{1, 2, 3, 4}), 3, Full, InitKMeans, 1e-6, ErrTooFewRows},
		{"no floor", NewMatrix(20, 2, dup), 2, Full, InitKMeans, 0, ErrIllDefinedCovariance},
		// Identical values about their mean leave a variance of rounding
		// noise (about 1e-31), not zero: still a collapsed component.
		{"no floor, collapsed to rounding noise", NewMatrix(6, 1, []float64{1, 1, 1, 5, 6, 7}), 2, Full, InitKMeans, 0, ErrIllDefinedCovariance},
		{"no floor, collapsed to rounding noise, diag", NewMatrix(6, 1, []float64{1, 1, 1, 5, 6, 7}), 2, Diag, InitKMeans, 0, ErrIllDefinedCovariance},
		// A tiny spread the data does have is not a collapse.
		{"no floor, tiny spread", NewMatrix(6, 1, []float64{1, 1 + 1e-9, 1 - 1e-9, 5, 6, 7}), 2, Full, InitKMeans, 0, nil},
		{"NaN", NewMatrix(2, 1, []float64{1, math.NaN()}), 1, Full, InitKMeans, 1e-6, ErrNotFinite},
		{"no columns", NewMatrix(3, 0, nil), 1, Full, InitKMeans, 1e-6, ErrNoColumns},
		{"k=0", NewMatrix(3, 1, []float64{1, 2, 3}), 0, Full, InitKMeans, 1e-6, ErrBadOption},
		{"huge values", NewMatrix(4, 1, []float64{1e300, -1e300, 1e300, -1e300}), 1, Full, InitKMeans, 1e-6, ErrOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := DefaultGMMOptions(tt.k)
			opt.Covariance, opt.Init, opt.RegCovar, opt.NInit = tt.cov, tt.init, tt.reg, 3
			g, err := FitGMM(tt.x, opt)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			noNaN(t, "log-likelihood", g.LogLikelihood, g.BIC(), g.AIC())
			noNaN(t, "trace", g.Trace...)
			noNaN(t, "weights", g.Weights...)
			noNaN(t, "means", g.Means...)
			noNaN(t, "covariances", g.Covariances...)
		})
	}
}

// TestNumParams checks the parameter counts against scikit-learn's
// _n_parameters for k=3, d=4.
func TestNumParams(t *testing.T) {
	for _, tt := range []struct {
		cov  CovarianceType
		want int
	}{{Full, 30 + 12 + 2}, {Diag, 12 + 12 + 2}, {Spherical, 3 + 12 + 2}, {Tied, 10 + 12 + 2}} {
		if got := tt.cov.NumParams(3, 4); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.cov, got, tt.want)
		}
	}
}

// TestGiven checks that a fit from given parameters that are already the
// fixed point stays there, and that Score agrees with the fit.
func TestGiven(t *testing.T) {
	x := blobs(2000, 2, 3, 4, 5)
	opt := DefaultGMMOptions(3)
	opt.Tol, opt.MaxIter = 0, 200
	g, err := FitGMM(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Score(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(s-g.LogLikelihood) <= 1e-12) {
		t.Errorf("Score %v, fit %v", s, g.LogLikelihood)
	}
	opt.Init, opt.Given, opt.MaxIter = InitGiven, g, 5
	h, err := FitGMM(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(h.LogLikelihood-g.LogLikelihood) <= 1e-9) {
		t.Errorf("from the fit: %v, want %v", h.LogLikelihood, g.LogLikelihood)
	}
	bad := *g
	bad.Weights = []float64{1}
	opt.Given = &bad
	if _, err := FitGMM(x, opt); !errors.Is(err, ErrBadOption) {
		t.Errorf("wrong shapes: got %v, want ErrBadOption", err)
	}
}

// TestSelectK checks that BIC picks the number of well-separated clusters.
func TestSelectK(t *testing.T) {
	x := blobs(1500, 2, 3, 10, 8)
	opt := DefaultGMMOptions(0)
	opt.NInit = 3
	best, all, err := SelectK(x, 1, 6, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 || best.K != 3 {
		t.Errorf("got %d fits, best k=%d; want 6 fits, k=3", len(all), best.K)
	}
}

// TestContinuation checks that the kept restart, unless it ran out of
// iterations, stopped changing by less than Tol/1000 (it continued past
// Tol), met Tol itself, and that its trace, continuation included, never
// decreases.
func TestContinuation(t *testing.T) {
	x := blobs(2000, 3, 6, 0.8, 5)
	for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
		opt := DefaultGMMOptions(6)
		opt.Covariance, opt.NInit, opt.Seed, opt.MaxIter = cov, 5, 2, 1000
		g, err := FitGMM(x, opt)
		if err != nil {
			t.Fatal(err)
		}
		tr := g.Trace
		if !g.Converged || len(tr) != g.Iterations || g.Iterations >= opt.MaxIter {
			t.Fatalf("%s: converged %v after %d iterations, %d trace values", cov, g.Converged, g.Iterations, len(tr))
		}
		if d := tr[len(tr)-1] - tr[len(tr)-2]; !(math.Abs(d) < opt.Tol*polishTol) {
			t.Errorf("%s: the last change is %v, want below %v", cov, d, opt.Tol*polishTol)
		}
		for i := 1; i < len(tr); i++ {
			if !(tr[i] >= tr[i-1]-1e-9*math.Abs(tr[i-1])) {
				t.Fatalf("%s: log-likelihood decreases at iteration %d: %v after %v", cov, i+1, tr[i], tr[i-1])
			}
		}
		if !(g.LogLikelihood >= tr[len(tr)-1]-1e-9*math.Abs(tr[len(tr)-1])) {
			t.Errorf("%s: final log-likelihood %v below the trace's %v", cov, g.LogLikelihood, tr[len(tr)-1])
		}
	}
}

// TestNames checks the names of covariance types and initialisations both
// ways, the name of a value without one, and the error, of kind
// ErrBadOption, that lists the names an unknown one may be.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Full.String(), "full"},
		{Tied.String(), "tied"},
		{CovarianceType(4).String(), "CovarianceType(4)"},
		{CovarianceType(-1).String(), "CovarianceType(-1)"},
		{InitKMeansPP.String(), "k-means++"},
		{InitGiven.String(), "given"},
		{Init(9).String(), "Init(9)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, name := range []string{"full", "diag", "spherical", "tied"} {
		if c, err := ParseCovariance(name); err != nil || c.String() != name {
			t.Errorf("ParseCovariance(%q) = %v, %v", name, c, err)
		}
	}
	for _, name := range []string{"kmeans", "k-means++", "random"} {
		if i, err := ParseInit(name); err != nil || i.String() != name {
			t.Errorf("ParseInit(%q) = %v, %v", name, i, err)
		}
	}
	_, errCov := ParseCovariance("round")
	_, errInit := ParseInit("given") // given parameters come as GMMOptions.Given
	for _, c := range []struct {
		err  error
		want string
	}{
		{errCov, `unknown covariance type "round": want full, diag, spherical or tied`},
		{errInit, `unknown initialisation "given": want kmeans, k-means++ or random`},
	} {
		if !errors.Is(c.err, ErrBadOption) || c.err.Error() != c.want {
			t.Errorf("got %v, want %q of kind ErrBadOption", c.err, c.want)
		}
	}
}

// TestRunOptions checks that k-means and EM refuse the same bad restarts,
// iterations and tolerances, with the same messages.
func TestRunOptions(t *testing.T) {
	x := blobs(20, 2, 2, 1, 1)
	for _, c := range []struct {
		nInit, maxIter int
		tol            float64
		want           string
	}{
		{0, 10, 0, "n-init 0: want at least 1 restart"},
		{1, 0, 0, "max-iter 0: want at least 1 iteration"},
		{1, 10, -1, "tol -1: want a finite number at least 0"},
		{1, 10, math.NaN(), "tol NaN: want a finite number at least 0"},
	} {
		ko := DefaultKMeansOptions(2)
		ko.NInit, ko.MaxIter, ko.Tol = c.nInit, c.maxIter, c.tol
		_, kerr := KMeans(x, ko)
		gopt := DefaultGMMOptions(2)
		gopt.NInit, gopt.MaxIter, gopt.Tol = c.nInit, c.maxIter, c.tol
		_, gerr := FitGMM(x, gopt)
		for _, err := range []error{kerr, gerr} {
			if !errors.Is(err, ErrBadOption) || err.Error() != c.want {
				t.Errorf("got %v, want %q of kind ErrBadOption", err, c.want)
			}
		}
	}
}
