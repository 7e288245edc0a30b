package hypothesis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// refNormalLL is Σ_i ln N(d_i; mean, sd), the independent reference of
// the scale tests: z = (d − mean)/sd and z²/2 in 256-bit arithmetic
// (math/big), so that neither the subtraction nor the square loses
// digits or leaves the range, then −ln sd − ½ ln 2π added. It returns
// −Inf where the sum is below float64's range.
func refNormalLL(d []float64, mean, sd float64) float64 {
	const prec = 256
	half := new(big.Float).SetPrec(prec)
	for _, v := range d {
		z := new(big.Float).SetPrec(prec).Sub(big.NewFloat(v).SetPrec(prec), big.NewFloat(mean).SetPrec(prec))
		z.Quo(z, big.NewFloat(sd).SetPrec(prec))
		z.Mul(z, z)
		half.Add(half, z.Quo(z, big.NewFloat(2)))
	}
	c := new(big.Float).SetPrec(prec).SetFloat64(float64(len(d)) * (-math.Log(sd) - 0.5*math.Log(2*math.Pi)))
	ll, _ := c.Sub(c, half).Float64() // ±Inf beyond float64's range
	return ll
}

// TestNormalScales sweeps the standard deviation over 1e-300 .. 1e300
// and the data over 0 .. ±1e300 for a normal observation, evaluated from
// sufficient statistics (a constant SD, an SD on the grid) and a column
// at a time: every log-likelihood is the reference's to 1e-12 relative
// (or −Inf where the reference is below float64's range), no posterior
// is NaN, MAP and ML are the reference's best, and where every
// hypothesis is below range Evaluate says so (ErrRange), never that the
// data are impossible. Issue 27: s in {1e-170, 1} gave NaN posteriors,
// a constant SD of 1e-300 "impossible" data, rows of 1e24 at w = 1e24
// ln P(D|h) = −33.84 instead of −1.84, and 1e200 "impossible".
func TestNormalScales(t *testing.T) {
	sds := []float64{1e-300, 1e-170, 1e-20, 1, 1e20, 1e170, 1e300}
	data := []float64{0, 1e24, 1e200, 1e300, -1e300}
	for _, sd := range sds {
		for _, x := range data {
			ws := []float64{x, -x, 0, x * (1 - 0x1p-30)}
			d := []float64{x, x}
			for _, form := range []struct {
				name   string
				sds    []float64 // the grid of s, or nil: SD is the constant
				mean   string
				wantMd mode
			}{
				{"constant sd", nil, "w", modeSuff},
				{"sd on a grid", []float64{sd, 1}, "w", modeSuff},
				{"a column at a time", []float64{sd}, "w * 1 ^ (w * 0 * d)", modeNormal},
			} {
				name := fmt.Sprintf("sd=%g/d=%g/%s", sd, x, form.name)
				t.Run(name, func(t *testing.T) {
					params := []*ir.SpaceParam{param("w", ws)}
					sdText := strings.Replace(fmt.Sprint(sd), "e+", "e", 1)
					if form.sds != nil {
						params = append(params, param("s", form.sds))
						sdText = "s"
					}
					s := newSpace(t, params, "", "d ~ normal("+form.mean+", "+sdText+")")
					dd, err := FromColumns(s, nil, [][]float64{d})
					if err != nil {
						t.Fatal(err)
					}
					// The reference, hypothesis by hypothesis.
					var want []float64
					best := math.Inf(-1)
					for _, w := range ws {
						for _, sv := range append([]float64(nil), form.sds...) {
							want = append(want, refNormalLL(d, w, sv))
						}
						if form.sds == nil {
							want = append(want, refNormalLL(d, w, sd))
						}
					}
					for _, v := range want {
						best = max(best, v)
					}
					for _, runs := range []bool{true, false} {
						p, err := evaluateBy(context.Background(), s, dd, runs)
						if math.IsInf(best, -1) {
							if !errors.Is(err, ErrRange) {
								t.Fatalf("runs=%v: every hypothesis is below float64's range: err = %v, want ErrRange", runs, err)
							}
							var e *ir.Error
							if !errors.As(err, &e) || !e.Pos.IsValid() {
								t.Errorf("error %v is not positioned", err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("runs=%v: %v", runs, err)
						}
						if m := p.like.obs[0].mode; form.wantMd == modeNormal && m != modeNormal {
							t.Errorf("mode %d, want %d", m, form.wantMd)
						}
						for i := range p.Len() {
							got := p.LogLikelihood(i)
							if math.IsInf(want[i], -1) {
								if !math.IsInf(got, -1) {
									t.Errorf("runs=%v, %v: ln P(D|h) = %g, want −Inf (below range)", runs, p.Hypothesis(i), got)
								}
							} else if !(math.Abs(got-want[i]) <= 1e-12*math.Max(1, math.Abs(want[i]))) {
								t.Errorf("runs=%v, %v: ln P(D|h) = %.17g, want %.17g", runs, p.Hypothesis(i), got, want[i])
							}
							if lp := p.LogPosterior(i); math.IsNaN(lp) || lp > 1e-12 {
								t.Errorf("runs=%v, %v: ln P(h|D) = %g", runs, p.Hypothesis(i), lp)
							}
						}
						if got := want[p.ML()]; got != best {
							t.Errorf("runs=%v: ML %v has ln P(D|h) %g, the best is %g", runs, p.Hypothesis(p.ML()), got, best)
						}
						if got := want[p.MAP()]; got != best {
							t.Errorf("runs=%v: MAP %v has ln P(D|h) %g, the best is %g", runs, p.Hypothesis(p.MAP()), got, best)
						}
						if le := p.LogEvidence(); math.IsNaN(le) || math.IsInf(le, 0) {
							t.Errorf("runs=%v: ln P(D) = %g", runs, le)
						}
					}
				})
			}
		}
	}
}

// TestFitScales: the least-squares fit of d ~ normal(w, SD) and of
// d ~ normal(w, s) with s fitted too, over the scales of
// TestNormalScales, against the reference: ln P(D|h) at the mean of the
// data (computed in math/big) to 1e-12 relative, or a clean error —
// ErrRange where the log-likelihood is below float64's range,
// ErrNotIdentifiable where the data lie on the fitted mean (the ML s is
// 0): never NaN, never a number for a maximum that does not exist.
func TestFitScales(t *testing.T) {
	sds := []float64{1e-300, 1e-170, 1e-20, 1, 1e20, 1e170, 1e300}
	for _, x := range []float64{0, 1e24, 1e200, 1e300, -1e300} {
		for _, d := range [][]float64{{x, x}, {x, -x}, {x, x / 2}} {
			// The ML mean and the root mean square residual, in 256 bits.
			sum := new(big.Float).SetPrec(256)
			for _, v := range d {
				sum.Add(sum, big.NewFloat(v))
			}
			mean, _ := sum.Quo(sum, big.NewFloat(float64(len(d)))).Float64()
			ss := new(big.Float).SetPrec(256)
			for _, v := range d {
				r := new(big.Float).SetPrec(256).Sub(big.NewFloat(v), big.NewFloat(mean))
				ss.Add(ss, r.Mul(r, r))
			}
			ss.Quo(ss, big.NewFloat(float64(len(d))))
			rms, _ := ss.Sqrt(ss).Float64()
			for _, sd := range sds {
				t.Run(fmt.Sprintf("d=%g/sd=%g", d, sd), func(t *testing.T) {
					s := newSpace(t, []*ir.SpaceParam{param("w", nil)}, "", "d ~ normal(w, "+strings.Replace(fmt.Sprint(sd), "e+", "e", 1)+")")
					fit, err := fitML(t, s, nil, d)
					want := refNormalLL(d, mean, sd)
					switch {
					case math.IsInf(want, -1):
						if !errors.Is(err, ErrRange) {
							t.Errorf("fit %s, err %v: want ErrRange", fitText(fit), err)
						}
					case err != nil:
						t.Errorf("%v", err)
					case !(math.Abs(fit.Params[0]-mean) <= 1e-15*math.Max(math.Abs(d[0]), math.Abs(d[1]))):
						t.Errorf("w = %g, want %g", fit.Params[0], mean)
					case !(math.Abs(fit.LogLikelihood-want) <= 1e-12*math.Max(1, math.Abs(want))):
						t.Errorf("ln P(D|h) = %.17g, want %.17g", fit.LogLikelihood, want)
					}
				})
			}
			t.Run(fmt.Sprintf("d=%g/s fitted", d), func(t *testing.T) {
				s := newSpace(t, []*ir.SpaceParam{param("w", nil), param("s", nil)}, "", "d ~ normal(w, s)")
				fit, err := fitML(t, s, nil, d)
				if rms <= 1e-300*math.Abs(mean) || rms == 0 {
					if !errors.Is(err, ErrNotIdentifiable) {
						t.Errorf("fit %s, err %v: want ErrNotIdentifiable (the ML s is 0)", fitText(fit), err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := refNormalLL(d, mean, rms)
				if !(math.Abs(fit.Params[1]-rms) <= 1e-14*rms) || !(math.Abs(fit.LogLikelihood-want) <= 1e-12*math.Max(1, math.Abs(want))) {
					t.Errorf("s = %g, ln P(D|h) = %.17g; want %g, %.17g", fit.Params[1], fit.LogLikelihood, rms, want)
				}
			})
		}
	}
}

// TestFitNoMaximum: data on the fitted mean to within rounding give no
// ML standard deviation (it is 0: issue 27 got σ = 7.25e-16 and ln P =
// 100.3, rounding noise), and data a sigmoid unit separates give no ML
// weights (issue 27 got w = 11.29 after 100,000 iterations, unflagged):
// both are ErrNotIdentifiable, positioned. Data with small but real noise
// still fit, and a fit stopped by its iteration limit says it did not
// converge.
func TestFitNoMaximum(t *testing.T) {
	var x, line, quad, noisy, big, sep, sep2, z2 []float64
	for i := range 20 {
		v := float64(i)/4 - 2.5
		x = append(x, v)
		line = append(line, 1.3+0.7*v)       // rounded: residuals ~1e-16
		quad = append(quad, 0.1-0.2*v+3*v*v) // on a quadratic
		noisy = append(noisy, 1.3+0.7*v+1e-9*float64(i%3-1))
		big = append(big, 1e200*(1.3+0.7*v))
		sep = append(sep, b2f(v > 0.1))
		sep2 = append(sep2, b2f(2*v-float64(i%5)-0.5 > 0))
		z2 = append(z2, float64(i%5)+0.5)
	}
	x2 := make([]float64, len(x))
	for i, v := range x {
		x2[i] = v * v
	}
	for _, tc := range []struct {
		name string
		obs  string
		ps   []string
		cols [][]float64
		want error // nil: a fit
	}{
		{"line", "d ~ normal(w0 + w1 * x, s)", []string{"w0", "w1", "s"}, [][]float64{line, x}, ErrNotIdentifiable},
		{"line at 1e200", "d ~ normal(w0 + w1 * x, s)", []string{"w0", "w1", "s"}, [][]float64{big, x}, ErrNotIdentifiable},
		{"quadratic", "d ~ normal(w0 + w1 * x + w2 * x2, s)", []string{"w0", "w1", "w2", "s"}, [][]float64{quad, x, x2}, ErrNotIdentifiable},
		{"constant", "d ~ normal(w0, s)", []string{"w0", "s"}, [][]float64{make([]float64, 20)}, ErrNotIdentifiable},
		{"noise of 1e-9", "d ~ normal(w0 + w1 * x, s)", []string{"w0", "w1", "s"}, [][]float64{noisy, x}, nil},
		{"line, σ given", "d ~ normal(w0 + w1 * x, 1)", []string{"w0", "w1"}, [][]float64{line, x}, nil},
		{"separable", "d ~ bernoulli(sigmoid(w0 + w1 * x))", []string{"w0", "w1"}, [][]float64{sep, x}, ErrNotIdentifiable},
		{"separable, no intercept", "d ~ bernoulli(sigmoid(w1 * (x - 0.1)))", []string{"w1"}, [][]float64{sep, x}, ErrNotIdentifiable},
		{"separable in two columns", "d ~ bernoulli(sigmoid(w1 * x + w2 * z))", []string{"w1", "w2"}, [][]float64{sep2, x, z2}, ErrNotIdentifiable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ps []*ir.SpaceParam
			for _, n := range tc.ps {
				ps = append(ps, param(n, nil))
			}
			s := newSpace(t, ps, "", tc.obs)
			fit, err := fitML(t, s, nil, tc.cols...)
			if tc.want == nil {
				if err != nil || !fit.Converged {
					t.Fatalf("fit %s, err %v", fitText(fit), err)
				}
				if fit.Method == LeastSquares && len(tc.ps) == 3 && !(fit.SD > 5e-10 && fit.SD < 1e-9) {
					t.Errorf("σ = %g, want the noise's, between 5e-10 and 1e-9", fit.SD)
				}
				return
			}
			var e *ir.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &e) || !e.Pos.IsValid() {
				t.Errorf("fit %s, err %v: want a positioned %v", fitText(fit), err, tc.want)
			}
		})
	}
	// Stopped by the iteration limit on data that are not separable.
	xs, ds := sigmoidData(200, 3)
	s := newSpace(t, []*ir.SpaceParam{param("w0", nil), param("w1", nil)}, "", "d ~ bernoulli(sigmoid(w0 + w1 * x))")
	fit, err := fitML(t, s, &FitOptions{MaxIter: 3}, ds, xs)
	if err != nil || fit.Converged || fit.Iterations != 3 || len(fit.CrossEntropy) != 4 {
		t.Errorf("fit %s, err %v: want 3 iterations, not converged", fitText(fit), err)
	}
}

// fitText describes a fit (or nil) in a line, without its trace.
func fitText(f *Fit) string {
	if f == nil {
		return "none"
	}
	return fmt.Sprintf("%v, ln P %g, %d iterations, converged %v", f.Params, f.LogLikelihood, f.Iterations, f.Converged)
}

// refLineLL is Σ_i ln N(d_i; w0 + w1·x_i, sd) in 256-bit arithmetic.
func refLineLL(d, x []float64, w0, w1, sd float64) float64 {
	const prec = 256
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	half := f(0)
	for i := range d {
		m := f(w1)
		m.Mul(m, f(x[i])).Add(m, f(w0))
		z := f(d[i])
		z.Sub(z, m).Quo(z, f(sd))
		z.Mul(z, z).Quo(z, f(2))
		half.Add(half, z)
	}
	c := f(float64(len(d)) * (-math.Log(sd) - 0.5*math.Log(2*math.Pi)))
	ll, _ := c.Sub(c, half).Float64()
	return ll
}

// TestLineAtLargeScale: a line through data near 2^80 ≈ 1.2e24 with
// noise of a few ulps and SD = 2^29 or 1: the mean's terms round by 2^27
// and more, as much as the residuals, so the sufficient statistics do
// not apply and the rows are evaluated with residuals in twice the
// working precision. Every ln P(D|h) of the grid is the reference's to
// 1e-12, ML the reference's best, and the least-squares fit the exact
// one (solved in 256 bits) with the reference's ln P(D|h).
func TestLineAtLargeScale(t *testing.T) {
	const b0, b1, u = 0x1p80, 0x1p79, 0x1p28 // u: an ulp of 2^80
	x := []float64{0, 1, 2, 3, 4, 5}
	noise := []float64{0, 2 * u, -2 * u, 0, 2 * u, -2 * u}
	d := make([]float64, len(x))
	for i := range d {
		d[i] = b0 + b1*x[i] + noise[i] // exact
	}
	w0s := []float64{b0 - u, b0, b0 + u}
	w1s := []float64{b1 - u/2, b1, b1 + u/2}
	for _, sd := range []float64{0x1p29, 1} {
		s := newSpace(t, []*ir.SpaceParam{param("w0", w0s), param("w1", w1s)}, "", fmt.Sprintf("d ~ normal(w0 + w1 * x, %.0f)", sd))
		for _, runs := range []bool{true, false} {
			dd, err := FromColumns(s, nil, [][]float64{d, x})
			if err != nil {
				t.Fatal(err)
			}
			p, err := evaluateBy(context.Background(), s, dd, runs)
			if err != nil {
				t.Fatal(err)
			}
			best, bi := math.Inf(-1), -1
			for i := range p.Len() {
				h := p.Hypothesis(i)
				want := refLineLL(d, x, h[0], h[1], sd)
				if got := p.LogLikelihood(i); !(math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))) {
					t.Errorf("sd %g, runs %v, %v: ln P(D|h) = %.17g, want %.17g", sd, runs, h, got, want)
				}
				if want > best {
					best, bi = want, i
				}
			}
			if p.ML() != bi {
				t.Errorf("sd %g, runs %v: ML %v, want %v", sd, runs, p.Hypothesis(p.ML()), p.Hypothesis(bi))
			}
		}
		// The least-squares line, exactly: the normal equations in 256 bits.
		f := func(v float64) *big.Float { return new(big.Float).SetPrec(256).SetFloat64(v) }
		n, sx, sy, sxx, sxy := f(float64(len(x))), f(0), f(0), f(0), f(0)
		for i := range x {
			sx.Add(sx, f(x[i]))
			sy.Add(sy, f(d[i]))
			sxx.Add(sxx, new(big.Float).SetPrec(256).Mul(f(x[i]), f(x[i])))
			sxy.Add(sxy, new(big.Float).SetPrec(256).Mul(f(x[i]), f(d[i])))
		}
		det := new(big.Float).SetPrec(256).Mul(n, sxx)
		det.Sub(det, new(big.Float).SetPrec(256).Mul(sx, sx))
		w1 := new(big.Float).SetPrec(256).Mul(n, sxy)
		w1.Sub(w1, new(big.Float).SetPrec(256).Mul(sx, sy)).Quo(w1, det)
		w0 := new(big.Float).SetPrec(256).Mul(w1, sx)
		w0.Sub(sy, w0).Quo(w0, n)
		ew0, _ := w0.Float64()
		ew1, _ := w1.Float64()
		ls := newSpace(t, []*ir.SpaceParam{param("w0", nil), param("w1", nil)}, "", fmt.Sprintf("d ~ normal(w0 + w1 * x, %.0f)", sd))
		fit, err := fitML(t, ls, nil, d, x)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Params[0] != ew0 || fit.Params[1] != ew1 {
			t.Errorf("sd %g: fit w0 = %v, w1 = %v; exact %v, %v", sd, fit.Params[0], fit.Params[1], ew0, ew1)
		}
		if want := refLineLL(d, x, fit.Params[0], fit.Params[1], sd); !(math.Abs(fit.LogLikelihood-want) <= 1e-12*math.Max(1, math.Abs(want))) {
			t.Errorf("sd %g: fit's ln P(D|h) = %.17g, want %.17g", sd, fit.LogLikelihood, want)
		}
	}
}

// TestQuasiSeparation: issue 27's sigmoid weight of 11.29 after
// 100,000 iterations: data separated but for a tie on the boundary
// (x = 0 with d = 0 and d = 1), whose likelihood rises toward 1/4 as
// w1 grows without a maximum: ErrNotIdentifiable, not a fit. A tie
// that is not on the separating line leaves a maximum, which is found.
func TestQuasiSeparation(t *testing.T) {
	x := []float64{-2, -1, 0, 0, 1, 2}
	y := []float64{0, 0, 0, 1, 1, 1}
	s := newSpace(t, []*ir.SpaceParam{param("w0", nil), param("w1", nil)}, "", "d ~ bernoulli(sigmoid(w0 + w1 * x))")
	fit, err := fitML(t, s, nil, y, x)
	var e *ir.Error
	if !errors.Is(err, ErrNotIdentifiable) || !errors.As(err, &e) || !e.Pos.IsValid() {
		t.Errorf("quasi-separated: fit %s, err %v; want a positioned ErrNotIdentifiable", fitText(fit), err)
	}
	// An overlap (x = ±1 in both classes): a maximum exists.
	x2 := []float64{-2, -1, -1, 1, 1, 2}
	y2 := []float64{0, 0, 1, 0, 1, 1}
	fit, err = fitML(t, s, nil, y2, x2)
	if err != nil || !fit.Converged {
		t.Fatalf("overlapping: fit %s, err %v", fitText(fit), err)
	}
	// The score equations at the maximum: Σ (d − h) = 0, Σ (d − h) x = 0.
	var g0, g1 float64
	for i := range x2 {
		r := y2[i] - sigmoid(fit.Params[0]+fit.Params[1]*x2[i])
		g0, g1 = g0+r, g1+r*x2[i]
	}
	if !(math.Abs(g0) <= 1e-8 && math.Abs(g1) <= 1e-8) {
		t.Errorf("overlapping: gradient (%g, %g) at %v", g0, g1, fit.Params)
	}
}

// TestBelowRangeOrImpossible: a hypothesis under which one observation's
// ln P is below float64's range and another's probability is 0 is
// impossible (ErrImpossible), not merely improbable (ErrRange).
func TestBelowRangeOrImpossible(t *testing.T) {
	for _, tc := range []struct {
		p    []float64
		want error
	}{{[]float64{0}, ErrImpossible}, {[]float64{0.5}, ErrRange}} {
		s := newSpace(t, []*ir.SpaceParam{param("w", []float64{0}), param("p", tc.p)}, "", "d ~ normal(w, 1e-300)", "b ~ bernoulli(p)")
		dd, err := FromColumns(s, nil, [][]float64{{1e24}, {1}})
		if err != nil {
			t.Fatal(err)
		}
		for _, runs := range []bool{true, false} {
			if _, err := evaluateBy(context.Background(), s, dd, runs); !errors.Is(err, tc.want) {
				t.Errorf("p = %v, runs %v: %v, want %v", tc.p, runs, err, tc.want)
			}
		}
	}
}
