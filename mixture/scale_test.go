package mixture

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sklearnKMeans runs scikit-learn's KMeans (n_init 10, random_state 0)
// on x and returns its inertia and labels; it skips the test if
// scikit-learn is not installed.
func sklearnKMeans(t *testing.T, x *Matrix, k int) (float64, []int) {
	t.Helper()
	py := "/usr/bin/python3"
	path := filepath.Join(t.TempDir(), "x.csv")
	var b strings.Builder
	for i := range x.Rows {
		for l, v := range x.Row(i) {
			if l > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const src = `
import json, sys
import numpy as np
from sklearn.cluster import KMeans
x = np.loadtxt(sys.argv[1], delimiter=",", ndmin=2)
km = KMeans(int(sys.argv[2]), n_init=10, random_state=0).fit(x)
print(json.dumps({"inertia": float(km.inertia_), "labels": [int(l) for l in km.labels_]}))
`
	cmd := exec.Command(py, "-c", src, path, strconv.Itoa(k))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	switch {
	case err != nil && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || strings.Contains(stderr.String(), "ModuleNotFoundError")):
		t.Skipf("scikit-learn not available (install python3-sklearn): %v\n%s", err, stderr.String())
	case err != nil:
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	var r struct {
		Inertia float64
		Labels  []int
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return r.Inertia, r.Labels
}

// samePartition reports whether the labels a and b put the rows in the
// same clusters, whatever the clusters' numbers.
func samePartition(a []int32, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	ab, ba := map[int32]int{}, map[int]int32{}
	for i := range a {
		if j, ok := ab[a[i]]; ok && j != b[i] {
			return false
		}
		if j, ok := ba[b[i]]; ok && j != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return true
}

// scaled returns x with every value multiplied by s (by s1 then s2, so
// that s can be beyond float64's range).
func scaled(x *Matrix, s1, s2 float64) *Matrix {
	y := make([]float64, len(x.Data))
	for i, v := range x.Data {
		y[i] = v * s1 * s2
	}
	return NewMatrix(x.Rows, x.Cols, y)
}

// TestKMeansScale checks that k-means clusters data at the ends of
// float64's range (values near 1e-200, 1e-300, subnormal ones, 1e-160
// whose inertia is subnormal, 1e200 and 1e300 whose inertia overflows,
// and a tiny column beside a constant one) as it clusters the same data
// brought back to about 1: the same clusters, the centres scaled, the
// inertia scaled by the square (LogInertia, where float64 cannot hold
// it); and that the clusters at about 1 are scikit-learn's, with its
// inertia. Before k-means changed the data's scale, the tiny data came
// out as one cluster with inertia 0.
func TestKMeansScale(t *testing.T) {
	base := blobs(90, 3, 3, 12, 5)
	withConst := func(x *Matrix) *Matrix {
		// A constant column of 1 before x's columns.
		d := x.Cols + 1
		y := make([]float64, x.Rows*d)
		for i := range x.Rows {
			y[i*d] = 1
			copy(y[i*d+1:(i+1)*d], x.Row(i))
		}
		return NewMatrix(x.Rows, d, y)
	}
	cases := []struct {
		name   string
		s1, s2 float64 // the data is base·s1·s2
		konst  bool    // with a constant column of 1
	}{
		{"1e-200", 1e-200, 1, false},
		{"1e-300", 1e-300, 1, false},
		{"subnormal", 1e-155, 1e-155, false},
		{"1e-160", 1e-160, 1, false},
		{"1e200", 1e200, 1, false},
		{"1e300", 1e300, 0.5, false},
		{"tiny beside 1", 1e-200, 1, true},
		{"1", 1, 1, false},
	}
	ref := base
	ki, kl := sklearnKMeans(t, ref, 3)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := scaled(base, c.s1, c.s2)
			if c.konst {
				x = withConst(x)
			}
			// The reference: the same data brought back by 1/s.
			back := scaled(x, 1/c.s1, 1/c.s2)
			if c.konst {
				for i := range back.Rows {
					back.Data[i*back.Cols] = 0 // 1/s of a constant column: a constant column
				}
			}
			opt := DefaultKMeansOptions(3)
			opt.NInit, opt.Seed = 10, 1
			got, err := KMeans(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := KMeans(back, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !samePartition(got.Labels, int32s(want.Labels)) {
				t.Fatalf("labels %v, at scale 1 %v", got.Labels, want.Labels)
			}
			if !samePartition(got.Labels, kl) {
				t.Errorf("labels %v, scikit-learn's at scale 1 %v", got.Labels, kl)
			}
			for j := range 3 {
				for l := range x.Cols {
					g := got.Center(j)[l] / c.s1 / c.s2
					w := want.Center(j)[l]
					if c.konst && l == 0 {
						g, w = got.Center(j)[l], 1
					}
					if !(math.Abs(g-w) <= 1e-9*(1+math.Abs(w))) {
						t.Errorf("centre %d column %d: %v, at scale 1 %v (×%v)", j, l, got.Center(j)[l], w, c.s1*c.s2)
					}
				}
			}
			// ln inertia = ln(inertia at scale 1) + 2 ln s.
			wantLog := math.Log(want.Inertia) + 2*(math.Log(c.s1)+math.Log(c.s2))
			if !(math.Abs(got.LogInertia-wantLog) <= 1e-9*math.Abs(wantLog)) {
				t.Errorf("ln inertia %v, want %v (inertia %v, at scale 1 %v)", got.LogInertia, wantLog, got.Inertia, want.Inertia)
			}
			if !(math.Abs(want.Inertia-ki) <= 1e-9*ki) {
				t.Errorf("inertia at scale 1 %v, scikit-learn's %v", want.Inertia, ki)
			}
			// Inertia is the rounded float64: right where it is normal.
			if g := math.Exp(got.LogInertia); g >= 0x1p-1022 && !math.IsInf(g, 0) && !(math.Abs(got.Inertia-g) <= 1e-9*g) {
				t.Errorf("inertia %v, exp(ln inertia) %v", got.Inertia, g)
			}
			noNaN(t, "centres", got.Centers...)
		})
	}
}

func int32s(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// TestGMMScale checks the Gaussian mixture at the ends of float64's
// range: a variance below its normal range (which has lost digits) is
// ErrUnderflow, whether it comes from the data or reg-covar; and with
// reg-covar 1e-6 far above the data's variance (values near 1e-200),
// every component is that Gaussian at the data's mean, whatever the
// initialisation (each row's responsibilities are then the weights, to
// within 1e-390). Before, the k-means initialisations saw the tiny data
// as one point, and a component was left elsewhere.
func TestGMMScale(t *testing.T) {
	base := blobs(60, 2, 2, 12, 3)
	for _, c := range []struct {
		s   float64
		reg float64
	}{{1e-155, 0}, {1e-160, 0}, {1e-200, 0}, {1e-170, 1e-320}} {
		opt := DefaultGMMOptions(2)
		opt.RegCovar = c.reg
		_, err := FitGMM(scaled(base, c.s, 1), opt)
		if !errors.Is(err, ErrUnderflow) {
			t.Errorf("scale %v, reg-covar %v: error %v, want ErrUnderflow", c.s, c.reg, err)
		}
	}
	// Where the variances are normal, the fit is the fit at scale 1
	// scaled (reg-covar 0 and 1e-6 at scale 1 both leave it the same
	// here).
	opt := DefaultGMMOptions(2)
	opt.RegCovar = 0
	g, err := FitGMM(scaled(base, 1e-150, 1), opt)
	if err != nil {
		t.Fatal(err)
	}
	w, err := FitGMM(base, opt)
	if err != nil {
		t.Fatal(err)
	}
	for t2, v := range g.Means {
		if !(math.Abs(v/1e-150-w.Means[t2]) <= 1e-6*(1+math.Abs(w.Means[t2]))) {
			t.Errorf("mean %d: %v, at scale 1 %v", t2, v, w.Means[t2])
		}
	}
	x := scaled(base, 1e-200, 1)
	mean := make([]float64, 2)
	for i := range x.Rows {
		for l, v := range x.Row(i) {
			mean[l] += v / float64(x.Rows)
		}
	}
	for _, init := range []Init{InitKMeans, InitKMeansPP} {
		for _, cov := range []CovarianceType{Full, Diag, Spherical, Tied} {
			t.Run(fmt.Sprintf("%v/%v", init, cov), func(t *testing.T) {
				opt := DefaultGMMOptions(2)
				opt.Init, opt.Covariance = init, cov
				g, err := FitGMM(x, opt)
				if err != nil {
					t.Fatal(err)
				}
				for j := range 2 {
					for l := range 2 {
						if v := g.Mean(j)[l]; !(math.Abs(v-mean[l]) <= 1e-9*math.Abs(mean[l])) {
							t.Errorf("component %d (weight %v): mean %v, the data's %v", j, g.Weights[j], v, mean[l])
						}
					}
				}
				if want := -math.Log(2 * math.Pi * 1e-6); !(math.Abs(g.LogLikelihood-want) <= 1e-9) {
					t.Errorf("log-likelihood %v, want %v", g.LogLikelihood, want)
				}
			})
		}
	}
}
