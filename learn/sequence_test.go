package learn_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/hmm"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// The tests of LearnSequences check it against references written here:
// brute-force enumeration over the unrolled network (the E-step's
// expected counts, EM's log-likelihood trace), package hmm's Fit, and a
// numpy Baum–Welch (hmm/testdata/bw_numpy.py).

// dbnSrc is a general DBN: two hidden chains (A of order 2, with a
// static parent S; B driven by A), a discrete emission of both, and a
// Gaussian emission of B.
const dbnSrc = `
var A[t]: {a0, a1}
var B[t]: {b0, b1}
var O[t]: {o0, o1, o2}
var Y[t]: real
var S: {s0, s1}
A[t-1] -> A[t]
A[t-2] -> A[t]
S -> A[t]
B[t-1] -> B[t]
A[t] -> B[t]
A[t] -> O[t]
B[t] -> O[t]
B[t] -> Y[t]
`

// dbnFirst is the first slice of each template distribution of dbnSrc:
// the slices before have their own.
var dbnFirst = map[string]int{"A": 2, "B": 1, "O": 0, "Y": 0}

// near reports whether a and b agree to tol relative (NaN never does).
func seqNear(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// refDist is the reference's numbers of one group.
type refDist struct {
	vals     []float64
	mean, sd []float64
}

// refKey returns the group of the unrolled variable v: its base name and
// slice if an initial one, else its base name and "t"; a static
// variable's name.
func refKey(u *ir.Model, first map[string]int, v ir.VarID) string {
	for _, tv := range u.Time.Vars {
		for s, x := range tv.Slices {
			if x == v {
				if s < first[tv.Name] {
					return ir.SliceName(tv.Name, s)
				}
				return ir.SliceName(tv.Name, first[tv.Name])
			}
		}
	}
	return u.Vars[v].Name
}

// refParams reads the numbers of every group of m.
func refParams(m *ir.Model, first map[string]int) map[string]*refDist {
	p := map[string]*refDist{}
	for v := range m.Vars {
		k := refKey(m, first, ir.VarID(v))
		if _, ok := p[k]; ok {
			continue
		}
		if g := m.Gaussian(ir.VarID(v)); g != nil {
			p[k] = &refDist{mean: slices.Clone(g.Mean), sd: slices.Clone(g.SD)}
		} else {
			p[k] = &refDist{vals: slices.Clone(m.Factor(ir.VarID(v)).Vals)}
		}
	}
	return p
}

// refConfig returns the row-major index (last parent fastest) of the
// parents' states in a.
func refConfig(u *ir.Model, parents []ir.VarID, a []int) int {
	c := 0
	for _, p := range parents {
		c = c*len(u.Vars[p].States) + a[p]
	}
	return c
}

// refEStep enumerates every completion of each sequence over the model
// unrolled to its length (every sequence at least the model's horizon
// long) under the numbers p, and returns the expected counts of every
// group (a Gaussian's (w, Σw(x−mean), Σw(x−mean)²) per configuration)
// and the log-likelihood.
func refEStep(t *testing.T, m *ir.Model, first map[string]int, p map[string]*refDist, seqs []learn.Seq) (map[string][]float64, float64) {
	t.Helper()
	stats := map[string][]float64{}
	ll := 0.0
	statics := staticsOf(m)
	// A hidden variable: no sequence gives it a value.
	seen := map[string]bool{}
	for _, sq := range seqs {
		for _, row := range sq.Steps {
			for i, x := range row {
				if x >= 0 || !m.Vars[m.Time.Vars[i].Slices[0]].Discrete() && !math.IsNaN(x) {
					seen[m.Time.Vars[i].Name] = true
				}
			}
		}
		for j, x := range sq.Static {
			if x >= 0 || !m.Vars[statics[j]].Discrete() && !math.IsNaN(x) {
				seen[m.Vars[statics[j]].Name] = true
			}
		}
	}
	for _, sq := range seqs {
		u, err := ir.Unroll(m, len(sq.Steps)-1)
		if err != nil {
			t.Fatal(err)
		}
		if u.Time.Horizon != len(sq.Steps)-1 {
			t.Fatalf("a sequence of %d steps for a model of horizon %d", len(sq.Steps), u.Time.Horizon)
		}
		value := make([]float64, len(u.Vars))
		for i, tv := range u.Time.Vars {
			for s, v := range tv.Slices {
				value[v] = sq.Steps[s][i]
			}
		}
		for j, v := range statics {
			value[v] = math.NaN()
			if u.Vars[v].Discrete() {
				value[v] = -1
			}
			if sq.Static != nil {
				value[v] = sq.Static[j]
			}
		}
		// A barren variable (no value, nor any descendant) is left out
		// of the counts: its family does not change the likelihood.
		children := make([][]ir.VarID, len(u.Vars))
		for v, ps := range u.Parents {
			for _, p := range ps {
				children[p] = append(children[p], ir.VarID(v))
			}
		}
		var barren func(v ir.VarID) bool
		barren = func(v ir.VarID) bool {
			if u.Vars[v].Discrete() && value[v] >= 0 || !u.Vars[v].Discrete() && !math.IsNaN(value[v]) {
				return false
			}
			for _, c := range children[v] {
				if !barren(c) {
					return false
				}
			}
			return true
		}
		var free []ir.VarID
		a := make([]int, len(u.Vars))
		for v, x := range u.Vars {
			if x.Discrete() {
				if value[v] >= 0 {
					a[v] = int(value[v])
				} else {
					free = append(free, ir.VarID(v))
				}
			}
		}
		keys := make([]string, len(u.Vars))
		skip := make([]bool, len(u.Vars))
		for v, x := range u.Vars {
			keys[v] = refKey(u, first, ir.VarID(v))
			// A hidden variable is counted, barren or not.
			base, _, _ := strings.Cut(x.Name, "[")
			skip[v] = seen[base] && barren(ir.VarID(v))
		}
		type term struct {
			key string
			i   int
			x   float64 // a Gaussian's value, or NaN for a table's entry
		}
		var ps []float64
		var terms [][]term
		for {
			prob := 1.0
			var ts []term
			for v, x := range u.Vars {
				k := keys[v]
				if x.Discrete() {
					f := u.Factor(ir.VarID(v))
					i := refConfig(u, f.Vars[:len(f.Vars)-1], a)*len(x.States) + a[v]
					prob *= p[k].vals[i]
					if !skip[v] {
						ts = append(ts, term{k, i, math.NaN()})
					}
					continue
				}
				if math.IsNaN(value[v]) {
					continue
				}
				c := refConfig(u, u.Gaussian(ir.VarID(v)).Parents, a)
				mu, sd := p[k].mean[c], p[k].sd[c]
				prob *= math.Exp(-(value[v]-mu)*(value[v]-mu)/(2*sd*sd)) / (sd * math.Sqrt(2*math.Pi))
				ts = append(ts, term{k, c, value[v]})
			}
			ps = append(ps, prob)
			terms = append(terms, ts)
			j := 0
			for ; j < len(free); j++ {
				v := free[j]
				a[v]++
				if a[v] < len(u.Vars[v].States) {
					break
				}
				a[v] = 0
			}
			if j == len(free) {
				break
			}
		}
		z := 0.0
		for _, x := range ps {
			z += x
		}
		ll += math.Log(z)
		for n, ts := range terms {
			w := ps[n] / z
			for _, tm := range ts {
				d := p[tm.key]
				if stats[tm.key] == nil {
					if d.vals != nil {
						stats[tm.key] = make([]float64, len(d.vals))
					} else {
						stats[tm.key] = make([]float64, 3*len(d.mean))
					}
				}
				s := stats[tm.key]
				if math.IsNaN(tm.x) {
					s[tm.i] += w
					continue
				}
				dx := tm.x - d.mean[tm.i]
				s[3*tm.i] += w
				s[3*tm.i+1] += w * dx
				s[3*tm.i+2] += w * dx * dx
			}
		}
	}
	for k, d := range p {
		if stats[k] == nil {
			if d.vals != nil {
				stats[k] = make([]float64, len(d.vals))
			} else {
				stats[k] = make([]float64, 3*len(d.mean))
			}
		}
	}
	return stats, ll
}

// refMStep returns the maximum-likelihood numbers of the statistics:
// rows without counts and configurations without values keep p's.
func refMStep(p map[string]*refDist, m *ir.Model, stats map[string][]float64, floor float64) map[string]*refDist {
	out := map[string]*refDist{}
	for key, d := range p {
		s := stats[key]
		if d.vals != nil {
			k := statesOf(m, key)
			vals := make([]float64, len(d.vals))
			for r := 0; r < len(vals); r += k {
				n := 0.0
				for _, x := range s[r : r+k] {
					n += x
				}
				for j := range k {
					if n > 0 {
						vals[r+j] = s[r+j] / n
					} else {
						vals[r+j] = d.vals[r+j]
					}
				}
			}
			out[key] = &refDist{vals: vals}
			continue
		}
		nd := &refDist{mean: slices.Clone(d.mean), sd: slices.Clone(d.sd)}
		for c := range d.mean {
			w := s[3*c]
			if w > 0 {
				dm := s[3*c+1] / w
				nd.mean[c] = d.mean[c] + dm
				nd.sd[c] = math.Sqrt(max(s[3*c+2]/w-dm*dm, floor))
			}
		}
		out[key] = nd
	}
	return out
}

// statesOf returns the number of states of the group key's variable.
func statesOf(m *ir.Model, key string) int {
	base, _, _ := strings.Cut(key, "[")
	if tv := m.Time.Var(base); tv != nil {
		return len(m.Vars[tv.Slices[0]].States)
	}
	x, _ := m.Lookup(key)
	return len(x.States)
}

// staticsOf returns m's static variables in VarID order.
func staticsOf(m *ir.Model) []ir.VarID {
	in := map[ir.VarID]bool{}
	for _, tv := range m.Time.Vars {
		for _, v := range tv.Slices {
			in[v] = true
		}
	}
	var out []ir.VarID
	for v := range m.Vars {
		if !in[ir.VarID(v)] {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// sampleSeqs draws n sequences of length steps from m (its numbers all
// set), and hides the time-indexed variables hide; each other cell is
// missing with probability miss.
func sampleSeqs(t *testing.T, m *ir.Model, r *rand.Rand, n, steps int, hide []string, miss float64) []learn.Seq {
	t.Helper()
	u, err := ir.Unroll(m, steps-1)
	if err != nil {
		t.Fatal(err)
	}
	statics := staticsOf(m)
	var out []learn.Seq
	for range n {
		val := make([]float64, len(u.Vars))
		done := make([]bool, len(u.Vars))
		a := make([]int, len(u.Vars))
		for left := len(u.Vars); left > 0; {
			for v, x := range u.Vars {
				if done[v] || slices.ContainsFunc(u.Parents[v], func(p ir.VarID) bool { return !done[p] }) {
					continue
				}
				if x.Discrete() {
					f := u.Factor(ir.VarID(v))
					k := len(x.States)
					row := refConfig(u, f.Vars[:len(f.Vars)-1], a) * k
					q, s := r.Float64(), 0
					for ; s < k-1; s++ {
						q -= f.Vals[row+s]
						if q < 0 {
							break
						}
					}
					a[v], val[v] = s, float64(s)
				} else {
					g := u.Gaussian(ir.VarID(v))
					c := refConfig(u, g.Parents, a)
					val[v] = g.Mean[c] + g.SD[c]*r.NormFloat64()
				}
				done[v] = true
				left--
			}
		}
		sq := learn.Seq{Steps: make([][]float64, steps)}
		for s := range steps {
			sq.Steps[s] = make([]float64, len(u.Time.Vars))
			for i, tv := range u.Time.Vars {
				x := val[tv.Slices[s]]
				if slices.Contains(hide, tv.Name) || r.Float64() < miss {
					x = math.NaN()
					if u.Vars[tv.Slices[s]].Discrete() {
						x = -1
					}
				}
				sq.Steps[s][i] = x
			}
		}
		for _, v := range statics {
			x := val[v]
			if r.Float64() < miss {
				x = -1
			}
			sq.Static = append(sq.Static, x)
		}
		out = append(out, sq)
	}
	return out
}

// truthDBN returns dbnSrc with random tables (and fixed Gaussians, far
// apart), from seed.
func truthDBN(t *testing.T, seed uint64) *ir.Model {
	return truthOf(t, dbnSrc, dbnFirst, seed)
}

// truthOf returns src with random tables and fixed Gaussians.
func truthOf(t *testing.T, src string, first map[string]int, seed uint64) *ir.Model {
	t.Helper()
	m := loadModel(t, src)
	r := rand.New(rand.NewPCG(seed, 7))
	var ds []ir.Dist
	for v, x := range m.Vars {
		if x.Discrete() {
			ps := m.Parents[v]
			vars := append(slices.Clone(ps), ir.VarID(v))
			card := make([]int, len(vars))
			for j, u := range vars {
				card[j] = len(m.Vars[u].States)
			}
			f := ir.NewFactor(vars, card)
			k := len(x.States)
			for row := 0; row < len(f.Vals); row += k {
				s := 0.0
				for j := range k {
					f.Vals[row+j] = 0.2 + r.Float64()
					s += f.Vals[row+j]
				}
				for j := range k {
					f.Vals[row+j] /= s
				}
			}
			ds = append(ds, &ir.CPT{Child: ir.VarID(v), Parents: slices.Clone(ps), Factor: f})
			continue
		}
		ds = append(ds, &ir.Gaussian{Child: ir.VarID(v), Parents: slices.Clone(m.Parents[v]), Mean: []float64{-1, 1.5}, SD: []float64{0.7, 1.2}})
	}
	out, err := m.WithDists(ds...)
	if err != nil {
		t.Fatal(err)
	}
	// Tie the truth: every template slice gets the last slice's numbers,
	// as the unrolled model of one template would.
	ps := refParams(out, first)
	return withRef(t, out, first, ps)
}

// withRef returns m with the reference's numbers p in every slice.
func withRef(t *testing.T, m *ir.Model, first map[string]int, p map[string]*refDist) *ir.Model {
	t.Helper()
	var ds []ir.Dist
	for v := range m.Vars {
		d := p[refKey(m, first, ir.VarID(v))]
		switch x := m.Dist(ir.VarID(v)).(type) {
		case *ir.CPT:
			f := ir.NewFactor(x.Factor.Vars, x.Factor.Card)
			copy(f.Vals, d.vals)
			ds = append(ds, &ir.CPT{Child: x.Child, Parents: x.Parents, Factor: f})
		case *ir.Gaussian:
			ds = append(ds, &ir.Gaussian{Child: x.Child, Parents: x.Parents, Mean: slices.Clone(d.mean), SD: slices.Clone(d.sd)})
		default:
			t.Fatalf("%s: %T", m.Vars[v].Name, x)
		}
	}
	out, err := m.WithDists(ds...)
	if err != nil {
		t.Fatal(err)
	}
	// Every slice has its distribution: say where each template starts.
	tm := *m.Time
	tm.Vars = slices.Clone(m.Time.Vars)
	for i := range tm.Vars {
		tm.Vars[i].First = first[tm.Vars[i].Name]
	}
	out.Time = &tm
	return out
}

// TestSequenceEStep: the E-step's expected counts of every group (the
// template's summed over its slices) and the log-likelihood equal
// enumeration over the unrolled network, on sequences of 3 to 5 steps
// with hidden chains and missing cells.
func TestSequenceEStep(t *testing.T) {
	truth := truthDBN(t, 1)
	r := rand.New(rand.NewPCG(3, 3))
	var seqs []learn.Seq
	for n := 3; n <= 5; n++ {
		seqs = append(seqs, sampleSeqs(t, truth, r, 4, n, []string{"A", "B"}, 0.2)...)
	}
	got, ll, err := learn.ExpectSeqs(truth, seqs, learn.SeqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, wll := refEStep(t, truth, dbnFirst, refParams(truth, dbnFirst), seqs)
	if !seqNear(ll, wll, 1e-10) {
		t.Errorf("log-likelihood %.17g, enumeration %.17g", ll, wll)
	}
	if len(got) != len(want) {
		t.Errorf("%d groups, want %d", len(got), len(want))
	}
	for k, w := range want {
		g := got[k]
		if len(g) != len(w) {
			t.Errorf("%s: %d statistics, want %d", k, len(g), len(w))
			continue
		}
		for i := range w {
			if !seqNear(g[i], w[i], 1e-9) {
				t.Errorf("%s[%d] = %.17g, enumeration %.17g", k, i, g[i], w[i])
			}
		}
	}
}

// TestSequenceEMTrace: EM's log-likelihood trace, from the same start,
// equals a reference EM by enumeration to 1e-9 relative at every
// iteration, never decreases, and is the same on 1 worker and on 4.
func TestSequenceEMTrace(t *testing.T) {
	truth := truthDBN(t, 2)
	r := rand.New(rand.NewPCG(4, 4))
	seqs := sampleSeqs(t, truth, r, 12, 4, []string{"A", "B"}, 0.1)
	start := truthDBN(t, 99) // other numbers, the same structure
	const iters = 12
	var traces [][]float64
	for _, workers := range []int{1, 4} {
		_, rep, err := learn.LearnSequences(start, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: iters, Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, rep.Trace)
	}
	if !slices.Equal(traces[0], traces[1]) {
		t.Errorf("1 worker %v, 4 workers %v", traces[0], traces[1])
	}
	p := refParams(start, dbnFirst)
	for i := 0; i <= iters; i++ {
		stats, ll := refEStep(t, start, dbnFirst, p, seqs)
		if i >= len(traces[0]) || !seqNear(traces[0][i], ll, 1e-9) {
			t.Fatalf("iteration %d: trace %v, enumeration %.17g", i, traces[0], ll)
		}
		if i > 0 && traces[0][i] < traces[0][i-1] {
			t.Errorf("the trace decreased at %d: %v", i, traces[0])
		}
		p = refMStep(p, start, stats, learn.DefaultVarFloor)
	}
}

// refSeqEM runs the reference EM from p for iters iterations and returns
// the last log-likelihood.
func refSeqEM(t *testing.T, m *ir.Model, first map[string]int, p map[string]*refDist, seqs []learn.Seq, iters int) float64 {
	var ll float64
	for range iters {
		var stats map[string][]float64
		stats, ll = refEStep(t, m, first, p, seqs)
		p = refMStep(p, m, stats, learn.DefaultVarFloor)
	}
	return ll
}

// chainSrc is a DBN of one hidden chain of order 2 with a static
// parent, a discrete and a Gaussian emission.
const chainSrc = `
var A[t]: {a0, a1}
var O[t]: {o0, o1, o2}
var Y[t]: real
var S: {s0, s1}
A[t-1] -> A[t]
A[t-2] -> A[t]
S -> A[t]
A[t] -> O[t]
A[t] -> Y[t]
`

// TestSequenceRestarts: on data sampled from a hidden model, ten
// restarts reach at least the best log-likelihood of twenty reference EM
// runs from random starts.
func TestSequenceRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	first := map[string]int{"A": 2, "O": 0, "Y": 0}
	truth := truthOf(t, chainSrc, first, 5)
	r := rand.New(rand.NewPCG(6, 6))
	seqs := sampleSeqs(t, truth, r, 40, 5, []string{"A"}, 0.05)
	var ys []float64
	for _, sq := range seqs {
		for _, row := range sq.Steps {
			if !math.IsNaN(row[2]) {
				ys = append(ys, row[2])
			}
		}
	}
	best := math.Inf(-1)
	t0 := time.Now()
	for range 20 {
		p := refParams(truth, first)
		keys := make([]string, 0, len(p))
		for key := range p {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		for _, key := range keys {
			d := p[key]
			for row := 0; d.vals != nil && row < len(d.vals); {
				k := statesOf(truth, key)
				s := 0.0
				for j := range k {
					d.vals[row+j] = r.ExpFloat64()
					s += d.vals[row+j]
				}
				for j := range k {
					d.vals[row+j] /= s
				}
				row += k
			}
			for c := range d.mean {
				d.mean[c], d.sd[c] = ys[r.IntN(len(ys))], 1.5
			}
		}
		best = max(best, refSeqEM(t, truth, first, p, seqs, 60))
	}
	t.Logf("reference: %v", time.Since(t0))
	t0 = time.Now()
	m := loadModel(t, chainSrc)
	_, rep, err := learn.LearnSequences(m, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Restarts: 10, Seed: 1, MaxIter: 300, Tol: 1e-10}})
	if err != nil {
		t.Fatal(err)
	}
	if !(rep.LogLik >= best-1e-6*math.Abs(best)) {
		t.Errorf("10 restarts reach %.10g; the best of 20 reference runs %.10g", rep.LogLik, best)
	}
	t.Logf("pbl: %v", time.Since(t0))
	t.Logf("10 restarts: %.10g (start %d); the best of 20 reference runs: %.10g", rep.LogLik, rep.Best, best)
}

// hmmSrc is a categorical hidden Markov model.
const hmmSrc = `
var Z[t]: {z0, z1, z2}
var W[t]: {w0, w1, w2, w3}
Z[t-1] -> Z[t]
Z[t] -> W[t]
P(Z[0]) = [0.5, 0.3, 0.2]
P(Z[t] | Z[t-1]) = {
    z0: [0.7, 0.2, 0.1]
    z1: [0.1, 0.8, 0.1]
    z2: [0.25, 0.25, 0.5]
}
P(W[t] | Z[t]) = {
    z0: [0.6, 0.2, 0.1, 0.1]
    z1: [0.1, 0.5, 0.3, 0.1]
    z2: [0.05, 0.05, 0.2, 0.7]
}
`

// TestSequenceHMMFit: on a hidden Markov model, LearnSequences (its
// hmm fast path, and its general E-step) gives package hmm's Fit trace
// from the same start to 1e-9 relative, and with alpha its numbers.
func TestSequenceHMMFit(t *testing.T) {
	truth := loadModel(t, hmmSrc)
	r := rand.New(rand.NewPCG(8, 8))
	seqs := sampleSeqs(t, truth, r, 10, 30, []string{"Z"}, 0.1)
	start := &hmm.HMM{K: 3, Init: []float64{0.4, 0.35, 0.25},
		Trans: []float64{0.5, 0.3, 0.2, 0.2, 0.5, 0.3, 0.3, 0.3, 0.4},
		Emit:  &hmm.Categorical{M: 4, Prob: []float64{0.3, 0.3, 0.2, 0.2, 0.2, 0.3, 0.3, 0.2, 0.25, 0.25, 0.25, 0.25}}}
	m0 := hmmModel(t, start)
	hs := make([]hmm.Seq, len(seqs))
	for q, sq := range seqs {
		for _, row := range sq.Steps {
			hs[q].Sym = append(hs[q].Sym, int(row[1]))
		}
	}
	for _, alpha := range []float64{0, 0.5} {
		const iters = 10
		want, err := hmm.Fit(start, hs, hmm.FitOptions{MaxIter: iters, Prior: hmm.Prior{Init: alpha, Trans: alpha, Emit: alpha}})
		if err != nil {
			t.Fatal(err)
		}
		for _, general := range []bool{false, true} {
			got, rep, err := learn.LearnSequences(m0, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Alpha: alpha, Init: learn.InitModel, MaxIter: iters}, General: general})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Trace) != iters+1 {
				t.Fatalf("%d trace values", len(rep.Trace))
			}
			if alpha == 0 {
				for i, w := range want.Trace {
					if !seqNear(rep.Trace[i], w, 1e-9) {
						t.Errorf("general %v: trace[%d] %.17g, hmm.Fit %.17g", general, i, rep.Trace[i], w)
					}
				}
			}
			gz := got.Time.Var("Z")
			gw := got.Time.Var("W")
			checkVals(t, fmt.Sprintf("alpha %v general %v P(Z[0])", alpha, general), got.Factor(gz.Slices[0]).Vals, want.HMM.Init)
			for _, v := range gz.Slices[1:] {
				checkVals(t, fmt.Sprintf("alpha %v general %v P(%s)", alpha, general, got.Vars[v].Name), got.Factor(v).Vals, want.HMM.Trans)
			}
			for _, v := range gw.Slices {
				checkVals(t, fmt.Sprintf("alpha %v general %v P(%s)", alpha, general, got.Vars[v].Name), got.Factor(v).Vals, want.HMM.Emit.(*hmm.Categorical).Prob)
			}
			if got.Time == nil || got.Time.Horizon != m0.Time.Horizon {
				t.Errorf("the learned model's time: %+v", got.Time)
			}
			if _, err := ir.Unroll(got, 40); err != nil {
				t.Errorf("the learned model does not unroll: %v", err)
			}
		}
	}
}

func checkVals(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d numbers, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if !seqNear(got[i], want[i], 1e-9) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
	}
}

// hmmModel returns hmmSrc with h's numbers.
func hmmModel(t *testing.T, h *hmm.HMM) *ir.Model {
	t.Helper()
	m := loadModel(t, hmmSrc)
	p := map[string]*refDist{"Z[0]": {vals: h.Init}, "Z[1]": {vals: h.Trans}, "W[0]": {vals: h.Emit.(*hmm.Categorical).Prob}}
	return withRef(t, m, map[string]int{"Z": 1, "W": 0}, p)
}

// numpyCase is the Gaussian case of hmm/testdata/bw_numpy.json.
type numpyCase struct {
	Start struct {
		Init  []float64   `json:"init"`
		Trans [][]float64 `json:"trans"`
		Mean  [][]float64 `json:"mean"`
		Var   [][]float64 `json:"var"`
	} `json:"start"`
	Seqs  [][][]*float64 `json:"seqs"`
	Iters []struct {
		LogLik float64 `json:"loglik"`
	} `json:"iters"`
}

// TestSequenceHMMNumpy: a Gaussian HMM (3 states, two real emissions,
// missing values) learned through its .pbl model — by the hmm fast path
// and by the general E-step — has numpy's Baum–Welch log-likelihoods
// (hmm/testdata/bw_numpy.py, run when python3 has numpy, else its
// committed output) at every iteration to 1e-9 relative.
func TestSequenceHMMNumpy(t *testing.T) {
	golden := filepath.Join("..", "hmm", "testdata", "bw_numpy.json")
	raw, err := os.ReadFile(golden)
	if py := python(); py != "" {
		cmd := exec.Command(py, "bw_numpy.py")
		cmd.Dir = filepath.Join("..", "hmm", "testdata")
		if raw, err = cmd.Output(); err != nil {
			t.Fatalf("numpy: %v", err)
		}
	} else {
		t.Logf("python3 with numpy not found: comparing with %s", golden)
	}
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	var c numpyCase
	if err := json.Unmarshal(cases["gauss"], &c); err != nil {
		t.Fatal(err)
	}
	k := len(c.Start.Init)
	var src strings.Builder
	states := make([]string, k)
	for i := range states {
		states[i] = fmt.Sprintf("s%d", i)
	}
	row := func(p []float64) string {
		s := make([]string, len(p))
		for i, x := range p {
			s[i] = fmt.Sprintf("%.17g", x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	fmt.Fprintf(&src, "var X[t]: {%s}\nvar Y1[t]: real\nvar Y2[t]: real\nX[t-1] -> X[t]\nX[t] -> Y1[t]\nX[t] -> Y2[t]\n", strings.Join(states, ", "))
	fmt.Fprintf(&src, "P(X[0]) = %s\nP(X[t] | X[t-1]) = {\n", row(c.Start.Init))
	for i, r := range c.Start.Trans {
		fmt.Fprintf(&src, "  %s: %s\n", states[i], row(r))
	}
	src.WriteString("}\n")
	for d, y := range []string{"Y1", "Y2"} {
		fmt.Fprintf(&src, "P(%s[t] | X[t]) = {\n", y)
		for i := range k {
			fmt.Fprintf(&src, "  %s: normal(%.17g, %.17g)\n", states[i], c.Start.Mean[i][d], math.Sqrt(c.Start.Var[i][d]))
		}
		src.WriteString("}\n")
	}
	m := loadModel(t, src.String())
	var seqs []learn.Seq
	for _, s := range c.Seqs {
		var sq learn.Seq
		for _, r := range s {
			step := []float64{-1, math.NaN(), math.NaN()}
			for d, v := range r {
				if v != nil {
					step[1+d] = *v
				}
			}
			sq.Steps = append(sq.Steps, step)
		}
		seqs = append(seqs, sq)
	}
	for _, general := range []bool{false, true} {
		_, rep, err := learn.LearnSequences(m, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: len(c.Iters) - 1}, General: general})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Trace) != len(c.Iters) {
			t.Fatalf("%d trace values, numpy %d", len(rep.Trace), len(c.Iters))
		}
		for i, it := range c.Iters {
			if !seqNear(rep.Trace[i], it.LogLik, 1e-9) {
				t.Errorf("general %v, iteration %d: log-likelihood %.17g, numpy %.17g", general, i, rep.Trace[i], it.LogLik)
			}
		}
	}
}

// TestSequenceCancel: a closed Cancel stops EM at the end of its first
// iteration with ErrCanceled, on both E-steps; bad sequences are
// ErrSequence, and a model without time is refused.
func TestSequenceCancel(t *testing.T) {
	truth := loadModel(t, hmmSrc)
	r := rand.New(rand.NewPCG(1, 2))
	seqs := sampleSeqs(t, truth, r, 3, 10, []string{"Z"}, 0)
	cancel := make(chan struct{})
	close(cancel)
	for _, general := range []bool{false, true} {
		_, _, err := learn.LearnSequences(truth, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Tol: 0, MaxIter: 1000, Cancel: cancel}, General: general})
		if !errors.Is(err, learn.ErrCanceled) {
			t.Errorf("general %v: %v, want ErrCanceled", general, err)
		}
	}
	bad := []learn.Seq{{Steps: [][]float64{{-1, 7}}}}
	if _, _, err := learn.LearnSequences(truth, bad, learn.SeqOptions{}); !errors.Is(err, learn.ErrSequence) {
		t.Errorf("state 7 of 4: %v, want ErrSequence", err)
	}
	if _, _, err := learn.LearnSequences(truth, []learn.Seq{{Steps: [][]float64{{-1}}}}, learn.SeqOptions{}); !errors.Is(err, learn.ErrSequence) {
		t.Errorf("a short step: %v, want ErrSequence", err)
	}
	var me *learn.ModelError
	if _, _, err := learn.LearnSequences(loadModel(t, "var A: bool\n"), seqs, learn.SeqOptions{}); !errors.As(err, &me) {
		t.Errorf("a model without time: %v, want a *ModelError", err)
	}
}

// TestSequenceHugeValues: real values too large for a normal density's
// moments to be computed (1e300: their squares overflow) are ErrSequence,
// not a panic when the start or an M-step builds normal(mean, +Inf).
func TestSequenceHugeValues(t *testing.T) {
	m := loadModel(t, "var R[t]: bool\nvar L[t]: real\nR[t-1] -> R[t]\nR[t] -> L[t]\n")
	for _, x := range []float64{1e300, -1e200, 1e101} {
		seqs := []learn.Seq{{Steps: [][]float64{{-1, x}, {-1, -x}, {-1, 5}}}}
		for _, general := range []bool{false, true} {
			_, _, err := learn.LearnSequences(m, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM}, General: general})
			if !errors.Is(err, learn.ErrSequence) || !strings.Contains(err.Error(), "rescale the column") {
				t.Errorf("L = %g, general %v: %v, want ErrSequence", x, general, err)
			}
		}
	}
	seqs := []learn.Seq{{Steps: [][]float64{{-1, 1e99}, {-1, -1e99}, {-1, 5}}}}
	if _, _, err := learn.LearnSequences(m, seqs, learn.SeqOptions{Options: learn.Options{Method: learn.EM}}); err != nil {
		t.Errorf("L = ±1e99: %v", err)
	}
}

// TestSequenceLongHMM: a sequence longer than a model is unrolled to
// (ir.MaxHorizon+1 steps) is learned by a hidden Markov model's E-step,
// which does not unroll: the start's log-likelihood equals a forward
// recursion written out here; the general E-step, which would unroll,
// refuses it as ErrSequence, saying how many steps.
func TestSequenceLongHMM(t *testing.T) {
	m := loadModel(t, `var R[t]: bool
var U[t]: bool
R[t-1] -> R[t]
R[t] -> U[t]
P(R[0]) = 0.5
P(R[t] | R[t-1]) = { true: 0.7  false: 0.3 }
P(U[t] | R[t]) = { true: 0.9  false: 0.2 }
`)
	n := ir.MaxHorizon + 2
	r := rand.New(rand.NewPCG(4, 4))
	steps := make([][]float64, n)
	for i := range steps {
		steps[i] = []float64{-1, float64(r.IntN(2))} // state 0 is true
	}
	// The forward recursion, scaled: α_t(r) ∝ P(u_t | r) Σ α_{t-1}(r') P(r | r').
	trans := [2][2]float64{{0.7, 0.3}, {0.3, 0.7}}
	emit := [2][2]float64{{0.9, 0.1}, {0.2, 0.8}}
	alpha := [2]float64{0.5 * emit[0][int(steps[0][1])], 0.5 * emit[1][int(steps[0][1])]}
	ll := 0.0
	for t := range n {
		if t > 0 {
			u := int(steps[t][1])
			alpha = [2]float64{
				(alpha[0]*trans[0][0] + alpha[1]*trans[1][0]) * emit[0][u],
				(alpha[0]*trans[0][1] + alpha[1]*trans[1][1]) * emit[1][u],
			}
		}
		z := alpha[0] + alpha[1]
		ll += math.Log(z)
		alpha[0], alpha[1] = alpha[0]/z, alpha[1]/z
	}
	seqs := []learn.Seq{{Steps: steps, Line: 2}}
	opt := learn.SeqOptions{Options: learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 1}}
	_, rep, err := learn.LearnSequences(m, seqs, opt)
	if err != nil {
		t.Fatalf("%d steps, hmm: %v", n, err)
	}
	if got := rep.Trace[0]; !(math.Abs(got-ll) <= 1e-9*math.Abs(ll)) {
		t.Errorf("ln P(obs) at the start = %v, the forward recursion %v", got, ll)
	}
	opt.General = true
	_, _, err = learn.LearnSequences(m, seqs, opt)
	if !errors.Is(err, learn.ErrSequence) || !strings.Contains(err.Error(), fmt.Sprint(n, " steps")) {
		t.Errorf("%d steps, general E-step: %v, want ErrSequence naming the steps", n, err)
	}
}
