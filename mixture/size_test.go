package mixture

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGMMSizeRefused: a fit whose covariances do not fit in MaxEntries is
// refused with ErrTooLarge before anything is allocated for them (3 rows
// of 1,000,000 columns with full covariances asked the runtime for 8 TB
// and crashed pbl cluster), and every covariance type that fits is fitted.
func TestGMMSizeRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	wide := func(n, d int) *Matrix {
		data := make([]float64, n*d)
		for i := range data {
			data[i] = rng.Float64()
		}
		return NewMatrix(n, d, data)
	}
	for _, c := range []struct {
		n, d int
		cov  CovarianceType
		ok   bool
	}{
		{3, 100_000, Full, false},
		{3, 100_000, Tied, false},
		{3, 100_000, Diag, true},
		{3, 100_000, Spherical, true},
		{3, 200, Full, true},
		{3, 12_000, Full, false}, // 2·12,000² numbers, more than 2^28 once
		{3, 8_000, Full, false},  // 2·8,000² numbers, five copies
	} {
		opt := DefaultGMMOptions(2)
		opt.Covariance = c.cov
		opt.MaxIter = 3
		_, err := FitGMM(wide(c.n, c.d), opt)
		if c.ok {
			if err != nil && !errors.Is(err, ErrIllDefinedCovariance) {
				t.Errorf("%d×%d %s: %v", c.n, c.d, c.cov, err)
			}
			continue
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%d×%d %s: got %v, want ErrTooLarge", c.n, c.d, c.cov, err)
		}
	}
}

// TestGMMScratchFewRows: the per-worker scratch of a fit holds a block of
// rows, and no more rows than the data has: 3 rows of 20,000 columns
// allocated 2·512·20,000 numbers (164 MB) per worker.
func TestGMMScratchFewRows(t *testing.T) {
	const n, d = 3, 20_000
	data := make([]float64, n*d)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	x := NewMatrix(n, d, data)
	opt := DefaultGMMOptions(2)
	opt.Covariance = Diag
	opt.MaxIter = 2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := FitGMM(x, opt); err != nil && !errors.Is(err, ErrIllDefinedCovariance) {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// The data are 480 KB; everything the fit needs is a small multiple.
	if got := after.TotalAlloc - before.TotalAlloc; got > 40<<20 {
		t.Errorf("the fit allocated %d MB on %d×%d data", got>>20, n, d)
	}
}
