// Package enginetest checks an inference engine against brute-force
// enumeration, as testing/fstest checks a file system: a new engine's
// test calls [Run] with it, and the engines of package infer run the same
// suite (see enginetest_test.go). The suite uses only infer's exported
// API: [infer.Engine], its [infer.Instance], and the tables and scaled
// numbers of package factor.
//
// The models are small Bayesian networks and Markov networks built in Go
// (a chain, the sprinkler network, random networks with zeros in their
// tables, a Markov network whose potentials span 2^±600, a network whose
// evidence has probability near 10^-700, below float64's range, so that
// an engine must carry the scale) with possible and impossible evidence.
// For each, the suite compares the engine's Partition, Joint for the
// empty set, every unobserved variable and pairs of them, and MaxAssign
// over every unobserved variable (MPE) and a subset (MAP) with the same
// quantities computed by enumerating every assignment in log space.
package enginetest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// Tolerance is the largest difference of natural logarithms (relative to
// the larger of 1 and the logarithm's magnitude) between the engine's
// numbers and the brute-force ones that the suite accepts.
const Tolerance = 1e-9

// Span is how far below the largest entry of a table Joint returns, in
// natural logarithm, its entries are checked: a float64 table relative to
// its largest (a factor and one scale) holds entries down to about
// e^-744 of it, and loses digits before that (2^-990 is e^-686). An entry
// further below may be 0 or anything as small.
const Span = 686

// Case is one model and one evidence set of the suite.
type Case struct {
	Name     string
	Model    *ir.Model
	Evidence []ir.Obs
	MAP      []ir.VarID // the variables of a MAP query, or nil
}

// Cases returns the suite's models and evidence sets, built afresh.
func Cases() ([]Case, error) {
	var out []Case
	add := func(name string, m *ir.Model, err error, mapVars []ir.VarID, evs ...[]ir.Obs) error {
		if err != nil {
			return fmt.Errorf("enginetest: %s: %w", name, err)
		}
		for i, ev := range evs {
			out = append(out, Case{Name: fmt.Sprintf("%s/%d", name, i), Model: m, Evidence: ev, MAP: mapVars})
		}
		return nil
	}
	obs := func(vs ...int) []ir.Obs { // pairs of variable, state
		var o []ir.Obs
		for i := 0; i+1 < len(vs); i += 2 {
			o = append(o, ir.Obs{Var: ir.VarID(vs[i]), State: vs[i+1]})
		}
		return o
	}
	chain := net{card: []int{2, 3, 2}, parents: [][]int{nil, {0}, {1}},
		cpt: [][]float64{{0.3, 0.7}, {0.5, 0.3, 0.2, 0.1, 0.1, 0.8}, {0.9, 0.1, 0.4, 0.6, 0, 1}}}
	m, err := chain.model("chain")
	if err := add("chain", m, err, []ir.VarID{1}, nil, obs(2, 0), obs(0, 1, 2, 1), obs(1, 2, 2, 0) /* impossible */); err != nil {
		return nil, err
	}
	// The sprinkler network: Cloudy -> Sprinkler, Rain -> WetGrass.
	spr := net{card: []int{2, 2, 2, 2}, parents: [][]int{nil, {0}, {0}, {1, 2}},
		cpt: [][]float64{{0.5, 0.5}, {0.5, 0.5, 0.9, 0.1}, {0.8, 0.2, 0.2, 0.8}, {1, 0, 0.1, 0.9, 0.1, 0.9, 0.01, 0.99}}}
	m, err = spr.model("sprinkler")
	if err := add("sprinkler", m, err, []ir.VarID{0, 2}, nil, obs(3, 1), obs(3, 0, 0, 1), obs(1, 0, 2, 0, 3, 1) /* impossible */); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(28, 2))
	for i := range 4 {
		r := randomNet(rng, 7)
		m, err = r.model(fmt.Sprintf("random%d", i))
		if err := add(fmt.Sprintf("random%d", i), m, err, []ir.VarID{1, 4}, nil, obs(6, 1), obs(0, 0, 5, 1)); err != nil {
			return nil, err
		}
	}
	// Tiny: twelve variables whose observed states have probability
	// 10^-60 each given any parent state; P(e) is about 10^-720, far below
	// the smallest float64.
	tiny := net{card: make([]int, 12), parents: make([][]int, 12), cpt: make([][]float64, 12)}
	for v := range 12 {
		tiny.card[v] = 2
		if v == 0 {
			tiny.cpt[v] = []float64{1e-60, 1 - 1e-60}
			continue
		}
		tiny.parents[v] = []int{v - 1}
		tiny.cpt[v] = []float64{1e-60, 1 - 1e-60, 2e-60, 1 - 2e-60}
	}
	m, err = tiny.model("tiny")
	all := make([]int, 0, 24)
	for v := range 12 {
		all = append(all, v, 0)
	}
	if err := add("tiny", m, err, []ir.VarID{0, 1}, obs(all[:22]...), obs(all...)); err != nil {
		return nil, err
	}
	for i, span := range []float64{1, 600} {
		m, err = markov(rand.New(rand.NewPCG(uint64(i), 28)), fmt.Sprintf("markov%d", i), 6, span)
		if err := add(fmt.Sprintf("markov%d", i), m, err, []ir.VarID{2, 3}, nil, obs(0, 1), obs(1, 0, 4, 1)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Run checks e against brute-force enumeration on every case of
// [Cases], each in a subtest.
func Run(t *testing.T, e infer.Engine) {
	t.Helper()
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { CheckCase(t, e, c) })
	}
}

// Check is Run without subtests, reporting every difference on tb: for a
// test of the suite itself, which must fail on a wrong engine.
func Check(tb testing.TB, e infer.Engine) {
	tb.Helper()
	cases, err := Cases()
	if err != nil {
		tb.Errorf("%v", err)
		return
	}
	for _, c := range cases {
		CheckCase(tb, e, c)
	}
}

// CheckCase checks e on one case, reporting each difference with
// tb.Errorf.
func CheckCase(tb testing.TB, e infer.Engine, c Case) {
	tb.Helper()
	m := c.Model
	obs := make([]int, len(m.Vars))
	for v := range obs {
		obs[v] = -1
	}
	for _, o := range c.Evidence {
		obs[o.Var] = o.State
	}
	bf := newBrute(m)
	in, err := e.Prepare(m, obs, infer.Options{Seed: 1})
	var me *infer.MarkovError
	if !e.Exact() && (errors.As(err, &me) || errors.Is(err, infer.ErrRange)) {
		// A sampler of Bayesian networks, on a Markov network; or an
		// engine that works in float64 refusing potentials beyond its
		// range: an inexact engine may refuse, never answer wrongly.
		return
	}
	if err != nil {
		tb.Errorf("%s: %s: Prepare: %v", c.Name, e.Name(), err)
		return
	}
	if !e.Exact() {
		checkInexact(tb, e, c, in, bf, obs)
		return
	}
	errorf := func(format string, args ...any) {
		tb.Helper()
		tb.Errorf("%s: %s: %s", c.Name, e.Name(), fmt.Sprintf(format, args...))
	}
	// Partition: every assignment, no evidence.
	z, err := in.Partition()
	if want := bf.logSum(nil, nil); err != nil || !nearLog(z.Log(), want) {
		errorf("Partition() = exp(%v), %v; brute force exp(%v)", z.Log(), err, want)
	}
	var free []ir.VarID
	for v, s := range obs {
		if s < 0 {
			free = append(free, ir.VarID(v))
		}
	}
	keeps := [][]ir.VarID{nil}
	for i, v := range free {
		keeps = append(keeps, []ir.VarID{v})
		if i > 0 {
			keeps = append(keeps, []ir.VarID{v, free[i-1]})
		}
	}
	for _, keep := range keeps {
		f, sc, err := in.Joint(keep)
		if err != nil {
			errorf("Joint(%v): %v", keep, err)
			continue
		}
		if len(f.Vars) != len(keep) || len(f.Vals) != bf.size(keep) {
			errorf("Joint(%v) has scope %v and %d entries", keep, f.Vars, len(f.Vals))
			continue
		}
		for i, v := range keep {
			if f.Vars[i] != v {
				errorf("Joint(%v) has scope %v", keep, f.Vars)
			}
		}
		a := make([]int, len(keep))
		want := make([]float64, len(f.Vals))
		top := math.Inf(-1)
		for i := range f.Vals {
			f.Assignment(a, i)
			want[i] = bf.logSum(obs, assign(keep, a))
			top = math.Max(top, want[i])
		}
		for i, x := range f.Vals {
			f.Assignment(a, i)
			got := factor.Scaled{M: x * sc.M, E: sc.E}.Norm().Log()
			if want[i] < top-Span {
				// Below what a float64 table relative to its largest
				// holds: 0, or anything as small.
				if !(got < top-Span+1 || math.IsInf(got, -1)) {
					errorf("Joint(%v)%v = exp(%v), brute force exp(%v)", keep, a, got, want[i])
				}
				continue
			}
			if !nearLog(got, want[i]) {
				errorf("Joint(%v)%v = exp(%v), brute force exp(%v)", keep, a, got, want[i])
			}
		}
	}
	// MPE, and MAP over a subset, when the evidence is possible.
	pe := bf.logSum(obs, nil)
	if math.IsInf(pe, -1) {
		return
	}
	maxSets := [][]ir.VarID{free}
	if mv := unobserved(c.MAP, obs); len(mv) > 0 && len(mv) < len(free) {
		maxSets = append(maxSets, mv)
	}
	for _, mv := range maxSets {
		best, mx, err := in.MaxAssign(mv)
		if err != nil {
			errorf("MaxAssign(%v): %v", mv, err)
			continue
		}
		want := bf.logMax(obs, mv)
		if !nearLog(mx.Log(), want) {
			errorf("MaxAssign(%v): maximum exp(%v), brute force exp(%v)", mv, mx.Log(), want)
		}
		if len(best) != len(m.Vars) {
			errorf("MaxAssign(%v) gave %d states for %d variables", mv, len(best), len(m.Vars))
			continue
		}
		a := make([]int, len(mv))
		for i, v := range mv {
			a[i] = best[v]
			if a[i] < 0 || a[i] >= bf.card[v] {
				errorf("MaxAssign(%v): state %d of variable %d", mv, a[i], v)
				a = nil
				break
			}
		}
		if a == nil {
			continue
		}
		// The assignment returned must reach the maximum (ties may go
		// either way).
		if got := bf.logSum(obs, assign(mv, a)); !nearLog(got, want) {
			errorf("MaxAssign(%v) = %v of probability exp(%v), the maximum is exp(%v)", mv, a, got, want)
		}
	}
}

// InexactSlack is how many times its own error estimate an inexact
// engine's number may be off: the estimates are meant to hold the exact
// value about 95 % of the time, and the suite's cases are few.
const InexactSlack = 3

// checkInexact checks an engine that is not exact (which may refuse, with
// infer.ErrRange, potentials beyond the range of its arithmetic), whose
// instance must be [infer.Inexact]: a Partition refused with
// infer.ErrRange is accepted; every number it returns within InexactSlack times the
// error it reports for it (conditional probabilities, and logarithms of
// sums), never NaN; MaxAssign's assignment a valid one whose value it
// reports within its error, at most the maximum.
func checkInexact(tb testing.TB, e infer.Engine, c Case, in infer.Instance, bf *brute, obs []int) {
	tb.Helper()
	errorf := func(format string, args ...any) {
		tb.Helper()
		tb.Errorf("%s: %s: %s", c.Name, e.Name(), fmt.Sprintf(format, args...))
	}
	ie, ok := in.(infer.Inexact)
	if !ok {
		errorf("the instance of an inexact engine is not infer.Inexact")
		return
	}
	nearErr := func(got, want, err float64) bool {
		if math.IsInf(want, -1) || math.IsInf(got, -1) {
			return math.IsInf(want, -1) && math.IsInf(got, -1) || math.IsInf(err, 1)
		}
		return math.Abs(got-want) <= InexactSlack*err+1e-9*math.Max(1, math.Abs(want))
	}
	m := c.Model
	if !m.IsBayesNet() {
		z, err := in.Partition()
		if want := bf.logSum(nil, nil); !errors.Is(err, infer.ErrRange) && (err != nil || !nearErr(z.Log(), want, ie.PartitionErr().Err)) {
			errorf("Partition() = exp(%v ± %v), %v; brute force exp(%v)", z.Log(), ie.PartitionErr().Err, err, want)
		}
	}
	var free []ir.VarID
	for v, s := range obs {
		if s < 0 {
			free = append(free, ir.VarID(v))
		}
	}
	keeps := [][]ir.VarID{nil}
	for i, v := range free {
		keeps = append(keeps, []ir.VarID{v})
		if i > 0 {
			keeps = append(keeps, []ir.VarID{v, free[i-1]})
		}
	}
	pe := bf.logSum(obs, nil)
	for _, keep := range keeps {
		f, sc, err := in.Joint(keep)
		if err != nil {
			errorf("Joint(%v): %v", keep, err)
			continue
		}
		if len(f.Vars) != len(keep) || len(f.Vals) != bf.size(keep) {
			errorf("Joint(%v) has scope %v and %d entries", keep, f.Vars, len(f.Vals))
			continue
		}
		cond, ls := ie.JointErr()
		if len(cond) != len(f.Vals) {
			errorf("Joint(%v): %d errors for %d entries", keep, len(cond), len(f.Vals))
			continue
		}
		total := 0.0
		for _, x := range f.Vals {
			total += x
		}
		got := factor.Scaled{M: total * sc.M, E: sc.E}.Norm().Log()
		if !nearErr(got, pe, ls.Err) {
			errorf("Joint(%v): ln of its sum %v ± %v, brute force %v", keep, got, ls.Err, pe)
		}
		if math.IsInf(pe, -1) || total == 0 {
			continue
		}
		a := make([]int, len(keep))
		for i, x := range f.Vals {
			f.Assignment(a, i)
			want := math.Exp(bf.logSum(obs, assign(keep, a)) - pe)
			p := x / total
			if math.IsNaN(p) || math.IsNaN(cond[i]) || !(math.Abs(p-want) <= InexactSlack*cond[i]+1e-9) {
				errorf("Joint(%v)%v: P(keep | e) = %v ± %v, brute force %v", keep, a, p, cond[i], want)
			}
		}
	}
	if math.IsInf(pe, -1) {
		return
	}
	maxSets := [][]ir.VarID{free}
	if mv := unobserved(c.MAP, obs); len(mv) > 0 && len(mv) < len(free) {
		maxSets = append(maxSets, mv)
	}
	for _, mv := range maxSets {
		best, mx, err := in.MaxAssign(mv)
		if err != nil {
			errorf("MaxAssign(%v): %v", mv, err)
			continue
		}
		if len(best) != len(m.Vars) {
			errorf("MaxAssign(%v) gave %d states for %d variables", mv, len(best), len(m.Vars))
			continue
		}
		a := make([]int, len(mv))
		for i, v := range mv {
			a[i] = best[v]
			if a[i] < 0 || a[i] >= bf.card[v] {
				errorf("MaxAssign(%v): state %d of variable %d", mv, a[i], v)
				a = nil
				break
			}
		}
		if a == nil {
			continue
		}
		value := bf.logSum(obs, assign(mv, a))
		if me := ie.MaxErr().Err; !nearErr(mx.Log(), value, me) || value > bf.logMax(obs, mv)+1e-9 {
			errorf("MaxAssign(%v) = %v, value exp(%v ± %v), its value exp(%v), the maximum exp(%v)", mv, a, mx.Log(), me, value, bf.logMax(obs, mv))
		}
	}
}

// nearLog compares two natural logarithms: -Inf (a zero) only with -Inf;
// false on NaN.
func nearLog(got, want float64) bool {
	if math.IsInf(want, -1) || math.IsInf(got, -1) {
		return math.IsInf(want, -1) && math.IsInf(got, -1)
	}
	return math.Abs(got-want) <= Tolerance*math.Max(1, math.Abs(want))
}

// unobserved returns the variables of vs that obs leaves unobserved.
func unobserved(vs []ir.VarID, obs []int) []ir.VarID {
	var out []ir.VarID
	for _, v := range vs {
		if obs[v] < 0 {
			out = append(out, v)
		}
	}
	return out
}

// assign returns the evidence-like assignment of states a to vars.
func assign(vars []ir.VarID, a []int) []ir.Obs {
	out := make([]ir.Obs, len(vars))
	for i, v := range vars {
		out[i] = ir.Obs{Var: v, State: a[i]}
	}
	return out
}
