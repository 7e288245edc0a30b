package sample_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/sample"
)

// clgModel is a conditional linear Gaussian network: X a root, Y linear
// in X with a line per state of A, Z linear in Y (a chain through real
// parents), and a joint normal density of M, N.
const clgModel = `var A: bool
var X, Y, Z, M, N: real
P(A) = 0.3
P(X) = normal(2, 1.5)
P(Y | X, A) = { true: normal(1 + 2 * X, 0.5)  false: normal(-1 - 0.5 * X, 1) }
P(Z | Y) = normal(3 - Y, 0.2)
P(M, N) = normal([1, -1], [[1, 0.8], [0.8, 2]])
`

// TestSampleLinearGaussian: the rows written for a conditional linear
// Gaussian network hold real values whose per-state least-squares lines,
// residual spreads, means and variances are those of the model, worked
// out by hand (E[Y] = 0.3·5 + 0.7·(−2) = 0.1, Var Z = Var Y + 0.04 =
// 14.19875), within a few standard errors of 200,000 rows: ignoring a
// coefficient (slope 0), a sign or a real parent's value fails them. The
// CSV's numbers read back to the values SampleValues draws.
func TestSampleLinearGaussian(t *testing.T) {
	m, err := pbl.Load("clg.pbl", []byte(clgModel))
	if err != nil {
		t.Fatal(err)
	}
	s := newSampler(t, m)
	const n = 200_000
	recs := readCSV(t, writeCSV(t, s, n, 11, 0))
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"A", "X", "Y", "Z", "M", "N"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("no column %s in %v", name, recs[0])
		}
	}
	num := func(r []string, name string) float64 {
		x, err := strconv.ParseFloat(r[col[name]], 64)
		if err != nil {
			t.Fatalf("column %s: %v", name, err)
		}
		return x
	}
	// The CSV holds what SampleValues draws, chunk by chunk.
	rng, reals := rand.New(sample.ChunkSource(11, 0)), rand.New(sample.ChunkRealSource(11, 0))
	dst := make([]int32, len(m.Vars))
	vals := make([]float64, len(m.Vars))
	for i := range 100 {
		s.SampleValues(rng, reals, dst, vals)
		for _, name := range []string{"X", "Y", "Z", "M", "N"} {
			v, _ := m.Lookup(name)
			if got := num(recs[1+i], name); got != vals[v.ID] {
				t.Fatalf("row %d, %s: the CSV has %v, SampleValues %v", i, name, got, vals[v.ID])
			}
		}
	}

	// Per state of A: the least-squares line of Y on X, and the residual
	// standard deviation.
	type acc struct{ n, sx, sy, sxx, sxy, syy float64 }
	lines := map[string]*acc{"true": {}, "false": {}}
	var sz, szz, sm, sn, smm, snn, smn float64
	for _, r := range recs[1:] {
		x, y, z := num(r, "X"), num(r, "Y"), num(r, "Z")
		a := lines[r[col["A"]]]
		a.n++
		a.sx += x
		a.sy += y
		a.sxx += x * x
		a.sxy += x * y
		a.syy += y * y
		sz += z
		szz += z * z
		mm, nn := num(r, "M"), num(r, "N")
		sm += mm
		sn += nn
		smm += mm * mm
		snn += nn * nn
		smn += mm * nn
	}
	want := map[string]struct{ intercept, slope, sd float64 }{"true": {1, 2, 0.5}, "false": {-1, -0.5, 1}}
	for state, a := range lines {
		vx := a.sxx/a.n - (a.sx/a.n)*(a.sx/a.n)
		slope := (a.sxy/a.n - a.sx/a.n*a.sy/a.n) / vx
		intercept := a.sy/a.n - slope*a.sx/a.n
		vy := a.syy/a.n - (a.sy/a.n)*(a.sy/a.n)
		resid := math.Sqrt(vy - slope*slope*vx)
		w := want[state]
		// Standard errors: sd/(√n·sd_X) for the slope, about sd·√(1/n +
		// mean_X²/(n·var_X)) for the intercept.
		seSlope := w.sd / math.Sqrt(a.n*vx)
		seInt := w.sd * math.Sqrt(1/a.n+4/(a.n*vx))
		if !(math.Abs(slope-w.slope) <= 5*seSlope) || !(math.Abs(intercept-w.intercept) <= 5*seInt) ||
			!(math.Abs(resid-w.sd) <= 5*w.sd/math.Sqrt(2*a.n)) {
			t.Errorf("A=%s: Y ≈ %.4f + %.4f·X, sd %.4f; want %v + %v·X, sd %v", state, intercept, slope, resid, w.intercept, w.slope, w.sd)
		}
		if p := a.n / n; !within(p, 0.3, n, 5) && state == "true" {
			t.Errorf("P(A=true) ≈ %v, want 0.3", p)
		}
	}
	meanZ, varZ := sz/n, szz/n-(sz/n)*(sz/n)
	if !(math.Abs(meanZ-2.9) <= 5*math.Sqrt(14.19875/n)) {
		t.Errorf("E[Z] ≈ %v, want 2.9", meanZ)
	}
	if !(math.Abs(varZ-14.19875) <= 0.02*14.19875) {
		t.Errorf("Var Z ≈ %v, want 14.19875", varZ)
	}
	// The joint density: means and covariance.
	mm, mn := sm/n, sn/n
	cm, cn, cmn := smm/n-mm*mm, snn/n-mn*mn, smn/n-mm*mn
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"E[M]", mm, 1}, {"E[N]", mn, -1}, {"Var M", cm, 1}, {"Var N", cn, 2}, {"Cov(M, N)", cmn, 0.8}} {
		if !(math.Abs(c.got-c.want) <= 0.03) {
			t.Errorf("%s ≈ %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestSampleRealWithoutDensity: a real variable still to learn is not a
// column; a density whose real parent has no density cannot be sampled.
func TestSampleRealWithoutDensity(t *testing.T) {
	m, err := pbl.Load("r.pbl", []byte("var A: bool\nvar X, Y: real\nP(A) = 0.5\nP(Y | A) = { true: normal(0, 1) false: normal(1, 1) }\n"))
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, writeCSV(t, newSampler(t, m), 10, 1, 0))
	if len(recs[0]) != 2 || recs[0][0] != "A" || recs[0][1] != "Y" {
		t.Errorf("header %v, want [A Y]", recs[0])
	}
}

// TestSampleDiscreteUnchanged: adding real variables with densities adds
// their columns and leaves the discrete columns' draws as they were (the
// real values are drawn after the discrete ones in each row).
func TestSampleDiscreteUnchanged(t *testing.T) {
	disc := "var A, B: bool\nP(A) = 0.3\nP(B | A) = { true: 0.9 false: 0.2 }\n"
	m1, err := pbl.Load("d.pbl", []byte(disc))
	if err != nil {
		t.Fatal(err)
	}
	m2, err := pbl.Load("d.pbl", []byte(disc+"var X, Y: real\nP(X | A) = { true: normal(0, 1) false: normal(1, 1) }\nP(Y | X, B) = { true: normal(X, 1) false: normal(-X, 2) }\n"))
	if err != nil {
		t.Fatal(err)
	}
	r1 := readCSV(t, writeCSV(t, newSampler(t, m1), 9000, 3, 0))
	r2 := readCSV(t, writeCSV(t, newSampler(t, m2), 9000, 3, 0))
	for i := range r1 {
		if r1[i][0] != r2[i][0] || r1[i][1] != r2[i][1] || len(r2[i]) != 4 {
			t.Fatalf("row %d: %v without real variables, %v with", i, r1[i], r2[i])
		}
	}
}
