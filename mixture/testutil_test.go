package mixture

import (
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// readCSV reads a testdata CSV of numbers with a header row.
func readCSV(t testing.TB, path string) *Matrix {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	d := len(recs[0])
	var data []float64
	for _, r := range recs[1:] {
		for _, s := range r {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, v)
		}
	}
	return NewMatrix(len(recs)-1, d, data)
}

// blobs returns n rows of d columns drawn from k Gaussian clusters with
// random means (spread apart by spread) and random covariances.
func blobs(n, d, k int, spread float64, seed uint64) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 99))
	means := make([]float64, k*d)
	for i := range means {
		means[i] = rng.NormFloat64() * spread
	}
	mix := make([]float64, k*d*d)
	for i := range mix {
		mix[i] = rng.NormFloat64() * 0.5
	}
	x := make([]float64, n*d)
	z := make([]float64, d)
	for i := range n {
		c := rng.IntN(k)
		for l := range z {
			z[l] = rng.NormFloat64()
		}
		for a := range d {
			v := means[c*d+a] + z[a]
			for b := range d {
				v += mix[c*d*d+a*d+b] * z[b]
			}
			x[i*d+a] = v
		}
	}
	return NewMatrix(n, d, x)
}

// noNaN fails the test if any value is NaN or infinite.
func noNaN(t *testing.T, what string, vs ...float64) {
	t.Helper()
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s[%d] = %v", what, i, v)
		}
	}
}
