package hypothesis

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// sameBits reports whether a and b are the same float64, bit for bit
// (any NaN equal to any NaN).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestRunsBitIdentical: evaluating by runs gives, bit for bit, the log
// priors and log-likelihoods, the MAP, ML and support, and the errors of
// evaluating one hypothesis at a time — over spaces that exercise every
// kind of coefficient, prior and observation a run handles.
func TestRunsBitIdentical(t *testing.T) {
	x, d := lineData(200, 7)
	_, y := sigmoidData(200, 7)
	for i := range x { // a point where the curves of the tests below bend
		x[i] = math.Round(x[i]*8) / 8
	}
	g := grid(-2, 2, 0.125)
	odd := grid(-1.5, 1.5, 0.1) // 31 values: runs cross chunks at odd places
	sd := grid(0, 2, 0.25)      // 0 is out of domain
	big := grid(-3, 3, 0.0005)  // 12,001 values: runs longer than a chunk
	for _, tc := range []struct {
		name   string
		params []*ir.SpaceParam
		prior  string
		obs    []string
	}{
		{"line", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "", []string{"d ~ normal(w0 + w1 * x, 1)"}},
		{"one parameter", []*ir.SpaceParam{param("w1", big)}, "", []string{"d ~ normal(1 + w1 * x, 1.5)"}},
		{"two parameters, long grid", []*ir.SpaceParam{param("w0", odd), param("w1", big[:9000])}, "", []string{"d ~ normal(w0 + w1 * x, 1.5)"}},
		{"sd last", []*ir.SpaceParam{param("w0", g), param("w1", odd), param("s", sd)}, "", []string{"d ~ normal(w0 + w1 * x, s)"}},
		{"sd first", []*ir.SpaceParam{param("s", sd), param("w0", g), param("w1", odd)}, "", []string{"d ~ normal(w0 + w1 * x, s)"}},
		{"sd of both", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "", []string{"d ~ normal(w0 + x, 1 + w0 * w0 + w1 * w1)"}},
		{"mixed coefficients", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "",
			[]string{"d ~ normal(w0 * w1 + exp(w1) * x - (w0 - w1) * x * x / 3, 2)"}},
		{"division by the last", []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", []string{"d ~ normal(w0 + x / w1, 1)"}},
		{"division by both", []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", []string{"d ~ normal(w0 + x / (w1 - w0), 1)"}},
		{"sd last, positive", []*ir.SpaceParam{param("w0", g), param("w1", odd), param("s", sd[1:])}, "", []string{"d ~ normal(w0 + w1 * x, s)"}},
		{"sd first, positive", []*ir.SpaceParam{param("s", sd[1:]), param("w0", g), param("w1", odd)}, "", []string{"d ~ normal(w0 + w1 * x, s)"}},
		{"sd underflow", []*ir.SpaceParam{param("w0", g), param("s", []float64{1e-160, 0.5, 1})}, "", []string{"d ~ normal(w0 * x, s)"}},
		{"division by the last, positive", []*ir.SpaceParam{param("w0", g), param("w1", grid(0.5, 2, 0.125))}, "", []string{"d ~ normal(w0 + x / w1, 1)"}},
		{"division by both, positive", []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", []string{"d ~ normal(w0 + x / (w1 - w0 + 10), 1)"}},
		{"log of the last, positive", []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", []string{"d ~ normal(w0 + log(w1 + 3) * x, 1)"}},
		{"log of the last", []*ir.SpaceParam{param("w0", g), param("w1", g)}, "", []string{"d ~ normal(w0 + log(w1 + 1) * x, 1)"}},
		{"underflow", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "", []string{"d ~ normal(w0 * 10 ^ 300 + w1 * x * 10 ^ 300, 1 / 10 ^ 300)"}},
		{"prior of the last", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "exp(-w1 * w1)", []string{"d ~ normal(w0 + w1 * x, 1)"}},
		{"prior of both", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "exp(-(w0 * w0 + w1 * w1))", []string{"d ~ normal(w0 + w1 * x, 1)"}},
		{"prior of the first", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "w0 >= 0", []string{"d ~ normal(w0 + w1 * x, 1)"}},
		{"prior of two of three", []*ir.SpaceParam{param("w0", g), param("w1", odd), param("w2", odd)}, "2 ^ (-4 * ((w1 != 0) + (w2 != 0)))",
			[]string{"d ~ normal(w0 + w1 * x + w2 * x * x, 1)"}},
		{"prior of the first two", []*ir.SpaceParam{param("w0", odd), param("w1", odd), param("w2", g)}, "2 ^ (-4 * ((w0 != 0) + (w1 != 0)))",
			[]string{"d ~ normal(w0 + w1 * x + w2 * x * x, 1)"}},
		{"negative prior of two of three", []*ir.SpaceParam{param("w0", g), param("w1", odd), param("w2", odd)}, "w1 * w2 + 1.5",
			[]string{"d ~ normal(w0 + w1 * x + w2 * x * x, 1)"}},
		{"negative prior", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "w1 + 1", []string{"d ~ normal(w0 + w1 * x, 1)"}},
		{"negative prior of both", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "w1 * w0 + 1", []string{"d ~ normal(w0 + w1 * x, 1)"}},
		{"last in the prior only", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "1 + w1 * w1", []string{"d ~ normal(w0 * x, 1)"}},
		{"two observations", []*ir.SpaceParam{param("w0", g), param("q", grid(0, 1, 0.1))}, "",
			[]string{"d ~ normal(w0 * x, 1)", "y ~ bernoulli(q)"}},
		{"two observations of the last", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "",
			[]string{"y ~ bernoulli(sigmoid(w1))", "d ~ normal(w0 + w1 * x, 1)", "d ~ normal(w1 * x, 2)"}},
		{"constant observation", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "",
			[]string{"y ~ bernoulli(0.5)", "d ~ normal(w0 + w1 * x, 1)"}},
		{"bernoulli out of range", []*ir.SpaceParam{param("w0", g), param("q", grid(0, 1.5, 0.1))}, "",
			[]string{"d ~ normal(w0 * x, 1)", "y ~ bernoulli(q)"}},
		{"sigmoid", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "", []string{"y ~ bernoulli(sigmoid(w0 + w1 * x))"}},
		{"sigmoid first", []*ir.SpaceParam{param("w1", odd), param("w0", g)}, "w0 + 3", []string{"y ~ bernoulli(sigmoid(w0 + w1 * x))"}},
		{"bernoulli of columns", []*ir.SpaceParam{param("w0", grid(0, 1, 0.05)), param("w1", grid(0, 1, 0.05))}, "",
			[]string{"y ~ bernoulli(w0 * w1 + (1 - w0 * w1) * (x > 0))"}},
		{"direct normal", []*ir.SpaceParam{param("w0", g), param("w1", odd)}, "", []string{"d ~ normal((w0 + w1 * x) * 1 ^ (w0 * x), 1 + abs(w1))"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSpace(t, tc.params, tc.prior, tc.obs...)
			cols := make([][]float64, len(s.Columns))
			for i, c := range s.Columns {
				cols[i] = map[string][]float64{"x": x, "d": d, "y": y}[c]
			}
			data, err := FromColumns(s, nil, cols)
			if err != nil {
				t.Fatal(err)
			}
			ref, errRef := evaluateBy(context.Background(), s, data, false)
			got, err := evaluateBy(context.Background(), s, data, true)
			if errRef != nil || err != nil {
				if errRef == nil || err == nil || err.Error() != errRef.Error() {
					t.Fatalf("err = %v, want %v", err, errRef)
				}
				t.Logf("both: %v", err)
				return
			}
			if got.plan == nil {
				t.Fatal("no run plan")
			}
			if strings.HasSuffix(tc.name, "of three") && got.plan.priorLW == nil {
				t.Error("the prior is not precomputed")
			}
			for i := range ref.Len() {
				if !sameBits(got.LogLikelihood(i), ref.LogLikelihood(i)) || !sameBits(got.LogPrior(i), ref.LogPrior(i)) {
					t.Fatalf("hypothesis %v: ln P(D|h) %v, ln P(h) %v; one at a time %v, %v", got.Hypothesis(i),
						got.LogLikelihood(i), got.LogPrior(i), ref.LogLikelihood(i), ref.LogPrior(i))
				}
			}
			if got.ML() != ref.ML() || got.MAP() != ref.MAP() || got.Support() != ref.Support() ||
				!sameBits(got.LogEvidence(), ref.LogEvidence()) {
				t.Errorf("ML %d, MAP %d, support %d, evidence %v; one at a time %d, %d, %d, %v",
					got.ML(), got.MAP(), got.Support(), got.LogEvidence(), ref.ML(), ref.MAP(), ref.Support(), ref.LogEvidence())
			}
		})
	}
}

// TestLogSigmoidSum: the sum of ln σ(∓z) by one product agrees with the
// sum of the rows' softplus to 1e-13 relative, for z small and large,
// well and badly classified, and keeps NaN and infinities.
func TestLogSigmoidSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for _, scale := range []float64{1e-3, 0.1, 1, 10, 100, 1000} {
		for _, fit := range []bool{false, true} {
			for _, n := range []int{1, 10, 1000, 5000} {
				z, sign := make([]float64, n), make([]float64, n)
				var want float64
				for i := range z {
					z[i] = scale * r.NormFloat64()
					sign[i] = 1
					if r.IntN(2) == 0 {
						sign[i] = -1
					}
					if fit { // every row well classified: sign·z ≤ −40, terms below e^−40
						sign[i] = math.Copysign(1, z[i])
						z[i] = -math.Copysign(math.Abs(z[i])+40, z[i])
					}
				}
				for i := range z {
					want -= softplus(sign[i] * z[i])
				}
				got := logSigmoidSum(z, sign)
				if fit && !(want < 0 && want > -1e-10) {
					t.Fatalf("fit: sum %g", want)
				}
				if !(math.Abs(got-want) <= 1e-13*math.Abs(want)) {
					t.Errorf("scale %g, fit %v, n %d: %.17g, rows' softplus %.17g", scale, fit, n, got, want)
				}
			}
		}
	}
	for _, tc := range []struct{ z, sign, want float64 }{
		{math.NaN(), 1, math.NaN()}, {math.Inf(1), 1, math.Inf(-1)}, {math.Inf(1), -1, 0}, {math.Inf(-1), 1, 0}, {1e308, 1, -1e308},
	} {
		if got := logSigmoidSum([]float64{tc.z}, []float64{tc.sign}); !sameBits(got, tc.want) && !(got == tc.want) {
			t.Errorf("z %g, sign %g: %g, want %g", tc.z, tc.sign, got, tc.want)
		}
	}
}
