package mixture

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestKMeansWorkers checks that k-means gives the same result bit for bit
// with 1 and 4 workers, seeding included.
func TestKMeansWorkers(t *testing.T) {
	x := blobs(6000, 5, 8, 2, 1)
	var rs []*KMeansResult
	for _, w := range []int{1, 4} {
		opt := DefaultKMeansOptions(8)
		opt.Workers, opt.NInit, opt.Seed = w, 3, 9
		r, err := KMeans(x, opt)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if rs[0].Inertia != rs[1].Inertia || !slices.Equal(rs[0].Centers, rs[1].Centers) || !slices.Equal(rs[0].Labels, rs[1].Labels) {
		t.Errorf("1 and 4 workers differ: inertia %v vs %v", rs[0].Inertia, rs[1].Inertia)
	}
}

// TestKMeansInvariants checks that every row is labelled with its nearest
// centre, that the inertia is the sum of those squared distances, and
// that the centres are the means of their clusters at convergence.
func TestKMeansInvariants(t *testing.T) {
	x := blobs(2000, 3, 5, 3, 4)
	opt := DefaultKMeansOptions(5)
	opt.Tol = 0
	r, err := KMeans(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged {
		t.Fatalf("not converged after %d iterations", r.Iterations)
	}
	in := 0.0
	sums := make([]float64, 5*3)
	for i := range x.Rows {
		row := x.Row(i)
		best, bd := -1, math.Inf(1)
		for j := range 5 {
			if d := sqDist(row, r.Center(j)); d < bd {
				best, bd = j, d
			}
		}
		if d := sqDist(row, r.Center(int(r.Labels[i]))); !(d <= bd*(1+1e-12)+1e-12) {
			t.Fatalf("row %d labelled %d at %v, but %d is at %v", i, r.Labels[i], d, best, bd)
		}
		in += bd
		for l, v := range row {
			sums[int(r.Labels[i])*3+l] += v
		}
	}
	if !(math.Abs(in-r.Inertia) <= 1e-9*in) {
		t.Errorf("inertia %v, want %v", r.Inertia, in)
	}
	for j := range 5 {
		for l := range 3 {
			if m := sums[j*3+l] / float64(r.Sizes[j]); !(math.Abs(m-r.Center(j)[l]) <= 1e-9) {
				t.Errorf("centre %d is %v, its cluster's mean %v", j, r.Center(j), m)
			}
		}
	}
}

// TestKMeansDegenerate covers duplicate rows, a constant column, more
// clusters than distinct rows, and the errors.
func TestKMeansDegenerate(t *testing.T) {
	same := slices.Repeat([]float64{2, 5}, 10)
	three := []float64{0, 0, 0, 0, 1, 1, 1, 1, 5, 5, 5, 5}
	tests := []struct {
		name        string
		x           *Matrix
		k           int
		wantInertia float64
		wantErr     error
	}{
		{"identical rows", NewMatrix(10, 2, same), 3, 0, nil},
		{"k equals distinct rows", NewMatrix(6, 2, three), 3, 0, nil},
		{"k above distinct rows", NewMatrix(6, 2, three), 5, 0, nil},
		{"k equals rows", NewMatrix(6, 2, three), 6, 0, nil},
		{"constant column", NewMatrix(4, 2, []float64{0, 7, 1, 7, 10, 7, 11, 7}), 2, 1, nil},
		{"n < k", NewMatrix(2, 2, three[:4]), 3, 0, ErrTooFewRows},
		{"infinite", NewMatrix(2, 1, []float64{1, math.Inf(1)}), 1, 0, ErrNotFinite},
		{"huge", NewMatrix(2, 1, []float64{1e300, -1e300}), 1, 0, ErrOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := DefaultKMeansOptions(tt.k)
			opt.NInit = 2
			r, err := KMeans(tt.x, opt)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			noNaN(t, "centres", r.Centers...)
			if !(math.Abs(r.Inertia-tt.wantInertia) <= 1e-12) {
				t.Errorf("inertia %v, want %v", r.Inertia, tt.wantInertia)
			}
		})
	}
}

// TestSeedPlusPlus checks k-means++ seeding: distinct seeds are chosen
// while distinct rows remain, and well-separated clusters each get one.
func TestSeedPlusPlus(t *testing.T) {
	var data []float64
	for c := range 4 {
		for i := range 50 {
			data = append(data, float64(c)*100+float64(i%5)*0.01, float64(i%7)*0.01)
		}
	}
	x := NewMatrix(200, 2, data)
	for seed := range uint64(20) {
		km := newKMeans(x, 4, 1)
		_, rows := km.seed(newRand(seed, 0))
		seen := map[int]bool{}
		for _, i := range rows {
			seen[i/50] = true
		}
		if len(seen) != 4 {
			t.Fatalf("seed %d: seeds in clusters %v, want one in each of 4", seed, rows)
		}
	}
}
