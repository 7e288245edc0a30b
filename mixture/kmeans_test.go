package mixture

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"os"
	"runtime"
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
	}
	// Values whose squared distances overflow are clustered all the same
	// (see TestKMeansScale): the inertia, 2e600, is in LogInertia.
	r, err := KMeans(NewMatrix(2, 1, []float64{1e300, -1e300}), DefaultKMeansOptions(1))
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(2) + 600*math.Ln10; r.Center(0)[0] != 0 || !math.IsInf(r.Inertia, 1) || !(math.Abs(r.LogInertia-want) <= 1e-12*want) {
		t.Errorf("huge: centre %v, inertia %v, ln inertia %v, want 0, +Inf, %v", r.Center(0), r.Inertia, r.LogInertia, want)
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

// kmeansFingerprint hashes a result's labels, centres, inertia and
// iteration count bit for bit.
func kmeansFingerprint(r *KMeansResult) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for _, l := range r.Labels {
		put(uint64(l))
	}
	for _, c := range r.Centers {
		put(math.Float64bits(c))
	}
	put(math.Float64bits(r.Inertia))
	put(uint64(r.Iterations))
	return h.Sum64()
}

// TestKMeansGolden pins k-means results bit for bit (labels, centres,
// inertia, iterations) to those of the straightforward kernels, so that
// faster kernels and bounds cannot change them. The values were recorded
// on amd64, where Go does not fuse multiplications and additions; the
// four that converge within 60 iterations were recorded again when
// Hartigan's moves were added after Lloyd (both kernels, 1 to 3 workers,
// agreeing).
func TestKMeansGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("golden values recorded on amd64")
	}
	tests := []struct {
		n, d, k, ninit int
		spread, tol    float64
		seed           uint64
		want           uint64
	}{
		{20000, 16, 32, 1, 1, 0, 1, 0xed08070655fcc688},
		{6000, 5, 7, 2, 1, 1e-4, 3, 0x419df3254507bb7a},
		{3001, 3, 13, 2, 0.5, 0, 2, 0x1e6f26da6336e748},
		{4000, 16, 40, 1, 1, 0, 5, 0x2dde554f5ea21b40},
		{2500, 9, 17, 1, 2, 1e-4, 6, 0x41494ee26ad5edab},
		{999, 2, 1, 1, 1, 0, 7, 0xc91edd7a57b81639},
		{5000, 4, 4, 1, 1, 0, 8, 0xf68731aa1706c0d0},
	}
	for _, tt := range tests {
		if !heavy() && tt.n*tt.d*tt.k > 1_000_000 {
			// The light run (see heavy) leaves out the two largest,
			// most of the test's time under the race detector; the
			// others take the same kernels and workers.
			continue
		}
		x := blobs(tt.n, tt.d, tt.k, tt.spread, tt.seed)
		forKernels(t, func(kernel string) {
			for _, w := range []int{1, 2, 3} {
				opt := DefaultKMeansOptions(tt.k)
				opt.NInit, opt.Tol, opt.Seed, opt.Workers = tt.ninit, tt.tol, tt.seed, w
				opt.MaxIter = 60
				r, err := KMeans(x, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got := kmeansFingerprint(r); got != tt.want {
					t.Errorf("%s kernels, %d×%d k=%d seed %d, %d workers: fingerprint %#x, want %#x (inertia %v, %d iterations)", kernel, tt.n, tt.d, tt.k, tt.seed, w, got, tt.want, r.Inertia, r.Iterations)
				}
			}
		})
	}
}

// forKernels calls fn with the portable kernels and, where the processor
// has them, the AVX-512 ones.
func forKernels(t *testing.T, fn func(kernel string)) {
	defer func() { portableOnly = false }()
	portableOnly = true
	fn("portable")
	portableOnly = false
	if cpuHasAVX512() {
		fn("AVX-512")
	}
}

// TestKMeansGoldenCompare pins the result on compare.py kmeans's file
// (PBL_KMEANS_CSV) with 1 and 2 workers, as TestKMeansGolden.
func TestKMeansGoldenCompare(t *testing.T) {
	path := os.Getenv("PBL_KMEANS_CSV")
	if path == "" || runtime.GOARCH != "amd64" {
		t.Skip("PBL_KMEANS_CSV is not set")
	}
	x := readCSV(t, path)
	forKernels(t, func(kernel string) {
		for _, w := range []int{1, 2} {
			opt := DefaultKMeansOptions(32)
			opt.Tol, opt.MaxIter, opt.Seed, opt.Workers = 0, 100, 1, w
			r, err := KMeans(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := kmeansFingerprint(r), uint64(0x3ebf89324152f2f9); got != want {
				t.Errorf("%s kernels, %d workers: fingerprint %#x, want %#x (inertia %v)", kernel, w, got, want, r.Inertia)
			}
		}
	})
}

// TestKMeansKernelsAgree checks that the AVX-512 and the portable kernels
// give the same results bit for bit on data with many ties: duplicated
// rows, integer values, more clusters than distinct rows.
func TestKMeansKernelsAgree(t *testing.T) {
	grid := make([]float64, 0, 3000*3)
	for i := range 3000 {
		grid = append(grid, float64(i%7), float64(i%5), float64((i/7)%3))
	}
	dup := slices.Repeat(blobs(50, 17, 3, 1, 11).Data, 20)
	for _, c := range []struct {
		name string
		x    *Matrix
		k    int
	}{
		{"grid", NewMatrix(3000, 3, grid), 33},
		{"grid k=120", NewMatrix(3000, 3, grid), 120},
		{"duplicates", NewMatrix(1000, 17, dup), 60},
	} {
		var prints []uint64
		forKernels(t, func(string) {
			opt := DefaultKMeansOptions(c.k)
			opt.NInit, opt.Seed, opt.Workers = 2, 4, 2
			r, err := KMeans(c.x, opt)
			if err != nil {
				t.Fatal(err)
			}
			prints = append(prints, kmeansFingerprint(r))
		})
		for _, p := range prints[1:] {
			if p != prints[0] {
				t.Errorf("%s: the kernels differ: %#x", c.name, prints)
			}
		}
	}
}

// TestHartigan checks that a converged k-means result has no single-row
// move that lowers the inertia by more than rounding, and that the
// refinement never raises the inertia of the Lloyd fixed point it starts
// from (overlapping clusters, where Lloyd's fixed points often have such
// moves).
func TestHartigan(t *testing.T) {
	x := blobs(3000, 3, 8, 0.8, 21)
	refined := 0
	for seed := uint64(1); seed <= 8; seed++ {
		opt := DefaultKMeansOptions(8)
		opt.Seed = seed
		r, err := KMeans(x, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Fatalf("seed %d: not converged", seed)
		}
		km := newKMeans(x, 8, 1)
		centers, _ := km.seed(newRand(seed, 0))
		plain := km.lloyd(centers, opt.MaxIter, opt.Tol*x.colMeanVariance())
		if !(r.Inertia <= plain.Inertia) {
			t.Errorf("seed %d: inertia %v after the moves, %v before", seed, r.Inertia, plain.Inertia)
		}
		if r.Moves > 0 {
			refined++
		}
		for i := range x.Rows {
			row, a := x.Row(i), int(r.Labels[i])
			na := float64(r.Sizes[a])
			if na == 1 {
				continue
			}
			stay := na / (na - 1) * sqDist(row, r.Center(a))
			for b := range 8 {
				nb := float64(r.Sizes[b])
				if move := nb / (nb + 1) * sqDist(row, r.Center(b)); b != a && !(move >= stay*(1-1e-9)) {
					t.Fatalf("seed %d: moving row %d from %d to %d lowers the inertia by %v", seed, i, a, b, stay-move)
				}
			}
		}
	}
	if refined == 0 {
		t.Error("no restart was refined: the test covers nothing")
	}
}

// TestKMeansSwap checks the merge-and-split moves after k-means's
// restarts: they never raise the inertia (on testdata's hard data sets,
// four seeds of one restart each, k=6), they lower it by more than 0.1%
// somewhere (five of the twelve fits when written), the inertia is the
// rows' squared distances to their centres, and they do not run with
// tol 0.
func TestKMeansSwap(t *testing.T) {
	fit := func(x *Matrix, opt KMeansOptions, moves bool) *KMeansResult {
		saved := swapCandidates
		if !moves {
			swapCandidates = 0
		}
		defer func() { swapCandidates = saved }()
		r, err := KMeans(x, opt)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lowered := false
	for _, name := range []string{"overlap3d", "fresh1_040", "fresh1_063"} {
		x := readCSV(t, "testdata/"+name+".csv")
		for seed := uint64(1); seed <= 4; seed++ {
			opt := DefaultKMeansOptions(6)
			opt.NInit, opt.Seed = 1, seed
			off, on := fit(x, opt, false), fit(x, opt, true)
			if !(on.Inertia <= off.Inertia) {
				t.Errorf("%s seed %d: inertia %v with the moves, %v without", name, seed, on.Inertia, off.Inertia)
			}
			if on.Inertia < off.Inertia*(1-1e-3) {
				lowered = true
			}
			if !(math.Abs(on.Inertia-sumSq(x, on)) <= 1e-9*on.Inertia) {
				t.Errorf("%s seed %d: inertia %v, the rows' squared distances sum to %v", name, seed, on.Inertia, sumSq(x, on))
			}
		}
		opt := DefaultKMeansOptions(6)
		opt.Tol, opt.MaxIter = 0, 300
		if off, on := fit(x, opt, false), fit(x, opt, true); on.Inertia != off.Inertia || !slices.Equal(on.Centers, off.Centers) {
			t.Errorf("%s tol 0: the moves ran", name)
		}
	}
	if !lowered {
		t.Error("the moves never lowered the inertia by 0.1%")
	}
}

// sumSq returns the sum of squared distances from the rows to their
// centres in r.
func sumSq(x *Matrix, r *KMeansResult) float64 {
	s := 0.0
	for i, j := range r.Labels {
		s += sqDist(x.Row(i), r.Center(int(j)))
	}
	return s
}
