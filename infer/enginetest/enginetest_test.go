package enginetest_test

import (
	"fmt"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/infer/enginetest"
	"github.com/pbl-lang/pbl/ir"
)

// toy is an engine written through infer's and factor's exported API
// alone: it enumerates every assignment, multiplying the model's factors
// in scaled arithmetic (factor.Scaled) so that tiny probabilities keep
// their exponent. defect makes it wrong on purpose, to check that the
// suite fails.
type toy struct {
	name   string
	defect string // "", "factor" (Joint off by 1.01), "argmax" (MaxAssign returns the first assignment)
}

func (e toy) Name() string { return e.name }
func (e toy) Doc() string  { return "brute-force enumeration (a test engine)" }
func (e toy) Exact() bool  { return true }

func (e toy) Prepare(m *ir.Model, obs []int, opt infer.Options) (infer.Instance, error) {
	if len(obs) != len(m.Vars) {
		return nil, fmt.Errorf("toy: %d observations for %d variables", len(obs), len(m.Vars))
	}
	card := make([]int, len(m.Vars))
	for v := range card {
		card[v] = len(m.Vars[v].States)
	}
	return &toyInstance{e: e, fs: m.Factors(), obs: obs, card: card}, nil
}

type toyInstance struct {
	e    toy
	fs   []*factor.Factor
	obs  []int
	card []int
}

// sums returns, for each assignment of keep (row-major), Σ Π φ over the
// assignments consistent with obs (nil for none).
func (in *toyInstance) sums(keep []ir.VarID, obs []int) (*factor.Factor, []factor.Scaled) {
	kc := make([]int, len(keep))
	for i, v := range keep {
		kc[i] = in.card[v]
	}
	out := factor.New(keep, kc)
	acc := make([]factor.Scaled, len(out.Vals))
	a := make([]int, len(in.card))
	var rec func(v int)
	rec = func(v int) {
		if v == len(a) {
			p := factor.Scaled{M: 1}
			for _, f := range in.fs {
				off := 0
				for i, w := range f.Vars {
					off += a[w] * f.Stride[i]
				}
				p = p.MulFloat(f.Vals[off])
			}
			off := 0
			for i, w := range keep {
				off += a[w] * out.Stride[i]
			}
			acc[off] = acc[off].Add(p)
			return
		}
		lo, hi := 0, in.card[v]
		if obs != nil && obs[v] >= 0 {
			lo, hi = obs[v], obs[v]+1
		}
		for s := lo; s < hi; s++ {
			a[v] = s
			rec(v + 1)
		}
	}
	rec(0)
	return out, acc
}

func (in *toyInstance) Joint(keep []ir.VarID) (*factor.Factor, factor.Scaled, error) {
	out, acc := in.sums(keep, in.obs)
	var top factor.Scaled
	for _, x := range acc {
		if top.Less(x) {
			top = x
		}
	}
	for i, x := range acc {
		if top.M != 0 {
			out.Vals[i] = x.Div(top)
		}
	}
	if in.e.defect == "factor" {
		top = top.MulFloat(1.01)
	}
	return out, top, nil
}

func (in *toyInstance) Partition() (factor.Scaled, error) {
	_, acc := in.sums(nil, nil)
	return acc[0], nil
}

func (in *toyInstance) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	out, acc := in.sums(maxVars, in.obs)
	best := 0
	for i, x := range acc {
		if acc[best].Less(x) && in.e.defect != "argmax" {
			best = i
		}
	}
	if in.e.defect == "argmax" {
		// The right maximum, the wrong assignment: the first.
		for _, x := range acc {
			if acc[best].Less(x) {
				acc[best] = x
			}
		}
	}
	a := make([]int, len(in.card))
	for i := range a {
		a[i] = -1
	}
	st := out.Assignment(make([]int, len(maxVars)), best)
	for i, v := range maxVars {
		a[v] = st[i]
	}
	return a, acc[best], nil
}

// TestToyEngine runs the suite on the toy engine, which implements
// infer.Engine through exported names only.
func TestToyEngine(t *testing.T) {
	enginetest.Run(t, toy{name: "toy"})
}

// TestRegisteredEngines runs the suite on every registered engine.
func TestRegisteredEngines(t *testing.T) {
	engines := infer.Engines()
	if len(engines) < 4 {
		t.Fatalf("%d engines registered, want enum, ve, jt and bnb at least", len(engines))
	}
	for _, e := range engines {
		t.Run(e.Name(), func(t *testing.T) { enginetest.Run(t, e) })
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestSuiteFails: a toy engine off by a factor of 1.01 in its joint, or
// returning a wrong MPE assignment, fails the suite.
func TestSuiteFails(t *testing.T) {
	for _, defect := range []string{"factor", "argmax"} {
		r := &recorder{TB: t}
		enginetest.Check(r, toy{name: "bad", defect: defect})
		if len(r.errors) == 0 {
			t.Errorf("the suite passed an engine with defect %q", defect)
		} else {
			t.Logf("defect %q: %d errors, the first: %s", defect, len(r.errors), r.errors[0])
		}
	}
	r := &recorder{TB: t}
	enginetest.Check(r, toy{name: "good"})
	if len(r.errors) > 0 {
		t.Errorf("the suite failed a correct engine: %s", r.errors[0])
	}
}

// TestRegisterToy registers the toy engine: Answer then answers with it by
// name, and reports what the engine says of exactness.
func TestRegisterToy(t *testing.T) {
	if _, err := infer.Lookup("toytest"); err != nil { // not yet registered (-count > 1)
		infer.Register(toy{name: "toytest"})
	}
	if _, err := infer.ParseEngine("toytest"); err != nil {
		t.Fatal(err)
	}
	cases, err := enginetest.Cases()
	if err != nil {
		t.Fatal(err)
	}
	m := cases[0].Model
	q := &ir.ProbQuery{Targets: []ir.VarID{0}, TargetStates: []int{1}}
	got, err := infer.Answer(m, q, infer.Options{Engine: "toytest"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := infer.Answer(m, q, infer.Options{Engine: infer.Enum})
	if err != nil {
		t.Fatal(err)
	}
	g, w := got.(*infer.Number), want.(*infer.Number)
	if !(g.P == w.P) || !g.Exact || g.ErrorEstimate != nil {
		t.Errorf("toy engine: P = %v (exact %v, %v), enumeration %v", g.P, g.Exact, g.ErrorEstimate, w.P)
	}
}
