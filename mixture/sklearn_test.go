package mixture

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// sklearnRef is testdata/sklearn.json, written by testdata/sklearn_ref.py.
type sklearnRef struct {
	Sklearn string
	Sets    map[string][]struct {
		K   int
		GMM map[string]struct {
			LogLikelihood float64 `json:"log_likelihood"`
			BIC, AIC      float64
		}
		KMeansInertia float64 `json:"kmeans_inertia"`
	}
}

// hardCases are the fits of testdata where pbl's best of 30 restarts
// (seed 1) may find a worse local optimum than scikit-learn's best of 10;
// they are held to a looser bound, so that a regression still fails:
// 0.02 of mean log-likelihood, 0.1% of inertia. None is now. overlap3d
// k=6 diag was one until the spike moves (see the package
// documentation); fresh4_062 (diag: scikit-learn's best has a component
// alone on one row) and fresh4_055 (k-means), which fresh.py's seed 4
// found, are held to the full bound: they fail without the spike moves
// and the k-means merge-and-split moves.
var hardCases = map[string]bool{}

// TestSklearn checks that with 30 restarts pbl does at least as well as
// scikit-learn's best of 10 on the data sets of testdata: a mean
// log-likelihood at most 1e-4 lower for every covariance type, and a
// k-means inertia at most 1e-4 (relative) higher (but see hardCases).
func TestSklearn(t *testing.T) {
	b, err := os.ReadFile("testdata/sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref sklearnRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Sets) == 0 {
		t.Fatal("no data sets in testdata/sklearn.json")
	}
	for name, fits := range ref.Sets {
		if !heavy() && strings.HasPrefix(name, "fresh") {
			// The light run (see heavy) leaves out the fresh sets.
			continue
		}
		x := readCSV(t, "testdata/"+name+".csv")
		for _, f := range fits {
			for covName, want := range f.GMM {
				cov, err := ParseCovariance(covName)
				if err != nil {
					t.Fatal(err)
				}
				opt := DefaultGMMOptions(f.K)
				opt.Covariance, opt.NInit, opt.Seed = cov, 30, 1
				g, err := FitGMM(x, opt)
				if err != nil {
					t.Fatalf("%s k=%d %s: %v", name, f.K, covName, err)
				}
				tol := 1e-4
				if hardCases[fmt.Sprintf("%s/%d/%s", name, f.K, covName)] {
					tol = 0.02
				}
				if !(g.LogLikelihood >= want.LogLikelihood-tol) {
					t.Errorf("%s k=%d %s: log-likelihood %.8f, scikit-learn %.8f", name, f.K, covName, g.LogLikelihood, want.LogLikelihood)
				}
				// BIC and AIC follow from the log-likelihood and the
				// number of parameters: check them where pbl matches.
				if math.Abs(g.LogLikelihood-want.LogLikelihood) <= 1e-9 {
					if !(math.Abs(g.BIC()-want.BIC) <= 1e-6*math.Abs(want.BIC)) || !(math.Abs(g.AIC()-want.AIC) <= 1e-6*math.Abs(want.AIC)) {
						t.Errorf("%s k=%d %s: BIC %v AIC %v, scikit-learn %v %v", name, f.K, covName, g.BIC(), g.AIC(), want.BIC, want.AIC)
					}
				}
				t.Logf("%s k=%d %-9s pbl %.8f sklearn %.8f", name, f.K, covName, g.LogLikelihood, want.LogLikelihood)
			}
			opt := DefaultKMeansOptions(f.K)
			opt.NInit, opt.Seed = 30, 1
			r, err := KMeans(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			rel := 1e-4
			if hardCases[fmt.Sprintf("%s/%d/kmeans", name, f.K)] {
				rel = 1e-3
			}
			if !(r.Inertia <= f.KMeansInertia*(1+rel)) {
				t.Errorf("%s k=%d: inertia %.6f, scikit-learn %.6f", name, f.K, r.Inertia, f.KMeansInertia)
			}
			t.Logf("%s k=%d kmeans    pbl %.6f sklearn %.6f", name, f.K, r.Inertia, f.KMeansInertia)
		}
	}
}
