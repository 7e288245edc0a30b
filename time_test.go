package pbl_test

import (
	"errors"
	"fmt"
	"github.com/pbl-lang/pbl/internal/dbntest"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/dbn"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/sample"
)

// TestTimeBruteForce checks posteriors of slices of random time-indexed
// models (filtering, smoothing, prediction: P(X[s] | evidence at other
// slices)), P(e), and MPE's assignment and probability, against
// enumeration of the unrolled joint computed from the numbers alone.
func TestTimeBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	cases := 0
	for trial := range 24 {
		n := 1 + trial%3
		order := 1 + trial%2
		T := 3 + r.IntN(2)
		if n == 3 {
			T = 3
		}
		d := dbntest.New(r, n, 2, order, trial%4 == 1)
		// Evidence at random slices and variables; the query's target a
		// variable at a random slice, in the past, at the end or later.
		var ev []string
		obs := map[[2]int]int{}
		for s := range T - 1 {
			for v := range n {
				if r.IntN(2) == 0 {
					obs[[2]int{s, v}] = r.IntN(2)
					ev = append(ev, fmt.Sprintf("X%d[%d]=s%d", v, s, obs[[2]int{s, v}]))
				}
			}
		}
		tv, ts := r.IntN(n), r.IntN(T)
		if _, seen := obs[[2]int{ts, tv}]; seen {
			continue
		}
		src := d.Src + fmt.Sprintf("query P(X%d[%d])\n", tv, ts)
		m, err := pbl.Load(fmt.Sprintf("dbn%d.pbl", trial), []byte(src))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, src)
		}
		m, err = pbl.Unrolled(m, fmt.Sprintf("P(X0[%d])", T-1))
		if err != nil {
			t.Fatal(err)
		}
		var post [2]float64
		pe := 0.0
		best, bestP := [][]int(nil), -1.0
		d.Each(T, func(x [][]int, sv int) {
			for k, val := range obs {
				if x[k[0]][k[1]] != val {
					return
				}
			}
			p := d.Joint(x, sv)
			post[x[ts][tv]] += p
			pe += p
			if p > bestP+1e-15 {
				bestP = p
				best = make([][]int, T)
				for s := range x {
					best[s] = append([]int(nil), x[s]...)
				}
			}
		})
		if pe == 0 {
			continue
		}
		cond := ""
		if len(ev) > 0 {
			cond = " | " + strings.Join(ev, ", ")
		}
		a, err := pbl.Ask(m, fmt.Sprintf("P(X%d[%d]%s)", tv, ts, cond))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for i := range 2 {
			got, err := a.Prob(fmt.Sprintf("X%d[%d]=s%d", tv, ts, i))
			want := post[i] / pe
			if err != nil || !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("trial %d: P(X%d[%d]=s%d | e) = %v (%v), want %v\n%s", trial, tv, ts, i, got, err, want, src)
			}
		}
		if len(ev) > 0 {
			a, err := pbl.Ask(m, "P("+strings.Join(ev, ", ")+")")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := a.Prob(); err != nil || !(math.Abs(got-pe) <= 1e-9*pe) {
				t.Errorf("trial %d: P(e) = %v (%v), want %v", trial, got, err, pe)
			}
		}
		// MPE over the slices 0..T-1 given the evidence: the Viterbi path
		// of the hidden variables, with its probability.
		mq := "MPE()"
		if len(ev) > 0 {
			mq = "MPE(" + strings.Join(ev, ", ") + ")"
		}
		mt, err := pbl.Unrolled(m, fmt.Sprintf("P(X0[%d])", T-1))
		if err != nil {
			t.Fatal(err)
		}
		if mt.Time.Horizon != T-1 {
			// Slices beyond T-1 would make MPE's assignment longer: the
			// loaded model was unrolled further by the file's query.
			cases++
			continue
		}
		ma, err := pbl.Ask(mt, mq)
		if err != nil {
			t.Fatal(err)
		}
		// The assignment's probability, from the numbers: the best (ties
		// may pick another assignment of the same probability).
		x := make([][]int, T)
		for s := range x {
			x[s] = make([]int, n)
		}
		for k, val := range obs {
			x[k[0]][k[1]] = val
		}
		sv := 0
		for _, st := range ma.Assignment() {
			var v, s, val int
			fmt.Sscanf(st.Value, "s%d", &val)
			if st.Var == "S" {
				sv = val
				continue
			}
			if _, err := fmt.Sscanf(st.Var, "X%d[%d]", &v, &s); err != nil {
				t.Fatalf("MPE names %s", st.Var)
			}
			x[s][v] = val
		}
		if got := d.Joint(x, sv); !(math.Abs(got-bestP) <= 1e-9*bestP) {
			t.Errorf("trial %d: MPE's assignment %v has probability %v, the best %v (%v)", trial, ma.Assignment(), got, bestP, best)
		}
		cases++
	}
	if cases < 12 {
		t.Fatalf("only %d cases checked", cases)
	}
}

// TestUnrollMatchesLowering checks that a model unrolled further by
// ir.Unroll is the model the lowering unrolls to that horizon: the same
// variables, parents and tables.
func TestUnrollMatchesLowering(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	d := dbntest.New(r, 2, 3, 2, true)
	small, err := pbl.Load("u.pbl", []byte(d.Src))
	if err != nil {
		t.Fatalf("%v\n%s", err, d.Src)
	}
	big, err := pbl.Load("u.pbl", []byte(d.Src+"query P(X0[7])\n"))
	if err != nil {
		t.Fatal(err)
	}
	un, err := ir.Unroll(small, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(un.Vars) != len(big.Vars) {
		t.Fatalf("names %v, want %v", un.Names(), big.Names())
	}
	names := func(m *ir.Model, vs []ir.VarID) string {
		var out []string
		for _, v := range vs {
			out = append(out, m.Vars[v].Name)
		}
		return strings.Join(out, ",")
	}
	for v, x := range big.Vars {
		u, ok := un.Lookup(x.Name)
		if !ok {
			t.Fatalf("%s not unrolled", x.Name)
		}
		var uv ir.VarID
		for i, y := range un.Vars {
			if y == u {
				uv = ir.VarID(i)
			}
		}
		a, b := un.Table(uv), big.Table(ir.VarID(v))
		if names(un, a.Factor.Vars) != names(big, b.Factor.Vars) || fmt.Sprint(a.Factor.Vals) != fmt.Sprint(b.Factor.Vals) {
			t.Errorf("%s: unrolled %s %v, lowered %s %v", x.Name, names(un, a.Factor.Vars), a.Factor.Vals, names(big, b.Factor.Vars), b.Factor.Vals)
		}
		// The variable knows its own number (the REPL's :vars lists
		// m.Parents[v.ID]: a copied slice once kept its source's).
		if u.ID != uv {
			t.Errorf("%s: ID %d, at %d", x.Name, u.ID, uv)
		}
	}
}

// TestAnswerSequenceBruteForce checks pbl sequence's tasks (filtering,
// smoothing, prediction, the Viterbi path and its log-probability, the
// log-likelihood) on random DBNs against enumeration of the unrolled
// joint from the numbers alone.
func TestAnswerSequenceBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 32))
	checked := 0
	for trial := range 30 {
		n := 1 + trial%3
		order := 1 + trial%2
		d := dbntest.New(r, n, 2, order, trial%3 == 2)
		m, err := pbl.Load(fmt.Sprintf("seq%d.pbl", trial), []byte(d.Src))
		if err != nil {
			t.Fatalf("%v\n%s", err, d.Src)
		}
		T := 2 + r.IntN(3)
		if n == 3 {
			T = 2 + r.IntN(2)
		}
		// X0 hidden; the others observed at random steps, missing at some.
		s := &pbl.Sequence{Static: []float64{-1}}
		if d.STable == nil {
			s.Static = nil
		}
		for range T {
			step := make([]float64, n)
			step[0] = -1
			for v := 1; v < n; v++ {
				step[v] = float64(r.IntN(3) - 1) // -1: missing
			}
			s.Steps = append(s.Steps, step)
		}
		if n == 1 {
			// A chain observed at some steps: X0 is then a target where
			// it is missing (the answers put a point mass where it is
			// observed).
			for t := range s.Steps {
				s.Steps[t][0] = float64(r.IntN(3) - 1)
			}
			s.Steps[0][0] = -1
		}
		post := func(upto int, at int) ([]float64, float64) {
			p := make([]float64, 2)
			pe := 0.0
			d.Each(max(upto, at)+1, func(x [][]int, sv int) {
				for t := 0; t <= upto && t < T; t++ {
					for v := range n {
						if o := s.Steps[t][v]; o >= 0 && x[t][v] != int(o) {
							return
						}
					}
				}
				q := d.Joint(x, sv)
				p[x[at][0]] += q
				pe += q
			})
			if pe > 0 {
				p[0] /= pe
				p[1] /= pe
			}
			return p, pe
		}
		_, pe := post(T-1, T-1)
		if pe == 0 {
			continue
		}
		opt := pbl.SeqOptions{Targets: []int{0}, Steps: 2}
		near := func(what string, got, want float64) {
			t.Helper()
			if !(math.Abs(got-want) <= 1e-9*max(1, math.Abs(want))) {
				t.Errorf("trial %d: %s = %v, want %v\n%s", trial, what, got, want, d.Src)
			}
		}
		// Both exact engines: package dbn's (the interface algorithm, or
		// its HMM path) and the exact engines on the model unrolled.
		for _, eng := range []pbl.SeqOptions{opt, pbl.UnrolledEngine(opt)} {
			for _, task := range []pbl.SeqTask{pbl.Filter, pbl.Smooth, pbl.Predict} {
				a, err := pbl.AnswerSequence(m, s, task, eng)
				if err != nil {
					t.Fatalf("trial %d %v: %v", trial, task, err)
				}
				what := task.String() + " (" + a.Engine + ")"
				if want := map[bool]int{true: 2, false: T}[task == pbl.Predict]; a.Len() != want {
					t.Fatalf("trial %d %s: %d steps, want %d", trial, what, a.Len(), want)
				}
				near(what+" ln P(obs)", a.LogP, math.Log(pe))
				for i := range a.Len() {
					step := a.Step(i)
					if want := map[bool]int{true: T + i, false: i}[task == pbl.Predict]; step != want {
						t.Fatalf("trial %d %s: row %d is step %d, want %d", trial, what, i, step, want)
					}
					upto := T - 1
					if task == pbl.Filter {
						upto = step
					}
					want, pe := post(upto, step)
					if pe == 0 {
						continue
					}
					near(fmt.Sprintf("%s P(X0[%d]=s0)", what, step), a.Posterior(i, 0)[0], want[0])
					near(fmt.Sprintf("%s P(X0[%d]=s1)", what, step), a.Posterior(i, 0)[1], want[1])
				}
			}
			// Viterbi: the best joint assignment of every unobserved
			// variable (and S), with ln P(path, obs); the path's X0 is that
			// of a best assignment.
			consistent := func(x [][]int) bool {
				for t := range T {
					for v := range n {
						if o := s.Steps[t][v]; o >= 0 && x[t][v] != int(o) {
							return false
						}
					}
				}
				return true
			}
			best := -1.0
			d.Each(T, func(x [][]int, sv int) {
				if consistent(x) {
					best = max(best, d.Joint(x, sv))
				}
			})
			a, err := pbl.AnswerSequence(m, s, pbl.Viterbi, eng)
			if err != nil {
				t.Fatalf("trial %d viterbi: %v", trial, err)
			}
			what := "viterbi (" + a.Engine + ")"
			near(what+" ln P(path, obs)", a.LogP, math.Log(best))
			if !a.IsPath() || a.Len() != T {
				t.Fatalf("trial %d %s: %d steps of a path (%v), want %d", trial, what, a.Len(), a.IsPath(), T)
			}
			onPath := -1.0
			d.Each(T, func(x [][]int, sv int) {
				for t := range T {
					if x[t][0] != a.State(t, 0) {
						return
					}
				}
				if consistent(x) {
					onPath = max(onPath, d.Joint(x, sv))
				}
			})
			near(what+" the path's best completion", math.Log(onPath), math.Log(best))
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d cases checked", checked)
	}
}

// TestSampleSequences draws sequences of a time-indexed model, reads them
// back as pbl sequence does, and checks each step's frequencies against
// the exact marginals (within five standard errors).
func TestSampleSequences(t *testing.T) {
	m, err := pbl.Load("g.pbl", []byte(umbrellaSrc))
	if err != nil {
		t.Fatal(err)
	}
	const n, length = 20000, 4
	mu, err := ir.Unroll(m, length-1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sample.NewSampler(mu)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seq.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteSequences(f, n, length, 1, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	seqs, err := pbl.ReadSequences(mu, path, pbl.SequenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != n {
		t.Fatalf("%d sequences read, want %d", len(seqs), n)
	}
	for step := range length {
		for k, tv := range mu.Time.Vars {
			a, err := pbl.Ask(mu, fmt.Sprintf("P(%s)", ir.Quote(ir.SliceName(tv.Name, step))))
			if err != nil {
				t.Fatal(err)
			}
			p, _ := a.Prob(ir.SliceName(tv.Name, step) + "=true")
			count := 0
			for _, sq := range seqs {
				if len(sq.Steps) != length {
					t.Fatalf("a sequence of %d steps", len(sq.Steps))
				}
				if sq.Steps[step][k] == 0 {
					count++
				}
			}
			got := float64(count) / n
			if se := math.Sqrt(p * (1 - p) / n); !(math.Abs(got-p) <= 5*se) {
				t.Errorf("%s[%d]=true: frequency %v, P %v", tv.Name, step, got, p)
			}
		}
	}
}

// TestParticleFilter checks the particle filter against the exact
// filter on random DBNs (and one with a Gaussian emission): every
// posterior within five of its standard errors (plus 1e-3), and ln
// P(observations) within five of its.
func TestParticleFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	checked := 0
	for trial := range 16 {
		d := dbntest.New(r, 1+trial%3, 2, 1+trial%2, trial%2 == 1)
		m, err := pbl.Load("pf.pbl", []byte(d.Src))
		if err != nil {
			t.Fatal(err)
		}
		s := &pbl.Sequence{}
		if d.STable != nil {
			s.Static = []float64{-1}
		}
		for range 6 {
			step := make([]float64, d.N)
			step[0] = -1
			for v := 1; v < d.N; v++ {
				step[v] = float64(r.IntN(2))
			}
			s.Steps = append(s.Steps, step)
		}
		for _, task := range []pbl.SeqTask{pbl.Filter, pbl.Predict} {
			exact, err := pbl.AnswerSequence(m, s, task, pbl.SeqOptions{Targets: []int{0}, Steps: 2})
			if err != nil {
				if errors.Is(err, infer.ErrImpossible) {
					continue
				}
				t.Fatal(err)
			}
			pf, err := pbl.AnswerSequence(m, s, task, pbl.SeqOptions{Targets: []int{0}, Steps: 2, Particles: 20000, Seed: uint64(trial)})
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if pf.Exact() || pf.Engine != "particle" {
				t.Errorf("the particle filter's answer is labelled exact")
			}
			if !(math.Abs(pf.LogP-exact.LogP) <= 5*pf.LogPErr+1e-3) {
				t.Errorf("trial %d %v: ln P(obs) %v ± %v, exact %v", trial, task, pf.LogP, pf.LogPErr, exact.LogP)
			}
			if pf.Len() != exact.Len() {
				t.Fatalf("trial %d %v: %d steps, exact %d", trial, task, pf.Len(), exact.Len())
			}
			for i := range exact.Len() {
				for st, want := range exact.Posterior(i, 0) {
					got, se := pf.Posterior(i, 0)[st], pf.StdErr(i, 0)[st]
					if !(math.Abs(got-want) <= 5*se+1e-3) {
						t.Errorf("trial %d %v step %d: %v ± %v, exact %v", trial, task, exact.Step(i), got, se, want)
					}
				}
			}
		}
	}
	// A Gaussian emission, a static parent.
	m, err := pbl.Load("g.pbl", []byte(gaussianDBN))
	if err != nil {
		t.Fatal(err)
	}
	s := &pbl.Sequence{Static: []float64{-1}, Steps: [][]float64{{-1, 2.5}, {-1, math.NaN()}, {-1, 0.1}, {-1, 3.2}}}
	exact, err := pbl.AnswerSequence(m, s, pbl.Filter, pbl.SeqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := pbl.AnswerSequence(m, s, pbl.Filter, pbl.SeqOptions{Particles: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(pf.LogP-exact.LogP) <= 5*pf.LogPErr+1e-3) {
		t.Errorf("gaussian: ln P(obs) %v ± %v, exact %v", pf.LogP, pf.LogPErr, exact.LogP)
	}
	if pf.Len() != exact.Len() {
		t.Fatalf("gaussian: %d steps, exact %d", pf.Len(), exact.Len())
	}
	for i := range exact.Len() {
		for st, want := range exact.Posterior(i, 0) {
			if got, se := pf.Posterior(i, 0)[st], pf.StdErr(i, 0)[st]; !(math.Abs(got-want) <= 5*se+1e-3) {
				t.Errorf("gaussian step %d: %v ± %v, exact %v", i, got, se, want)
			}
		}
	}
	if checked < 8 {
		t.Fatalf("only %d answers checked", checked)
	}
}

const gaussianDBN = `
var Rain[t]: bool
var Level[t]: real
var Season: {wet, dry}
Rain[t-1] -> Rain[t]
Rain[t] -> Level[t]
Season -> Rain[t]
P(Season) = [0.5, 0.5]
P(Rain[0] | Season) = { wet: 0.7  dry: 0.3 }
P(Rain[t] | Rain[t-1], Season) = {
    true,  wet: 0.8
    true,  dry: 0.6
    false, wet: 0.4
    false, dry: 0.2
}
P(Level[t] | Rain[t]) = { true: normal(3, 1)  false: normal(0, 1) }
`

// TestAnswerSequenceGaussian checks a sequence with a Gaussian emission
// and a static parent against enumeration with the densities written out.
func TestAnswerSequenceGaussian(t *testing.T) {
	m, err := pbl.Load("g.pbl", []byte(gaussianDBN))
	if err != nil {
		t.Fatal(err)
	}
	levels := []float64{2.5, math.NaN(), 0.1, -0.4}
	s := &pbl.Sequence{Static: []float64{-1}}
	for _, x := range levels {
		s.Steps = append(s.Steps, []float64{-1, x})
	}
	normal := func(x, mu float64) float64 { return math.Exp(-(x-mu)*(x-mu)/2) / math.Sqrt(2*math.Pi) }
	init := [2]float64{0.7, 0.3}                   // P(Rain[0]=true | Season)
	trans := [2][2]float64{{0.8, 0.6}, {0.4, 0.2}} // P(Rain[t]=true | Rain[t-1], Season), [rain prev true/false][season]
	T := len(levels)
	post := make([][2]float64, T)
	pe := 0.0
	for season := range 2 {
		for c := range 1 << T {
			p := 0.5
			rain := func(t int) int { return c >> t & 1 } // 0: true
			for t := range T {
				pt := init[season]
				if t > 0 {
					pt = trans[rain(t-1)][season]
				}
				if rain(t) == 0 {
					p *= pt
				} else {
					p *= 1 - pt
				}
				if !math.IsNaN(levels[t]) {
					mu := 3.0
					if rain(t) == 1 {
						mu = 0
					}
					p *= normal(levels[t], mu)
				}
			}
			pe += p
			for t := range T {
				post[t][rain(t)] += p
			}
		}
	}
	a, err := pbl.AnswerSequence(m, s, pbl.Smooth, pbl.SeqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(a.LogP-math.Log(pe)) <= 1e-9) {
		t.Errorf("ln P(obs) = %v, want %v", a.LogP, math.Log(pe))
	}
	for i := range T {
		for st := range 2 {
			if got, want := a.Posterior(i, 0)[st], post[i][st]/pe; !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("P(Rain[%d]=%d | obs) = %v, want %v", i, st, got, want)
			}
		}
	}
}

// TestParticleFilterFarTail: an observation far in both emissions' tails,
// where each density underflows float64 (exp(-800)) but their ratio does
// not, is weighed in logarithms: the particle filter answers it as the
// hand derivation does, rather than calling it impossible.
func TestParticleFilterFarTail(t *testing.T) {
	const src = `var Rain[t]: bool
var Level[t]: real
Rain[t-1] -> Rain[t]
Rain[t] -> Level[t]
P(Rain[0]) = 0.5
P(Rain[t] | Rain[t-1]) = { true: 0.7  false: 0.3 }
P(Level[t] | Rain[t]) = { true: normal(50, 1)  false: normal(50.02, 1) }
`
	m, err := pbl.Load("tail.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := &pbl.Sequence{Steps: [][]float64{{-1, 90}, {-1, math.NaN()}}}
	// By hand: ln N(90; mu, 1) = -(90-mu)²/2 - ln √(2π).
	lt, lf := -0.5*40*40, -0.5*39.98*39.98
	p0 := 1 / (1 + math.Exp(lf-lt))
	p1 := 0.7*p0 + 0.3*(1-p0)
	logP := math.Log(0.5) + lt + math.Log1p(math.Exp(lf-lt)) - 0.5*math.Log(2*math.Pi)
	pf, err := pbl.AnswerSequence(m, s, pbl.Filter, pbl.SeqOptions{Targets: []int{0}, Particles: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(pf.LogP-logP) <= 5*pf.LogPErr+1e-3) {
		t.Errorf("ln P(obs) %v ± %v, by hand %v", pf.LogP, pf.LogPErr, logP)
	}
	for i, want := range []float64{p0, p1} {
		if got, se := pf.Posterior(i, 0)[0], pf.StdErr(i, 0)[0]; !(math.Abs(got-want) <= 5*se+1e-3) {
			t.Errorf("step %d: P(Rain=true) %v ± %v, by hand %v", i, got, se, want)
		}
	}
}

// TestParticleMemoryLimit: the particle filter refuses, before allocating,
// a number of particles whose buffers (each particle's values twice, its
// weight and its log factor, 8 bytes each: 10 numbers for the umbrella
// model) would exceed 2 GiB: 30 million of them would take 2.4 GB.
func TestParticleMemoryLimit(t *testing.T) {
	m, err := pbl.LoadFile("examples/umbrella.pbl")
	if err != nil {
		t.Fatal(err)
	}
	s := &pbl.Sequence{Steps: [][]float64{{-1, 0}}}
	_, err = pbl.AnswerSequence(m, s, pbl.Filter, pbl.SeqOptions{Particles: 30_000_000, Seed: 1})
	if !errors.Is(err, pbl.ErrSeqTask) {
		t.Fatalf("30 million particles: got %v, want ErrSeqTask", err)
	}
}

// TestPredictTooFar: a prediction too long to hold (10^9 steps: 32 GB of
// answers) is refused at once with the interface algorithm's reason, not
// only the unrolling's (which the refusal fell back on and which spoke of
// slices the user never asked for).
func TestPredictTooFar(t *testing.T) {
	m, err := pbl.LoadFile("examples/umbrella.pbl")
	if err != nil {
		t.Fatal(err)
	}
	s := &pbl.Sequence{Steps: [][]float64{{-1, 0}}}
	_, err = pbl.AnswerSequence(m, s, pbl.Predict, pbl.SeqOptions{Steps: 1_000_000_000})
	var tl *dbn.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "the predictions would take") {
		t.Fatalf("got %v, want the predictions' size refused", err)
	}
}

// TestParticlePredictTooFar: the particle filter refuses, before
// allocating them, answers too large to hold (--steps 10^9: 16 GB of
// distributions and standard errors), as the interface algorithm does.
func TestParticlePredictTooFar(t *testing.T) {
	m, err := pbl.LoadFile("examples/umbrella.pbl")
	if err != nil {
		t.Fatal(err)
	}
	s := &pbl.Sequence{Steps: [][]float64{{-1, 0}}}
	_, err = pbl.AnswerSequence(m, s, pbl.Predict, pbl.SeqOptions{Steps: 1_000_000_000, Particles: 100, Seed: 1})
	var tl *dbn.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("got %v, want a *dbn.TooLargeError", err)
	}
}

// TestParticleStaticReal: the particle filter refuses a sequence that
// leaves a static real variable without a value (its draws would never
// move: the answer biased beyond its error), as an ErrParticle, and
// answers the same model when the sequence gives the value, within five
// standard errors of the exact filter.
func TestParticleStaticReal(t *testing.T) {
	const src = `var Rain[t]: bool
var Level[t]: real
var Temp: real
Rain[t-1] -> Rain[t]
Rain[t], Temp -> Level[t]
P(Temp) = normal(10, 2)
P(Rain[0]) = 0.5
P(Rain[t] | Rain[t-1]) = { true: 0.7  false: 0.3 }
P(Level[t] | Rain[t], Temp) = { true: normal(Temp + 3, 1)  false: normal(Temp, 1) }
`
	m, err := pbl.Load("st.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	missing := &pbl.Sequence{Static: []float64{math.NaN()}, Steps: [][]float64{{-1, 20}, {-1, 17}}}
	_, err = pbl.AnswerSequence(m, missing, pbl.Filter, pbl.SeqOptions{Targets: []int{0}, Particles: 1000, Seed: 1})
	if !errors.Is(err, pbl.ErrParticle) {
		t.Fatalf("Temp without a value: got %v, want ErrParticle", err)
	}
	given := &pbl.Sequence{Static: []float64{15}, Steps: [][]float64{{-1, 20}, {-1, 17}}}
	exact, err := pbl.AnswerSequence(m, given, pbl.Filter, pbl.SeqOptions{Targets: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := pbl.AnswerSequence(m, given, pbl.Filter, pbl.SeqOptions{Targets: []int{0}, Particles: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if pf.Len() != exact.Len() || exact.Len() != 2 {
		t.Fatalf("%d and %d steps, want 2", pf.Len(), exact.Len())
	}
	for i := range exact.Len() {
		want := exact.Posterior(i, 0)[0]
		if got, se := pf.Posterior(i, 0)[0], pf.StdErr(i, 0)[0]; !(math.Abs(got-want) <= 5*se+1e-3) {
			t.Errorf("step %d: %v ± %v, exact %v", i, got, se, want)
		}
	}
}
