package infer_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// This file checks likelihood weighting on hybrid models (a discrete
// variable with a real-valued parent: logistic or softmax) against an
// independent reference: the posterior by numerical quadrature over the
// one unobserved real variable (gonum's Gauss–Legendre rule over ±12 SD),
// written here from the model's formulas, not from pbl's code.

// hybridSrc is the model of every case: Smoker chooses the mean of
// Pressure; Alarm is logistic in Pressure (a different line per state of
// Sensor), Level softmax in it; Temp is a linear Gaussian child of
// Pressure.
const hybridSrc = `var Pressure, Temp: real
var Smoker, Sensor, Alarm: bool
var Level: {low, mid, high}
P(Smoker) = 0.3
P(Sensor) = 0.8
P(Pressure | Smoker) = { true: normal(135, 12)  false: normal(115, 15) }
P(Alarm | Pressure, Sensor) = {
    true:  logistic(-20 + 0.15 * Pressure)
    false: logistic(0.5)
}
P(Level | Pressure) = softmax(0, -12 + 0.1 * Pressure, -26 + 0.2 * Pressure)
P(Temp | Pressure) = normal(10 + 0.05 * Pressure, 1.5)
`

func sigmoid(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

func npdf(x, mean, sd float64) float64 {
	z := (x - mean) / sd
	return math.Exp(-z*z/2) / (sd * math.Sqrt(2*math.Pi))
}

// level returns P(Level = s | Pressure = x), from the model's scores.
func level(s int, x float64) float64 {
	a := []float64{0, -12 + 0.1*x, -26 + 0.2*x}
	sum := 0.0
	for _, b := range a {
		sum += math.Exp(b - a[s])
	}
	return 1 / sum
}

// alarm returns P(Alarm = true | Pressure = x, Sensor).
func alarm(x float64, sensor bool) float64 {
	if sensor {
		return sigmoid(-20 + 0.15*x)
	}
	return sigmoid(0.5)
}

// pressure integrates f(x) against Pressure's density given Smoker.
func pressure(smoker bool, f func(x float64) float64) float64 {
	mean, sd := 115.0, 15.0
	if smoker {
		mean, sd = 135, 12
	}
	return quad.Fixed(func(x float64) float64 { return npdf(x, mean, sd) * f(x) }, mean-12*sd, mean+12*sd, 4000, nil, 0)
}

// joint returns Σ over Smoker and Sensor of P(Smoker) P(Sensor) ∫
// p(x | Smoker) f(smoker, sensor, x) dx: the probability (times the
// density of real evidence) that f weighs.
func joint(f func(smoker, sensor bool, x float64) float64) float64 {
	t := 0.0
	for _, sm := range []bool{true, false} {
		for _, se := range []bool{true, false} {
			w := 0.7
			if sm {
				w = 0.3
			}
			if se {
				w *= 0.8
			} else {
				w *= 0.2
			}
			t += w * pressure(sm, func(x float64) float64 { return f(sm, se, x) })
		}
	}
	return t
}

// posterior2 returns the posterior (true, false) of the boolean that sel
// picks out of Smoker and Sensor, given the evidence whose probability
// (times density) w weighs.
func posterior2(sel func(smoker, sensor bool) bool, w func(smoker, sensor bool, x float64) float64) []float64 {
	num := joint(func(sm, se bool, x float64) float64 {
		if !sel(sm, se) {
			return 0
		}
		return w(sm, se, x)
	})
	den := joint(w)
	return []float64{num / den, 1 - num/den}
}

func isSmoker(sm, _ bool) bool { return sm }
func isSensor(_, se bool) bool { return se }

// hybridCases are the queries and their references: each state's
// posterior, in the state order of the target.
var hybridCases = []struct {
	query string
	ref   func() []float64
}{
	{"P(Alarm)", func() []float64 {
		p := joint(func(_, se bool, x float64) float64 { return alarm(x, se) })
		return []float64{p, 1 - p}
	}},
	{"P(Smoker | Alarm=true)", func() []float64 {
		return posterior2(isSmoker, func(_, se bool, x float64) float64 { return alarm(x, se) })
	}},
	{"P(Level | Alarm=false)", func() []float64 {
		den := joint(func(_, se bool, x float64) float64 { return 1 - alarm(x, se) })
		out := make([]float64, 3)
		for s := range out {
			out[s] = joint(func(_, se bool, x float64) float64 { return level(s, x) * (1 - alarm(x, se)) }) / den
		}
		return out
	}},
	{"P(Smoker | Alarm=true, Temp=16.5)", func() []float64 {
		return posterior2(isSmoker, func(_, se bool, x float64) float64 { return alarm(x, se) * npdf(16.5, 10+0.05*x, 1.5) })
	}},
	{"P(Sensor | Alarm=true, Level=high)", func() []float64 {
		return posterior2(isSensor, func(_, se bool, x float64) float64 { return alarm(x, se) * level(2, x) })
	}},
	{"P(Smoker | Alarm~[0.9, 0.3], Level=mid)", func() []float64 {
		return posterior2(isSmoker, func(_, se bool, x float64) float64 { a := alarm(x, se); return (0.9*a + 0.3*(1-a)) * level(1, x) })
	}},
}

// hybridModel lowers hybridSrc and q.
func hybridModel(t testing.TB, q string) (*ir.Model, ir.Query) {
	t.Helper()
	f, err := parser.Parse("hybrid.pbl", []byte(hybridSrc))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	gq, err := parser.ParseQuery("q", q)
	if err != nil {
		t.Fatal(err)
	}
	lq, err := ir.LowerQuery(m, gq)
	if err != nil {
		t.Fatal(err)
	}
	return m, lq
}

// hybridAnswer answers q by likelihood weighting and returns each state's
// probability and error.
func hybridAnswer(t testing.TB, m *ir.Model, q ir.Query, opt infer.Options) (p, errs []float64, r infer.Result) {
	t.Helper()
	r, err := infer.Answer(m, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	tab, ok := r.(*infer.Table)
	if !ok {
		t.Fatalf("answer %T, want *infer.Table", r)
	}
	for _, row := range tab.Rows {
		p = append(p, row.P)
	}
	return p, r.Head().ErrorEstimate, r
}

// TestHybridLW: each answer is within its reported error of the
// quadrature, is labelled approximate by the engine lw, and the
// reported error is calibrated: over 30 seeds, the reference lies within
// one standard error (the reported error / 2.5) about 68 % of the time
// and within the reported error nearly always.
func TestHybridLW(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	var in1, inErr, total int
	for _, c := range hybridCases {
		m, q := hybridModel(t, c.query)
		ref := c.ref()
		for i, x := range ref {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("%s: reference %v", c.query, ref)
			}
			_ = i
		}
		for seed := range uint64(seeds) {
			p, errs, r := hybridAnswer(t, m, q, infer.Options{Engine: "lw", Seed: seed, Samples: 20000})
			h := r.Head()
			if h.Exact || h.Engine != "lw" || len(errs) != len(ref) || len(p) != len(ref) {
				t.Fatalf("%s: exact %v engine %q, %d errors and %d rows for %d states", c.query, h.Exact, h.Engine, len(errs), len(p), len(ref))
			}
			for s := range ref {
				d := math.Abs(p[s] - ref[s])
				if !(errs[s] > 0) || !(d <= errs[s]*1.6) {
					t.Errorf("%s seed %d state %d: %v, reference %v, error %v", c.query, seed, s, p[s], ref[s], errs[s])
				}
				total++
				if d <= errs[s]/2.5 {
					in1++
				}
				if d <= errs[s] {
					inErr++
				}
			}
		}
	}
	cover1, coverErr := float64(in1)/float64(total), float64(inErr)/float64(total)
	t.Logf("%d numbers: within one standard error %.3f, within the reported error %.3f", total, cover1, coverErr)
	if !testing.Short() && !(cover1 >= 0.5 && cover1 <= 0.85 && coverErr >= 0.95) {
		t.Errorf("coverage: within one standard error %.3f (want about 0.68), within the reported error %.3f (want ≥ 0.95)", cover1, coverErr)
	}
}

// TestHybridAuto: Auto answers a hybrid model approximately with lw and
// says why; the same seed gives the same numbers; the exact engines and
// Options.Exact refuse with ErrDiscreteChildOfReal, saying why and naming
// lw; queries the sampler does not answer are refused by kind.
func TestHybridAuto(t *testing.T) {
	m, q := hybridModel(t, "P(Smoker | Alarm=true)")
	p1, _, r := hybridAnswer(t, m, q, infer.Options{Seed: 7, Samples: 5000})
	h := r.Head()
	if h.Exact || h.Engine != "lw" || h.Why == nil || !h.Why.Hybrid {
		t.Errorf("auto: exact %v engine %q why %v", h.Exact, h.Engine, h.Why)
	}
	p2, _, _ := hybridAnswer(t, m, q, infer.Options{Seed: 7, Samples: 5000})
	if p1[0] != p2[0] {
		t.Errorf("seed 7 twice: %v and %v", p1, p2)
	}
	for _, opt := range []infer.Options{{Exact: true}, {Engine: "ve"}, {Engine: "jt"}, {Engine: "enum"}, {Engine: "gibbs"}} {
		_, err := infer.Answer(m, q, opt)
		var he *infer.HybridError
		if !errors.Is(err, infer.ErrDiscreteChildOfReal) || !errors.As(err, &he) || he.Instead != "lw" || !strings.Contains(err.Error(), "not a mixture of normals") {
			t.Errorf("%+v: %v, want the refusal", opt, err)
		}
	}
	// A query that does not reach a discrete variable with a real parent
	// (its ancestors hold none) is answered exactly, under Exact too:
	// P(Smoker | Pressure=130) by Bayes' rule on the two normals.
	{
		m, q := hybridModel(t, "P(Smoker | Pressure=130)")
		r, err := infer.Answer(m, q, infer.Options{Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.3 * npdf(130, 135, 12) / (0.3*npdf(130, 135, 12) + 0.7*npdf(130, 115, 15))
		if tab := r.(*infer.Table); !tab.Exact || tab.Engine != "" || !(math.Abs(tab.Rows[0].P-want) <= 1e-12) {
			t.Errorf("P(Smoker | Pressure=130): exact %v engine %q p %v, want exact %v", tab.Exact, tab.Engine, tab.Rows[0].P, want)
		}
	}
	// Evidence no sample reaches (its density underflows) is an error at
	// the query, of kind ErrImpossible.
	{
		m, q := hybridModel(t, "P(Alarm | Pressure=1e300)")
		_, err := infer.Answer(m, q, infer.Options{Samples: 1000})
		var e *ir.Error
		if !errors.Is(err, infer.ErrImpossible) || !errors.As(err, &e) || !e.Pos.IsValid() {
			t.Errorf("P(Alarm | Pressure=1e300): %v, want a positioned ErrImpossible", err)
		}
	}
	if _, err := infer.Compile(m, infer.Options{}); !errors.Is(err, infer.ErrDiscreteChildOfReal) {
		t.Errorf("Compile: %v, want ErrDiscreteChildOfReal", err)
	}
	// MPE and MAP are answered by auto approximately too (TestHybridMPE
	// checks their numbers); under Exact they are refused.
	for _, text := range []string{"MPE(Alarm=true)", "MAP(Smoker | Alarm=true)"} {
		m, q := hybridModel(t, text)
		if r, err := infer.Answer(m, q, infer.Options{Samples: 1000}); err != nil || r.Head().Exact || r.Head().Engine != "lw" {
			t.Errorf("%s: %v, want lw's approximate answer", text, err)
		}
		if _, err := infer.Answer(m, q, infer.Options{Exact: true}); !errors.Is(err, infer.ErrDiscreteChildOfReal) {
			t.Errorf("%s under Exact: %v, want ErrDiscreteChildOfReal", text, err)
		}
	}
}

// TestHybridMoments: the posterior mean and standard deviation of
// Pressure given discrete and real evidence are within their reported
// errors of the quadrature's, E[x | e] = ∫ x w / ∫ w and E[x² | e], over
// several seeds, and the answer says it is the moments, not a normal.
func TestHybridMoments(t *testing.T) {
	cases := []struct {
		query string
		w     func(sm, se bool, x float64) float64 // the evidence's weight given Pressure = x
	}{
		{"P(Pressure | Alarm=true)", func(_, se bool, x float64) float64 { return alarm(x, se) }},
		{"P(Pressure | Alarm=false, Level=mid)", func(_, se bool, x float64) float64 { return (1 - alarm(x, se)) * level(1, x) }},
		{"P(Pressure | Alarm=true, Smoker=false, Temp=16.5)", func(sm, se bool, x float64) float64 {
			if sm {
				return 0
			}
			return alarm(x, se) * npdf(16.5, 10+0.05*x, 1.5)
		}},
	}
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	var in, total int
	for _, c := range cases {
		z := joint(c.w)
		mean := joint(func(sm, se bool, x float64) float64 { return x * c.w(sm, se, x) }) / z
		m2 := joint(func(sm, se bool, x float64) float64 { return x * x * c.w(sm, se, x) }) / z
		sd := math.Sqrt(m2 - mean*mean)
		m, q := hybridModel(t, c.query)
		for seed := range uint64(seeds) {
			r, err := infer.Answer(m, q, infer.Options{Seed: seed, Samples: 20000})
			if err != nil {
				t.Fatal(err)
			}
			nr, ok := r.(*infer.Normals)
			if !ok || !nr.Moments || nr.Exact || nr.Engine != "lw" || len(nr.ErrorEstimate) != 2 {
				t.Fatalf("%s: %T %+v", c.query, r, r.Head())
			}
			gotMean, gotSD := nr.Mean()[0], math.Sqrt(nr.Cov()[0])
			for i, d := range []float64{math.Abs(gotMean - mean), math.Abs(gotSD - sd)} {
				e := nr.ErrorEstimate[i]
				if !(d <= 1.6*e) {
					t.Errorf("%s seed %d: mean %v sd %v, quadrature %v and %v, errors %v", c.query, seed, gotMean, gotSD, mean, sd, nr.ErrorEstimate)
				}
				total++
				if d <= e {
					in++
				}
			}
		}
	}
	t.Logf("%d numbers, %.3f within the reported error", total, float64(in)/float64(total))
	if !testing.Short() && !(float64(in)/float64(total) >= 0.9) {
		t.Errorf("%d of %d within the reported error", in, total)
	}
}

// TestHybridDensity: density(x=v | e) and P(e) with a real value observed
// are within their reported errors of the quadrature's, p(v, e) / p(e)
// and p(v, e), over several seeds.
func TestHybridDensity(t *testing.T) {
	temp := func(x float64) float64 { return npdf(16.5, 10+0.05*x, 1.5) }
	cases := []struct {
		query string
		ref   func() float64
	}{
		{"density(Temp=16.5 | Alarm=true)", func() float64 {
			return joint(func(_, se bool, x float64) float64 { return alarm(x, se) * temp(x) }) /
				joint(func(_, se bool, x float64) float64 { return alarm(x, se) })
		}},
		{"P(Alarm=true, Temp=16.5)", func() float64 {
			return joint(func(_, se bool, x float64) float64 { return alarm(x, se) * temp(x) })
		}},
		{"density(Temp=16.5 | Level=high, Smoker=true)", func() float64 {
			w := func(sm bool, x float64) float64 {
				if !sm {
					return 0
				}
				return level(2, x)
			}
			return joint(func(sm, _ bool, x float64) float64 { return w(sm, x) * temp(x) }) /
				joint(func(sm, _ bool, x float64) float64 { return w(sm, x) })
		}},
	}
	for _, c := range cases {
		ref := c.ref()
		m, q := hybridModel(t, c.query)
		for seed := range uint64(6) {
			r, err := infer.Answer(m, q, infer.Options{Seed: seed, Samples: 20000})
			if err != nil {
				t.Fatal(err)
			}
			d, ok := r.(*infer.Density)
			if !ok || d.Exact || d.Engine != "lw" || len(d.ErrorEstimate) != 1 {
				t.Fatalf("%s: %T %+v", c.query, r, r.Head())
			}
			if e := d.ErrorEstimate[0]; !(e > 0) || !(math.Abs(d.Density-ref) <= 1.6*e) {
				t.Errorf("%s seed %d: %v ± %v, quadrature %v", c.query, seed, d.Density, e, ref)
			}
		}
	}
}

// TestHybridDo: do(...) cuts the variable set from its parents (graph
// surgery) and does not weigh the samples: each answer is within its
// error of its closed form.
func TestHybridDo(t *testing.T) {
	for _, c := range []struct {
		query string
		want  float64 // the first state's probability, or the mean
		sd    float64 // the standard deviation of a real target, else 0
	}{
		{"P(Alarm | do(Pressure=140))", 0.8*sigmoid(-20+0.15*140) + 0.2*sigmoid(0.5), 0},
		{"P(Alarm | do(Sensor=false))", sigmoid(0.5), 0},
		{"P(Smoker | do(Alarm=true))", 0.3, 0},               // Alarm cut from Pressure: Smoker keeps its prior
		{"P(Smoker | do(Pressure=150), Alarm=true)", 0.3, 0}, // Pressure set: Alarm says nothing of Smoker
		{"P(Pressure | do(Smoker=true), Alarm=false, Sensor=false)", 135, 12},
		{"P(Level | do(Pressure=130))", level(0, 130), 0},
	} {
		m, q := hybridModel(t, c.query)
		r, err := infer.Answer(m, q, infer.Options{Seed: 3, Samples: 20000})
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		h := r.Head()
		if h.Exact || h.Engine != "lw" {
			t.Errorf("%s: exact %v engine %q", c.query, h.Exact, h.Engine)
		}
		switch r := r.(type) {
		case *infer.Table:
			if d := math.Abs(r.Rows[0].P - c.want); !(d <= 1.6*h.ErrorEstimate[0]) {
				t.Errorf("%s: %v ± %v, want %v", c.query, r.Rows[0].P, h.ErrorEstimate[0], c.want)
			}
		case *infer.Normals:
			mean, sd := r.Mean()[0], math.Sqrt(r.Cov()[0])
			if !(math.Abs(mean-c.want) <= 1.6*h.ErrorEstimate[0]) || !(math.Abs(sd-c.sd) <= 1.6*h.ErrorEstimate[1]) {
				t.Errorf("%s: mean %v sd %v (errors %v), want %v and %v", c.query, mean, sd, h.ErrorEstimate, c.want, c.sd)
			}
		default:
			t.Errorf("%s: %T", c.query, r)
		}
	}
}

// TestHybridMPE: MPE and MAP over the discrete variables of a hybrid
// model (the real ones summed out) by likelihood weighting: the
// assignment is the one of largest posterior by quadrature, and its
// probability is within the reported error of the quadrature's.
func TestHybridMPE(t *testing.T) {
	// P(Smoker, Sensor, Level, Alarm=true) per assignment, by quadrature
	// (Temp unobserved integrates to 1).
	type asg struct{ sm, se, lv int }
	post := map[asg]float64{}
	tot := 0.0
	for sm := range 2 {
		for se := range 2 {
			for lv := range 3 {
				w := 0.7
				if sm == 0 {
					w = 0.3
				}
				if se == 0 {
					w *= 0.8
				} else {
					w *= 0.2
				}
				p := w * pressure(sm == 0, func(x float64) float64 { return alarm(x, se == 0) * level(lv, x) })
				post[asg{sm, se, lv}] = p
				tot += p
			}
		}
	}
	var best asg
	for a, p := range post {
		if p > post[best] {
			best = a
		}
	}
	second := 0.0
	for a, p := range post {
		if a != best && p > second {
			second = p
		}
	}
	m, q := hybridModel(t, "MPE(Alarm=true)")
	r, err := infer.Answer(m, q, infer.Options{Engine: "lw", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mpe, ok := r.(*infer.Assignment)
	if !ok {
		t.Fatalf("answer %T, want *infer.Assignment", r)
	}
	state := func(name string) int {
		v, ok := m.Lookup(name)
		if !ok {
			t.Fatalf("no variable %s", name)
		}
		for _, o := range mpe.Assignment {
			if o.Var == v.ID {
				return o.State
			}
		}
		t.Fatalf("%s not in the assignment %v", name, mpe.Assignment)
		return -1
	}
	want := post[best] / tot
	if r.Head().Exact || r.Head().Engine != "lw" {
		t.Errorf("MPE answered exact=%v by %q, want approximate by lw", r.Head().Exact, r.Head().Engine)
	}
	got := []int{state("Smoker"), state("Sensor"), state("Level")}
	if got[0] != best.sm || got[1] != best.se || got[2] != best.lv {
		t.Errorf("MPE assignment %v, quadrature's %v (P %.4f against the next %.4f)", got, best, want, second/tot)
	}
	errs := r.Head().ErrorEstimate
	if len(errs) == 0 || !(math.Abs(mpe.P-want) <= errs[0]) {
		t.Errorf("MPE p = %v ± %v, quadrature %v", mpe.P, errs, want)
	}
	t.Logf("MPE(Alarm=true): %v, p = %.4f ± %.4f (quadrature %.4f, the next assignment %.4f)", got, mpe.P, errs[0], want, second/tot)

	// MAP over Smoker with real evidence: P(Smoker | Alarm=true,
	// Temp=16.5) by quadrature (hybridCases).
	var ref []float64
	for _, c := range hybridCases {
		if c.query == "P(Smoker | Alarm=true, Temp=16.5)" {
			ref = c.ref()
		}
	}
	m, q = hybridModel(t, "MAP(Smoker | Alarm=true, Temp=16.5)")
	r, err = infer.Answer(m, q, infer.Options{Engine: "lw", Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	mp := r.(*infer.Assignment)
	ws := 0
	if ref[1] > ref[0] {
		ws = 1
	}
	errs = r.Head().ErrorEstimate
	if len(mp.Assignment) != 1 || mp.Assignment[0].State != ws || len(errs) == 0 || !(math.Abs(mp.P-ref[ws]) <= errs[0]) {
		t.Errorf("MAP(Smoker | Alarm=true, Temp=16.5) = %v, p = %v ± %v; quadrature P(Smoker) = %v", mp.Assignment, mp.P, errs, ref)
	}
}
