package approx

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/formats/uai"
)

// propCorpus returns the directory of the UAI instances ($PBL_CORPUS/uai,
// or ../shared/corpus/uai from the repository's root), skipping the test
// when it is absent.
func propCorpus(t *testing.T) string {
	d := os.Getenv("PBL_CORPUS")
	if d == "" {
		d = filepath.Join("..", "..", "shared", "corpus")
	}
	d = filepath.Join(d, "uai")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("corpus not found at %s (set PBL_CORPUS): %v", d, err)
	}
	return d
}

// propUAI reads a UAI instance with its evidence as a Problem.
func propUAI(t *testing.T, dir, name string) (*Problem, [][]float64, float64) {
	path := filepath.Join(dir, name+".uai")
	m, err := uai.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := uai.ReadEvidenceFile(path+".evid", m)
	if err != nil {
		t.Fatal(err)
	}
	p := &Problem{Card: make([]int, len(m.Vars)), Obs: make([]int, len(m.Vars)), Factors: m.Factors()}
	for v, x := range m.Vars {
		p.Card[v], p.Obs[v] = x.Card(), -1
	}
	for _, o := range ev {
		p.Obs[o.Var] = o.State
	}
	src, err := os.ReadFile(path + ".MAR")
	if err != nil {
		t.Fatal(err)
	}
	mar, err := uai.ReadMAR(name+".uai.MAR", src)
	if err != nil {
		t.Fatal(err)
	}
	src, err = os.ReadFile(path + ".PR")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := uai.ReadPR(name+".uai.PR", src)
	if err != nil {
		t.Fatal(err)
	}
	return p, mar, pr
}

// propHellinger is the Hellinger distance of two distributions.
func propHellinger(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		d := math.Sqrt(p[i]) - math.Sqrt(q[i])
		s += d * d
	}
	return math.Sqrt(s / 2)
}

// TestCorpusAccuracy runs LBP and IJGP (64 MiB, a few seconds each) on the
// UAI 2014 instances of the corpus and compares their marginals and
// log10 Z with the instances' solutions: it logs the mean Hellinger error
// of the unobserved variables' marginals (the target: ≤ 0.02 per
// instance), |log10 Z − truth| and the fraction of marginals whose exact
// value lies within the reported error, and fails on a NaN, a number
// outside [0, 1] or a calibration below 95 % for IJGP. It takes about a
// minute: run it with PBL_APPROX_CORPUS=1 (the deadline with
// PBL_APPROX_SECONDS, default 2).
func TestCorpusAccuracy(t *testing.T) {
	if os.Getenv("PBL_APPROX_CORPUS") != "1" {
		t.Skip("set PBL_APPROX_CORPUS=1 to run")
	}
	secs := 2.0
	if x, err := strconv.ParseFloat(os.Getenv("PBL_APPROX_SECONDS"), 64); err == nil {
		secs = x
	}
	dir := propCorpus(t)
	within, total := 0, 0
	for _, name := range []string{"Promedus_24", "Grids_12", "Promedus_13", "CSP_12", "Segmentation_11", "Alchemy_11", "DBN_11", "ObjectDetection_34"} {
		p, mar, pr := propUAI(t, dir, name)
		for _, alg := range propAlgorithms {
			t0 := time.Now()
			res, err := alg.run(p, Settings{Deadline: t0.Add(time.Duration(secs * float64(time.Second))), MaxMemory: 64 << 20})
			el := time.Since(t0)
			if err != nil {
				t.Errorf("%s %s: %v", name, alg.name, err)
				continue
			}
			propCheckResult(t, p, res)
			h, n, in := 0.0, 0, 0
			for v, m := range res.Marg {
				if m == nil || p.Obs[v] >= 0 {
					continue
				}
				h += propHellinger(m, mar[v])
				n++
				ok := true
				for s := range m {
					if !(math.Abs(m[s]-mar[v][s]) <= res.Err[v][s]+1e-6) {
						ok = false
					}
				}
				if ok {
					in++
				}
			}
			h /= float64(max(n, 1))
			dz := math.Abs(res.LogZ/math.Ln10 - pr)
			t.Logf("%-18s %-4s i=%2d %5.2fs sweeps %4d conv %-5v Hellinger %.2e  |Δlog10 Z| %.2e (±%.2g)  within error %d/%d",
				name, alg.name, res.IBound, el.Seconds(), res.Iterations, res.Converged, h, dz, res.LogZErr/math.Ln10, in, n)
			within += in
			total += n
		}
	}
	t.Logf("marginals within their error: %d/%d (%.1f %%)", within, total, 100*float64(within)/float64(total))
	if float64(within) < 0.95*float64(total) {
		t.Errorf("calibration below 95 %%: %d/%d marginals within their error", within, total)
	}
}

// TestGridAccuracy measures LBP and IJGP on 14×14 grids (the UAI grids'
// Ising potentials, 10 % of the variables observed) with their memory
// capped at 256 KiB, below the junction tree's, against IJGP at the
// induced width (exact): the mean Hellinger error of the marginals and
// |log10 Z − truth|. Run with PBL_APPROX_CORPUS=1.
func TestGridAccuracy(t *testing.T) {
	if os.Getenv("PBL_APPROX_CORPUS") != "1" {
		t.Skip("set PBL_APPROX_CORPUS=1 to run")
	}
	rng := rand.New(rand.NewPCG(12, 12))
	for k := range 4 {
		p := propGrid(rng, 14, 14, 0.5, 0.5+0.5*float64(k))
		for v := range p.Obs {
			if rng.Float64() < 0.1 {
				p.Obs[v] = rng.IntN(2)
			}
		}
		ex, err := IJGP(p, Settings{MaxMemory: 1 << 30})
		if err != nil || ex.LogZErr != 0 {
			t.Fatalf("no exact answer: %v", err)
		}
		for _, alg := range propAlgorithms {
			t0 := time.Now()
			res, err := alg.run(p, Settings{Deadline: t0.Add(5 * time.Second), MaxMemory: 256 << 10})
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(t0)
			propCheckResult(t, p, res)
			h, n, in := 0.0, 0, 0
			for v, m := range res.Marg {
				if p.Obs[v] >= 0 {
					continue
				}
				h += propHellinger(m, ex.Marg[v])
				n++
				if math.Abs(m[0]-ex.Marg[v][0]) <= res.Err[v][0] {
					in++
				}
			}
			t.Logf("14x14 coupling %.1f %-4s i=%2d %5.2fs conv %-5v Hellinger %.2e |Δlog10 Z| %.2e (±%.2g) within error %d/%d",
				0.5+0.5*float64(k), alg.name, res.IBound, el.Seconds(), res.Converged, h/float64(n), math.Abs(res.LogZ-ex.LogZ)/math.Ln10, res.LogZErr/math.Ln10, in, n)
		}
	}
}
