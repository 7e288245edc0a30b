package mixture

import (
	"errors"
	"math"
	"testing"
)

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
