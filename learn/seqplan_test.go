package learn_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// gaussHMMSrc is a hidden Markov model with a real emission: package
// hmm's Gaussian fast path.
const gaussHMMSrc = `
var X[t]: {x0, x1}
var Y[t]: real
X[t-1] -> X[t]
X[t] -> Y[t]
P(X[0]) = [0.6, 0.4]
P(X[t] | X[t-1]) = { x0: [0.8, 0.2]  x1: [0.3, 0.7] }
P(Y[t] | X[t]) = { x0: normal(-1, 1)  x1: normal(2, 0.5) }
`

// shardSource is the E-step over sequences in shards, as a pipeline runs
// it: each shard's statistics apart (SeqEStep.Add), merged in the order
// given.
type shardSource struct {
	p      *learn.SeqPlan
	shards [][]learn.Seq
	order  []int
}

func (s *shardSource) Expect(params *ir.Model) (*learn.SeqStats, error) {
	e, err := s.p.EStep(params)
	if err != nil {
		return nil, err
	}
	total := s.p.NewStats()
	for _, i := range s.order {
		st := e.NewStats()
		if err := e.Add(st, s.shards[i], 0); err != nil {
			return nil, err
		}
		total.Merge(st)
	}
	return total, nil
}

// partition splits seqs into k shards: contiguous runs in order, or each
// sequence to a random shard (in random order within it).
func partition(seqs []learn.Seq, k int, random bool, r *rand.Rand) [][]learn.Seq {
	shards := make([][]learn.Seq, k)
	if !random {
		for q, sq := range seqs {
			i := q * k / len(seqs)
			shards[i] = append(shards[i], sq)
		}
		return shards
	}
	for _, q := range r.Perm(len(seqs)) {
		i := r.IntN(k)
		shards[i] = append(shards[i], seqs[q])
	}
	return shards
}

// TestSeqPlanShards: learning from the sequences split into k shards
// (k = 1, 2, 5; contiguous or random partitions), each shard's census
// and E-step statistics apart and merged in a random order, gives
// LearnSequences's trace and parameters on the whole data to 1e-12
// relative: on the general E-step (hidden chains, a static variable, a
// Gaussian, missing cells) and package hmm's (categorical and Gaussian
// emissions), from the model's numbers and from random starts.
func TestSeqPlanShards(t *testing.T) {
	type data struct {
		name string
		m    *ir.Model
		seqs []learn.Seq
	}
	r := rand.New(rand.NewPCG(11, 12))
	dbn := truthDBN(t, 5)
	hmmM := loadModel(t, hmmSrc)
	gm := loadModel(t, gaussHMMSrc)
	sets := []data{
		{"dbn", dbn, sampleSeqs(t, dbn, r, 23, 6, []string{"A", "B"}, 0.1)},
		{"hmm", hmmM, sampleSeqs(t, hmmM, r, 31, 12, []string{"Z"}, 0.05)},
		{"gauss-hmm", gm, sampleSeqs(t, gm, r, 27, 15, []string{"X"}, 0.05)},
	}
	type run struct {
		general bool
		opt     learn.Options
	}
	runs := []run{
		{false, learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 12, Tol: 0}},
		{true, learn.Options{Method: learn.EM, Restarts: 2, Seed: 4, MaxIter: 8, Tol: 0, Alpha: 0.5}},
	}
	for _, d := range sets {
		for _, rn := range runs {
			opt := learn.SeqOptions{Options: rn.opt, General: rn.general}
			want, wrep, err := learn.LearnSequences(d.m, d.seqs, opt)
			if err != nil {
				t.Fatalf("%s: %v", d.name, err)
			}
			for _, k := range []int{1, 2, 5} {
				for _, random := range []bool{false, true} {
					name := fmt.Sprintf("%s/general=%v/k=%d/random=%v", d.name, rn.general, k, random)
					shards := partition(d.seqs, k, random, r)
					c := learn.NewSeqCensus(d.m)
					for _, sh := range shards {
						ci := learn.NewSeqCensus(d.m)
						if err := ci.Add(sh, 0); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						c.Merge(ci)
					}
					p, err := learn.NewSeqPlan(d.m, c, opt)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					got, rep, err := p.Run(&shardSource{p: p, shards: shards, order: r.Perm(k)}, d.seqs)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if rep.Rows != wrep.Rows || rep.Patterns != wrep.Patterns || rep.Iterations != wrep.Iterations || rep.Best != wrep.Best || len(rep.Trace) != len(wrep.Trace) || len(rep.Hidden) != len(wrep.Hidden) {
						t.Fatalf("%s: report %+v, one shard's %+v", name, rep, wrep)
					}
					for i := range rep.Trace {
						if !seqNear(rep.Trace[i], wrep.Trace[i], 1e-12) {
							t.Errorf("%s: log-likelihood %d: %.17g, one shard's %.17g", name, i, rep.Trace[i], wrep.Trace[i])
						}
					}
					checkSameParams(t, name, got, want)
				}
			}
		}
	}
}

// checkSameParams checks that every distribution of got has want's
// numbers to 1e-12 relative (NaN never does).
func checkSameParams(t *testing.T, name string, got, want *ir.Model) {
	t.Helper()
	n := 0
	for v := range want.Vars {
		id := ir.VarID(v)
		var a, b []float64
		if g := want.Gaussian(id); g != nil {
			h := got.Gaussian(id)
			if h == nil {
				t.Fatalf("%s: %s has no density", name, want.Vars[v].Name)
			}
			a, b = append(append(a, h.Mean...), h.SD...), append(append(b, g.Mean...), g.SD...)
		} else {
			a, b = got.Factor(id).Vals, want.Factor(id).Vals
		}
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%s: %s: %d numbers, want %d", name, want.Vars[v].Name, len(a), len(b))
		}
		for i := range a {
			n++
			if !seqNear(a[i], b[i], 1e-12) {
				t.Errorf("%s: %s[%d] = %.17g, one shard's %.17g", name, want.Vars[v].Name, i, a[i], b[i])
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no numbers compared", name)
	}
}

// TestSeqPlanErrors: a plan of no sequences is ErrNoRows; a bad sequence
// in a shard is ErrSequence numbered from the shard's first; statistics
// of different plans refuse to merge; a NaN never compares near.
func TestSeqPlanErrors(t *testing.T) {
	m := loadModel(t, hmmSrc)
	if _, err := learn.NewSeqPlan(m, learn.NewSeqCensus(m), learn.SeqOptions{Options: learn.Options{Method: learn.EM}}); !errors.Is(err, learn.ErrNoRows) {
		t.Errorf("no sequences: %v, want ErrNoRows", err)
	}
	c := learn.NewSeqCensus(m)
	err := c.Add([]learn.Seq{{Steps: [][]float64{{-1, 7}}}}, 41)
	if !errors.Is(err, learn.ErrSequence) || !strings.Contains(err.Error(), "sequence 42, step 0") {
		t.Errorf("state 7 of 4 in sequence 42: %v", err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	seqs := sampleSeqs(t, m, r, 3, 5, []string{"Z"}, 0)
	c = learn.NewSeqCensus(m)
	if err := c.Add(seqs, 0); err != nil {
		t.Fatal(err)
	}
	p, err := learn.NewSeqPlan(m, c, learn.SeqOptions{Options: learn.Options{Method: learn.EM}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.MStep(m, p.NewStats()); !errors.Is(err, learn.ErrNoRows) {
		t.Errorf("an M-step of no sequences: %v, want ErrNoRows", err)
	}
	other, err := learn.NewSeqPlan(truthDBN(t, 1), func() *learn.SeqCensus {
		d := truthDBN(t, 1)
		c := learn.NewSeqCensus(d)
		if err := c.Add(sampleSeqs(t, d, r, 2, 4, nil, 0), 0); err != nil {
			t.Fatal(err)
		}
		return c
	}(), learn.SeqOptions{Options: learn.Options{Method: learn.EM}})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("merging statistics of different plans did not panic")
			}
		}()
		p.NewStats().Merge(other.NewStats())
	}()
	if seqNear(math.NaN(), math.NaN(), 1e-12) || seqNear(1, math.NaN(), 1e-12) {
		t.Error("seqNear accepts NaN")
	}
}

// TestSeqPlanParams: the numbers a pipeline sends its workers
// (SeqPlan.Params) make the same model again (FromParams), whose E-step
// gives the same statistics to the bit; a vector of the wrong length is
// refused.
func TestSeqPlanParams(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, src := range []string{dbnSrc, gaussHMMSrc} {
		m := loadModel(t, src)
		if src == dbnSrc {
			m = truthDBN(t, 9)
		}
		seqs := sampleSeqs(t, m, r, 6, 5, nil, 0.2)
		c := learn.NewSeqCensus(m)
		if err := c.Add(seqs, 0); err != nil {
			t.Fatal(err)
		}
		p, err := learn.NewSeqPlan(m, c, learn.SeqOptions{Options: learn.Options{Method: learn.EM}})
		if err != nil {
			t.Fatal(err)
		}
		start := p.Start(1, seqs)
		x := p.Params(start)
		back, err := p.FromParams(x)
		if err != nil {
			t.Fatal(err)
		}
		stats := func(params *ir.Model) *learn.SeqStats {
			e, err := p.EStep(params)
			if err != nil {
				t.Fatal(err)
			}
			st := e.NewStats()
			if err := e.Add(st, seqs, 0); err != nil {
				t.Fatal(err)
			}
			return st
		}
		a, b := stats(start), stats(back)
		if a.LogLik != b.LogLik || math.IsNaN(a.LogLik) || a.Seqs != 6 || b.Seqs != 6 {
			t.Errorf("log-likelihood %v from the start, %v from its numbers sent", a.LogLik, b.LogLik)
		}
		for g := range a.Groups {
			for i := range a.Groups[g] {
				if a.Groups[g][i] != b.Groups[g][i] {
					t.Errorf("group %d, statistic %d: %v, %v from the numbers sent", g, i, a.Groups[g][i], b.Groups[g][i])
				}
			}
		}
		if _, err := p.FromParams(x[1:]); err == nil {
			t.Error("a vector one short was accepted")
		}
		if _, err := p.FromParams(append(x, 1)); err == nil {
			t.Error("a vector one long was accepted")
		}
	}
}

// TestSeqPlanConcurrent: one E-step adds shards on several goroutines at
// once (a pipeline's workers), each into statistics of its own, the
// horizons compiled on first use by whichever comes first; merged in
// shard order they are the statistics of the shards added in turn, to
// the bit. Run with -race.
func TestSeqPlanConcurrent(t *testing.T) {
	m := truthDBN(t, 21)
	r := rand.New(rand.NewPCG(5, 6))
	var seqs []learn.Seq
	for _, n := range []int{3, 4, 5, 6} { // four horizons
		seqs = append(seqs, sampleSeqs(t, m, r, 5, n, []string{"A"}, 0.1)...)
	}
	shards := partition(seqs, 5, true, r)
	c := learn.NewSeqCensus(m)
	if err := c.Add(seqs, 0); err != nil {
		t.Fatal(err)
	}
	p, err := learn.NewSeqPlan(m, c, learn.SeqOptions{Options: learn.Options{Method: learn.EM, Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	sum := func(parallel bool) *learn.SeqStats {
		e, err := p.EStep(m)
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]*learn.SeqStats, len(shards))
		errs := make([]error, len(shards))
		var wg sync.WaitGroup
		for i := range shards {
			parts[i] = e.NewStats()
			if !parallel {
				errs[i] = e.Add(parts[i], shards[i], 0)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = e.Add(parts[i], shards[i], 0)
			}()
		}
		wg.Wait()
		total := p.NewStats()
		for i := range parts {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			total.Merge(parts[i])
		}
		return total
	}
	a, b := sum(true), sum(false)
	if a.LogLik != b.LogLik || math.IsNaN(a.LogLik) || a.Seqs != int64(len(seqs)) || a.Steps != b.Steps {
		t.Fatalf("concurrent: %d sequences, log-likelihood %v; in turn %d, %v", a.Seqs, a.LogLik, b.Seqs, b.LogLik)
	}
	for g := range a.Groups {
		for i := range a.Groups[g] {
			if a.Groups[g][i] != b.Groups[g][i] {
				t.Errorf("group %d, statistic %d: %v concurrent, %v in turn", g, i, a.Groups[g][i], b.Groups[g][i])
			}
		}
	}
}
