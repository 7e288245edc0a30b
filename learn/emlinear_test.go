package learn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/learn"
)

// clgModel is a CLG network whose linear Gaussian density's discrete
// parent H is hidden: H → S (discrete, partly missing), H → X, (H, X) → Y.
const clgModel = `var H: {a, b}
var S: {u, v}
var X, Y: real
P(H) = [0.45, 0.55]
P(S | H) = {
    a: [0.7, 0.3]
    b: [0.2, 0.8]
}
P(X | H) = {
    a: normal(0.5, 1.2)
    b: normal(1.5, 1)
}
P(Y | X, H) = {
    a: normal(0.5 + 1.5 * X, 0.8)
    b: normal(-0.5 + 0.2 * X, 1.3)
}
`

// clgParams are the numbers of clgModel, for the reference EM.
type clgParams struct {
	pH       [2]float64
	pS       [2][2]float64 // pS[h][s]
	mx, sx   [2]float64
	a, b, sy [2]float64
}

// clgRow is a row: s −1 when missing, x and y NaN when missing.
type clgRow struct {
	s    int
	x, y float64
}

// clgData draws n rows of the true network (H hidden), S missing with
// probability 0.2, Y with 0.1 and X with missX, as CSV and as rows (the
// values as parsed back from the CSV's text).
func clgData(seed uint64, n int, missX float64) ([]byte, []clgRow) {
	truth := clgParams{pH: [2]float64{0.4, 0.6}, pS: [2][2]float64{{0.8, 0.2}, {0.25, 0.75}},
		mx: [2]float64{0, 2}, sx: [2]float64{1, 1.5}, a: [2]float64{1, -1}, b: [2]float64{2, 0.5}, sy: [2]float64{0.5, 1}}
	r := rand.New(rand.NewPCG(seed, 7))
	var sb strings.Builder
	sb.WriteString("S,X,Y\n")
	rows := make([]clgRow, n)
	for i := range rows {
		h := draw(r, truth.pH[:])
		s := draw(r, truth.pS[h][:])
		x, _ := strconv.ParseFloat(fmt.Sprintf("%.6f", truth.mx[h]+truth.sx[h]*r.NormFloat64()), 64)
		y, _ := strconv.ParseFloat(fmt.Sprintf("%.6f", truth.a[h]+truth.b[h]*x+truth.sy[h]*r.NormFloat64()), 64)
		if r.Float64() < 0.2 {
			s = -1
		}
		if r.Float64() < 0.1 {
			y = math.NaN()
		}
		if missX > 0 && r.Float64() < missX {
			x = math.NaN()
		}
		rows[i] = clgRow{s, x, y}
		if s >= 0 {
			sb.WriteString([]string{"u", "v"}[s])
		}
		sb.WriteString(",")
		if !math.IsNaN(x) {
			fmt.Fprintf(&sb, "%.6f", x)
		}
		sb.WriteString(",")
		if !math.IsNaN(y) {
			fmt.Fprintf(&sb, "%.6f", y)
		}
		sb.WriteString("\n")
	}
	return []byte(sb.String()), rows
}

func normPDF(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return math.Exp(-0.5*z*z) / (sd * math.Sqrt(2*math.Pi))
}

// refCLGEM is one iteration of EM on clgModel's family of networks, written
// apart from package learn: per row, brute force over H. It returns the
// next parameters and the log-likelihood of p. A row without X but with Y
// weighs H by Y's marginal density, N(a + b·μx, b²σx² + σy²), and X is
// filled in by its normal given Y and H (mean ex, variance vx: the
// textbook conditioning of a bivariate normal); a row without X and Y has
// no X (it is integrated out).
func refCLGEM(p clgParams, rows []clgRow) (clgParams, float64) {
	var nH [2]float64
	var nHS [2][2]float64
	var sw, swx, swxx [2]float64             // X | H
	var yw, yx, yxx, yy, yxy, yyy [2]float64 // Y | X, H over rows with Y
	ll := 0.0
	for _, r := range rows {
		var w, ex, vx [2]float64
		for h := range 2 {
			w[h] = p.pH[h]
			ex[h] = r.x
			if r.s >= 0 {
				w[h] *= p.pS[h][r.s]
			}
			switch {
			case !math.IsNaN(r.x):
				w[h] *= normPDF(r.x, p.mx[h], p.sx[h])
				if !math.IsNaN(r.y) {
					w[h] *= normPDF(r.y, p.a[h]+p.b[h]*r.x, p.sy[h])
				}
			case !math.IsNaN(r.y):
				sx2, b := p.sx[h]*p.sx[h], p.b[h]
				vy := b*b*sx2 + p.sy[h]*p.sy[h]
				my := p.a[h] + b*p.mx[h]
				w[h] *= normPDF(r.y, my, math.Sqrt(vy))
				ex[h] = p.mx[h] + b*sx2/vy*(r.y-my)
				vx[h] = sx2 - b*b*sx2*sx2/vy
			}
		}
		tot := w[0] + w[1]
		ll += math.Log(tot)
		for h := range 2 {
			q := w[h] / tot
			nH[h] += q
			for s := range 2 {
				switch {
				case r.s == s:
					nHS[h][s] += q
				case r.s < 0:
					nHS[h][s] += q * p.pS[h][s]
				}
			}
			if math.IsNaN(r.x) && math.IsNaN(r.y) {
				continue
			}
			x, xx := ex[h], ex[h]*ex[h]+vx[h]
			sw[h] += q
			swx[h] += q * x
			swxx[h] += q * xx
			if !math.IsNaN(r.y) {
				yw[h] += q
				yx[h] += q * x
				yxx[h] += q * xx
				yy[h] += q * r.y
				yxy[h] += q * x * r.y
				yyy[h] += q * r.y * r.y
			}
		}
	}
	var next clgParams
	for h := range 2 {
		next.pH[h] = nH[h] / float64(len(rows))
		for s := range 2 {
			next.pS[h][s] = nHS[h][s] / nH[h]
		}
		mu := swx[h] / sw[h]
		next.mx[h] = mu
		next.sx[h] = math.Sqrt(swxx[h]/sw[h] - mu*mu + learn.DefaultRegCovar)
		// Weighted least squares of y on (1, x), in centred form.
		mxw, myw := yx[h]/yw[h], yy[h]/yw[h]
		cxx := yxx[h]/yw[h] - mxw*mxw
		cxy := yxy[h]/yw[h] - mxw*myw
		cyy := yyy[h]/yw[h] - myw*myw
		b := cxy / cxx
		next.b[h] = b
		next.a[h] = myw - b*mxw
		next.sy[h] = math.Sqrt(cyy - b*cxy + learn.DefaultRegCovar)
	}
	return next, ll
}

// TestEMLinearGaussianHidden: EM on a CLG network whose linear Gaussian
// density's discrete parent is hidden, with S and Y partly missing, and X
// (Y's real parent) complete or missing in 20% of the rows,
// matches the reference EM (brute force over H per row) to 1e-9 after
// every iteration, in every parameter and the log-likelihood, and its
// log-likelihood never decreases.
func TestEMLinearGaussianHidden(t *testing.T) {
	for _, missX := range []float64{0, 0.2} {
		t.Run(fmt.Sprintf("missing X %g", missX), func(t *testing.T) { testEMLinearHidden(t, missX) })
	}
}

func testEMLinearHidden(t *testing.T, missX float64) {
	src, rows := clgData(3, 1500, missX)
	m := loadModel(t, clgModel)
	p := clgParams{pH: [2]float64{0.45, 0.55}, pS: [2][2]float64{{0.7, 0.3}, {0.2, 0.8}},
		mx: [2]float64{0.5, 1.5}, sx: [2]float64{1.2, 1}, a: [2]float64{0.5, -0.5}, b: [2]float64{1.5, 0.2}, sy: [2]float64{0.8, 1.3}}
	const iters = 12
	var refLL []float64
	var ref []clgParams
	for range iters {
		next, ll := refCLGEM(p, rows)
		refLL = append(refLL, ll)
		ref = append(ref, next)
		p = next
	}
	rel := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*max(1, math.Abs(want)) }
	for it := 1; it <= iters; it++ {
		out, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: it, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		w := ref[it-1]
		ph := out.Factor(mustVar(t, out, "H")).Vals
		ps := out.Factor(mustVar(t, out, "S")).Vals
		gx := out.Gaussian(mustVar(t, out, "X"))
		gy := out.Gaussian(mustVar(t, out, "Y"))
		if gy == nil || len(gy.Real) != 1 {
			t.Fatalf("Y's density is %v", out.Dist(mustVar(t, out, "Y")))
		}
		for h := range 2 {
			checks := []struct {
				what      string
				got, want float64
			}{
				{"P(H)", ph[h], w.pH[h]},
				{"P(S=u | H)", ps[h*2], w.pS[h][0]},
				{"mean of X", gx.Mean[h], w.mx[h]},
				{"sd of X", gx.SD[h], w.sx[h]},
				{"intercept of Y", gy.Mean[h], w.a[h]},
				{"coefficient of Y", gy.Coef[h], w.b[h]},
				{"sd of Y", gy.SD[h], w.sy[h]},
			}
			for _, c := range checks {
				if !rel(c.got, c.want) {
					t.Errorf("iteration %d, H=%d: %s is %.15g, the reference %.15g", it, h, c.what, c.got, c.want)
				}
			}
		}
		for i := range it {
			if !rel(rep.Trace[i], refLL[i]) {
				t.Errorf("iteration %d: log-likelihood %d is %.15g, the reference %.15g", it, i, rep.Trace[i], refLL[i])
			}
		}
		checkMonotone(t, rep.Trace)
		if t.Failed() {
			t.FailNow()
		}
	}
}

// TestEMLinearGaussianStarts: from random starts (H hidden), EM learns the
// linear Gaussian density, its log-likelihood never decreasing, and finds
// the two lines the data was drawn from (1 + 2x and −1 + 0.5x), within
// sampling error, whichever state of H each lands on.
func TestEMLinearGaussianStarts(t *testing.T) {
	src, _ := clgData(5, 4000, 0)
	m := loadModel(t, clgModel)
	out, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Restarts: 3, Seed: 2, Tol: 1e-10, MaxIter: 300})
	if err != nil {
		t.Fatal(err)
	}
	checkMonotone(t, rep.Trace)
	g := out.Gaussian(mustVar(t, out, "Y"))
	u := 0
	if g.Coef[1] > g.Coef[0] {
		u = 1
	}
	got := [][2]float64{{g.Mean[u], g.Coef[u]}, {g.Mean[1-u], g.Coef[1-u]}}
	want := [][2]float64{{1, 2}, {-1, 0.5}}
	for i := range want {
		for j := range 2 {
			if !(math.Abs(got[i][j]-want[i][j]) <= 0.15) {
				t.Errorf("line %d: %v, want %v", i, got[i], want[i])
			}
		}
	}
}
