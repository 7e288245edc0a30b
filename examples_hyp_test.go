package pbl_test

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
)

// hypAnswer answers a query about hypotheses on an example.
func hypAnswer(t *testing.T, m *ir.Model, text string) *pbl.Answer {
	t.Helper()
	q, err := pbl.ParseQuery(m, text)
	if err != nil {
		t.Fatal(err)
	}
	a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Hyp == nil {
		t.Fatalf("%s: not an answer about hypotheses", text)
	}
	return a
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestCancerMAPByHand: Mitchell's §6.2 numbers by Bayes' theorem.
func TestCancerMAPByHand(t *testing.T) {
	m, err := pbl.LoadFile("examples/cancer_map.pbl")
	if err != nil {
		t.Fatal(err)
	}
	a := hypAnswer(t, m, "P(H | D)").Hyp
	joint := map[string]float64{"cancer": 0.98 * 0.008, "no_cancer": 0.03 * 0.992}
	z := joint["cancer"] + joint["no_cancer"]
	if len(a.Hyps) != 2 {
		t.Fatalf("%d hypotheses", len(a.Hyps))
	}
	for _, r := range a.Hyps {
		h := r.Values[0].(string)
		if got := math.Exp(r.LogPrior + r.LogLik); !near(got, joint[h], 1e-15) {
			t.Errorf("P(D|%s)P(%s) = %v, want %v", h, h, got, joint[h])
		}
		if got := math.Exp(r.LogPost); !near(got, joint[h]/z, 1e-15) {
			t.Errorf("P(%s|D) = %v, want %v", h, got, joint[h]/z)
		}
	}
}

// TestLineFitByHand: the grid's ML hypothesis and its log-likelihood from
// sums of the data computed here, −(n/2) ln 2π − SSE/2 with SSE expanded
// around the least-squares line, against pbl's.
func TestLineFitByHand(t *testing.T) {
	m, err := pbl.LoadFile("examples/line_fit.pbl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("examples/data/line_fit.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var xs, ds []float64
	for _, r := range recs[1:] {
		x, _ := strconv.ParseFloat(r[0], 64)
		d, _ := strconv.ParseFloat(r[1], 64)
		xs, ds = append(xs, x), append(ds, d)
	}
	n := float64(len(xs))
	ll := func(w0, w1 float64) float64 {
		sse := 0.0
		for i := range xs {
			e := ds[i] - w0 - w1*xs[i]
			sse += e * e
		}
		return -n/2*math.Log(2*math.Pi) - sse/2
	}
	// The SSE is a convex quadratic: the best grid point is next to the
	// least-squares line; search the grid points around it directly.
	var sx, sd, sxx, sxd float64
	for i := range xs {
		sx, sd, sxx, sxd = sx+xs[i], sd+ds[i], sxx+xs[i]*xs[i], sxd+xs[i]*ds[i]
	}
	b1 := (n*sxd - sx*sd) / (n*sxx - sx*sx)
	b0 := (sd - b1*sx) / n
	best, bw0, bw1 := math.Inf(-1), 0.0, 0.0
	for i := math.Round(b0*100) - 5; i <= math.Round(b0*100)+5; i++ {
		for j := math.Round(b1*100) - 5; j <= math.Round(b1*100)+5; j++ {
			if l := ll(i/100, j/100); l > best {
				best, bw0, bw1 = l, i/100, j/100
			}
		}
	}
	got := hypAnswer(t, m, "ML(H | D)").Hyp.Hyps[0]
	if got.Values[0].(float64) != bw0 || got.Values[1].(float64) != bw1 || !near(got.LogLik, best, 1e-9*math.Abs(best)) {
		t.Errorf("ML(H | D) = (%v, %v) ln P(D|h) %v, want (%v, %v) %v", got.Values[0], got.Values[1], got.LogLik, bw0, bw1, best)
	}
	fit := hypAnswer(t, m, "ML(L | D)").Hyp.Hyps[0]
	if !near(fit.Values[0].(float64), b0, 1e-9) || !near(fit.Values[1].(float64), b1, 1e-9) || !near(fit.LogLik, ll(b0, b1), 1e-9*math.Abs(best)) {
		t.Errorf("ML(L | D) = (%v, %v) %v, want least squares (%v, %v) %v", fit.Values[0], fit.Values[1], fit.LogLik, b0, b1, ll(b0, b1))
	}
	if !(math.Abs(fit.Values[0].(float64)-bw0) <= 0.005+1e-12) || !(math.Abs(fit.Values[1].(float64)-bw1) <= 0.005+1e-12) {
		t.Errorf("closed form (%v, %v) is not within half a grid step of the grid's ML (%v, %v)", fit.Values[0], fit.Values[1], bw0, bw1)
	}
}

// TestEnjoySportByHand enumerates Mitchell's conjunctions here and
// counts those consistent with his four examples.
func TestEnjoySportByHand(t *testing.T) {
	m, err := pbl.LoadFile("examples/enjoysport.pbl")
	if err != nil {
		t.Fatal(err)
	}
	card := []int{3, 2, 2, 2, 2, 2}
	examples := [][]int{ // Table 2.1, state indices; the last is EnjoySport = yes
		{0, 0, 0, 0, 0, 0, 1}, {0, 0, 1, 0, 0, 0, 1}, {2, 1, 1, 0, 0, 1, 0}, {0, 0, 1, 0, 1, 1, 1},
	}
	consistent, total := 0, 1 // the empty hypothesis: inconsistent with any positive example
	h := make([]int, 6)       // a state, or card[k] for ?
	var walk func(k int)
	walk = func(k int) {
		if k == 6 {
			total++
			for _, e := range examples {
				covers := true
				for a, c := range h {
					covers = covers && (c == card[a] || c == e[a])
				}
				if covers != (e[6] == 1) {
					return
				}
			}
			consistent++
			return
		}
		for c := 0; c <= card[k]; c++ {
			h[k] = c
			walk(k + 1)
		}
	}
	walk(0)
	a := hypAnswer(t, m, "P(H | D)").Hyp
	if a.Total != total || a.Support != consistent || total != 973 || consistent != 6 {
		t.Fatalf("pbl: %d hypotheses, %d consistent; by hand %d, %d (Mitchell: 973, 6)", a.Total, a.Support, total, consistent)
	}
	for _, r := range a.Hyps {
		if p := math.Exp(r.LogPost); !near(p, 1.0/6, 1e-15) {
			t.Errorf("posterior %v, want 1/6", p)
		}
	}
}

// TestMDLIsMAP: with optimal codes h_MDL is h_MAP (Mitchell §6.6).
func TestMDLIsMAP(t *testing.T) {
	m, err := pbl.LoadFile("examples/mdl_degree.pbl")
	if err != nil {
		t.Fatal(err)
	}
	mdl := hypAnswer(t, m, "MDL(H | D)").Hyp
	mp := hypAnswer(t, m, "MAP(H | D)").Hyp.Hyps[0]
	for i := range mp.Values {
		if mdl.Hyps[0].Values[i] != mp.Values[i] {
			t.Fatalf("MDL %v, MAP %v", mdl.Hyps[0].Values, mp.Values)
		}
	}
	if bits := -(mp.LogPrior + mp.LogLik) / math.Ln2; !near(mdl.BitsH+mdl.BitsD, bits, 1e-9) {
		t.Errorf("L(h) + L(D|h) = %v bits, want %v", mdl.BitsH+mdl.BitsD, bits)
	}
}
