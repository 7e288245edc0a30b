package mixture

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var (
	freshDir   = flag.String("fresh", "", "a directory written by testdata/fresh.py: run TestFresh on its data sets")
	freshSeeds = flag.Int("fresh.seeds", 1, "TestFresh: pbl seeds per fit (1, 2, …)")
	freshOnly  = flag.String("fresh.only", "", "TestFresh: only these fits (comma-separated: full, diag, spherical, tied, kmeans)")
)

// freshRef is the fresh.json that testdata/fresh.py writes.
type freshRef struct {
	Sklearn string
	Sets    []struct {
		Name   string
		K      int
		N, D   int
		GMM    map[string]*float64
		KMeans float64
	}
}

// TestFresh runs the experiment of testdata/fresh.py: on each data set
// it fits, as pbl cluster --n-init 30 does with its other defaults, every
// covariance type and k-means, and counts the fits where pbl does worse
// than scikit-learn's best of 10: a mean log-likelihood more than 1e-4
// lower, or an inertia more than 1e-4 (relative) higher. It is skipped
// unless -fresh names the directory; it logs every failure and the rates,
// and fails only if pbl fails on a fit where scikit-learn succeeded.
func TestFresh(t *testing.T) {
	if *freshDir == "" {
		t.Skip("no -fresh directory (see testdata/fresh.py)")
	}
	b, err := os.ReadFile(filepath.Join(*freshDir, "fresh.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref freshRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	only := map[string]bool{}
	for _, s := range strings.Split(*freshOnly, ",") {
		if s != "" {
			only[s] = true
		}
	}
	fits, fails := map[string]int{}, map[string]int{}
	secs := map[string]time.Duration{}
	var worst []string
	for _, set := range ref.Sets {
		x := readCSV(t, filepath.Join(*freshDir, set.Name+".csv"))
		for seed := uint64(1); seed <= uint64(*freshSeeds); seed++ {
			for _, covName := range []string{"full", "diag", "spherical", "tied"} {
				want := set.GMM[covName]
				if want == nil || (len(only) > 0 && !only[covName]) {
					continue
				}
				cov, err := ParseCovariance(covName)
				if err != nil {
					t.Fatal(err)
				}
				opt := DefaultGMMOptions(set.K)
				opt.Covariance, opt.NInit, opt.Seed = cov, 30, seed
				start := time.Now()
				g, err := FitGMM(x, opt)
				secs[covName] += time.Since(start)
				if err != nil {
					t.Errorf("%s k=%d %s seed %d: %v", set.Name, set.K, covName, seed, err)
					continue
				}
				fits[covName]++
				if d := *want - g.LogLikelihood; !(d <= 1e-4) {
					fails[covName]++
					worst = append(worst, fmt.Sprintf("%s n=%d d=%d k=%d %s seed %d: log-likelihood %.6f, scikit-learn %.6f (%.2g lower)",
						set.Name, set.N, set.D, set.K, covName, seed, g.LogLikelihood, *want, d))
				}
			}
			if len(only) > 0 && !only["kmeans"] {
				continue
			}
			opt := DefaultKMeansOptions(set.K)
			opt.NInit, opt.Seed = 30, seed
			start := time.Now()
			r, err := KMeans(x, opt)
			secs["kmeans"] += time.Since(start)
			if err != nil {
				t.Errorf("%s k=%d kmeans seed %d: %v", set.Name, set.K, seed, err)
				continue
			}
			fits["kmeans"]++
			if rel := r.Inertia/set.KMeans - 1; !(rel <= 1e-4) {
				fails["kmeans"]++
				worst = append(worst, fmt.Sprintf("%s n=%d d=%d k=%d kmeans seed %d: inertia %.6g, scikit-learn %.6g (%.2g higher)",
					set.Name, set.N, set.D, set.K, seed, r.Inertia, set.KMeans, rel))
			}
		}
	}
	sort.Strings(worst)
	for _, s := range worst {
		t.Log(s)
	}
	total, failed := 0, 0
	for _, name := range []string{"full", "diag", "spherical", "tied", "kmeans"} {
		if fits[name] == 0 {
			continue
		}
		total += fits[name]
		failed += fails[name]
		t.Logf("%-9s %3d of %3d fits worse than scikit-learn's best of 10 (%.1f%%), pbl %.1f s", name, fails[name], fits[name],
			100*float64(fails[name])/float64(fits[name]), secs[name].Seconds())
	}
	t.Logf("all       %3d of %3d (%.1f%%)", failed, total, 100*float64(failed)/float64(max(total, 1)))
}
