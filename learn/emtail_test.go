package learn_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/learn"
)

// The sensor of issue 27 (item 1): Check=yes forces Mode=calibrated
// (P(Check=yes | drifting) = 0), and a reading far in the tail of the
// calibrated density is 1,250 nats below its peak and 0.92 below the
// drifting one's.
const tailModel = `var Mode: {calibrated, drifting}
var Check: {yes, no}
var reading: real
P(Mode) = [0.9, 0.1]
P(Check | Mode) = { calibrated: [0.7, 0.3]  drifting: [0, 1] }
P(reading | Mode) = { calibrated: normal(0, 0.01)  drifting: normal(0.5, 1) }
`

// TestEMFarTails: EM's E-step on rows whose real values lie far in their
// densities' tails, the parent Mode missing: forced by a discrete child
// (Check=yes), by nothing, weighed by two readings that pull opposite
// ways by 1,245 nats each, or far from every component (reading=1000,
// ln N = -5e9 under the calibrated density). The row ",yes,0.5" was
// refused as "probability 0": its likelihoods were scaled by the largest
// over the configurations its observed parents allow (drifting's), which
// flushed the only one Check=yes allows. One iteration from the model,
// against testdata/emtail.py (mpmath, 50 digits): the log-likelihood
// before and after, and the learned tables and densities.
func TestEMFarTails(t *testing.T) {
	const level = "var level: real\nP(level | Mode) = { calibrated: normal(0, 1)  drifting: normal(0.5, 0.01) }\n"
	const other = "var Other: {lo, hi}\nP(Other) = [0.6, 0.4]\nvar level: real\nP(level | Mode, Other) = { calibrated, lo: normal(0, 1)  calibrated, hi: normal(0.2, 1)  drifting, lo: normal(0.5, 0.01)  drifting, hi: normal(0.5, 0.02) }\n"
	// want: the log-likelihoods before and after, P(Mode), P(Other) if
	// the model has it, P(Check | Mode), then per real variable (reals)
	// the mean and sd of each configuration of its parents.
	cases := []struct {
		name, model, csv string
		reals            []string
		want             []float64
	}{
		{"forced by a child", tailModel, "Mode,Check,reading\n,yes,0.5\n,no,0.3\ncalibrated,,0.002\n,,0.02\ndrifting,no,0.7\n,yes,0.001\n,,0.5\n", []string{"reading"},
			[]float64{-1248.1121461471134, -2.9892086721099417, 0.57039091960774407, 0.42960908039225593, 0.85027287912162266, 0.14972712087837734, 0, 1,
				0.13095147575146473, 0.21346455712429739, 0.49884063699598163, 0.16479808169466536}},
		{"two readings", tailModel + level, "Mode,Check,reading,level\n,yes,0.5,0.0001\n,no,0.5,0.0001\n,,0.5,0.0001\n,,0.01,0.45\ncalibrated,,0.02,\n,yes,,0.3\ndrifting,no,0.6,0.49\n", []string{"reading", "level"},
			[]float64{-3740.7547428941173, -0.31720914367521579, 0.78086595836984954, 0.21913404163015046, 0.73025601502241232, 0.26974398497758768, 0, 1,
				0.2828064780549889, 0.24120121754890368, 0.56519145670468827, 0.047648147002926101, 0.16798834268371298, 0.19306692333635801, 0.31947419136408428, 0.23337209426091544}},
		// reading given Mode, level given Mode and Other: weighed
		// together over both, in level's slot. Tables Mode, Other, Check.
		{"a density's parents holding the others'", tailModel + other, "Mode,Other,Check,reading,level\n,,,0.5,0.0001\n,,yes,0.5,0.0001\n,lo,no,0.5,0.0001\n,,,0.01,0.45\ncalibrated,hi,,0.02,0.1\n,hi,yes,,0.3\ndrifting,,no,0.6,0.49\n", []string{"reading", "level"},
			[]float64{-2810.4252034937969, -1.17868401570048, 0.65990723367795436, 0.34009276632204564, 0.40862604510858712, 0.59137395489141288, 0.73580183844212623, 0.26419816155787377, 0, 1,
				0.23220370705154326, 0.241205564362021, 0.54168975264629978, 0.051167761389377568,
				0.14498330444206678, 0.21022089991823657, 0.20891509577760867, 0.14800762069667589, 0.31353850433842382, 0.23518252614574078, 0.12108959954866759, 0.21122156825232408}},
		{"far from every component", tailModel, "Mode,Check,reading\n,yes,1000\n,,-1000\n,no,3\n,,0.01\ncalibrated,,0.003\n", []string{"reading"},
			[]float64{-5000500499.8504854, -40.793960182151749, 0.59967559117655375, 0.40032440882344625, 0.80005409738669032, 0.19994590261330968, 0, 1,
				333.51798822344916, 471.46517318283068, -498.09602502617443, 501.49742151892903}},
	}
	// The junction tree, and the brute-force engine of
	// TestEMOnAnotherEngine.
	for _, c := range cases {
		for _, engine := range []string{"jt", "brute"} {
			t.Run(c.name+"/"+engine, func(t *testing.T) {
				farTail(t, c.model, c.csv, engine, c.reals, c.want)
			})
		}
	}
}

// farTail is TestEMFarTails' case: one iteration of EM on the engine.
func farTail(t *testing.T, model, csv, engine string, reals []string, want []float64) {
	m := loadModel(t, model)
	opt := learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 1}
	before := bruteRows.Load()
	if engine == "brute" {
		opt.Inference = compileBrute
	}
	out, rep, err := learn.Learn(m, opener(t, "d.csv", []byte(csv), m), opt)
	if err != nil {
		t.Fatal(err)
	}
	if engine == "brute" && bruteRows.Load() == before {
		t.Fatal("the learner did not run on the engine of Options.Inference")
	}
	got := slices.Clone(rep.Trace)
	for _, name := range []string{"Mode", "Other", "Check"} {
		if v, ok := out.Lookup(name); ok {
			got = append(got, out.Factor(v.ID).Vals...)
		}
	}
	for _, name := range reals {
		v, _ := out.Lookup(name)
		g := out.Gaussian(v.ID)
		for u := range g.Mean {
			got = append(got, g.Mean[u], g.SD[u])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if !(relDiff(got[k], w) <= 1e-10) {
			t.Errorf("number %d: got %v, want %v (all: %v)", k, got[k], w, got)
		}
	}
}

// TestEMFarTailsUncovered: densities far in their tails, pulling
// opposite ways, that share a missing parent but whose missing parents no
// one density's cover (x given A and B, y given B and C, all missing) would have to be weighed together over
// A, B and C: a clean error of kind infer.ErrRange at the row, not a
// row "of probability 0" nor a wrong answer.
func TestEMFarTailsUncovered(t *testing.T) {
	m := loadModel(t, `var A, B, C: {s, t}
var x, y: real
P(A) = [0.5, 0.5]
P(B) = [0.5, 0.5]
P(C) = [0.5, 0.5]
P(x | A, B) = { s, s: normal(0, 0.01)  s, t: normal(0.5, 1)  t, s: normal(0, 0.01)  t, t: normal(0.5, 1) }
P(y | B, C) = { s, s: normal(0.5, 1)  s, t: normal(0.5, 1)  t, s: normal(0, 0.01)  t, t: normal(0, 0.01) }
`)
	src := "A,B,C,x,y\n,,,0.5,0.5\ns,s,s,0.1,0.2\n"
	_, _, err := learn.Learn(m, opener(t, "d.csv", []byte(src), m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 1})
	if !errors.Is(err, infer.ErrRange) {
		t.Fatalf("got %v, want an error of kind infer.ErrRange", err)
	}
}
