package mixture

import (
	"fmt"
	"os"
	"testing"
)

// The benchmarks run the sizes of ../shared/bench/compare.py: gmm (100,000
// × 8, k = 8) and kmeans (200,000 × 16, k = 32), and a small size.

func benchGMM(b *testing.B, n, d, k int, cov CovarianceType, workers int) {
	x := blobs(n, d, k, 4, 1)
	opt := DefaultGMMOptions(k)
	opt.Covariance, opt.Init, opt.Tol, opt.MaxIter, opt.Workers = cov, InitKMeansPP, 0, 10, workers
	b.ResetTimer()
	for range b.N {
		if _, err := FitGMM(x, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10/1e6, "ms/iter")
}

func BenchmarkGMMSmall(b *testing.B) { benchGMM(b, 5000, 4, 4, Full, 0) }

func BenchmarkGMMLarge(b *testing.B) {
	for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
		b.Run(cov.String(), func(b *testing.B) { benchGMM(b, 100000, 8, 8, cov, 0) })
	}
	b.Run("full/1worker", func(b *testing.B) { benchGMM(b, 100000, 8, 8, Full, 1) })
}

func benchKMeans(b *testing.B, n, d, k, workers int) {
	x := blobs(n, d, k, 1, 1)
	opt := DefaultKMeansOptions(k)
	opt.Tol, opt.MaxIter, opt.Workers = 0, 20, workers
	benchKMeansFit(b, x, opt)
}

// benchKMeansFit fits x b.N times, reporting the time per Lloyd iteration.
func benchKMeansFit(b *testing.B, x *Matrix, opt KMeansOptions) {
	b.ResetTimer()
	iters := 0
	for range b.N {
		r, err := KMeans(x, opt)
		if err != nil {
			b.Fatal(err)
		}
		iters += r.Iterations
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters)/1e6, "ms/iter")
}

func BenchmarkKMeansSmall(b *testing.B) { benchKMeans(b, 5000, 4, 4, 0) }

func BenchmarkKMeansLarge(b *testing.B) {
	for _, w := range []int{1, 0} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) { benchKMeans(b, 200000, 16, 32, w) })
	}
}

// BenchmarkKMeansCompare fits the file compare.py kmeans writes (200,000 ×
// 16, k = 32, 100 iterations, tol 0) when PBL_KMEANS_CSV names it.
func BenchmarkKMeansCompare(b *testing.B) {
	path := os.Getenv("PBL_KMEANS_CSV")
	if path == "" {
		b.Skip("PBL_KMEANS_CSV is not set")
	}
	x := readCSV(b, path)
	opt := DefaultKMeansOptions(32)
	opt.Tol, opt.MaxIter, opt.Seed = 0, 100, 1
	benchKMeansFit(b, x, opt)
}
